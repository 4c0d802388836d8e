//! Every file kbench reads under `/proc`, read here and parsed once.
//!
//! A `/proc` file's format is the kernel's (proc(5)); when a kernel
//! changes one, or a field is missing on an older one, one parser here
//! meets it instead of one per caller.  Each reader returns `None` for a
//! file that is absent or unreadable (a task that ended, a kernel built
//! without the feature): callers say what that means for them.  The
//! parsers take text so that the tests can feed them any.
//!
//! `/proc/<pid>/stat` is [`super::procstat`]; a measurement's own
//! threads' `schedstat` and `sched` are summed by [`super::sched_account`]
//! with [`parse_schedstat`].  Writes under
//! `/proc/sys` are knobs (`experiment/knob.rs`), which name their files.

pub mod cgroup;
pub mod cpustat;
pub mod meminfo;
pub mod mounts;
pub mod status;

use std::io::Read;

/// `rel` under the `/proc` of the system rooted at `root` (`/`, or a
/// guest's or a test's tree): the one place such a path is built, so the
/// architecture test can hold every other `/proc` path to this module.
pub fn under(root: &std::path::Path, rel: &str) -> std::path::PathBuf {
    root.join("proc").join(rel)
}

/// A whole kernel file (`/proc`, `/sys`) as text.
pub fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// A small `/proc` file read into `buf` with one `read` and no allocation
/// (the health monitor reads these once a second beside a run).
pub fn small_file<'a>(path: &str, buf: &'a mut [u8]) -> Option<&'a str> {
    let n = std::fs::File::open(path).ok()?.read(buf).ok()?;
    std::str::from_utf8(&buf[..n]).ok()
}

/// Whether a process (or thread) `pid` still exists.
pub fn alive(pid: i32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// The thread ids of process `pid` (empty once it has ended).
pub fn tasks(pid: i32) -> Vec<i32> {
    task_ids(&format!("/proc/{pid}/task"))
}

/// The thread ids of this process.
pub fn own_tasks() -> Vec<i32> {
    task_ids("/proc/self/task")
}

fn task_ids(dir: &str) -> Vec<i32> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// The folder of thread `tid` of this process, for its `status`, `stat`,
/// `sched` and `schedstat`.
pub fn own_task_dir(tid: i32) -> String {
    format!("/proc/self/task/{tid}")
}

/// A task's file: `/proc/<pid>/<name>`.
pub fn pid_file(pid: i32, name: &str) -> String {
    format!("/proc/{pid}/{name}")
}

/// The direct children of `pid`'s main thread, from
/// `/proc/<pid>/task/<pid>/children` (read into `buf`).
pub fn children_of(pid: i32, buf: &mut [u8]) -> Option<&str> {
    small_file(&format!("/proc/{pid}/task/{pid}/children"), buf)
}

/// [`children_of`] read whole, for a list longer than a buffer.
pub fn children_all(pid: i32) -> Option<String> {
    read(&format!("/proc/{pid}/task/{pid}/children"))
}

/// The `schedstat` of the task whose `/proc` folder is `dir`
/// (`/proc/thread-self`, [`own_task_dir`]): its CPU time (ns), run-queue
/// wait (ns) and time slices.
pub fn schedstat_in(dir: &str) -> Option<(u64, u64, u64)> {
    parse_schedstat(&read(&format!("{dir}/schedstat"))?)
}

/// [`schedstat_in`] of the calling thread.
pub fn own_schedstat() -> Option<(u64, u64, u64)> {
    schedstat_in("/proc/thread-self")
}

/// [`schedstat_in`] of thread `tid` of this process.
pub fn own_task_schedstat(tid: i32) -> Option<(u64, u64, u64)> {
    schedstat_in(&own_task_dir(tid))
}

/// `/proc/<tid>/schedstat`: "cpu_ns wait_ns slices".
pub fn parse_schedstat(text: &str) -> Option<(u64, u64, u64)> {
    let mut f = text.split_whitespace().map(|w| w.parse::<u64>().ok());
    Some((f.next()??, f.next()??, f.next()??))
}

/// A sysctl by its dotted name (`kernel.sched_rt_runtime_us`), trimmed.
pub fn sysctl(name: &str) -> Option<String> {
    read(&format!("/proc/sys/{}", name.replace('.', "/"))).map(|s| s.trim().to_string())
}

/// The kernel's command line, trimmed.
pub fn cmdline() -> Option<String> {
    read("/proc/cmdline").map(|s| s.trim().to_string())
}

/// The kernel's boot id (changes at every boot).
pub fn boot_id() -> Option<String> {
    sysctl("kernel.random.boot_id")
}

/// Seconds since boot (`/proc/uptime`'s first field).
pub fn uptime_s() -> Option<f64> {
    first_number(&read("/proc/uptime")?)
}

/// The one-minute load average (`/proc/loadavg`'s first field).
pub fn loadavg_1min() -> Option<f64> {
    first_number(&read("/proc/loadavg")?)
}

fn first_number(text: &str) -> Option<f64> {
    text.split_whitespace().next()?.parse().ok()
}

/// `/proc/pressure/<resource>` (`cpu`, `io`, `memory`): its `some` and
/// `full` lines' `total=`, µs (`None` without PSI or without that line).
pub fn pressure(resource: &str) -> (Option<u64>, Option<u64>) {
    read(&format!("/proc/pressure/{resource}"))
        .map(|t| parse_pressure(&t))
        .unwrap_or((None, None))
}

/// `total=` of the `some` and `full` lines of a `/proc/pressure/*` file.
pub fn parse_pressure(text: &str) -> (Option<u64>, Option<u64>) {
    let total = |kind: &str| {
        text.lines()
            .find(|l| l.starts_with(kind))
            .and_then(|l| l.split_whitespace().find_map(|w| w.strip_prefix("total=")))
            .and_then(|v| v.parse().ok())
    };
    (total("some"), total("full"))
}

/// One counter of `/proc/vmstat` (`oom_kill`).
pub fn vmstat(key: &str) -> Option<u64> {
    parse_vmstat(&read("/proc/vmstat")?, key)
}

/// `key`'s value in `/proc/vmstat`'s text.
pub fn parse_vmstat(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next()? == key).then(|| w.next()?.parse().ok())?
    })
}

/// `/proc/interrupts` and `/proc/softirqs`, as text (their tables are
/// read by `health::irqs`).
pub fn irq_tables() -> [(&'static str, Option<String>); 2] {
    ["/proc/interrupts", "/proc/softirqs"].map(|f| (f, read(f)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pressure_and_vmstat_read_their_fields() {
        let psi = "some avg10=0.00 avg60=0.00 avg300=0.00 total=123\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=45\n";
        assert_eq!(parse_pressure(psi), (Some(123), Some(45)));
        assert_eq!(parse_pressure("some total=x\n"), (None, None));
        let vm = "nr_free_pages 12\noom_kill 3\noom_killx 9\n";
        assert_eq!(parse_vmstat(vm, "oom_kill"), Some(3));
        assert_eq!(parse_vmstat(vm, "pgfault"), None);
        assert_eq!(first_number("0.52 0.40 0.33 1/234 5678\n"), Some(0.52));
        assert_eq!(parse_schedstat("123 456 7\n"), Some((123, 456, 7)));
        assert_eq!(parse_schedstat("123 456"), None);
        assert_eq!(parse_schedstat("a b c"), None);
    }

    #[test]
    fn this_process_is_alive_and_has_tasks() {
        let me = std::process::id() as i32;
        assert!(alive(me));
        assert!(tasks(me).contains(&me));
        assert!(own_tasks().contains(&me));
    }
}
