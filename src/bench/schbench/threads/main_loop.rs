//! The main thread's part: start the groups, wake once a second for the
//! statistics (RPS, warm-up, intervals, auto-RPS), stop and collect.

use super::*;

/// The main thread's loop: once a second, count RPS, end the warm-up,
/// print intervals, zero statistics, steer auto-RPS; stop at the runtime or
/// on Ctrl-C.  Returns (RPS histogram, elapsed s, interrupted, final goal).
pub fn drive(
    o: &Options,
    shared: &Shared,
    group: &Group,
    obs: &mut dyn Observer,
) -> Result<(Histogram<u64>, f64, bool, Option<u64>)> {
    let mut rps = super::super::rps_hist();
    let start = shared.start_ns;
    let mut last_rps_at = start;
    // Seconds of the run are the loop's wake-ups, one a second (in RPS mode
    // with the round, or just before it: see `BEFORE_ROUND_NS`): zeroing
    // and intervals count them, so "more than N s since" cannot skip one
    // by a microsecond.
    let rps_mode = o.rps > 0 || o.auto_rps.is_some();
    let mut second = 0u64;
    let mut last_zero = 0u64;
    let mut last_interval = 0u64;
    let mut last_requests = 0u64;
    let mut warmup_done = o.warmup_s == 0;
    let mut target_hit = false;
    let mut stat_prev = None;
    let mut interrupted = false;
    let mut first = true;
    loop {
        let now = mono_ns();
        let elapsed = now.saturating_sub(start);
        let done = second >= o.runtime_s;
        let mut zero_due = o.zero_s > 0 && second >= last_zero + o.zero_s;
        if !warmup_done && o.rps == 0 && o.pipe_bytes == 0 && elapsed > o.warmup_s * 1_000_000_000 {
            warmup_done = true;
            last_zero = second;
            zero_due = false;
            shared.reset_epoch.fetch_add(1, SeqCst);
            rps.reset();
            obs.warmup_done();
        } else if o.pipe_bytes == 0 {
            let requests = if rps_mode {
                group.requests_before_round(second)
            } else {
                group.requests()
            };
            let dt = now.saturating_sub(last_rps_at).max(1) as f64 / 1e9;
            let current = (requests - last_requests) as f64 / dt;
            last_requests = requests;
            last_rps_at = now;
            // The first round, at the start, has no second behind it.
            if !first && (o.auto_rps.is_none() || target_hit) {
                rps.saturating_record(current as u64);
            }
            if o.interval_s > 0 && second >= last_interval + o.interval_s {
                last_interval = second;
                // A zero due now comes right after the snapshot request,
                // and each worker publishes before it zeroes.
                let (wakeup, request) = group.snapshot(shared, zero_due);
                if zero_due {
                    last_zero = second;
                    zero_due = false;
                }
                let (m, w) = group.sched_delays();
                obs.interval(&Snapshot {
                    elapsed_s: second,
                    wakeup,
                    request,
                    rps: rps.clone(),
                    current_rps: current,
                    msg_delay_ns: m,
                    worker_delay_ns: w,
                });
            }
        }
        if zero_due {
            last_zero = second;
            shared.reset_epoch.fetch_add(1, SeqCst);
        }
        if let Some(target) = o.auto_rps {
            if let Some(busy) = busy_percent(&mut stat_prev) {
                let goal = shared.rps_per_msg.load(Relaxed);
                let (next, hit) = super::super::auto_rps_step(goal, busy, target as f64);
                if hit && !target_hit {
                    target_hit = true;
                    rps.reset();
                }
                shared.rps_per_msg.store(next, Relaxed);
            }
        }
        first = false;
        obs.tick(second);
        if done {
            break;
        }
        if crate::sys::signals::stop_requested() {
            interrupted = true;
            break;
        }
        // To the next whole second of the run in one sleep, as schbench's
        // sleep(1): a main thread waking more often would keep CPUs out of
        // idle and shorten every hand-off it measures.  In RPS mode with
        // the round that starts then (see `BEFORE_ROUND_NS` for when it
        // wakes before).  Ctrl-C ends the sleep when it reaches this
        // thread, else within the second.
        second += 1;
        let zero_next = o.zero_s > 0 && second >= last_zero + o.zero_s;
        let lead = if rps_mode && (zero_next || o.auto_rps.is_some()) {
            BEFORE_ROUND_NS
        } else {
            0
        };
        crate::sys::time::sleep_until_ns(start + second * 1_000_000_000 - lead);
    }
    let elapsed_s = mono_ns().saturating_sub(start) as f64 / 1e9;
    let goal = o
        .auto_rps
        .map(|_| shared.rps_per_msg.load(Relaxed) * o.message_threads as u64);
    Ok((rps, elapsed_s, interrupted, goal))
}
