//! How the kernel scheduled this process's own tasks, exactly: threads
//! and forked workers that ended during a run included.
//!
//! The kernel keeps, per task, CPU time, time spent runnable on a run
//! queue and the number of time slices (`/proc/<tid>/schedstat`: the
//! `sched_info` of CONFIG_SCHED_INFO, Documentation/scheduler/sched-stats.rst)
//! and migrations (`se.nr_migrations` in `/proc/<tid>/sched`).  A task
//! that ends takes them with it, so each of kbench's threads reads its own
//! when it ends (a thread-local's destructor, armed by
//! [`thread_started`]) and each forked worker when it exits
//! ([`process_exiting`]), adding them to counters in memory shared with
//! every fork ([`arm`]).  Switches (voluntary and involuntary) and CPU
//! time come from `getrusage` (RUSAGE_SELF counts every thread, ended ones
//! included; RUSAGE_CHILDREN every reaped descendant), which also counts
//! commands kbench runs (a kernel build) whose run-queue wait no file
//! keeps once they end: that wait is of kbench's own tasks only, and says
//! so.

use super::procfs;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

/// The `sched_info` counters of one task, or a sum of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub cpu_ns: u64,
    pub wait_ns: u64,
    pub slices: u64,
    pub migrations: u64,
}

impl Counters {
    /// `self + o`, field by field, saturating.
    pub fn add(&mut self, o: &Counters) {
        self.cpu_ns = self.cpu_ns.saturating_add(o.cpu_ns);
        self.wait_ns = self.wait_ns.saturating_add(o.wait_ns);
        self.slices = self.slices.saturating_add(o.slices);
        self.migrations = self.migrations.saturating_add(o.migrations);
    }

    /// `self - before`, field by field, never below zero.
    pub fn since(&self, before: &Counters) -> Counters {
        Counters {
            cpu_ns: self.cpu_ns.saturating_sub(before.cpu_ns),
            wait_ns: self.wait_ns.saturating_sub(before.wait_ns),
            slices: self.slices.saturating_sub(before.slices),
            migrations: self.migrations.saturating_sub(before.migrations),
        }
    }
}

/// `se.nr_migrations` from `/proc/<tid>/sched`.
pub fn parse_migrations(text: &str) -> Option<u64> {
    text.lines()
        .find(|l| l.trim_start().starts_with("se.nr_migrations"))?
        .split(':')
        .nth(1)?
        .trim()
        .parse()
        .ok()
}

/// One task's counters from its `/proc` folder (`/proc/thread-self`,
/// `/proc/self/task/<tid>`); `None` where the kernel has no schedstat.
pub fn read_task(dir: &str) -> Option<Counters> {
    if super::hooks::no_schedstat() {
        return None;
    }
    let (cpu_ns, wait_ns, slices) = procfs::schedstat_in(dir)?;
    let migrations = std::fs::read_to_string(format!("{dir}/sched"))
        .ok()
        .and_then(|t| parse_migrations(&t))
        .unwrap_or(0);
    Some(Counters {
        cpu_ns,
        wait_ns,
        slices,
        migrations,
    })
}

/// The counters of tasks that ended, shared with every fork made after
/// [`arm`]: cpu, wait, slices, migrations, tasks.
static ENDED: OnceLock<Option<&'static [AtomicU64]>> = OnceLock::new();

/// Map the shared counters (once); call before forking workers.
pub fn arm() {
    ENDED.get_or_init(|| super::shared::leak_shared_words(8).ok());
}

fn ended() -> Option<&'static [AtomicU64]> {
    ENDED.get().copied().flatten()
}

fn add_ended(c: &Counters) {
    if let Some(e) = ended() {
        e[0].fetch_add(c.cpu_ns, Relaxed);
        e[1].fetch_add(c.wait_ns, Relaxed);
        e[2].fetch_add(c.slices, Relaxed);
        e[3].fetch_add(c.migrations, Relaxed);
        e[4].fetch_add(1, Relaxed);
    }
}

/// The counters of the tasks that ended so far, and how many they were.
pub fn ended_so_far() -> (Counters, u64) {
    match ended() {
        Some(e) => (
            Counters {
                cpu_ns: e[0].load(Relaxed),
                wait_ns: e[1].load(Relaxed),
                slices: e[2].load(Relaxed),
                migrations: e[3].load(Relaxed),
            },
            e[4].load(Relaxed),
        ),
        None => (Counters::default(), 0),
    }
}

