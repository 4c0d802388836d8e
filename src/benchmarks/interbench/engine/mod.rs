//! interbench: simulated interactive tasks, alone and under background
//! loads; how late they get the CPU, how much of the CPU they wanted they
//! get, and how many deadlines they meet.
//!
//! As Con Kolivas' interbench defines them: Audio wakes every 50 ms and
//! uses 5 % CPU; Video wakes 60 times a second and uses 40 %; X uses 0-100 %
//! of a CPU in 1 ms steps (a window dragged across the screen); Gaming uses
//! all the CPU it can and is measured by its frame rate; Custom uses `-C`
//! percent at `-I` µs intervals.  Each runs as a thread of its own woken by a
//! timekeeper thread (SCHED_FIFO 96 where allowed), so the task's latency
//! is its scheduling delay after the timekeeper woke, not the timer's
//! slack; the accounting is interbench's ([`account`]).  Loads are
//! processes: Burn (`-L` CPU hogs, kbench's cpu load), Write (kbench's io
//! load, a file rewritten in a loop), Read (kbench's read load), Ring
//! (kbench's process ring, `-L` processes), Compile (Burn, Write and Read
//! together), Memload (kbench's mem load; without swap it is left out, as
//! interbench does), and Video, X or Custom running as a load.  For each
//! pair the load starts, runs a second, then the task runs `-t` seconds.

pub mod account;
pub mod calibrate;
mod simload;

use account::{Account, Next};
use anyhow::Result;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::*};
use std::sync::Arc;
use std::time::Duration;

/// A simulated task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    None,
    Audio,
    Video,
    X,
    Gaming,
    Burn,
    Write,
    Read,
    Ring,
    Compile,
    Memload,
    Custom,
}

/// interbench's list, in its order.
pub const ALL: &[Kind] = &[
    Kind::None,
    Kind::Audio,
    Kind::Video,
    Kind::X,
    Kind::Gaming,
    Kind::Burn,
    Kind::Write,
    Kind::Read,
    Kind::Ring,
    Kind::Compile,
    Kind::Memload,
    Kind::Custom,
];

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::None => "None",
            Kind::Audio => "Audio",
            Kind::Video => "Video",
            Kind::X => "X",
            Kind::Gaming => "Gaming",
            Kind::Burn => "Burn",
            Kind::Write => "Write",
            Kind::Read => "Read",
            Kind::Ring => "Ring",
            Kind::Compile => "Compile",
            Kind::Memload => "Memload",
            Kind::Custom => "Custom",
        }
    }

    /// interbench's name matching is case-insensitive.
    pub fn parse(s: &str) -> Option<Kind> {
        ALL.iter()
            .copied()
            .find(|k| k.label().eq_ignore_ascii_case(s))
    }

    /// Can it be benchmarked (normal, real-time)?
    pub fn benchable(self, rt: bool) -> bool {
        match self {
            Kind::Audio | Kind::Video | Kind::Custom => true,
            Kind::X | Kind::Gaming => !rt,
            _ => false,
        }
    }

    /// Can it be a load?
    pub fn loadable(self) -> bool {
        !matches!(self, Kind::Audio | Kind::Gaming)
    }

    /// Run and interval in µs of a periodic task; `None` for others.
    fn period(self, custom: (u64, u64)) -> Option<(u64, u64)> {
        match self {
            Kind::Audio => Some((50_000 / 20, 50_000)),
            Kind::Video => Some((1_000_000 / 60 * 40 / 100, 1_000_000 / 60)),
            Kind::Custom => Some(custom),
            _ => None,
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    pub tasks: Vec<Kind>,
    pub loads: Vec<Kind>,
    pub duration_s: u64,
    pub loops_per_ms: u64,
    pub bench_nice: i32,
    pub load_nice: i32,
    pub rt: bool,
    pub uniprocessor: bool,
    /// Burn hogs and ring processes (`-L`).
    pub burn: usize,
    /// Custom task: run and interval, µs.
    pub custom: Option<(u64, u64)>,
    /// Where Write and Read put their files.
    pub dir: Option<std::path::PathBuf>,
}

/// One task under one load.
#[derive(Clone, Debug)]
pub struct Pair {
    pub task: Kind,
    pub load: Kind,
    pub account: Account,
    /// Latencies, ns.
    pub latency: Histogram<u64>,
    pub seconds: f64,
    /// CPU time the task's thread used, ns.
    pub cpu_ns: u64,
    /// The load's own report (work, CPU), when there was a load.
    pub load_report: Option<crate::load::Report>,
}

impl Pair {
    /// The task's CPU time over the time it ran, %.
    pub fn cpu_share_pct(&self) -> f64 {
        self.cpu_ns as f64 / (self.seconds * 1e9).max(1.0) * 100.0
    }

    /// Frames per second (Gaming: 100 ms of CPU work each).
    pub fn fps(&self) -> f64 {
        self.account.samples as f64 / self.seconds.max(1e-9)
    }
}

/// Everything one run measured.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub pairs: Vec<Pair>,
    pub interrupted: bool,
    /// Loads left out and why (Memload without swap).
    pub skipped: Vec<String>,
}

