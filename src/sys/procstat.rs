//! `/proc/<pid>/stat`, read and parsed in one place (proc(5)): the name
//! may hold spaces and parentheses, so it runs to the last `)`, and the
//! fields after it are counted from `state`.  The health monitor, the load
//! runner's CPU accounting, the isolation of others, `kbench restore` and
//! the janitors' process identities all read a process through here.

use std::collections::HashMap;

/// What `/proc/<pid>/stat` says of a process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcStat {
    /// Its state letter (`R`, `S`, `Z`, …).
    pub state: char,
    pub ppid: i32,
    /// Its process group.
    pub pgrp: i32,
    pub name: String,
    /// CPU jiffies of its own (utime + stime).
    pub ticks: u64,
    /// CPU jiffies of the children it has waited for (cutime + cstime).
    pub child_ticks: u64,
    /// When it started (ticks since boot): with the pid, names a process
    /// across a pid's reuse.
    pub start: u64,
}

/// Parse the text of `/proc/<pid>/stat`; `None` when it is not one.
pub fn parse(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = text.get(close + 2..)?.split_whitespace().collect();
    // After the name: state(0) ppid(1) pgrp(2) … utime(11) stime(12)
    // cutime(13) cstime(14) … starttime(19) (proc(5)).
    let state = rest.first()?.chars().next()?;
    let ppid = rest.get(1)?.parse().ok()?;
    let pgrp = rest.get(2)?.parse().ok()?;
    let field = |i: usize| rest.get(i)?.parse::<u64>().ok();
    let (utime, stime) = (field(11)?, field(12)?);
    // cutime and cstime are signed in the kernel; a negative one is 0.
    let child = |i: usize| field(i).unwrap_or(0);
    Some(ProcStat {
        state,
        ppid,
        pgrp,
        name,
        ticks: utime.saturating_add(stime),
        child_ticks: child(13).saturating_add(child(14)),
        start: child(19),
    })
}

/// The process `pid` now, `None` when it is gone.
pub fn read(pid: i32) -> Option<ProcStat> {
    parse(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Whether `pid` is an ancestor of this process that runs this very
/// program (the same file as `/proc/self/exe`, by device and inode): a
/// parent kbench.  Variables only such a parent may set are trusted only
/// then (`KBENCH_ROOT_PID=1` hid an outside load from the health check).
pub fn is_kbench_ancestor(pid: i32) -> bool {
    use std::os::unix::fs::MetadataExt;
    let id = |p: &str| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    let Some(own) = id("/proc/self/exe") else {
        return false;
    };
    let mut at = std::process::id() as i32;
    // A chain of ancestors is short; the bound keeps a cycle (a pid
    // reused while walking) from looping.
    for _ in 0..64 {
        let Some(parent) = read(at).map(|s| s.ppid) else {
            return false;
        };
        if parent <= 0 {
            return false;
        }
        if parent == pid {
            return id(&format!("/proc/{pid}/exe")) == Some(own);
        }
        at = parent;
    }
    false
}

/// Every process in `/proc` now, by pid.
pub fn all() -> HashMap<i32, ProcStat> {
    pids()
        .into_iter()
        .filter_map(|pid| Some((pid, read(pid)?)))
        .collect()
}

/// Every process's pid, from `/proc`.
pub fn pids() -> Vec<libc::pid_t> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the generated-input suite: counters at u64::MAX added up.
    #[test]
    fn counters_at_their_maximum_do_not_overflow() {
        let p = parse("1 (x) S 0 0 0 0 0 0 0 0 0 0 18446744073709551615 5 0 0 20 0 1 0 0");
        assert!(p.is_none_or(|p| p.ticks == u64::MAX));
    }

    #[test]
    fn a_recorded_stat_parses() {
        let st = "4242 (my (odd) name) S 1 4240 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 1 0 100 1000 10";
        assert_eq!(
            parse(st),
            Some(ProcStat {
                state: 'S',
                ppid: 1,
                pgrp: 4240,
                name: "my (odd) name".into(),
                ticks: 300,
                child_ticks: 10,
                start: 100
            })
        );
        assert_eq!(parse("garbage"), None);
        assert_eq!(parse("1 (x)"), None);
    }

    #[test]
    fn this_process_reads_as_itself() {
        let me = read(std::process::id() as i32).expect("our own stat");
        assert!(me.state == 'R' || me.state == 'S', "{me:?}");
        assert_eq!(me.pgrp, pgrp_by_hand());
        assert!(all().contains_key(&(std::process::id() as i32)));
    }

    /// The process group as `/proc/self/stat` gives it, read without
    /// the parser under test (the fifth field of the text after the name).
    fn pgrp_by_hand() -> i32 {
        let t = std::fs::read_to_string("/proc/self/stat").unwrap();
        let rest = &t[t.rfind(')').unwrap() + 2..];
        rest.split(' ').nth(2).unwrap().parse().unwrap()
    }
}
