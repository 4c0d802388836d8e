//! Scheduling policy, priority, affinity and memory locking.

use crate::error::{input, privilege};
use serde::{Deserialize, Serialize};

/// A scheduling policy as the user names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    Other,
    Fifo,
    Rr,
    Batch,
    Idle,
}

impl Policy {
    pub fn parse(s: &str) -> anyhow::Result<Policy> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "other" | "normal" => Policy::Other,
            "fifo" => Policy::Fifo,
            "rr" => Policy::Rr,
            "batch" => Policy::Batch,
            "idle" => Policy::Idle,
            _ => {
                return Err(input(format!(
                    "unknown scheduling policy '{s}' (use fifo, rr, other, batch or idle)"
                )))
            }
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Policy::Other => "other",
            Policy::Fifo => "fifo",
            Policy::Rr => "rr",
            Policy::Batch => "batch",
            Policy::Idle => "idle",
        }
    }

    pub fn is_realtime(self) -> bool {
        matches!(self, Policy::Fifo | Policy::Rr)
    }

    /// The kernel's `SCHED_*` constant.
    pub fn raw(self) -> libc::c_int {
        match self {
            Policy::Other => libc::SCHED_OTHER,
            Policy::Fifo => libc::SCHED_FIFO,
            Policy::Rr => libc::SCHED_RR,
            Policy::Batch => libc::SCHED_BATCH,
            Policy::Idle => libc::SCHED_IDLE,
        }
    }
}

/// Check a real-time priority is in 1–99.
pub fn check_priority(prio: i32) -> anyhow::Result<()> {
    if !(1..=99).contains(&prio) {
        return Err(input(format!(
            "priority {prio} is out of range: SCHED_FIFO/RR take 1-99"
        )));
    }
    Ok(())
}

/// Set the policy of thread `tid` (0 = the calling thread).
pub fn set_policy(tid: libc::pid_t, policy: Policy, prio: i32) -> anyhow::Result<()> {
    let param = libc::sched_param {
        sched_priority: if policy.is_realtime() { prio } else { 0 },
    };
    // SAFETY: param is a valid sched_param for the duration of the call.
    let ret = unsafe { libc::sched_setscheduler(tid, policy.raw(), &param) };
    if ret < 0 {
        let err = super::last_err();
        if err.raw_os_error() == Some(libc::EPERM) {
            return Err(privilege(format!(
                "SCHED_{} needs privilege: run as root or grant CAP_SYS_NICE (or raise `ulimit -r`), or pass --policy other",
                policy.name().to_uppercase()
            )));
        }
        return Err(anyhow::anyhow!(
            "sched_setscheduler({}): {err}",
            policy.name()
        ));
    }
    Ok(())
}

/// Pin thread `tid` (0 = calling thread) to `cpus`.
pub fn set_affinity(tid: libc::pid_t, cpus: &[usize]) -> std::io::Result<()> {
    let set = cpu_set(cpus);
    // SAFETY: set is a valid cpu_set_t of the size passed.
    let ret = unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    super::check(ret).map(|_| ())
}

/// A `cpu_set_t` of `cpus` (CPUs past the set's size are left out; the
/// CPU-list parser refuses them before this).
pub fn cpu_set(cpus: &[usize]) -> libc::cpu_set_t {
    // SAFETY: an all-zero cpu_set_t is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu < libc::CPU_SETSIZE as usize {
            // SAFETY: cpu is below the set's size (checked above).
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
    }
    set
}

/// The CPUs thread `tid` (0 = calling thread) may run on.
pub fn get_affinity(tid: libc::pid_t) -> std::io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: set is a valid out-buffer of the size passed.
    let ret =
        unsafe { libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    super::check(ret)?;
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: CPU_ISSET reads within the set's size.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// Lock current and future memory (`mlockall`), as cyclictest `-m` does.
pub fn mlockall() -> anyhow::Result<()> {
    // SAFETY: plain syscall with flag arguments.
    let ret = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    if ret < 0 {
        let err = super::last_err();
        if matches!(err.raw_os_error(), Some(libc::EPERM) | Some(libc::ENOMEM)) {
            return Err(privilege(
                "mlockall needs privilege: run as root or grant CAP_IPC_LOCK (or raise `ulimit -l`), or drop -m/--mlockall",
            ));
        }
        return Err(anyhow::anyhow!("mlockall: {err}"));
    }
    Ok(())
}

/// Undo [`mlockall`].
pub fn munlockall() {
    // SAFETY: plain syscall.
    unsafe { libc::munlockall() };
}

/// Kernel thread id of the caller.
pub fn gettid() -> libc::pid_t {
    // SAFETY: plain syscall.
    unsafe { libc::gettid() }
}

/// The CPU this thread runs on now (vDSO getcpu; 0 where unsupported).
pub fn current_cpu() -> usize {
    // SAFETY: no arguments; returns -1 only where getcpu is unsupported.
    (unsafe { libc::sched_getcpu() }).max(0) as usize
}

/// CPUID leaf `leaf`'s ebx, ecx and edx.
#[cfg(target_arch = "x86_64")]
pub fn cpuid_bcd(leaf: u32) -> [u32; 3] {
    #[allow(unused_unsafe)]
    // SAFETY: CPUID is always present on x86_64 and has no side effects
    // (older toolchains mark it unsafe).
    let r = unsafe { std::arch::x86_64::__cpuid(leaf) };
    [r.ebx, r.ecx, r.edx]
}