/// Called as pairs start and finish (progress).
pub trait Observer {
    fn table_start(&mut self, _task: Kind) {}
    fn pair_start(&mut self, _task: Kind, _load: Kind) {}
    fn pair_done(&mut self, _pair: &Pair) {}
}

/// State shared by a task and its timekeeper.
struct Shared {
    stop: AtomicBool,
    /// Bumped by the task to ask for a sleep; by the timekeeper when done.
    request: AtomicI32,
    done: AtomicI32,
    /// Sleep asked for, ns (0: none).
    sleep_ns: AtomicU64,
    /// How far the timekeeper overslept, ns.
    overslept_ns: AtomicU64,
    quit: AtomicBool,
}

impl Shared {
    fn new() -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            request: AtomicI32::new(0),
            done: AtomicI32::new(0),
            sleep_ns: AtomicU64::new(0),
            overslept_ns: AtomicU64::new(0),
            quit: AtomicBool::new(false),
        }
    }

    /// The task's side: have the timekeeper sleep `ns` and wake us.
    fn sleep_via_timekeeper(&self, ns: u64) {
        self.sleep_ns.store(ns, Relaxed);
        let seq = self.request.load(Relaxed).wrapping_add(1);
        let before = self.done.load(Acquire);
        self.request.store(seq, Release);
        crate::sys::futex::wake_one(&self.request);
        while self.done.load(Acquire) == before {
            crate::sys::futex::wait_while(&self.done, before);
        }
    }
}

/// The timekeeper: sleeps what the task asks, measures its own oversleep.
fn timekeeper(s: &Shared) {
    let mut seen = 0;
    loop {
        loop {
            let r = s.request.load(Acquire);
            if r != seen || s.quit.load(Acquire) {
                break;
            }
            crate::sys::futex::wait_while(&s.request, seen);
        }
        if s.quit.load(Acquire) {
            return;
        }
        seen = s.request.load(Acquire);
        s.overslept_ns.store(0, Relaxed);
        let want = s.sleep_ns.load(Relaxed);
        if want > 0 {
            let start = crate::sys::time::mono_ns();
            crate::sys::time::sleep_until_ns(start + want);
            let slept = crate::sys::time::mono_ns() - start;
            s.overslept_ns.store(slept.saturating_sub(want), Relaxed);
        }
        s.done.fetch_add(1, Release);
        crate::sys::futex::wake_one(&s.done);
    }
}

/// The measured task's loop: one account and histogram, no allocation.
fn run_task(kind: Kind, o: &Options, s: &Shared, a: &mut Account, h: &mut Histogram<u64>) {
    let now = crate::sys::time::mono_ns;
    let lpms = o.loops_per_ms;
    // `--trace` hears of each period's lateness: the span from when it
    // should have ended to when it did.
    let tid = crate::sys::sched::gettid();
    if kind == Kind::Gaming {
        const GAME_US: u64 = 100_000;
        while !s.stop.load(Relaxed) {
            let deadline = now() + GAME_US * 1000;
            calibrate::burn_us(lpms, GAME_US);
            let t = now();
            a.achieved_burns += GAME_US * 1000;
            let lat = t.saturating_sub(deadline);
            crate::trace::wakeups::note(tid, deadline, t);
            a.missed_burns += lat;
            a.sample(lat);
            let _ = h.record(lat.max(1));
        }
        return;
    }
    pattern(kind, o.custom, |deadline, run_us, interval| {
        let overslept = s.overslept_ns.load(Relaxed);
        let lat = period(
            a,
            deadline,
            overslept,
            run_us,
            interval,
            lpms,
            |sleep| match sleep {
                Some(d) => s.sleep_via_timekeeper(d.saturating_sub(now())),
                None => s.overslept_ns.store(0, Relaxed),
            },
        );
        let t = now();
        crate::trace::wakeups::note(tid, t.saturating_sub(lat), t);
        let _ = h.record(lat.max(1));
        !s.stop.load(Relaxed)
    });
}

