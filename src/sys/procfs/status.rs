//! `/proc/<pid>/status`: a task's thread group, parent, thread count and
//! context switches, by field name.

/// A numeric field (`Tgid:`, `PPid:`, `Threads:`, `voluntary_ctxt_switches:`)
/// of a status file's text.
pub fn field(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let v = l.strip_prefix(name)?.strip_prefix(':')?;
        v.trim().parse().ok()
    })
}

/// A task's status text (`None` once it has ended).
pub fn of(pid: i32) -> Option<String> {
    super::read(&super::pid_file(pid, "status"))
}

/// Thread `tid` of this process's status text.
pub fn of_own_task(tid: i32) -> Option<String> {
    super::read(&format!("{}/status", super::own_task_dir(tid)))
}

/// This process's status text.
pub fn own() -> Option<String> {
    super::read("/proc/self/status")
}

/// `(Tgid, PPid)` of a task.
pub fn group_and_parent(pid: i32) -> Option<(i32, i32)> {
    let s = of(pid)?;
    let n = |k: &str| field(&s, k).and_then(|v| i32::try_from(v).ok());
    Some((n("Tgid")?, n("PPid")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_matched_whole() {
        let s = "Name:\tx\nTgid:\t42\nPPid:\t1\nThreads:\t3\nvoluntary_ctxt_switches:\t7\nnonvoluntary_ctxt_switches:\t2\n";
        assert_eq!(field(s, "Tgid"), Some(42));
        assert_eq!(field(s, "Threads"), Some(3));
        assert_eq!(field(s, "voluntary_ctxt_switches"), Some(7));
        assert_eq!(field(s, "ctxt_switches"), None);
        assert_eq!(field(s, "Name"), None);
        let me = std::process::id() as i32;
        assert_eq!(group_and_parent(me).map(|g| g.0), Some(me));
    }
}
