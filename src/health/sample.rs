//! What the health monitor makes of the `/proc` files it samples (read
//! and parsed in [`crate::sys::procfs`]): CPU times by kind, and kbench's
//! own process tree.

use crate::sys::procfs;
use std::collections::BTreeMap;

/// Jiffies of one `cpu` line of `/proc/stat`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTimes {
    pub busy: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
}

impl CpuTimes {
    pub fn total(&self) -> u64 {
        [self.idle, self.iowait, self.irq, self.softirq, self.steal]
            .iter()
            .fold(self.busy, |a, b| a.saturating_add(*b))
    }

    pub fn minus(&self, before: &CpuTimes) -> CpuTimes {
        CpuTimes {
            busy: self.busy.saturating_sub(before.busy),
            idle: self.idle.saturating_sub(before.idle),
            iowait: self.iowait.saturating_sub(before.iowait),
            irq: self.irq.saturating_sub(before.irq),
            softirq: self.softirq.saturating_sub(before.softirq),
            steal: self.steal.saturating_sub(before.steal),
        }
    }
}

/// Each CPU's times from `/proc/stat`'s `cpu` lines
/// ([`crate::sys::procfs::cpustat`]): user, nice and system are busy;
/// guest time is already inside user, so it is not added.
pub fn cpu_times(lines: &BTreeMap<String, Vec<u64>>) -> BTreeMap<String, CpuTimes> {
    lines
        .iter()
        .map(|(name, v)| {
            let f = |i: usize| v.get(i).copied().unwrap_or(0);
            let times = CpuTimes {
                busy: f(0).saturating_add(f(1)).saturating_add(f(2)),
                idle: f(3),
                iowait: f(4),
                irq: f(5),
                softirq: f(6),
                steal: f(7),
            };
            (name.clone(), times)
        })
        .collect()
}

/// `root` and its live descendants, found through each process's main
/// thread's `/proc/<pid>/task/<pid>/children` (a few reads for a tree of a
/// few processes, where a scan of `/proc` reads every process's file).
/// kbench forks from its main thread; a child of another thread is not
/// followed (a scan with [`descends`] finds it).  `None` where the kernel
/// has no such file (`CONFIG_PROC_CHILDREN` off) or `root` is gone.
pub fn tree(root: i32) -> Option<Vec<i32>> {
    let mut out = vec![root];
    let mut seen = std::collections::HashSet::from([root]);
    let mut buf = [0u8; 4096];
    procfs::children_of(root, &mut buf)?;
    let mut i = 0;
    // Bounded: a pid seen twice (reused during the walk) is not followed.
    while i < out.len() && out.len() < 1 << 16 {
        let pid = out[i];
        i += 1;
        // A long list is read whole (a few pids fit the buffer above;
        // thousands of children do not).
        let cap = buf.len();
        let text = match procfs::children_of(pid, &mut buf) {
            Some(t) if t.len() < cap => t.to_string(),
            Some(_) => procfs::children_all(pid).unwrap_or_default(),
            None => continue,
        };
        for kid in text
            .split_whitespace()
            .filter_map(|k| k.parse::<i32>().ok())
        {
            if seen.insert(kid) {
                out.push(kid);
            }
        }
    }
    Some(out)
}

/// Is `pid` `root` or one of its descendants (by the parent chain)?
pub fn descends(
    procs: &std::collections::HashMap<i32, crate::sys::procstat::ProcStat>,
    mut pid: i32,
    root: i32,
) -> bool {
    for _ in 0..64 {
        if pid == root {
            return true;
        }
        match procs.get(&pid) {
            Some(p) if p.ppid > 0 && p.ppid != pid => pid = p.ppid,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc_stat(text: &str) -> BTreeMap<String, CpuTimes> {
        cpu_times(&procfs::cpustat::parse(text))
    }

    /// Found by the generated-input suite: counters at u64::MAX added up.
    #[test]
    fn counters_at_their_maximum_do_not_overflow() {
        let s = proc_stat("cpu 18446744073709551615 2 3 4\n");
        assert_eq!(s["cpu"].idle, 4);
        assert_eq!(s["cpu"].busy, u64::MAX);
        assert_eq!(s["cpu"].total(), u64::MAX);
    }

    #[test]
    fn recorded_snapshots_parse() {
        let stat = "cpu  965018 19209 228493 1108201 35410 0 4038 12784 0 0\n\
                    cpu0 443546 9709 104616 609554 12032 0 772 6112 0 0\n\
                    intr 1 2 3\n";
        let s = proc_stat(stat);
        assert_eq!(s["cpu"].steal, 12784);
        assert_eq!(s["cpu"].busy, 965018 + 19209 + 228493);
        assert_eq!(s["cpu0"].iowait, 12032);
        assert_eq!(s.len(), 2);
        let p = "some avg10=51.43 avg60=57.17 avg300=59.33 total=2267910201\n\
                 full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(procfs::parse_pressure(p), (Some(2267910201), Some(0)));
        assert_eq!(
            procfs::parse_pressure("some avg10=0.00 total=5\n"),
            (Some(5), None)
        );
        assert_eq!(
            procfs::parse_vmstat("nr_free_pages 5\noom_kill 3\n", "oom_kill"),
            Some(3)
        );
        assert_eq!(procfs::parse_vmstat("nr_free_pages 5\n", "oom_kill"), None);
    }
}
