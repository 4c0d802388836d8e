//! `kbench cyclictest`: flags in rt-tests' spelling, cyclictest's per-thread
//! lines (live while running, final at the end), then kbench's percentiles.

pub mod adapter;
pub mod args;
pub mod engine;
pub mod import;
pub mod import_json;
pub mod metrics;
pub mod params;

use crate::benchmarks::cyclictest::engine::{plan_threads, Options};
use crate::error::input;
use crate::lifecycle::drive;
use crate::lifecycle::entry::{self, Entry};
use crate::session::Ctx;
use crate::sys::cpus;
use crate::sys::sched::{self, Policy};
use adapter::Cyclictest;
use anyhow::Result;
use args::CyclictestArgs;

const ABOUT: &str = "Timer wake-up latency on every CPU, like rt-tests cyclictest";

/// `cyclictest` in the registry.
pub const ENTRY: Entry = Entry {
    name: "cyclictest",
    about: ABOUT,
    metrics: metrics::ALL,
    parts: &[],
    headline: "max_us",
    command: || entry::command::<CyclictestArgs>("cyclictest", ABOUT).disable_help_flag(true),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate: |argv| entry::flag_seconds(argv, "--duration"),
    canonical: entry::canonical_via::<params::Cyclictest>,
    // Measured on the 2-vCPU VM kbench is developed on: the first of 5
    // one-second repetitions had p99 2.5-8x the others' (1157 vs 115-153,
    // 297 vs 102-215, 747 vs 106-150 us; with -m as well), while
    // hackbench's and a tiny job's first runs were within their spread.
    warmup: true,
    many_labels: entry::one_label,
    spell,
};

/// rt-tests' spelling: `-S -p 98 -m -D 20`, the flags in their order,
/// leaving out one thread, every thread with `-S` (it says one per CPU),
/// and the policy that `-p` implies.
fn spell(s: entry::Spelling) -> entry::Spelling {
    let p = s.params();
    let smp = p.get("smp") == Some(&serde_json::Value::Bool(true));
    let implied = match p.get("priority").and_then(serde_json::Value::as_i64) {
        Some(prio) if prio > 0 => "fifo",
        _ => "other",
    };
    let s = s.implied("policy", implied);
    if smp {
        s.unsaid("threads")
    } else {
        s.implied("threads", "1")
    }
}

/// Longest interval any thread may get, µs (an hour).
const MAX_INTERVAL_US: u64 = 3_600_000_000;

pub fn options(a: &CyclictestArgs) -> Result<Options> {
    let policy = match a.policy {
        Some(p) => p,
        None if a.priority > 0 => Policy::Fifo,
        None => Policy::Other,
    };
    if policy.is_realtime() {
        sched::check_priority(a.priority)?;
    } else if a.priority != 0 {
        return Err(input(format!(
            "priority {} only applies to --policy fifo or rr (policy is {})",
            a.priority,
            policy.name()
        )));
    }
    let duration = a.duration;
    let affinity = a.affinity.as_ref().map(|l| l.0.clone());
    let online = cpus::online_here();
    // The last thread's interval, interval + (threads − 1) × distance, must
    // stay a sane sleep: an overflow would make it 0, a busy loop at RT
    // priority.
    let n = if a.smp {
        online.len()
    } else {
        a.threads.unwrap_or(1) as usize
    } as u64;
    let last = a
        .distance
        .checked_mul(n.saturating_sub(1))
        .and_then(|d| d.checked_add(a.interval));
    if last.is_none_or(|l| l > MAX_INTERVAL_US) {
        return Err(input(format!(
            "-d/--distance {}: with {n} threads the last one's interval (-i + (threads - 1) x -d) would pass {MAX_INTERVAL_US} us (1 hour)",
            a.distance
        )));
    }
    fits_in_memory(n, a.histogram, a.mlockall)?;
    let on = affinity.as_ref().map_or(online.len(), Vec::len).max(1);
    let limit = max_threads(on);
    if n > limit as u64 {
        return Err(input(format!(
            "{n} threads on {on} CPU{}: at most {limit} (64 a CPU, 128 at least): past that the threads queue behind each other's wake-ups and the latency measured is kbench's own, not the kernel's",
            if on == 1 { "" } else { "s" }
        )));
    }
    let threads = plan_threads(
        a.smp,
        a.threads.map(|t| t as usize),
        affinity.as_deref(),
        &online,
        a.interval,
        a.distance,
    );
    Ok(Options {
        threads,
        duration,
        duration_s: duration.map(|d| d.as_secs_f64()),
        loops: a.loops,
        policy,
        priority: if policy.is_realtime() { a.priority } else { 0 },
        mlockall: a.mlockall,
        hold_dma_latency: !a.default_system,
        histogram_us: a.histogram,
    })
}

