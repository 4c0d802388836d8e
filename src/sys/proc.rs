//! Processes: fork/wait/kill helpers, parent-death signals, resource usage,
//! cache dropping and other per-process facts.

use std::io::Write;

/// The real user id.
pub fn uid() -> u32 {
    // SAFETY: getuid cannot fail and touches no memory.
    unsafe { libc::getuid() }
}

/// The effective user id.
pub fn euid() -> u32 {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() }
}

/// Is the effective user root?
pub fn is_root() -> bool {
    // SAFETY: plain syscall.
    unsafe { libc::geteuid() == 0 }
}

/// Number of threads in this process (from `/proc/self/status`).
pub fn thread_count() -> usize {
    super::procfs::status::own()
        .and_then(|s| super::procfs::status::field(&s, "Threads"))
        .and_then(|n| usize::try_from(n).ok())
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
    // SAFETY: the caller guarantees a single-threaded process (see above).
    let pid = unsafe { libc::fork() };
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

/// SIGKILL this process's parent (tests of what a killed kbench leaves).
#[cfg(debug_assertions)]
pub fn kill_parent() {
    // SAFETY: plain syscalls.
    unsafe { libc::kill(libc::getppid(), libc::SIGKILL) };
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

/// A pidfd for our own child `pid`, or `None` where the kernel has none
/// (before 5.3).
pub fn pidfd_open(pid: libc::pid_t) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: pidfd_open takes integers and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    // SAFETY: a fresh fd owned by nobody else.
    (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

/// `wait4` on our own child: `Ok(None)` while it runs (with `block` false),
/// else its wait status and resource usage.
pub fn wait4(pid: libc::pid_t, block: bool) -> std::io::Result<Option<(i32, libc::rusage)>> {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid out-buffer.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let flags = if block { 0 } else { libc::WNOHANG };
    // SAFETY: valid out-pointers that outlive the call.
    let r = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
    match r {
        0 => Ok(None),
        r if r < 0 => Err(super::last_err()),
        _ => Ok(Some((status, ru))),
    }
}

/// Reap our own child, blocking; its wait status (0 when it was not ours).
pub fn reap(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    // SAFETY: a valid out-pointer; waiting has no memory effects otherwise.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    status
}

/// Clock ticks per second (`/proc` CPU times are in these).
pub fn clock_ticks_per_s() -> f64 {
    // SAFETY: sysconf takes an integer and has no memory effects.
    (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).max(1) as f64
}

/// Set this process's nice level.
pub fn set_nice(n: i32) -> std::io::Result<()> {
    // SAFETY: setpriority takes integers.
    super::check(unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, n) }).map(|_| ())
}

/// What a child started with [`Command`](std::process::Command) does
/// between fork and exec: everything is optional, and every step is an
/// async-signal-safe system call.
#[derive(Clone, Copy, Default)]
pub struct OnExec {
    /// Die with SIGKILL when kbench dies.
    pub die_with_parent: bool,
    /// Lead a new process group (so the group can be signalled).
    pub own_group: bool,
    /// Lead a new session (its own autogroup, as a separate terminal).
    pub own_session: bool,
    /// Pin to these CPUs ([`crate::sys::sched::cpu_set`]).
    pub cpus: Option<libc::cpu_set_t>,
    pub nice: Option<i32>,
    /// Scheduling policy and priority.
    pub policy: Option<(libc::c_int, i32)>,
}

/// Arrange `on` to happen in `cmd`'s child before it execs.
pub fn on_exec(cmd: &mut std::process::Command, on: OnExec) {
    use std::os::unix::process::CommandExt;
    let err = std::io::Error::last_os_error;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure only makes async-signal-safe system calls on the
    // child itself, with values moved in (nothing allocated or locked).
    unsafe {
        cmd.pre_exec(move || {
            // A forked child is not a group leader, so setsid succeeds.
            if on.own_session && libc::setsid() < 0 {
                return Err(err());
            }
            if on.own_group && !on.own_session {
                libc::setpgid(0, 0);
            }
            if on.die_with_parent {
                libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                );
                // A parent killed before the signal was armed is already
                // gone: the child would run on for nobody.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
            }
            if let Some(set) = &on.cpus {
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) < 0 {
                    return Err(err());
                }
            }
            if let Some(n) = on.nice {
                if libc::setpriority(libc::PRIO_PROCESS, 0, n) < 0 {
                    return Err(err());
                }
            }
            if let Some((policy, prio)) = on.policy {
                let p = libc::sched_param {
                    sched_priority: prio,
                };
                if libc::sched_setscheduler(0, policy, &p) < 0 {
                    return Err(err());
                }
            }
            Ok(())
        });
    }
}

static PARENT_GONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn parent_gone(_: libc::c_int) {
    PARENT_GONE.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// In a forked janitor: ignore Ctrl-C and sleep until `parent` dies (a
/// parent-death SIGUSR1), returning at once if it already has.
///
/// SIGUSR1 stays blocked from before the parent-death signal is armed until
/// `sigsuspend` unblocks it atomically, so a parent that dies between the
/// check and the wait cannot be missed (with `pause` it could: the signal
/// would land before the sleep and the janitor would sleep for ever).
pub fn sleep_until_parent_dies(parent: libc::pid_t) {
    use std::sync::atomic::Ordering::SeqCst;
    // SAFETY: signal masks, handlers and a parent-death signal of our own
    // process, on zero-initialised sigset_t values the libc calls fill;
    // the handler only stores to an atomic.
    unsafe {
        let mut usr1: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut usr1);
        libc::sigaddset(&mut usr1, libc::SIGUSR1);
        libc::sigprocmask(libc::SIG_BLOCK, &usr1, &mut old);
        libc::signal(
            libc::SIGUSR1,
            parent_gone as *const () as libc::sighandler_t,
        );
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGUSR1 as libc::c_ulong,
            0,
            0,
            0,
        );
        if libc::getppid() != parent {
            PARENT_GONE.store(true, SeqCst);
        }
        let mut waiting = old;
        libc::sigdelset(&mut waiting, libc::SIGUSR1);
        while !PARENT_GONE.load(SeqCst) {
            libc::sigsuspend(&waiting);
        }
        libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
}

/// Name this process (its `comm`, as `ps` and `/proc/<pid>/stat` show it;
/// at most 15 bytes).
pub fn set_name(name: &str) {
    let mut buf = [0u8; 16];
    let n = name.len().min(15);
    buf[..n].copy_from_slice(&name.as_bytes()[..n]);
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16
    // bytes from a buffer that outlives the call.
    unsafe { libc::prctl(libc::PR_SET_NAME, buf.as_ptr() as libc::c_ulong, 0, 0, 0) };
}

/// The start time of `pid` (clock ticks after boot, field 22 of
/// `/proc/<pid>/stat`, proc(5)), `None` when it is gone: with the pid,
/// it names one process even after pids are reused.
pub fn start_time(pid: u32) -> Option<u64> {
    Some(super::procstat::read(i32::try_from(pid).ok()?)?.start)
}

/// The process group (field 5) and start time (field 22) of `pid`.
pub fn group_and_start(pid: libc::pid_t) -> Option<(libc::pid_t, u64)> {
    let s = super::procstat::read(pid)?;
    Some((s.pgrp, s.start))
}
