//! One boot: QEMU started, its vCPUs placed, watched until the guest
//! powers off, the time runs out or the user stops it, and what came
//! back read and checked.  Everything a boot needs is in its own folder
//! of the session's private scratch space.

use super::channel::{self, Report};
use super::qemu::{Launch, Qemu};
use crate::sys::procfs::{self, cpustat};
use anyhow::Result;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How the vCPU threads are placed.
#[derive(Clone, Debug, Default)]
pub struct Placement {
    /// Host CPU for each vCPU, in order (empty: left to the scheduler).
    pub vcpu_cpus: Vec<usize>,
    /// Host CPUs for QEMU's other threads (main loop, I/O, RCU).
    pub house_cpus: Vec<usize>,
    /// SCHED_FIFO priority of the vCPU threads, when asked.
    pub rt_priority: Option<i32>,
    /// Why there is no pinning, when there is none.
    pub not_pinned: Option<String>,
}

/// What one boot needs.
pub struct Plan<'a> {
    pub qemu: &'a Qemu,
    pub launch: Launch<'a>,
    pub dir: &'a Path,
    pub timeout: Duration,
    pub placement: &'a Placement,
    /// Where the guest's console goes, line by line, as it comes
    /// (`--console`: the front's notes).
    pub console: Option<&'a dyn Fn(&str)>,
}

/// The host's CPU time split, for steal and load over a boot.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Host {
    /// Steal over the boot, % of all CPU time.
    pub steal_pct: Option<f64>,
    /// Load averages (1 min) when the boot started and ended.
    pub load_start: Option<f64>,
    pub load_end: Option<f64>,
}

/// How a boot ended.
pub struct Outcome {
    /// The guest's report and store, or why there is none.
    pub result: std::result::Result<(Report, Vec<u8>), String>,
    /// When QEMU started (Unix seconds), and from then to its exit.
    pub started: f64,
    pub wall_s: f64,
    pub console_tail: Vec<String>,
    /// The placement that took effect (threads and CPUs), as recorded.
    pub placement: serde_json::Value,
    pub host: Host,
    pub interrupted: bool,
}

/// The lines of the console kept with a failed boot.
const TAIL_LINES: usize = 25;

/// Boot once.
pub fn run(p: &Plan, mut progress: impl FnMut(Duration)) -> Result<Outcome> {
    let log = p.dir.join("qemu.log");
    let start_stat = cpustat::all_cpus();
    let load_start = procfs::loadavg_1min();
    let started_unix = crate::sys::time::unix_now();
    let started = Instant::now();
    let mut child = super::qemu::spawn(p.qemu, &p.launch, &log)?;
    let qemu_pid = child.id() as i32;
    let mut placement: Option<serde_json::Value> = None;
    let mut console = Console::new(p.launch.console, p.console);
    let mut why_stopped = None;
    let mut interrupted = false;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break Some(st);
        }
        console.pass_on();
        let t = started.elapsed();
        if placement.is_none() {
            placement = try_place(p, qemu_pid, t);
        }
        progress(t);
        if t >= p.timeout {
            why_stopped = Some(format!(
                "the guest did not power off within --timeout {} s",
                p.timeout.as_secs()
            ));
            break None;
        }
        if crate::sys::signals::stop_requested() {
            interrupted = true;
            why_stopped = Some("stopped by the user".into());
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    console.pass_on();
    console.flush();
    let wall_s = started.elapsed().as_secs_f64();
    let host = Host {
        steal_pct: match (start_stat, cpustat::all_cpus()) {
            (Some(a), Some(b)) => steal_pct(&a, &b),
            _ => None,
        },
        load_start,
        load_end: procfs::loadavg_1min(),
    };
    let console_tail = tail(p.launch.console);
    let result = match why_stopped {
        Some(why) => Err(why),
        None => read_result(p.launch.result).map_err(|broken| {
            let qemu_said = qemu_messages(&log);
            let panic = console_tail
                .iter()
                .find(|l| l.contains("Kernel panic"))
                .cloned();
            match (qemu_said, panic) {
                (Some(q), _) => format!("QEMU: {q}"),
                (None, Some(k)) => format!("{broken}: {}", k.trim()),
                (None, None) => broken,
            }
        }),
    };
    Ok(Outcome {
        result,
        started: started_unix,
        wall_s,
        console_tail,
        placement: placement.unwrap_or_else(|| {
            serde_json::json!({ "pinned": false, "why": "QEMU ended before its QMP socket answered" })
        }),
        host,
        interrupted,
    })
}