/// Reads the thread's counters into [`ENDED`] when the thread ends.
struct AtExit;

impl Drop for AtExit {
    fn drop(&mut self) {
        if IS_HELPER.with(std::cell::Cell::get) {
            return;
        }
        if let Some(c) = read_task("/proc/thread-self") {
            add_ended(&c);
        }
    }
}

thread_local! {
    /// Whether this thread is one of kbench's helpers (see [`helper_started`]).
    static IS_HELPER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The live helper threads of this process (0: a free slot).
static HELPERS: [std::sync::atomic::AtomicI32; 8] =
    [const { std::sync::atomic::AtomicI32::new(0) }; 8];

/// Call first thing in a helper of kbench's own (the trace reader, as a
/// thread or a forked process): it is not the benchmark, so its
/// counters are left out of the run's (`sched.<role>.*`) and its usage
/// ([`helper_ending`]) taken off [`usage`].  Before, a traced probe read
/// 1099 slices/s where the untraced read 998.
pub fn helper_started() {
    IS_HELPER.with(|h| h.set(true));
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() };
    for s in &HELPERS {
        if s.compare_exchange(0, tid, Relaxed, Relaxed).is_ok() {
            break;
        }
    }
}

/// Call last in a helper: its usage (the thread's; a helper process's
/// whole) is kept to be taken off [`usage`], and it leaves the list.
pub fn helper_ending(whole_process: bool) {
    let u = rusage(if whole_process {
        libc::RUSAGE_SELF
    } else {
        libc::RUSAGE_THREAD
    });
    if let Some(e) = ended() {
        e[5].fetch_add(u.voluntary, Relaxed);
        e[6].fetch_add(u.involuntary, Relaxed);
        e[7].fetch_add(u.cpu_us, Relaxed);
    }
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() };
    for s in &HELPERS {
        let _ = s.compare_exchange(tid, 0, Relaxed, Relaxed);
    }
}

/// What each live helper thread has used so far (switches from its
/// `status`, CPU from its `schedstat`): in `RUSAGE_SELF` until it ends.
fn live_helpers() -> Vec<[u64; 3]> {
    HELPERS
        .iter()
        .map(|s| s.load(Relaxed))
        .filter(|&t| t > 0)
        .filter_map(|t| {
            let status = procfs::status::of_own_task(t)?;
            let field = |k: &str| procfs::status::field(&status, k).unwrap_or(0);
            let cpu_us = read_task(&procfs::own_task_dir(t)).map_or(0, |c| c.cpu_ns / 1000);
            Some([
                field("voluntary_ctxt_switches"),
                field("nonvoluntary_ctxt_switches"),
                cpu_us,
            ])
        })
        .collect()
}

fn is_helper_tid(tid: i32) -> bool {
    HELPERS.iter().any(|s| s.load(Relaxed) == tid)
}

thread_local! {
    static AT_EXIT: AtExit = const { AtExit };
}

/// Call first thing in every thread kbench starts for a measurement: its
/// counters are then kept when it ends.
pub fn thread_started() {
    AT_EXIT.with(|_| {});
}

/// Call in a forked worker just before it exits: its main thread's
/// counters are kept (its other threads, if any, called
/// [`thread_started`]).
pub fn process_exiting() {
    if IS_HELPER.with(std::cell::Cell::get) {
        return;
    }
    if let Some(c) = read_task("/proc/thread-self") {
        add_ended(&c);
    }
}

/// The tids of this process's live tasks, helpers left out.
#[cfg(test)]
fn live_tids() -> Vec<i32> {
    procfs::own_tasks()
        .into_iter()
        .filter(|&t| !is_helper_tid(t))
        .collect()
}

/// The live tasks of this process, summed, and how many were read.
pub fn live() -> (Counters, u64) {
    let mut sum = Counters::default();
    let mut n = 0;
    for tid in procfs::own_tasks() {
        if is_helper_tid(tid) {
            continue;
        }
        if let Some(c) = read_task(&procfs::own_task_dir(tid)) {
            sum.add(&c);
            n += 1;
        }
    }
    (sum, n)
}

/// Switches and CPU time from `getrusage`: this process's (every thread,
/// ended ones included) plus its reaped descendants'.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub voluntary: u64,
    pub involuntary: u64,
    pub cpu_us: u64,
}

