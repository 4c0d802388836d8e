//! Settle before measuring: a block that starts right after its boot
//! measures a machine still starting services, filling caches and running
//! its boot-time timers, and each boot of a campaign should be measured at
//! the same point of that.  So before a block that follows a reboot, the
//! step waits until the machine has been up at least as long as it had
//! been when the campaign's first block started (to at most
//! [`UPTIME_TARGET_S`]), and until its CPU pressure (the share of the last
//! second some task waited for a CPU, `/proc/pressure/cpu`) is back within
//! [`PRESSURE_SLACK_PCT`] points of the first block's; never longer than
//! the plan's `--settle-max`.  What it found and how long it waited is kept
//! with the block.  A block in the same boot as the one before it (no
//! reboot between) does not wait: there is nothing to settle.

use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The most uptime a block waits for, whatever the first block had (a
/// first block started by hand long after its boot).
pub const UPTIME_TARGET_S: f64 = 300.0;
/// How far above the first block's the CPU pressure may be, in points.
pub const PRESSURE_SLACK_PCT: f64 = 10.0;

/// The machine as a block found it before it measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settle {
    pub uptime_s: f64,
    /// Share of one second some task waited for a CPU (%), where the
    /// kernel has PSI.
    pub cpu_pressure_pct: Option<f64>,
    /// How long the step waited for it.
    pub waited_s: f64,
    /// Whether it settled before `--settle-max` (false: it measured anyway).
    pub settled: bool,
}

/// Uptime and CPU pressure over the next second.
fn sample() -> (f64, Option<f64>) {
    let some = |_| crate::sys::procfs::pressure("cpu").0;
    let before = some(());
    std::thread::sleep(Duration::from_secs(1));
    let after = some(());
    let uptime = crate::sys::procfs::uptime_s().unwrap_or(0.0);
    let pct = match (before, after) {
        // `total` is in microseconds.
        (Some(a), Some(b)) if b >= a => Some(((b - a) as f64 / 1e4).min(100.0)),
        _ => None,
    };
    (uptime, pct)
}

/// Whether `now` (uptime, pressure) is as settled as `reference`.
pub fn ready(now: (f64, Option<f64>), reference: &Settle) -> bool {
    let up = now.0 >= reference.uptime_s.min(UPTIME_TARGET_S);
    let calm = match (now.1, reference.cpu_pressure_pct) {
        (Some(n), Some(r)) => n <= r + PRESSURE_SLACK_PCT,
        _ => true,
    };
    up && calm
}

/// Wait, up to `max`, until the machine is as settled as `reference`
/// (none: the first block, which sets the reference and does not wait).
pub fn wait(reference: Option<&Settle>, max: Duration) -> Settle {
    wait_on(reference, max, sample)
}

/// [`wait`], with the machine read by `sample` (a second each).
fn wait_on(
    reference: Option<&Settle>,
    max: Duration,
    mut sample: impl FnMut() -> (f64, Option<f64>),
) -> Settle {
    let start = Instant::now();
    loop {
        let now = sample();
        let done = reference.is_none_or(|r| ready(now, r));
        if done || start.elapsed() >= max || crate::sys::signals::stop_requested() {
            return Settle {
                uptime_s: now.0,
                cpu_pressure_pct: now.1,
                waited_s: start.elapsed().as_secs_f64(),
                settled: done,
            };
        }
    }
}

/// The line a step says of it.
pub fn line(s: &Settle) -> String {
    format!(
        "{} after {:.0} s: up {:.0} s{}",
        if s.settled {
            "settled"
        } else {
            "not settled, measuring anyway"
        },
        s.waited_s,
        s.uptime_s,
        s.cpu_pressure_pct
            .map_or(String::new(), |p| format!(", CPU pressure {p:.0} %"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(uptime_s: f64, p: Option<f64>) -> Settle {
        Settle {
            uptime_s,
            cpu_pressure_pct: p,
            waited_s: 0.0,
            settled: true,
        }
    }

    #[test]
    fn settled_means_up_as_long_and_as_calm_as_the_first_block() {
        assert!(ready((40.0, Some(3.0)), &r(35.0, Some(2.0))));
        assert!(
            !ready((20.0, Some(3.0)), &r(35.0, Some(2.0))),
            "up too short"
        );
        assert!(!ready((40.0, Some(30.0)), &r(35.0, Some(2.0))), "too busy");
        // A first block started by hand an hour after boot: 300 s is enough.
        assert!(ready((301.0, None), &r(3600.0, None)));
        // No PSI on either side: uptime alone.
        assert!(ready((40.0, None), &r(35.0, Some(2.0))));
    }

    #[test]
    fn a_wait_is_bounded_and_says_so() {
        let tick = || std::thread::sleep(Duration::from_millis(20));
        // Always busy: it stops at the bound and says it did not settle.
        let s = wait_on(
            Some(&r(10.0, Some(2.0))),
            Duration::from_millis(200),
            || {
                tick();
                (100.0, Some(80.0))
            },
        );
        assert!(!s.settled && s.waited_s >= 0.2, "{s:?}");
        assert!(line(&s).starts_with("not settled"));
        // Calm from the third second on.
        let mut n = 0;
        let s = wait_on(Some(&r(10.0, Some(2.0))), Duration::from_secs(60), || {
            tick();
            n += 1;
            (100.0, Some(if n < 3 { 50.0 } else { 4.0 }))
        });
        assert!(s.settled && n == 3, "{s:?}");
        // The first block sets the reference and does not wait.
        let first = wait_on(None, Duration::from_secs(60), || (12.0, None));
        assert!(first.settled && first.uptime_s == 12.0);
    }
}