/// Most measuring threads one run may have on `cpus` CPUs: 64 a CPU, 128
/// at least, 4096 at most.  Past that the threads' own wake-ups fill the
/// CPUs: on 2 CPUs at -i 1000 (release build), 512 threads took 993 of
/// their 1000 samples in 1 s, 1024 only 394 with an average latency of
/// 2 ms, all of it queueing behind each other; and 4096 took 3 s for a
/// 0.3 s run and 1.5 s to answer Ctrl-C (8 s in a debug build).
fn max_threads(cpus: usize) -> usize {
    super::thread_limit(cpus, 4096)
}

/// What `n` measuring threads hold for the whole run: each its
/// HdrHistogram and its `-h` buckets (both touched before measuring), and
/// with `-m` its whole stack too (locked as it is mapped).  Refused when
/// that would not fit in available memory, rather than locking the machine
/// into the OOM killer (`-t 4096 -m -h 1000000` asked for 40 GiB).
fn fits_in_memory(n: u64, histogram_us: Option<u64>, mlockall: bool) -> Result<()> {
    const THREAD_STACK: u64 = 2 << 20; // std::thread's default
    let hist = crate::benchmarks::cyclictest::engine::new_histogram().distinct_values() as u64 * 8;
    let buckets = histogram_us.map_or(0, |h| (h + 1) * 8);
    let per_thread = hist + buckets + if mlockall { THREAD_STACK } else { 0 };
    let need = per_thread.saturating_mul(n);
    let mem = crate::load::size::Memory::read();
    let usable = mem.usable();
    if need > usable {
        return Err(crate::error::resource(format!(
            "{n} cyclictest threads{}{} need {} of memory, more than the {} available (keeping {} free): use fewer threads{}",
            histogram_us.map_or(String::new(), |h| format!(" with -h {h}")),
            if mlockall { " locked by -m" } else { "" },
            crate::sys::size::human(need),
            crate::sys::size::human(usable),
            crate::sys::size::human(mem.margin()),
            if histogram_us.is_some() { " or a smaller -h" } else { "" }
        )));
    }
    Ok(())
}

pub fn run(ctx: &Ctx, a: &CyclictestArgs) -> Result<()> {
    let opts = options(a)?;
    if opts.duration.is_none() && opts.loops.is_none() {
        ctx.info("running until Ctrl-C (give -D or -l to stop by itself)");
    }
    let params = crate::lifecycle::entry::to_value(&params::Cyclictest {
        v: 1,
        interval_us: Some(a.interval),
        distance_us: Some(a.distance),
        duration_s: opts.duration_s,
        loops: opts.loops,
        threads: Some(opts.threads.len() as u64),
        smp: Some(a.smp),
        affinity: a.affinity.as_ref().map(|l| cpus::format_list(&l.0)),
        priority: Some(opts.priority),
        policy: Some(opts.policy.name().to_string()),
        mlockall: Some(opts.mlockall),
    });
    let mut b = Cyclictest {
        opts,
        params,
        throttling: crate::benchmarks::cyclictest::adapter::rt_throttling_note(),
        trace: a.trace.options(),
    };
    drive(ctx, &mut b, a.runs)
}