impl Usage {
    /// `self - before`, field by field, never below zero.
    pub fn since(&self, before: &Usage) -> Usage {
        Usage {
            voluntary: self.voluntary.saturating_sub(before.voluntary),
            involuntary: self.involuntary.saturating_sub(before.involuntary),
            cpu_us: self.cpu_us.saturating_sub(before.cpu_us),
        }
    }
}

fn rusage(who: libc::c_int) -> Usage {
    // SAFETY: getrusage fills the struct it is given.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage.
    if unsafe { libc::getrusage(who, &mut r) } != 0 {
        return Usage::default();
    }
    let us = |t: libc::timeval| (t.tv_sec.max(0) as u64) * 1_000_000 + t.tv_usec.max(0) as u64;
    Usage {
        voluntary: r.ru_nvcsw.max(0) as u64,
        involuntary: r.ru_nivcsw.max(0) as u64,
        cpu_us: us(r.ru_utime) + us(r.ru_stime),
    }
}

/// This process's and its reaped descendants' usage, summed, less what
/// its ended helpers used (a live helper's is counted until it ends:
/// kbench stops its helpers before it reads the end of a run).
pub fn usage() -> Usage {
    let (s, c) = (rusage(libc::RUSAGE_SELF), rusage(libc::RUSAGE_CHILDREN));
    let mut h = ended().map_or([0; 3], |e| {
        [e[5].load(Relaxed), e[6].load(Relaxed), e[7].load(Relaxed)]
    });
    for l in live_helpers() {
        for (x, y) in h.iter_mut().zip(l) {
            *x = x.saturating_add(y);
        }
    }
    Usage {
        voluntary: s.voluntary.saturating_add(c.voluntary).saturating_sub(h[0]),
        involuntary: s
            .involuntary
            .saturating_add(c.involuntary)
            .saturating_sub(h[1]),
        cpu_us: s.cpu_us.saturating_add(c.cpu_us).saturating_sub(h[2]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_files_are_read() {
        let sched = "kbench (1, #threads: 1)\n---\nse.exec_start  :  1.0\nse.nr_migrations                             :                    42\nnr_switches : 9\n";
        assert_eq!(parse_migrations(sched), Some(42));
        assert_eq!(parse_migrations("nr_switches : 9\n"), None);
        // This very thread, live.
        let me = read_task("/proc/thread-self").expect("schedstat here");
        assert!(me.slices >= 1, "{me:?}");
    }

    #[test]
    fn an_ended_thread_is_kept() {
        arm();
        let (before, n0) = ended_so_far();
        std::thread::spawn(|| {
            thread_started();
            let t = std::time::Instant::now();
            while t.elapsed() < std::time::Duration::from_millis(20) {
                std::hint::black_box(0u64);
            }
        })
        .join()
        .unwrap();
        let (after, n1) = ended_so_far();
        assert!(n1 > n0, "the thread's end was counted");
        // It ran: at least one slice and some CPU are in the ended tasks'
        // counters (other tests' threads may add more, never less).
        let d = after.since(&before);
        assert!(d.slices >= 1 && d.cpu_ns > 0, "{after:?} {before:?}");
    }

    /// A live helper thread is not among the process's counted tasks (a
    /// plain thread is), and what it used is kept, whole, to be taken off
    /// the process's usage.  (Other tests' threads run meanwhile, so only
    /// what this thread alone decides is asserted.)
    #[test]
    fn a_helper_is_left_out_of_every_count() {
        arm();
        let spin = |helper: bool| {
            std::thread::spawn(move || {
                if helper {
                    helper_started();
                } else {
                    thread_started();
                }
                let t0 = crate::sys::time::thread_cpu_ns();
                while crate::sys::time::thread_cpu_ns() - t0 < 20_000_000 {
                    std::hint::black_box(0);
                }
                // SAFETY: gettid has no preconditions.
                let tid = unsafe { libc::gettid() };
                let listed = live_tids().contains(&tid);
                let before = ended().map_or(0, |e| e[7].load(Relaxed));
                if helper {
                    helper_ending(false);
                }
                let kept = ended().map_or(0, |e| e[7].load(Relaxed)) - before;
                (listed, kept, is_helper_tid(tid))
            })
            .join()
            .unwrap()
        };
        let (listed, kept, still) = spin(true);
        assert!(!listed, "a live helper is counted as the process's");
        assert!(
            kept >= 20_000,
            "its usage kept: {kept} us of at least 20,000"
        );
        assert!(!still, "an ended helper leaves the list");
        let (listed, _, _) = spin(false);
        assert!(listed, "a plain thread is counted");
    }
}