/// The CPU pattern of a periodic task, as interbench's emulate_* loops
/// make it: `period(deadline, run µs, interval ns)` for each period, until
/// it returns false.  X runs 0-100 % of a CPU in 1 ms steps, moving its
/// deadline on by each step's run time; the others repeat one period.
pub(crate) fn pattern(
    kind: Kind,
    custom: Option<(u64, u64)>,
    mut period: impl FnMut(&mut u64, u64, u64) -> bool,
) {
    let mut deadline = crate::sys::time::mono_ns();
    if kind == Kind::X {
        loop {
            for i in 0..=100u64 {
                if !period(&mut deadline, i * 1000, (100 - i) * 1_000_000) {
                    return;
                }
                deadline += i * 1_000_000;
            }
        }
    }
    let (run_us, interval_us) = kind.period(custom.unwrap_or((0, 1))).unwrap_or((0, 1));
    while period(&mut deadline, run_us, interval_us * 1000) {}
}

/// interbench's `periodic_schedule`, on the account: begin, burn, and
/// `sleep(Some(deadline))`, or `sleep(None)` when the next period starts at
/// once; returns the period's latency.
pub(crate) fn period(
    a: &mut Account,
    deadline: &mut u64,
    overslept: u64,
    run_us: u64,
    interval: u64,
    lpms: u64,
    sleep: impl FnOnce(Option<u64>),
) -> u64 {
    let now = crate::sys::time::mono_ns;
    let (mut p, next) = a.begin(deadline, overslept, interval, now());
    let until = match next {
        Next::Sleep(d) => Some(d),
        Next::Burn => {
            calibrate::burn_us(lpms, run_us);
            let t = now();
            a.after_burn(&mut p, deadline, interval, t)
                .then_some(*deadline)
        }
    };
    sleep(until);
    a.end(p)
}

/// The loads a pair starts for `load`.
fn start_loads(load: Kind, o: &Options) -> Result<Vec<crate::load::Running>> {
    // Load workers are forked from a single-threaded kbench: the last
    // pair's threads have been joined, but an exiting thread stays listed
    // in /proc a moment after its join returns.
    let end = std::time::Instant::now() + Duration::from_secs(2);
    while crate::sys::proc::thread_count() > 1 && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    let lo = crate::load::LoadOptions {
        size: None,
        dir: o.dir.clone(),
        procs: Some(o.burn),
        cpus: o.uniprocessor.then(|| vec![0]),
        nice: (o.load_nice != 0).then_some(o.load_nice),
        ..Default::default()
    };
    let kinds: Vec<Box<dyn crate::load::Load>> = match load {
        Kind::None => vec![],
        Kind::Burn => vec![crate::load::build("cpu", &lo)?],
        Kind::Write => vec![write_load(&lo)?],
        Kind::Read => vec![crate::load::build("read", &lo)?],
        Kind::Ring => vec![crate::load::ring(o.burn)],
        Kind::Compile => vec![
            crate::load::build("cpu", &lo)?,
            write_load(&lo)?,
            crate::load::build("read", &lo)?,
        ],
        Kind::Memload => vec![crate::load::build("mem", &lo)?],
        Kind::Video | Kind::X | Kind::Custom => {
            vec![Box::new(simload::Simulated::new(
                load,
                o.loops_per_ms,
                o.custom,
            ))]
        }
        Kind::Audio | Kind::Gaming => anyhow::bail!("{} is not a load", load.label()),
    };
    let mut running = Vec::new();
    for k in kinds {
        let mut r = crate::load::Running::start(k, &lo)?;
        r.wait_working(Duration::from_secs(60))?;
        running.push(r);
    }
    Ok(running)
}

/// Write: a file rewritten in a loop, as interbench's (the size of RAM, at
/// most 1 GB; kbench's io load sizes it to what the disk has free).
fn write_load(lo: &crate::load::LoadOptions) -> Result<Box<dyn crate::load::Load>> {
    let ram = crate::load::size::Memory::read().total;
    let mut lo = lo.clone();
    lo.size = Some(ram.clamp(64 << 20, 1 << 30));
    crate::load::build("io", &lo)
}

/// Sleep `d` unless a stop is requested; false when stopped.
fn sleep_checking(d: Duration) -> bool {
    let end = std::time::Instant::now() + d;
    while std::time::Instant::now() < end {
        if crate::sys::signals::stop_requested() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20).min(end - std::time::Instant::now()));
    }
    !crate::sys::signals::stop_requested()
}

