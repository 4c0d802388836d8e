//! Processes: fork/wait/kill helpers, parent-death signals, resource usage,
//! cache dropping and other per-process facts.

use std::io::Write;

/// Is the effective user root?
pub fn is_root() -> bool {
    // SAFETY: plain syscall.
    unsafe { libc::geteuid() == 0 }
}

/// Number of threads in this process (from `/proc/self/status`).
pub fn thread_count() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:").map(|v| v.trim().parse().ok()))
                .flatten()
        })
        .unwrap_or(1)
}

/// In a freshly forked child: die with SIGKILL when the parent dies, and
/// exit at once if the parent is already gone.
pub fn die_with_parent(parent: libc::pid_t) {
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
}

/// `fork()`; `Ok(0)` in the child.
///
/// # Safety
/// Only safe while the process has a single thread, so that no lock (the
/// allocator's included) can be held by a thread that does not exist in the
/// child.  Callers check [`thread_count`] first.
pub unsafe fn fork() -> std::io::Result<libc::pid_t> {
    let pid = libc::fork();
    if pid < 0 {
        Err(super::last_err())
    } else {
        Ok(pid)
    }
}

/// Leave a forked child immediately, without running destructors or atexit
/// handlers that belong to the parent.
pub fn child_exit(code: i32) -> ! {
    // SAFETY: _exit never returns and is async-signal-safe.
    unsafe { libc::_exit(code) }
}

/// How a child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitKind {
    Code(i32),
    Signal(i32),
}

impl std::fmt::Display for ExitKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitKind::Code(c) => write!(f, "exit status {c}"),
            ExitKind::Signal(s) => write!(f, "killed by signal {s} ({})", signal_name(*s)),
        }
    }
}

/// A short name for common signals.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGBUS => "SIGBUS",
        libc::SIGHUP => "SIGHUP",
        _ => "signal",
    }
}

/// Decode a `waitpid` status.
pub fn exit_kind(status: libc::c_int) -> ExitKind {
    if libc::WIFSIGNALED(status) {
        ExitKind::Signal(libc::WTERMSIG(status))
    } else {
        ExitKind::Code(libc::WEXITSTATUS(status))
    }
}

/// Send `sig` to `pid` (negative = process group), ignoring "no such process".
pub fn kill(pid: libc::pid_t, sig: i32) {
    // SAFETY: plain syscall.
    unsafe { libc::kill(pid, sig) };
}

/// `sync()` then write `3` to `/proc/sys/vm/drop_caches` (page cache,
/// dentries and inodes).  Errors when not permitted.
pub fn drop_caches() -> std::io::Result<()> {
    // SAFETY: plain syscall.
    unsafe { libc::sync() };
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sys/vm/drop_caches")?;
    f.write_all(b"3\n")
}

/// Holds `/dev/cpu_dma_latency` at a target (µs) while alive, as
/// cyclictest does, so deep C-states do not add exit latency.
pub struct DmaLatencyGuard {
    _file: std::fs::File,
}

impl DmaLatencyGuard {
    /// Open and write the target; the kernel keeps it while the fd is open.
    pub fn hold(target_us: i32) -> std::io::Result<DmaLatencyGuard> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/cpu_dma_latency")?;
        f.write_all(&target_us.to_ne_bytes())?;
        Ok(DmaLatencyGuard { _file: f })
    }
}

/// 128 random bits as 32 hex characters, for globally unique run ids.
pub fn random_hex128() -> String {
    let mut buf = [0u8; 16];
    // SAFETY: buf is valid for 16 bytes of writes.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if n != 16 {
        // Fall back to time and pid; uniqueness, not secrecy, is the goal.
        let t = super::time::mono_ns() ^ (super::time::unix_now() * 1e9) as u64;
        buf[..8].copy_from_slice(&t.to_ne_bytes());
        buf[8..12].copy_from_slice(&std::process::id().to_ne_bytes());
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}
