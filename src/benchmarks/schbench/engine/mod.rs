//! schbench: wake-up and request latency of ordinary (fair-class) tasks,
//! after Chris Mason's benchmark of the same name.
//!
//! Message threads hand requests to their worker threads.  A worker posts
//! itself on its message thread's list and sleeps on its futex; the
//! message thread stamps the time and wakes it.  *Wake-up latency* is the
//! time from that stamp to the worker running again.  A *request* is a
//! short sleep (`-s`, simulated I/O) and `-n` rounds of matrix
//! multiplication over a `-F` KiB footprint, done under a per-CPU spinlock
//! so a worker preempted mid-request stalls whoever runs next on that CPU:
//! preemption is made expensive, as in the production workload schbench
//! models.  *Request latency* is the request's wall time.  Requests per
//! second are counted every second.  With `-R` a message thread instead
//! queues a fixed number of requests per second round-robin over its
//! workers; `-A` grows or shrinks that rate until the machine is as busy
//! as asked.  `-p` turns the request into a copy of N bytes between the
//! threads (pipe mode) and measures only wake-ups.
//!
//! Like every benchmark here, this module never prints and never stores:
//! it returns an [`Outcome`], and reports progress through [`Observer`].
//! Each worker records into histograms it owns (no lock, no allocation on
//! the measured path); resets and interval snapshots are requested through
//! epoch counters the workers check between requests.  A worker publishes
//! into a slot the main thread reads: on request, before it zeroes (the
//! interval it closes), and in RPS mode before it sleeps (asleep for most
//! of a second, it could not answer), by adding the few samples recorded
//! since its last publication.

mod blocks;
mod sync;
mod threads;

pub use blocks::{latency_and_rps_blocks, percentile_block, LAT_PERCENTILES};

use crate::benchmarks::schbench::metrics as declared;
use crate::measure::{Measurement, MetricSpec, NamedHistogram};
use anyhow::{anyhow, Result};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

/// Histograms cover 1 ns to 60 s at 3 significant digits.
pub const HIST_MAX_NS: u64 = 60_000_000_000;

/// What to run.
#[derive(Clone, Debug, Serialize)]
pub struct Options {
    pub message_threads: usize,
    pub workers: usize,
    pub runtime_s: u64,
    pub warmup_s: u64,
    /// Print interval statistics every this many seconds (0: never).
    pub interval_s: u64,
    /// Zero the statistics every this many seconds (0: never).
    pub zero_s: u64,
    pub footprint_kb: u64,
    pub operations: u64,
    pub sleep_us: u64,
    /// Requests per second over all message threads (0: as fast as the
    /// workers go).
    pub rps: u64,
    /// Grow RPS until the machine is this busy (percent).
    pub auto_rps: Option<u32>,
    /// Bytes copied per hand-off in pipe mode.
    pub pipe_bytes: usize,
    pub calibrate: bool,
    pub no_locking: bool,
    pub message_cpus: Option<Vec<usize>>,
    pub worker_cpus: Option<Vec<usize>>,
    /// Percent of the footprint private to each worker (the rest shared).
    pub split: Option<u32>,
}

impl Options {
    /// Side of the square matrices for `kb` KiB of three matrices of u64.
    pub fn matrix_side(kb: u64) -> usize {
        ((kb * 1024 / 3 / 8) as f64).sqrt() as usize
    }

    /// (private side, shared side).
    pub fn matrix_sides(&self) -> (usize, usize) {
        match self.split {
            None => (Self::matrix_side(self.footprint_kb), 0),
            Some(p) => (
                Self::matrix_side(self.footprint_kb * p as u64 / 100),
                Self::matrix_side(self.footprint_kb * (100 - p as u64) / 100),
            ),
        }
    }

    /// Bytes of matrices all workers together allocate.
    pub fn matrix_bytes(&self) -> u64 {
        let (p, s) = self.matrix_sides();
        let per = 3 * 8 * (p * p) as u64;
        per * (self.message_threads * self.workers) as u64 + 3 * 8 * (s * s) as u64
    }

