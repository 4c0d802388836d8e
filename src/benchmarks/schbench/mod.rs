//! `kbench schbench`: schbench's flags and output blocks, then kbench's
//! percentiles from full histograms and the threads' scheduling delay;
//! every run stored.

pub mod adapter;
pub mod args;
pub mod engine;
pub mod metrics;
pub mod params;

use crate::benchmarks::schbench::engine::Options;
use crate::error::{input, resource};
use crate::lifecycle::drive;
use crate::lifecycle::entry::{self, Entry};
use crate::session::Ctx;
use crate::sys::cpus;
use crate::values::Pinning;
use adapter::Schbench;
use anyhow::Result;
use args::SchbenchArgs;

const ABOUT: &str = "Wake-up and request latency of ordinary (fair-class) threads, like schbench";

/// `schbench` in the registry.
pub const ENTRY: Entry = Entry {
    name: "schbench",
    about: ABOUT,
    metrics: metrics::ALL,
    parts: &[],
    headline: "wakeup_p99_us",
    command: || entry::command::<SchbenchArgs>("schbench", ABOUT),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate: |argv| entry::flag_seconds(argv, "--runtime").or(Some(30.0)),
    canonical: entry::canonical_via::<params::Schbench>,
    warmup: false,
    many_labels: entry::one_label,
    spell: entry::by_flags,
};

/// Most threads one run may start on `cpus` CPUs: 64 a CPU, 128 at
/// least, 8192 at most.  Past that, workers spinning on the per-CPU locks
/// (as schbench's do) wait behind each other for the CPUs longer than any
/// run: on 2 CPUs 128 threads ran a 1 s run in 1.1 s, 320 in 11 s and
/// 2048 did not answer Ctrl-C for 18 s (schbench itself took 24 s for 512).
fn max_threads(cpus: usize) -> usize {
    super::thread_limit(cpus, 8192)
}

pub fn options(a: &SchbenchArgs) -> Result<Options> {
    let online = cpus::online_here();
    let m = a.message_threads as usize;
    let workers = match a.threads {
        Some(t) => t as usize,
        None => online.len().max(1).div_ceil(m),
    };
    let limit = max_threads(online.len().max(1));
    if m * (workers + 1) > limit {
        return Err(input(format!(
            "{m} message threads with {workers} workers each is {} threads: at most {limit} on {} CPUs \
             (64 a CPU: more spin on the per-CPU locks behind each other longer than any run)",
            m * (workers + 1),
            online.len().max(1)
        )));
    }
    let auto = a.message_cpus == Some(Pinning::Auto) || a.worker_cpus == Some(Pinning::Auto);
    let list = |p: &Option<Pinning>| match p {
        Some(Pinning::Cpus(c)) => Some(c.clone()),
        _ => None,
    };
    let mut message_cpus = list(&a.message_cpus);
    let mut worker_cpus = list(&a.worker_cpus);
    if auto {
        // schbench's auto: message thread N on CPU N, workers on the rest.
        if m >= online.len() {
            return Err(input(format!(
                "auto pinning gives each of the {m} message threads its own CPU and the workers the rest, but there are {} CPUs",
                online.len()
            )));
        }
        let mine: Vec<usize> = online[..m].to_vec();
        message_cpus = Some(mine.clone());
        worker_cpus = Some(
            online
                .iter()
                .copied()
                .filter(|c| !mine.contains(c))
                .collect(),
        );
    }
    let pipe = a.pipe.unwrap_or(0) as usize;
    let o = Options {
        message_threads: m,
        workers,
        runtime_s: a.runtime,
        // As schbench: auto-RPS and pipe mode run without warm-up.
        warmup_s: if a.auto_rps.is_some() || pipe > 0 {
            0
        } else {
            a.warmuptime
        },
        interval_s: a.intervaltime,
        zero_s: a.zerotime,
        footprint_kb: a.cache_footprint,
        operations: a.operations,
        sleep_us: a.sleep_usec,
        rps: match (a.rps, a.auto_rps) {
            (Some(r), _) => r,
            (None, Some(_)) => 10 * m as u64,
            (None, None) => 0,
        },
        auto_rps: a.auto_rps,
        pipe_bytes: pipe,
        calibrate: a.calibrate,
        no_locking: a.no_locking || a.calibrate,
        message_cpus,
        worker_cpus,
        split: a.split,
    };
    if o.rps > 0 && o.rps < m as u64 {
        return Err(input(format!(
            "-R {} is fewer requests per second than the {m} message threads that share it",
            o.rps
        )));
    }
    let need = o.matrix_bytes();
    let avail = crate::load::size::Memory::read().available;
    if avail > 0 && need > avail / 2 {
        return Err(resource(format!(
            "the workers' matrices need {} ({} workers x -F {} KiB), more than half of the {} available",
            crate::sys::size::human(need),
            m * workers,
            a.cache_footprint,
            crate::sys::size::human(avail)
        )));
    }
    Ok(o)
}

pub fn run(ctx: &Ctx, a: &SchbenchArgs) -> Result<()> {
    drive(ctx, &mut Schbench(options(a)?, a.trace.options()), a.runs)
}