/// How long QEMU has to open its QMP socket.
const QMP_WAIT: Duration = Duration::from_secs(10);

/// Place the threads once QEMU's QMP socket answers: `None` while it is
/// not there yet (QEMU starting), else what took effect or why nothing did.
fn try_place(p: &Plan, qemu_pid: i32, t: Duration) -> Option<serde_json::Value> {
    if let Some(why) = &p.placement.not_pinned {
        return Some(serde_json::json!({ "pinned": false, "why": why }));
    }
    match super::qmp::Qmp::connect(p.launch.qmp, Duration::ZERO) {
        Ok(q) => Some(place(p, qemu_pid, q)),
        Err(_) if t < QMP_WAIT => None,
        Err(e) => Some(serde_json::json!({ "pinned": false, "why": format!("{e:#}") })),
    }
}

/// Pin the vCPU threads (found over QMP) and QEMU's other threads as
/// planned; what took effect, or why nothing did.
fn place(p: &Plan, qemu_pid: i32, mut qmp: super::qmp::Qmp) -> serde_json::Value {
    let pl = p.placement;
    let threads = qmp.vcpu_threads();
    let threads = match threads {
        Ok(t) if t.len() == pl.vcpu_cpus.len() => t,
        Ok(t) => {
            return serde_json::json!({ "pinned": false,
                "why": format!("QEMU reported {} vCPU threads, {} were planned", t.len(), pl.vcpu_cpus.len()) })
        }
        Err(e) => return serde_json::json!({ "pinned": false, "why": format!("{e:#}") }),
    };
    let vcpu_tids: Vec<i32> = threads.iter().map(|t| t.1).collect();
    let mut problems = Vec::new();
    // QEMU's own threads first: new ones inherit the main thread's CPUs.
    for tid in procfs::tasks(qemu_pid) {
        if !vcpu_tids.contains(&tid) {
            if let Err(e) = crate::sys::sched::set_affinity(tid, &pl.house_cpus) {
                problems.push(format!("thread {tid}: {e}"));
            }
        }
    }
    let mut vcpus = Vec::new();
    for ((index, tid), cpu) in threads.iter().zip(&pl.vcpu_cpus) {
        if let Err(e) = crate::sys::sched::set_affinity(*tid, &[*cpu]) {
            problems.push(format!("vCPU {index}: {e}"));
        }
        if let Some(prio) = pl.rt_priority {
            if let Err(e) =
                crate::sys::sched::set_policy(*tid, crate::sys::sched::Policy::Fifo, prio)
            {
                problems.push(format!("vCPU {index} at FIFO {prio}: {e:#}"));
            }
        }
        vcpus.push(serde_json::json!({ "vcpu": index, "thread": tid, "host_cpu": cpu }));
    }
    serde_json::json!({
        "pinned": problems.is_empty(),
        "vcpus": vcpus,
        "qemu_threads_cpus": crate::sys::cpus::format_list(&pl.house_cpus),
        "rt_priority": pl.rt_priority,
        "problems": problems,
    })
}

/// Read the result port's file and take the frame in it.
fn read_result(path: &Path) -> std::result::Result<(Report, Vec<u8>), String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let f = std::fs::File::open(path).map_err(|_| channel::Broken::NotSent.to_string())?;
    f.take(channel::MAX_PAYLOAD + 4096)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading the guest's result: {e}"))?;
    channel::decode(&bytes).map_err(|b| b.to_string())
}