    fn locking(&self) -> bool {
        !self.no_locking && !self.calibrate
    }
}

/// Statistics at a moment, for interval printing.
pub struct Snapshot {
    pub elapsed_s: u64,
    pub wakeup: Histogram<u64>,
    pub request: Histogram<u64>,
    pub rps: Histogram<u64>,
    pub current_rps: f64,
    pub msg_delay_ns: u64,
    pub worker_delay_ns: u64,
}

/// What the caller hears while the run goes on.
pub trait Observer {
    fn warmup_done(&mut self) {}
    fn interval(&mut self, _s: &Snapshot) {}
    fn tick(&mut self, _elapsed_s: u64) {}
}

/// One thread's figures.
#[derive(Clone, Debug, Serialize)]
pub struct ThreadReport {
    pub tid: i32,
    pub cpus: Vec<usize>,
    /// Requests completed (workers) — counted by the worker itself.
    pub requests: u64,
    /// Mean scheduling delay per time slice, from its schedstat (ns).
    pub sched_delay_ns: Option<u64>,
    /// Per-CPU lock acquisitions (0 in calibration or no-locking mode).
    pub locks_taken: u64,
}

/// What a run produced.
pub struct Outcome {
    pub wakeup: Histogram<u64>,
    pub request: Histogram<u64>,
    pub rps: Histogram<u64>,
    pub messages: Vec<ThreadReport>,
    pub workers: Vec<ThreadReport>,
    /// Requests completed over the whole run (warm-up included), as
    /// schbench's "average rps" counts them.
    pub requests: u64,
    /// Requests the message threads queued in RPS mode.
    pub queued: u64,
    pub elapsed_s: f64,
    /// The RPS goal at the end, with `-A`.
    pub final_rps_goal: Option<u64>,
    pub interrupted: bool,
    /// Sum over workers of their running time (s), for pipe mode's rate.
    pub worker_time_s: f64,
}

/// Requests per second to 3 significant digits (exact up to 2047, then
/// within 0.05 %: finer than schbench's own buckets, 1/256 of a power of
/// two).  Five digits would be a 16 MiB array the main thread zeroes,
/// copies and scans each time it is used: CPU time outside the workers
/// that schbench does not spend.
pub fn rps_hist() -> Histogram<u64> {
    Histogram::<u64>::new_with_bounds(1, u32::MAX as u64, 3).expect("valid histogram bounds")
}

fn new_hist(max: u64) -> Histogram<u64> {
    Histogram::<u64>::new_with_bounds(1, max, 3).expect("valid histogram bounds")
}

/// Mean of the threads' scheduling delays (ns), as schbench averages them.
fn mean_delay(delays: impl Iterator<Item = Option<u64>>) -> u64 {
    let v: Vec<u64> = delays.flatten().collect();
    if v.is_empty() {
        0
    } else {
        v.iter().sum::<u64>() / v.len() as u64
    }
}

impl Outcome {
    pub fn msg_delay_ns(&self) -> u64 {
        mean_delay(self.messages.iter().map(|t| t.sched_delay_ns))
    }
    pub fn worker_delay_ns(&self) -> u64 {
        mean_delay(self.workers.iter().map(|t| t.sched_delay_ns))
    }

    /// Requests per second over the run, as schbench's "average rps".
    pub fn average_rps(&self, runtime_s: f64) -> f64 {
        self.requests as f64 / runtime_s.max(1e-9)
    }

