//! kbench's own trace instance in tracefs (`instances/kbench-<pid>`):
//! its own buffers, clock, CPU mask and events, so the user's global
//! tracing settings are never read or changed, and removed at the end.
//!
//! Tracefs is used where the host mounted it (`/sys/kernel/tracing`);
//! where it did not, a child mounts it in a mount namespace of its own and
//! hands back the mount's root, held open (`sys::mount::open_private`), so
//! the host's mount table never changes.  An instance left by a kbench
//! killed with SIGKILL is removed by its janitor (`kbench restore
//! --after`), and by `kbench restore`, which removes every `kbench-<pid>`
//! instance whose process is gone.  How instances, `trace_clock`,
//! `buffer_size_kb`, `tracing_cpumask`, `options/overwrite` and
//! `per_cpu/cpuN/{trace_pipe_raw,stats}` behave:
//! Documentation/trace/ftrace.rst.

use crate::sys::dirfd::Dir;
use std::os::fd::OwnedFd;

/// Where tracefs usually is.
const MOUNTPOINT: &str = "/sys/kernel/tracing";

/// The events kbench enables: (system, event, needed).  Without a needed
/// one the trace cannot explain a wake-up; the others add detail.
pub const EVENTS: &[(&str, &str, bool)] = &[
    ("sched", "sched_switch", true),
    ("sched", "sched_waking", true),
    ("sched", "sched_wakeup", false),
    ("sched", "sched_wakeup_new", false),
    ("sched", "sched_migrate_task", false),
    ("irq", "irq_handler_entry", true),
    ("irq", "irq_handler_exit", true),
    ("irq", "softirq_entry", true),
    ("irq", "softirq_exit", true),
    ("timer", "hrtimer_expire_entry", false),
    ("timer", "hrtimer_expire_exit", false),
    ("irq_vectors", "local_timer_entry", false),
    ("irq_vectors", "local_timer_exit", false),
    ("irq_vectors", "reschedule_entry", false),
    ("irq_vectors", "reschedule_exit", false),
    ("irq_vectors", "call_function_entry", false),
    ("irq_vectors", "call_function_exit", false),
    ("irq_vectors", "call_function_single_entry", false),
    ("irq_vectors", "call_function_single_exit", false),
    ("irq_vectors", "irq_work_entry", false),
    ("irq_vectors", "irq_work_exit", false),
];

/// `statfs(2)`'s `f_type` of tracefs (`TRACEFS_MAGIC`,
/// include/uapi/linux/magic.h).
const TRACEFS_MAGIC: i64 = 0x7472_6163;

/// `d`, if it is tracefs by its filesystem magic.
fn checked(d: Dir, what: &str) -> Result<Dir, String> {
    match d.fs_magic() {
        Ok(TRACEFS_MAGIC) => Ok(d),
        Ok(m) => Err(format!("{what} is not tracefs (filesystem magic {m:#x})")),
        Err(e) => Err(format!("{what}: {e}")),
    }
}

