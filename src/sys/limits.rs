//! Process and file limits that decide whether a benchmark can start.

/// Soft `RLIMIT_NOFILE`.
pub fn nofile() -> u64 {
    rlimit(libc::RLIMIT_NOFILE)
}

/// Soft `RLIMIT_NPROC` (counts per real user; root is exempt).
pub fn nproc() -> u64 {
    rlimit(libc::RLIMIT_NPROC)
}

fn rlimit(res: libc::__rlimit_resource_t) -> u64 {
    // SAFETY: zeroed rlimit is a valid out-buffer.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: rl is valid for writes.
    if unsafe { libc::getrlimit(res, &mut rl) } < 0 {
        return u64::MAX;
    }
    rl.rlim_cur
}

/// Try to raise the soft `RLIMIT_NOFILE` to `want` (up to the hard limit).
pub fn raise_nofile(want: u64) -> u64 {
    // SAFETY: as above.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: rl is valid for writes.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } < 0 {
        return nofile();
    }
    if rl.rlim_cur < want {
        rl.rlim_cur = want.min(rl.rlim_max);
        // SAFETY: rl is a valid rlimit.
        unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &rl) };
    }
    nofile()
}

/// `/proc/sys/kernel/pid_max`: no more tasks than this can exist at once.
pub fn pid_max() -> u64 {
    read_u64("/proc/sys/kernel/pid_max").unwrap_or(u64::MAX)
}

/// `/proc/sys/kernel/threads-max`.
pub fn threads_max() -> u64 {
    read_u64("/proc/sys/kernel/threads-max").unwrap_or(u64::MAX)
}

/// Tasks still allowed by this process's cgroup (`pids.max − pids.current`),
/// or `None` when unlimited or unknown.
pub fn cgroup_pids_left() -> Option<u64> {
    let cg = super::procfs::cgroup::own()?;
    let path = super::procfs::cgroup::unified(&cg)?.to_string();
    let dir = format!("/sys/fs/cgroup{path}");
    let max = std::fs::read_to_string(format!("{dir}/pids.max")).ok()?;
    let max: u64 = max.trim().parse().ok()?; // "max" → None
    let cur = read_u64(&format!("{dir}/pids.current")).unwrap_or(0);
    Some(max.saturating_sub(cur))
}

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}