    pub fn measurement(&self, o: &Options) -> Measurement {
        let mut m = Measurement::default();
        let us = |h: &Histogram<u64>, q: f64| -> f64 {
            if h.is_empty() {
                f64::NAN
            } else {
                h.value_at_quantile(q) as f64 / 1000.0
            }
        };
        // p50, p90, p99, p99.9 and the maximum of one histogram.
        let mut lat = |specs: [&MetricSpec; 5], h: &Histogram<u64>| {
            for (spec, q) in specs.iter().zip([0.5, 0.9, 0.99, 0.999]) {
                m.record(spec, us(h, q));
            }
            let max = if h.is_empty() {
                f64::NAN
            } else {
                h.max() as f64 / 1000.0
            };
            m.record(specs[4], max);
        };
        use declared::*;
        lat(
            [
                &WAKEUP_P50_US,
                &WAKEUP_P90_US,
                &WAKEUP_P99_US,
                &WAKEUP_P999_US,
                &WAKEUP_MAX_US,
            ],
            &self.wakeup,
        );
        if o.pipe_bytes == 0 {
            lat(
                [
                    &REQUEST_P50_US,
                    &REQUEST_P90_US,
                    &REQUEST_P99_US,
                    &REQUEST_P999_US,
                    &REQUEST_MAX_US,
                ],
                &self.request,
            );
        }
        let runtime = if self.interrupted {
            self.elapsed_s
        } else {
            o.runtime_s as f64
        };
        m.record(&declared::AVG_RPS, self.average_rps(runtime));
        if !self.rps.is_empty() {
            m.record(&declared::RPS_P50, self.rps.value_at_quantile(0.5) as f64);
        }
        m.record(
            &declared::MSG_SCHED_DELAY_US,
            self.msg_delay_ns() as f64 / 1000.0,
        );
        m.record(
            &declared::WORKER_SCHED_DELAY_US,
            self.worker_delay_ns() as f64 / 1000.0,
        );
        m.record(&declared::REQUESTS, self.requests as f64);
        m.record(&declared::WAKEUP_SAMPLES, self.wakeup.len() as f64);
        m.histograms.push(NamedHistogram {
            name: "latency".into(),
            unit: "ns".into(),
            hist: self.wakeup.clone(),
        });
        if o.pipe_bytes == 0 {
            m.histograms.push(NamedHistogram {
                name: "request".into(),
                unit: "ns".into(),
                hist: self.request.clone(),
            });
        }
        if self.interrupted {
            m.notes
                .push("interrupted: figures cover the time until Ctrl-C".into());
        }
        m
    }
}

/// State shared by the main thread and every thread of the run.
pub(crate) struct Shared {
    pub stopping: AtomicBool,
    /// Bumped to make every worker zero its histograms.
    pub reset_epoch: AtomicU64,
    /// Bumped to make every worker publish a snapshot.
    pub snap_epoch: AtomicU64,
    /// RPS goal per message thread.
    pub rps_per_msg: AtomicU64,
    /// When the run ends (CLOCK_MONOTONIC ns): RPS mode starts no round
    /// of requests at or after it.
    pub deadline_ns: u64,
    /// When the run starts (CLOCK_MONOTONIC ns): the main thread's seconds
    /// and RPS mode's rounds of requests count from it.
    pub start_ns: u64,
}

/// Run schbench once.
pub fn run(o: &Options, obs: &mut dyn Observer) -> Result<Outcome> {
    let start_ns = crate::sys::time::mono_ns();
    let shared = Arc::new(Shared {
        stopping: AtomicBool::new(false),
        reset_epoch: AtomicU64::new(0),
        snap_epoch: AtomicU64::new(0),
        rps_per_msg: AtomicU64::new(o.rps / o.message_threads as u64),
        deadline_ns: start_ns + o.runtime_s * 1_000_000_000,
        start_ns,
    });
    let group = threads::Group::start(o, shared.clone())?;
    let main = threads::drive(o, &shared, &group, obs);
    shared
        .stopping
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let (messages, workers, wakeup, request) = group.finish()?;
    let (rps, elapsed_s, interrupted, final_goal) = main?;
    let requests = workers.iter().map(|w| w.report.requests).sum();
    Ok(Outcome {
        wakeup,
        request,
        rps,
        requests,
        queued: messages.iter().map(|m| m.queued).sum(),
        worker_time_s: workers.iter().map(|w| w.running_s).sum(),
        messages: messages.into_iter().map(|m| m.report).collect(),
        workers: workers.into_iter().map(|w| w.report).collect(),
        elapsed_s,
        final_rps_goal: final_goal,
        interrupted,
    })
}

