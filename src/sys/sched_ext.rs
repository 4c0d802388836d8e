//! What the kernel says of sched_ext: whether a BPF scheduler is
//! attached, which, how many times one was (`enable_seq`), its event
//! counters, and the kernel log lines that say it was thrown out.
//!
//! A sched_ext scheduler can be ejected at any moment (a watchdog stall,
//! a BPF error, SysRq-S), and a service manager may start it again within
//! a second: polling `root/ops` now and then misses that.  The kernel's
//! own counters do not: `enable_seq` grows by one at every attach, so a
//! run whose start and end read the same `enable_seq` with the state
//! enabled at both ran under one attachment for its whole length.  The
//! ejection's reason is only in the kernel log (`sched_ext: BPF scheduler
//! "NAME" disabled (REASON)`), read from `/dev/kmsg` from where it stood
//! when the run began.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Where the kernel shows sched_ext.
pub const ROOT: &str = "/sys/kernel/sched_ext";

/// sched_ext's state at one moment.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct State {
    /// `enabled`, `disabled`, `enabling`, `disabling`.
    pub state: String,
    /// One more at every attach.
    pub enable_seq: u64,
    /// The attached scheduler's name with its version suffix
    /// (`bpfland_1.1.4_x86_64_unknown_linux_gnu`), when one is.
    pub ops: Option<String>,
    /// The attached scheduler's event counters.
    pub events: BTreeMap<String, u64>,
}

impl State {
    pub fn enabled(&self) -> bool {
        self.state == "enabled"
    }
}

/// sched_ext's state under `root` (`None`: this kernel has none).
pub fn read_at(root: &Path) -> Option<State> {
    let text = |p: PathBuf| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
    };
    let state = text(root.join("state"))?;
    let enable_seq = text(root.join("enable_seq"))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let ops = text(root.join("root/ops")).filter(|s| !s.is_empty());
    let events = text(root.join("root/events"))
        .map(|t| {
            t.lines()
                .filter_map(|l| {
                    let mut w = l.split_whitespace();
                    let name = w.next()?;
                    let v = w.last()?.parse().ok()?;
                    Some((name.trim_end_matches(':').to_string(), v))
                })
                .collect()
        })
        .unwrap_or_default();
    Some(State {
        state,
        enable_seq,
        ops,
        events,
    })
}

/// sched_ext's state on this machine (`None`: this kernel has none).
pub fn read() -> Option<State> {
    read_at(Path::new(ROOT))
}

/// Eject the attached sched_ext scheduler, as SysRq-S does (root): for
/// tests of the audit.
#[cfg(debug_assertions)]
pub fn eject() -> std::io::Result<()> {
    std::fs::write("/proc/sysrq-trigger", "S")
}

/// The kernel log from a point on: what was logged after [`Kmsg::now`].
pub struct Kmsg {
    file: Option<std::fs::File>,
}

impl Kmsg {
    /// The log as it stands (nothing is read: `/dev/kmsg` opened at its
    /// end); `None` inside when it cannot be read (no privilege).
    pub fn now() -> Kmsg {
        use std::io::Seek;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open("/dev/kmsg")
            .ok()
            .and_then(|mut f| f.seek(std::io::SeekFrom::End(0)).ok().map(|_| f));
        Kmsg { file }
    }

    /// Every message logged since (each record's text), or `None` when
    /// the log could not be read.
    pub fn since(&mut self) -> Option<Vec<String>> {
        let f = self.file.as_mut()?;
        let mut out = Vec::new();
        let mut buf = vec![0u8; 8192];
        loop {
            match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    // A record: "prio,seq,usec,flags;text\n" and
                    // continuation lines.
                    let rec = String::from_utf8_lossy(&buf[..n]);
                    if let Some((_, text)) = rec.split_once(';') {
                        out.push(text.lines().next().unwrap_or("").to_string());
                    }
                }
                // Overwritten records since: go on from the oldest kept.
                Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
                Err(_) => break,
            }
        }
        Some(out)
    }
}

/// The reason in an ejection line (`sched_ext: BPF scheduler "bpfland"
/// disabled (runnable task stall)` gives `bpfland: runnable task
/// stall`), if `line` is one.
pub fn ejection(line: &str) -> Option<String> {
    let rest = line.split_once("sched_ext: BPF scheduler ")?.1;
    let (name, after) = match rest.strip_prefix('"') {
        Some(r) => r.split_once('"')?,
        None => rest.split_once(' ')?,
    };
    let after = after.trim_start().strip_prefix("disabled")?.trim();
    let reason = after
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(after);
    Some(format!("{name}: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_is_read_as_the_kernel_writes_it() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(read_at(d.path()), None);
        std::fs::write(d.path().join("state"), "enabled\n").unwrap();
        std::fs::write(d.path().join("enable_seq"), "3\n").unwrap();
        std::fs::create_dir(d.path().join("root")).unwrap();
        std::fs::write(
            d.path().join("root/ops"),
            "bpfland_1.1.4_x86_64_unknown_linux_gnu\n",
        )
        .unwrap();
        std::fs::write(
            d.path().join("root/events"),
            "SCX_EV_SELECT_CPU_FALLBACK: 12\nSCX_EV_DISPATCH_KEEP_LAST : 0\nnonsense\n",
        )
        .unwrap();
        let s = read_at(d.path()).unwrap();
        assert!(s.enabled());
        assert_eq!(s.enable_seq, 3);
        assert_eq!(
            s.ops.as_deref(),
            Some("bpfland_1.1.4_x86_64_unknown_linux_gnu")
        );
        assert_eq!(s.events["SCX_EV_SELECT_CPU_FALLBACK"], 12);
        assert_eq!(s.events["SCX_EV_DISPATCH_KEEP_LAST"], 0);
        assert_eq!(s.events.len(), 2);
    }

    #[test]
    fn ejection_lines_give_their_reason() {
        assert_eq!(
            ejection(r#"sched_ext: BPF scheduler "bpfland_1.1.4" disabled (runnable task stall)"#)
                .as_deref(),
            Some("bpfland_1.1.4: runnable task stall")
        );
        assert_eq!(
            ejection("sched_ext: BPF scheduler \"lavd\" disabled (sysrq-S)").as_deref(),
            Some("lavd: sysrq-S")
        );
        assert_eq!(ejection("sched_ext: BPF scheduler \"x\" enabled"), None);
        assert_eq!(ejection("usb 1-1: new device"), None);
    }
}
