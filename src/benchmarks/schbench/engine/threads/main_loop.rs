//! The main thread's part: start the groups, wake once a second for the
//! statistics (RPS, warm-up, intervals, auto-RPS), stop and collect.

use super::*;

/// What the main thread keeps from one second to the next.
struct Clock {
    rps: Histogram<u64>,
    /// Seconds of the run are the loop's wake-ups, one a second (in RPS
    /// mode with the round, or just before it: see `BEFORE_ROUND_NS`):
    /// zeroing and intervals count them, so "more than N s since" cannot
    /// skip one by a microsecond.
    second: u64,
    last_zero: u64,
    last_interval: u64,
    last_requests: u64,
    last_rps_at: u64,
    warmup_done: bool,
    target_hit: bool,
    stat_prev: Option<(u64, u64)>,
    /// The first round, at the start, has no second behind it.
    first: bool,
}

/// The main thread's loop: once a second, count RPS, end the warm-up,
/// print intervals, zero statistics, steer auto-RPS; stop at the runtime or
/// on Ctrl-C.  Returns (RPS histogram, elapsed s, interrupted, final goal).
pub fn drive(
    o: &Options,
    shared: &Shared,
    group: &Group,
    obs: &mut dyn Observer,
) -> Result<(Histogram<u64>, f64, bool, Option<u64>)> {
    let start = shared.start_ns;
    let rps_mode = o.rps > 0 || o.auto_rps.is_some();
    let mut c = Clock {
        rps: super::super::rps_hist(),
        second: 0,
        last_zero: 0,
        last_interval: 0,
        last_requests: 0,
        last_rps_at: start,
        warmup_done: o.warmup_s == 0,
        target_hit: false,
        stat_prev: None,
        first: true,
    };
    let mut interrupted = false;
    loop {
        let now = mono_ns();
        let elapsed = now.saturating_sub(start);
        let done = c.second >= o.runtime_s;
        let mut zero_due = o.zero_s > 0 && c.second >= c.last_zero + o.zero_s;
        if !c.warmup_done && o.rps == 0 && o.pipe_bytes == 0 && elapsed > o.warmup_s * 1_000_000_000
        {
            c.warmup_done = true;
            c.last_zero = c.second;
            zero_due = false;
            shared.reset_epoch.fetch_add(1, SeqCst);
            c.rps.reset();
            obs.warmup_done();
        } else if o.pipe_bytes == 0 {
            c.count(o, shared, group, obs, now, &mut zero_due);
        }
        if zero_due {
            c.last_zero = c.second;
            shared.reset_epoch.fetch_add(1, SeqCst);
        }
        if let Some(target) = o.auto_rps {
            c.steer(shared, target);
        }
        c.first = false;
        obs.tick(c.second);
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
        c.second += 1;
        let zero_next = o.zero_s > 0 && c.second >= c.last_zero + o.zero_s;
        let lead = if rps_mode && (zero_next || o.auto_rps.is_some()) {
            BEFORE_ROUND_NS
        } else {
            0
        };
        crate::sys::time::sleep_until_ns(start + c.second * 1_000_000_000 - lead);
    }
    let elapsed_s = mono_ns().saturating_sub(start) as f64 / 1e9;
    let goal = o
        .auto_rps
        .map(|_| shared.rps_per_msg.load(Relaxed) * o.message_threads as u64);
    Ok((c.rps, elapsed_s, interrupted, goal))
}

impl Clock {
    /// This second's requests per second into the RPS histogram, and the
    /// interval's report when one is due (with the zeroing, if that is due
    /// too, right after the snapshot).
    fn count(
        &mut self,
        o: &Options,
        shared: &Shared,
        group: &Group,
        obs: &mut dyn Observer,
        now: u64,
        zero_due: &mut bool,
    ) {
        let requests = if o.rps > 0 || o.auto_rps.is_some() {
            group.requests_before_round(self.second)
        } else {
            group.requests()
        };
        let dt = now.saturating_sub(self.last_rps_at).max(1) as f64 / 1e9;
        let current = (requests - self.last_requests) as f64 / dt;
        self.last_requests = requests;
        self.last_rps_at = now;
        if !self.first && (o.auto_rps.is_none() || self.target_hit) {
            self.rps.saturating_record(current as u64);
        }
        if o.interval_s > 0 && self.second >= self.last_interval + o.interval_s {
            self.last_interval = self.second;
            // A zero due now comes right after the snapshot request,
            // and each worker publishes before it zeroes.
            let (wakeup, request) = group.snapshot(shared, *zero_due);
            if *zero_due {
                self.last_zero = self.second;
                *zero_due = false;
            }
            let (m, w) = group.sched_delays();
            obs.interval(&Snapshot {
                elapsed_s: self.second,
                wakeup,
                request,
                rps: self.rps.clone(),
                current_rps: current,
                msg_delay_ns: m,
                worker_delay_ns: w,
            });
        }
    }

    /// Auto-RPS: move the goal toward the CPU-busy target; the RPS
    /// histogram starts over once the target is first reached.
    fn steer(&mut self, shared: &Shared, target: u32) {
        if let Some(busy) = busy_percent(&mut self.stat_prev) {
            let goal = shared.rps_per_msg.load(Relaxed);
            let (next, hit) = super::super::auto_rps_step(goal, busy, target as f64);
            if hit && !self.target_hit {
                self.target_hit = true;
                self.rps.reset();
            }
            shared.rps_per_msg.store(next, Relaxed);
        }
    }
}