/// Busy share of all CPUs (percent) between two reads of /proc/stat's
/// first line: 100 − Δidle/Δtotal·100, as schbench's auto-RPS reads it.
pub fn busy_percent(prev: &mut Option<(u64, u64)>) -> Option<f64> {
    let vals = crate::sys::procfs::cpustat::all_cpus()?;
    let total = vals.iter().fold(0u64, |a, v| a.saturating_add(*v));
    let idle = *vals.get(crate::sys::procfs::cpustat::IDLE)?;
    let out = prev.map(|(t, i)| {
        let dt = total.saturating_sub(t).max(1) as f64;
        100.0 - idle.saturating_sub(i) as f64 / dt * 100.0
    });
    *prev = Some((total, idle));
    out
}

/// schbench's auto-RPS step: move the goal towards the busy target,
/// by at most ×3 up or ×0.3 down, in smaller steps near the target.
/// Returns the new goal and whether the target counts as reached (within
/// 5 %, when the RPS statistics restart).
pub fn auto_rps_step(goal: u64, busy: f64, target: f64) -> (u64, bool) {
    if busy <= 0.0 {
        return (((goal as f64) * 3.0).ceil() as u64, false);
    }
    let ratio = target / busy;
    if busy < target {
        let d = if ratio > 3.0 {
            3.0
        } else if ratio < 1.2 {
            1.0 + (ratio - 1.0) / 8.0
        } else if ratio < 1.5 {
            1.0 + (ratio - 1.0) / 4.0
        } else {
            ratio
        };
        let hit = ratio < 1.2 && d < 1.05;
        let next = ((goal as f64) * d).ceil();
        (
            if next >= (1u64 << 31) as f64 {
                goal
            } else {
                next as u64
            },
            hit,
        )
    } else if busy > target {
        let d = if ratio < 0.3 {
            0.3
        } else if ratio > 0.9 {
            ratio + (1.0 - ratio) / 8.0
        } else if ratio > 0.8 {
            ratio + (1.0 - ratio) / 4.0
        } else {
            ratio
        };
        let hit = ratio > 0.9 && d > 0.95;
        (((goal as f64) * d).floor().max(0.0) as u64, hit)
    } else {
        (goal, true)
    }
}

/// Wait for a thread group's start-up, with a clear error.
pub(crate) fn spawn_named<T: Send + 'static>(
    name: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<std::thread::JoinHandle<T>> {
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(256 * 1024)
        .spawn(move || {
            crate::sys::sched_account::thread_started();
            f()
        })
        .map_err(|e| anyhow!("starting a schbench thread: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_sizes_as_schbench() {
        // 256 KiB of three u64 matrices: sqrt(256*1024/24) = 104.5 → 104.
        assert_eq!(Options::matrix_side(256), 104);
        assert_eq!(Options::matrix_side(0), 0);
    }

    #[test]
    fn auto_rps_moves_towards_the_target_in_smaller_steps_near_it() {
        assert_eq!(
            auto_rps_step(100, 10.0, 90.0),
            (300, false),
            "far below: x3"
        );
        let (g, hit) = auto_rps_step(100, 85.0, 90.0);
        assert!(g > 100 && g < 110 && hit, "{g}");
        let (g, _) = auto_rps_step(100, 100.0, 50.0);
        assert_eq!(g, 50, "twice as busy as asked: halve");
        assert_eq!(auto_rps_step(100, 100.0, 10.0).0, 30, "at most x0.3 down");
        assert_eq!(auto_rps_step(100, 50.0, 50.0), (100, true));
    }
}