/// QEMU's own first error line, if it printed one.
fn qemu_messages(log: &Path) -> Option<String> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.contains("warning:"))
        .map(|l| crate::text::clean(l).into_owned())
}

/// The console's last lines (printable; the console is the guest's text).
fn tail(console: &Path) -> Vec<String> {
    let text = read_tail(console, 64 << 10);
    let lines: Vec<String> = text
        .lines()
        .map(|l| crate::text::clean(l.trim_end_matches('\r')).into_owned())
        .filter(|l| !l.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].to_vec()
}

fn read_tail(path: &Path, most: u64) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(most)));
    let mut b = Vec::new();
    let _ = f.take(most).read_to_end(&mut b);
    String::from_utf8_lossy(&b).into_owned()
}

/// The console, handed on line by line as it grows (with `--console`);
/// a line not yet ended waits for its end, or for the boot's.
struct Console<'a> {
    path: PathBuf,
    say: Option<&'a dyn Fn(&str)>,
    at: u64,
    rest: String,
}

impl<'a> Console<'a> {
    fn new(path: &Path, say: Option<&'a dyn Fn(&str)>) -> Console<'a> {
        Console {
            path: path.to_path_buf(),
            say,
            at: 0,
            rest: String::new(),
        }
    }

    fn pass_on(&mut self) {
        use std::io::{Read, Seek, SeekFrom};
        let Some(say) = self.say else {
            return;
        };
        let Ok(mut f) = std::fs::File::open(&self.path) else {
            return;
        };
        if f.seek(SeekFrom::Start(self.at)).is_err() {
            return;
        }
        let mut b = Vec::new();
        let _ = f.take(1 << 20).read_to_end(&mut b);
        self.at += b.len() as u64;
        self.rest
            .push_str(&String::from_utf8_lossy(&b).replace('\r', ""));
        while let Some(i) = self.rest.find('\n') {
            say(&crate::text::clean(&self.rest[..i]));
            self.rest.drain(..=i);
        }
        // A line that never ends is handed on in pieces of 4 KiB.
        if self.rest.len() > 4096 {
            say(&crate::text::clean(&self.rest));
            self.rest.clear();
        }
    }

    /// The last line, unended, at the boot's end.
    fn flush(&mut self) {
        if let (Some(say), false) = (self.say, self.rest.is_empty()) {
            say(&crate::text::clean(&self.rest));
            self.rest.clear();
        }
    }
}

/// Steal as % of all time between two reads of `/proc/stat`'s all-CPU
/// line.
fn steal_pct(a: &[u64], b: &[u64]) -> Option<f64> {
    let total: u64 = b
        .iter()
        .zip(a)
        .take(cpustat::STEAL + 1)
        .map(|(x, y)| x.saturating_sub(*y))
        .sum();
    let at = cpustat::STEAL;
    let steal = b.get(at)?.saturating_sub(*a.get(at)?);
    (total > 0).then(|| steal as f64 * 100.0 / total as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_a_share_of_all_time() {
        let a = [100, 0, 50, 800, 0, 0, 0, 50];
        let b = [200, 0, 100, 1600, 0, 0, 0, 100];
        let s = steal_pct(&a, &b).unwrap();
        assert!((s - 50.0 / 1000.0 * 100.0).abs() < 1e-9, "{s}");
        assert_eq!(steal_pct(&a, &a), None);
    }

    #[test]
    fn the_console_tail_is_its_last_printable_lines() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("console");
        let text: String =
            (0..40).map(|i| format!("line {i}\r\n")).collect::<String>() + "\x1b[31mred\r\n";
        std::fs::write(&p, text).unwrap();
        let t = tail(&p);
        assert_eq!(t.len(), TAIL_LINES);
        assert_eq!(t[0], "line 16");
        assert!(!t.last().unwrap().contains('\x1b'), "{:?}", t.last());
    }
}