/// tracefs' root: the host's mount, or a private one, each checked to be
/// tracefs by its magic.  In debug builds `KBENCH_TRACEFS` names another
/// folder (tests use a missing one to see tracing refused); a release
/// build never reads it.
pub fn root() -> Result<Dir, String> {
    if let Some(alt) = crate::sys::hooks::tracefs() {
        let d = Dir::open(&alt)
            .map_err(|e| format!("tracefs at {alt} (KBENCH_TRACEFS) cannot be opened: {e}"))?;
        return checked(d, &alt);
    }
    if !crate::sys::proc::is_root() {
        return Err("tracing the kernel needs root (CAP_SYS_ADMIN for tracefs): run kbench as root, e.g. with sudo".into());
    }
    if let Some(d) = Dir::open(MOUNTPOINT)
        .ok()
        .and_then(|d| checked(d, MOUNTPOINT).ok())
    {
        if d.exists("instances") {
            return Ok(d);
        }
    }
    match crate::sys::mount::open_private("tracefs", MOUNTPOINT) {
        Ok(d) => {
            let d = checked(d, "the private tracefs mount")?;
            if d.exists("instances") {
                Ok(d)
            } else {
                Err("tracefs has no instances folder (a kernel older than 4.1?)".into())
            }
        }
        Err(e) if e.raw_os_error() == Some(libc::ENODEV) => Err(
            "this kernel has no tracefs (built without CONFIG_FTRACE): tracing needs a kernel with CONFIG_FTRACE and CONFIG_EVENT_TRACING".into(),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(format!(
            "tracefs refused ({e}): the kernel's lockdown (/sys/kernel/security/lockdown) or a security module forbids tracing"
        )),
        Err(e) => Err(format!("tracefs cannot be mounted: {e}")),
    }
}

/// The instance names this process may take: `kbench-<pid>`, and after
/// it `kbench-<pid>-2` … `kbench-<pid>-9` for when one of those names is
/// taken by an instance kbench did not make (which it never touches).
fn instance_names(pid: u32) -> impl Iterator<Item = String> {
    std::iter::once(format!("kbench-{pid}"))
        .chain((2..10).map(move |n| format!("kbench-{pid}-{n}")))
}

/// Where kbench marks the instances it makes: one file per instance,
/// named as it is, holding its maker's pid and start time.  Only an
/// instance with a mark is ever removed, so one a user or another tool
/// named `kbench-<pid>` is left alone; a mark whose maker is gone is how
/// the next kbench or `kbench restore` finds an instance left by a kbench
/// killed with its janitor (`kill -9 -PGID`, a unit stopped).  Under
/// `/run` (tracing needs root), cleared at boot as instances are.
fn marks_dir() -> std::path::PathBuf {
    std::path::PathBuf::from("/run/kbench/trace")
}

/// Mark `name` as made by this process.
fn mark(name: &str) -> Result<std::path::PathBuf, String> {
    let dir = marks_dir();
    crate::sys::private::ensure_dir(&dir)
        .map_err(|e| format!("the folder of kbench's trace marks {}: {e}", dir.display()))?;
    let pid = std::process::id();
    let start = crate::sys::proc::start_time(pid).unwrap_or(0);
    let path = dir.join(name);
    crate::sys::private::write(&path, format!("{pid} {start}\n").as_bytes())
        .map_err(|e| format!("marking the trace instance {name}: {e}"))?;
    Ok(path)
}

/// The maker of the instance marked by `path`, if it is still running.
fn maker_alive(path: &std::path::Path) -> Option<bool> {
    let text = crate::sys::private::read(path).ok()?;
    let mut f = text.split_whitespace().map(str::parse::<u64>);
    let (Some(Ok(pid)), Some(Ok(start))) = (f.next(), f.next()) else {
        return Some(false);
    };
    let pid = u32::try_from(pid).ok()?;
    Some(crate::sys::proc::start_time(pid) == Some(start))
}

/// A trace instance of this process, removed when dropped.
pub struct Instance {
    instances: Dir,
    name: String,
    /// Its mark (see [`marks_dir`]), removed after it.
    marked: std::path::PathBuf,
    pub dir: Dir,
}

/// What a kernel lacks, said as what to do.
fn refused(what: &str, e: std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => format!(
            "tracefs refused {what} ({e}): tracing needs root, and no lockdown in confidentiality mode"
        ),
        _ => format!("tracefs: {what}: {e}"),
    }
}

/// The hex mask `tracing_cpumask` takes: 32-bit groups, most significant
/// first, separated by commas.
pub fn cpumask(cpus: &[usize]) -> String {
    let top = cpus.iter().copied().max().unwrap_or(0);
    let mut words = vec![0u32; top / 32 + 1];
    for &c in cpus {
        words[c / 32] |= 1 << (c % 32);
    }
    words
        .iter()
        .rev()
        .map(|w| format!("{w:08x}"))
        .collect::<Vec<_>>()
        .join(",")
}

impl Instance {
    /// Make this process's instance with `buffer_kb` per CPU, tracing
    /// `cpus`, the clock set to `mono` (the probe's CLOCK_MONOTONIC), the
    /// events of [`EVENTS`] that this kernel has enabled.  Returns the
    /// instance, the optional events it lacks and the instances left by
    /// killed kbench processes that it removed first.
    pub fn create(
        root: &Dir,
        buffer_kb: u64,
        cpus: &[usize],
    ) -> Result<(Instance, Vec<String>, Vec<String>), String> {
        let instances = root
            .sub("instances")
            .map_err(|e| refused("opening instances", e))?;
        // One left by a kbench killed with its janitor goes first.
        let left = remove_left_in(&instances, None);
        let mut made = None;
        for name in instance_names(std::process::id()) {
            if instances.exists(&name) {
                continue;
            }
            let marked = mark(&name)?;
            match instances.mkdir(&name) {
                Ok(()) => {
                    made = Some((name, marked));
                    break;
                }
                Err(e) => {
                    let _ = std::fs::remove_file(&marked);
                    if e.raw_os_error() != Some(libc::EEXIST) {
                        return Err(refused("making a trace instance", e));
                    }
                }
            }
        }
        let Some((name, marked)) = made else {
            return Err(format!(
                "every trace instance name of this kbench (kbench-{}, kbench-{0}-2 … -9) is taken by an instance kbench did not make: remove them (rmdir in tracefs' instances/) once you know whose they are",
                std::process::id()
            ));
        };
        let dir = match instances.sub(&name) {
            Ok(d) => d,
            Err(e) => {
                remove_instance(&instances, &name);
                let _ = std::fs::remove_file(&marked);
                return Err(refused("opening the trace instance", e));
            }
        };
        let inst = Instance {
            instances,
            name,
            marked,
            dir,
        };
        let missing = inst.configure(buffer_kb, cpus)?;
        Ok((inst, missing, left))
    }

