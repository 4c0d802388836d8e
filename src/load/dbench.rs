//! dbench: contest's dbench load, the real `dbench` (Debian's package)
//! with 16×ncpu clients, run again and again.  Its per-second progress
//! lines give the operations completed.  Work: dbench operations.

use super::runner::tool;
use super::Load;
use anyhow::Result;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Where Debian's dbench keeps its load file.
const LOADFILES: &[&str] = &[
    "/usr/share/dbench/client.txt",
    "/usr/share/dbench4/client.txt",
];

pub struct Dbench {
    clients: usize,
    loadfile: PathBuf,
}

/// Find `name` on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

impl Dbench {
    pub fn new(clients: usize) -> Result<Dbench> {
        if which("dbench").is_none() {
            return Err(crate::error::input(
                "dbench not found: apt-get install dbench",
            ));
        }
        let loadfile = LOADFILES
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
            .ok_or_else(|| {
                crate::error::input(
                    "dbench's client.txt load file not found: apt-get install --reinstall dbench",
                )
            })?;
        Ok(Dbench {
            clients: clients.max(1),
            loadfile,
        })
    }
}

/// The cumulative operation count of a dbench progress line such as
/// `  32      4512   187.23 MB/sec  execute   2 sec  latency 12.345 ms`.
pub fn progress_ops(line: &str) -> Option<u64> {
    let mut f = line.split_whitespace();
    let _clients: u64 = f.next()?.parse().ok()?;
    let ops: u64 = f.next()?.parse().ok()?;
    let _rate: f64 = f.next()?.parse().ok()?;
    (f.next()? == "MB/sec").then_some(ops)
}

impl Load for Dbench {
    fn name(&self) -> &'static str {
        "dbench"
    }
    fn unit(&self) -> &'static str {
        "ops"
    }
    fn describe(&self) -> String {
        format!("dbench with {} clients, repeatedly", self.clients)
    }
    fn prepare(&mut self, _dir: &Path, _progress: &mut dyn FnMut(u64, u64)) -> Result<()> {
        Ok(())
    }
    /// dbench's client.txt load keeps about 22 MiB of files per client
    /// (8 clients peaked at 178 MiB here, by `du` every second); 32 MiB
    /// each leaves room.
    fn disk_claim(&self) -> Option<u64> {
        Some(self.clients as u64 * (32 << 20))
    }
    fn workers(&self) -> usize {
        1
    }
    fn run_worker(&self, _i: usize, dir: &Path, work: &AtomicU64) -> i32 {
        loop {
            let child = tool("dbench")
                .arg("-D")
                .arg(dir)
                .arg("-c")
                .arg(&self.loadfile)
                .args(["-t", "30"])
                .arg(self.clients.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn();
            let Ok(mut child) = child else { return 40 };
            let Some(out) = child.stdout.take() else {
                return 40;
            };
            let mut last = 0u64;
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                if let Some(ops) = progress_ops(&line) {
                    // The count restarts after warm-up: count only increases.
                    if ops > last {
                        work.fetch_add(ops - last, Relaxed);
                    }
                    last = ops;
                }
            }
            if !child.wait().is_ok_and(|s| s.success()) {
                return 41;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_progress_lines() {
        assert_eq!(
            progress_ops("  32      4512   187.23 MB/sec  execute   2 sec  latency 12.345 ms"),
            Some(4512)
        );
        assert_eq!(
            progress_ops("  32       120    12.00 MB/sec  warmup   1 sec  latency 1.0 ms"),
            Some(120)
        );
        assert_eq!(
            progress_ops("Throughput 187.23 MB/sec  32 clients  32 procs  max_latency=58.339 ms"),
            None
        );
        assert_eq!(progress_ops(""), None);
    }
}
