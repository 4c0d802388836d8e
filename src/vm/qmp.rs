//! A minimal QMP client (QEMU's machine protocol, `docs/interop/qmp-spec`):
//! a greeting, `qmp_capabilities`, then one JSON command per line, each
//! answered by `{"return": …}` or `{"error": …}` with asynchronous
//! `{"event": …}` lines in between.  kbench asks two things: where the
//! vCPU threads are (`query-cpus-fast`, to pin them) and to quit.

use anyhow::{anyhow, Context, Result};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

pub struct Qmp {
    out: UnixStream,
    lines: BufReader<UnixStream>,
}

/// The longest a QMP line may be (QEMU's answers are short).
const MAX_LINE: usize = 1 << 20;

impl Qmp {
    /// Connect to QEMU's socket at `path`, waiting up to `wait` for QEMU
    /// to make it (`Duration::ZERO`: one try).
    pub fn connect(path: &Path, wait: Duration) -> Result<Qmp> {
        let until = Instant::now() + wait;
        let s = loop {
            match UnixStream::connect(path) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= until => {
                    return Err(anyhow!("QEMU's QMP socket {}: {e}", path.display()))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut q = Qmp {
            out: s.try_clone()?,
            lines: BufReader::new(s),
        };
        let hello = q.line()?;
        if hello.get("QMP").is_none() {
            return Err(anyhow!("QEMU's QMP socket did not greet as QMP does"));
        }
        q.execute("qmp_capabilities")?;
        Ok(q)
    }

    fn line(&mut self) -> Result<serde_json::Value> {
        let mut l = String::new();
        let n = std::io::Read::take(&mut self.lines, MAX_LINE as u64)
            .read_line(&mut l)
            .context("reading QMP")?;
        if n == 0 {
            return Err(anyhow!("QEMU closed its QMP socket"));
        }
        serde_json::from_str(&l).map_err(|e| anyhow!("QEMU's QMP answer is not JSON: {e}"))
    }

    /// Run `command` and return its `return` value.
    pub fn execute(&mut self, command: &str) -> Result<serde_json::Value> {
        let mut req = serde_json::to_vec(&serde_json::json!({ "execute": command }))?;
        req.push(b'\n');
        self.out.write_all(&req)?;
        loop {
            let v = self.line()?;
            if let Some(r) = v.get("return") {
                return Ok(r.clone());
            }
            if let Some(e) = v.get("error") {
                return Err(anyhow!(
                    "QMP {command}: {}",
                    e["desc"].as_str().unwrap_or("error")
                ));
            }
            // An event: not the answer.
        }
    }

    /// The host thread of each vCPU, by vCPU index.
    pub fn vcpu_threads(&mut self) -> Result<Vec<(u32, i32)>> {
        let r = self.execute("query-cpus-fast")?;
        let mut v: Vec<(u32, i32)> = r
            .as_array()
            .ok_or_else(|| anyhow!("query-cpus-fast gave no list"))?
            .iter()
            .filter_map(|c| {
                Some((
                    u32::try_from(c["cpu-index"].as_u64()?).ok()?,
                    i32::try_from(c["thread-id"].as_i64()?).ok()?,
                ))
            })
            .collect();
        v.sort_unstable();
        Ok(v)
    }
}