/// Run one task under one load; `None` when stopped before the task ran.
fn run_pair(task: Kind, load: Kind, o: &Options) -> Result<Option<Pair>> {
    let loads = start_loads(load, o)?;
    let settled = sleep_checking(Duration::from_secs(1));
    let mut pair = None;
    if settled {
        pair = Some(measure(task, load, o)?);
    }
    let load_report = loads.into_iter().map(|r| r.stop()).reduce(|mut a, b| {
        a.work += b.work;
        a.cpu_s += b.cpu_s;
        a.load = format!("{}+{}", a.load, b.load);
        a
    });
    if let Some(p) = pair.as_mut() {
        p.load_report = load_report;
    }
    Ok(pair)
}

fn measure(task: Kind, load: Kind, o: &Options) -> Result<Pair> {
    let shared = Arc::new(Shared::new());
    let rt_ok = crate::sys::proc::is_root();
    let tk = {
        let s = Arc::clone(&shared);
        let uni = o.uniprocessor;
        std::thread::Builder::new()
            .name("kbench-ib-tk".into())
            .spawn(move || {
                crate::sys::sched_account::thread_started();
                let tid = crate::sys::sched::gettid();
                if uni {
                    let _ = crate::sys::sched::set_affinity(tid, &[0]);
                }
                if rt_ok {
                    let _ = crate::sys::sched::set_policy(tid, crate::sys::sched::Policy::Fifo, 96);
                }
                timekeeper(&s)
            })?
    };
    let worker = {
        let s = Arc::clone(&shared);
        let o = o.clone();
        std::thread::Builder::new()
            .name(format!("kbench-ib-{}", task.label().to_lowercase()))
            .spawn(move || -> Result<(Account, Histogram<u64>, u64)> {
                crate::sys::sched_account::thread_started();
                let tid = crate::sys::sched::gettid();
                if o.uniprocessor {
                    let _ = crate::sys::sched::set_affinity(tid, &[0]);
                }
                if o.rt {
                    crate::sys::sched::set_policy(tid, crate::sys::sched::Policy::Fifo, 95)?;
                } else if o.bench_nice != 0 {
                    // setpriority on the calling thread sets its own nice.
                    crate::sys::proc::set_nice(o.bench_nice)?;
                }
                let mut a = Account::default();
                let mut h = Histogram::<u64>::new_with_bounds(1, 600_000_000_000, 3)?;
                let cpu0 = crate::sys::time::thread_cpu_ns();
                run_task(task, &o, &s, &mut a, &mut h);
                Ok((a, h, crate::sys::time::thread_cpu_ns() - cpu0))
            })?
    };
    let start = std::time::Instant::now();
    sleep_checking(Duration::from_secs(o.duration_s));
    shared.stop.store(true, Release);
    let joined = worker.join();
    shared.quit.store(true, Release);
    shared.request.fetch_add(1, Release);
    crate::sys::futex::wake_one(&shared.request);
    let _ = tk.join();
    let (account, latency, cpu_ns) =
        joined.map_err(|_| anyhow::anyhow!("the {} task panicked", task.label()))??;
    Ok(Pair {
        task,
        load,
        account,
        latency,
        seconds: start.elapsed().as_secs_f64(),
        cpu_ns,
        load_report: None,
    })
}

/// Every selected pair, tables in interbench's order.
pub fn run(o: &Options, obs: &mut dyn Observer) -> Result<Outcome> {
    let mut out = Outcome {
        pairs: Vec::new(),
        interrupted: false,
        skipped: Vec::new(),
    };
    let m = crate::sys::procfs::meminfo::Meminfo::read();
    let no_swap = m.swap_free == 0 && m.swap_total == 0;
    if no_swap && o.loads.contains(&Kind::Memload) {
        out.skipped
            .push("Memload: no swap here, so it is left out, as interbench does".into());
    }
    for &task in &o.tasks {
        obs.table_start(task);
        for &load in &o.loads {
            if load == task || (load == Kind::Memload && no_swap) {
                continue;
            }
            obs.pair_start(task, load);
            match run_pair(task, load, o) {
                Ok(Some(p)) => {
                    obs.pair_done(&p);
                    out.pairs.push(p);
                }
                Ok(None) => {}
                Err(e) if e.is::<crate::error::Interrupted>() => {}
                Err(e) => return Err(e),
            }
            if crate::sys::signals::stop_requested() {
                out.interrupted = true;
                return Ok(out);
            }
        }
    }
    Ok(out)
}
