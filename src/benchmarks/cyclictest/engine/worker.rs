//! The measurement threads: setup (policy, affinity, histogram), a common
//! start, the measuring loop, and the merge after `join`.

use super::{new_histogram, Live, Options, Outcome, ThreadPlan, ThreadResult, HIST_MAX_NS};
use crate::sys::{proc::DmaLatencyGuard, sched, signals, time};
use anyhow::{anyhow, Result};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{mpsc, Arc, Barrier};

/// Everything a thread owns while measuring, allocated before the loop.
struct Recorder {
    hist: hdrhistogram::Histogram<u64>,
    buckets: Vec<u64>,
}

pub fn run(opts: &Options, live: &Arc<Live>) -> Result<Outcome> {
    let dma = if opts.hold_dma_latency {
        DmaLatencyGuard::hold(0).ok()
    } else {
        None
    };
    if opts.mlockall {
        sched::mlockall()?;
    }
    let n = opts.threads.len();
    let barrier = Arc::new(Barrier::new(n + 1));
    let abort = Arc::new(AtomicBool::new(false));
    let (setup_tx, setup_rx) = mpsc::channel::<Result<(), String>>();
    let mut handles = Vec::with_capacity(n);
    for plan in &opts.threads {
        let start = Start {
            barrier: barrier.clone(),
            abort: abort.clone(),
            live: live.clone(),
            setup: setup_tx.clone(),
        };
        let (plan, opts) = (plan.clone(), ThreadOpts::of(opts));
        let h = std::thread::Builder::new()
            .name(format!("kbench-ct{}", plan.index))
            .spawn(move || {
                crate::sys::sched_account::thread_started();
                thread_main(plan, opts, start)
            })
            .map_err(|e| anyhow!("creating a cyclictest thread: {e}"))?;
        handles.push(h);
    }
    drop(setup_tx);
    let first_err = first_setup_error(&setup_rx, n);
    if first_err.is_some() {
        abort.store(true, Relaxed);
    }
    let start = time::mono_ns();
    barrier.wait();
    let mut threads = Vec::with_capacity(n);
    for h in handles {
        threads.push(
            h.join()
                .map_err(|_| anyhow!("a cyclictest thread panicked"))?,
        );
    }
    let elapsed_s = (time::mono_ns() - start) as f64 / 1e9;
    if opts.mlockall {
        sched::munlockall();
    }
    if let Some(e) = first_err {
        return Err(setup_error(e));
    }
    let mut merged = new_histogram();
    for t in &threads {
        merged
            .add(&t.hist)
            .map_err(|e| anyhow!("merging histograms: {e:?}"))?;
    }
    Ok(Outcome {
        threads,
        merged,
        interrupted: signals::stop_requested(),
        dma_latency_held: dma.is_some(),
        elapsed_s,
    })
}

/// What a measuring thread shares with the others and with its parent:
/// the common start, the abort flag, the live figures, its setup report.
struct Start {
    barrier: Arc<Barrier>,
    abort: Arc<AtomicBool>,
    live: Arc<Live>,
    setup: mpsc::Sender<Result<(), String>>,
}

/// The options a measuring thread needs, copied out of [`Options`].
#[derive(Clone, Copy)]
struct ThreadOpts {
    policy: sched::Policy,
    priority: i32,
    loops: Option<u64>,
    duration: Option<std::time::Duration>,
    histogram_us: Option<u64>,
}

impl ThreadOpts {
    fn of(o: &Options) -> ThreadOpts {
        ThreadOpts {
            policy: o.policy,
            priority: o.priority,
            loops: o.loops,
            duration: o.duration,
            histogram_us: o.histogram_us,
        }
    }
}