    fn configure(&self, buffer_kb: u64, cpus: &[usize]) -> Result<Vec<String>, String> {
        let d = &self.dir;
        d.write("tracing_on", "0")
            .map_err(|e| refused("tracing_on", e))?;
        d.write("trace_clock", "mono")
            .map_err(|e| refused("the mono trace clock (trace_clock)", e))?;
        d.write("buffer_size_kb", &buffer_kb.to_string())
            .map_err(|e| refused(&format!("a buffer of {buffer_kb} KiB per CPU"), e))?;
        d.write("tracing_cpumask", &cpumask(cpus))
            .map_err(|e| refused("tracing_cpumask", e))?;
        let _ = d.write("options/overwrite", "1");
        let mut missing = Vec::new();
        for (sys, ev, needed) in EVENTS {
            let rel = format!("events/{sys}/{ev}/enable");
            if let Err(e) = d.write(&rel, "1") {
                if *needed {
                    return Err(format!(
                        "the trace event {sys}:{ev} cannot be enabled ({e}): the kernel lacks it (CONFIG_TRACEPOINTS and the scheduler's and IRQs' events are needed)"
                    ));
                }
                missing.push(format!("{sys}:{ev}"));
            }
        }
        Ok(missing)
    }

    pub fn start(&self) -> Result<(), String> {
        self.dir
            .write("tracing_on", "1")
            .map_err(|e| refused("tracing_on", e))
    }

    pub fn stop(&self) {
        let _ = self.dir.write("tracing_on", "0");
    }

    /// CPU `cpu`'s raw buffer, opened for non-blocking reads of pages.
    pub fn pipe(&self, cpu: usize) -> Result<OwnedFd, String> {
        self.dir
            .open_at(
                &format!("per_cpu/cpu{cpu}/trace_pipe_raw"),
                libc::O_RDONLY | libc::O_NONBLOCK,
            )
            .map_err(|e| refused(&format!("CPU {cpu}'s raw trace buffer"), e))
    }

    /// The size of one page of the buffer (`buffer_subbuf_size_kb`, else
    /// the page size).
    pub fn page_size(&self) -> usize {
        self.dir
            .read("buffer_subbuf_size_kb")
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .map_or(4096, |kb| kb * 1024)
    }

    /// Events CPU `cpu` lost: overwritten before they were read (`overrun`)
    /// and dropped (`dropped events`), from its `stats`.
    pub fn lost(&self, cpu: usize) -> u64 {
        let Ok(s) = self.dir.read(&format!("per_cpu/cpu{cpu}/stats")) else {
            return 0;
        };
        s.lines()
            .filter_map(|l| {
                let (k, v) = l.split_once(':')?;
                matches!(k.trim(), "overrun" | "dropped events")
                    .then(|| v.trim().parse::<u64>().ok())?
            })
            .sum()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.stop();
        // The readers' pipes are closed first, by their owner.
        if remove_instance(&self.instances, &self.name) {
            let _ = std::fs::remove_file(&self.marked);
        }
    }
}

/// Remove the instance `name`: busy (EBUSY) while a file of it is open,
/// as when a reader process dies a moment after kbench, so retried for
/// two seconds.  Whether it is gone.
fn remove_instance(instances: &Dir, name: &str) -> bool {
    (0..40).any(|_| {
        instances.rmdir(name).is_ok() || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            false
        }
    })
}

/// Remove the instances left by kbench processes that are gone (`only`:
/// just that process's, which the janitor saw die); the names removed.
/// Only instances kbench marked as its own are touched.
pub fn remove_left(only: Option<i32>) -> Vec<String> {
    let Ok(root) = root() else { return Vec::new() };
    let Ok(instances) = root.sub("instances") else {
        return Vec::new();
    };
    remove_left_in(&instances, only)
}

fn remove_left_in(instances: &Dir, only: Option<i32>) -> Vec<String> {
    let mut removed = Vec::new();
    let Ok(marks) = std::fs::read_dir(marks_dir()) else {
        return removed;
    };
    for e in marks.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("kbench-")
            .and_then(|p| p.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        let path = e.path();
        // The janitor names a process it saw die (perhaps not yet reaped);
        // otherwise the maker must be gone, or its pid now another's.
        let gone = match only {
            Some(o) => o == pid,
            None => maker_alive(&path) == Some(false),
        };
        if !gone {
            continue;
        }
        let existed = instances.exists(&name);
        if !existed || remove_instance(instances, &name) {
            let _ = std::fs::remove_file(&path);
            if existed {
                removed.push(name);
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_masks_are_in_tracefs_spelling() {
        assert_eq!(cpumask(&[0, 1]), "00000003");
        assert_eq!(cpumask(&[1]), "00000002");
        assert_eq!(cpumask(&[0, 33]), "00000002,00000001");
        assert_eq!(cpumask(&[]), "00000000");
    }
}