/// One measuring thread: pin and set its policy, report that, allocate
/// and touch its recorder, wait for the common start, then measure.
fn thread_main(plan: ThreadPlan, o: ThreadOpts, start: Start) -> ThreadResult {
    let setup = (|| -> Result<(), String> {
        if let Some(cpu) = plan.cpu {
            sched::set_affinity(0, &[cpu])
                .map_err(|e| format!("pinning thread {} to CPU {cpu}: {e}", plan.index))?;
        }
        sched::set_policy(0, o.policy, o.priority).map_err(|e| format!("{e:#}"))?;
        Ok(())
    })();
    let failed = setup.is_err();
    let _ = start.setup.send(setup);
    let mut rec = Recorder {
        hist: new_histogram(),
        buckets: vec![0; o.histogram_us.map_or(0, |n| n as usize + 1)],
    };
    // Touch every page now so the loop takes no page faults.
    rec.hist.reset();
    rec.buckets.iter_mut().for_each(|b| *b = 0);
    start.barrier.wait();
    let tid = sched::gettid();
    let live = &start.live.stats[plan.index];
    live.tid.store(tid, Relaxed);
    if failed || start.abort.load(Relaxed) {
        return empty_result(plan, tid, rec);
    }
    measure(plan, tid, o.loops, o.duration, rec, live)
}

/// Wait for every thread's setup report; the first failure, if any.
fn first_setup_error(rx: &mpsc::Receiver<Result<(), String>>, n: usize) -> Option<String> {
    let mut first_err = None;
    for _ in 0..n {
        match rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                first_err.get_or_insert(e);
            }
            Err(_) => {
                first_err.get_or_insert("a cyclictest thread ended during setup".into());
            }
        }
    }
    first_err
}

/// Keep the privilege error's kind (exit code and hint) when it is one.
fn setup_error(msg: String) -> anyhow::Error {
    if msg.contains("needs privilege") {
        crate::error::privilege(msg)
    } else {
        anyhow!(msg)
    }
}

fn empty_result(plan: ThreadPlan, tid: i32, rec: Recorder) -> ThreadResult {
    ThreadResult {
        plan,
        tid,
        samples: 0,
        act_ns: 0,
        min_ns: 0,
        max_ns: 0,
        sum_ns: 0,
        over_100us: 0,
        over_1ms: 0,
        overruns: 0,
        hist: rec.hist,
        buckets: rec.buckets,
    }
}

/// The measuring loop.  Nothing here allocates, locks, logs or formats.
fn measure(
    plan: ThreadPlan,
    tid: i32,
    loops: Option<u64>,
    duration: Option<std::time::Duration>,
    mut rec: Recorder,
    live: &super::LiveStat,
) -> ThreadResult {
    let interval = plan.interval_ns;
    let max_loops = loops.unwrap_or(u64::MAX);
    let start = time::mono_ns();
    let end = duration.map_or(u64::MAX, |d| start.saturating_add(d.as_nanos() as u64));
    let nbuckets = rec.buckets.len() as u64;
    let (mut samples, mut min, mut max, mut sum, mut last) = (0u64, u64::MAX, 0u64, 0u128, 0u64);
    let (mut over_100us, mut over_1ms, mut overruns) = (0u64, 0u64, 0u64);
    let mut next = start + interval;
    loop {
        time::sleep_until_ns(next);
        let now = time::mono_ns();
        if now < next {
            // Woken early by a signal: only a stop request ends the loop.
            if signals::stop_requested() {
                break;
            }
            continue;
        }
        let lat = now - next;
        crate::trace::wakeups::note(tid, next, now);
        // Cannot fail: the value is clamped to the histogram's bound.
        let _ = rec.hist.record(lat.min(HIST_MAX_NS));
        if nbuckets > 0 {
            let b = (lat / 1000).min(nbuckets - 1) as usize;
            rec.buckets[b] += 1;
        }
        samples += 1;
        last = lat;
        sum += lat as u128;
        min = min.min(lat);
        max = max.max(lat);
        over_100us += (lat > 100_000) as u64;
        over_1ms += (lat > 1_000_000) as u64;
        live.act_ns.store(lat, Relaxed);
        live.min_ns.store(min, Relaxed);
        live.max_ns.store(max, Relaxed);
        live.sum_ns.store(sum as u64, Relaxed);
        live.cycles.store(samples, Relaxed);
        next += interval;
        while next <= now {
            next += interval;
            overruns += 1;
        }
        if samples >= max_loops || now >= end || signals::stop_requested() {
            break;
        }
    }
    ThreadResult {
        plan,
        tid,
        samples,
        act_ns: last,
        min_ns: if samples == 0 { 0 } else { min },
        max_ns: max,
        sum_ns: sum,
        over_100us,
        over_1ms,
        overruns,
        hist: rec.hist,
        buckets: rec.buckets,
    }
}
