//! interbench's accounting of one simulated task, kept apart from clocks
//! and threads so it can be checked on synthetic timelines.
//!
//! A period, as interbench's `periodic_schedule` defines it: the task
//! wakes (its wake-up latency is the time since the timekeeper woke, i.e.
//! `now - deadline - overslept`), and if it is already a whole interval past
//! its deadline the period's work is dropped (missed deadlines and missed
//! burns, as a video player drops frames); otherwise it burns its run time,
//! the deadline moves on by one interval, and the period either met its
//! deadline or missed one or more (each missed interval counts, and adds an
//! interval to the latency).  "% desired CPU" is burns done over burns
//! wanted; "% deadlines met" is deadlines met over all deadlines.

/// Totals of one task under one load, as interbench's `data_table`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Account {
    /// Sum of latencies, ns.
    pub total_latency: u128,
    /// Sum of squared latencies, ns².
    pub sum_latency_squared: u128,
    pub max_latency: u64,
    pub samples: u64,
    pub deadlines_met: u64,
    pub missed_deadlines: u64,
    /// Burns not done (for Gaming: ns of CPU time not obtained).
    pub missed_burns: u64,
    /// Burns done (for Gaming: ns of CPU time obtained).
    pub achieved_burns: u64,
}

/// What to do after the first half of a period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Burn `run` ns of CPU, then call [`Account::after_burn`].
    Burn,
    /// The period was dropped: sleep until this deadline.
    Sleep(u64),
}

/// A period in progress: the latency found at its start.
#[derive(Clone, Copy, Debug)]
pub struct Period {
    latency: u64,
}

impl Account {
    /// Start a period at `now` (the deadline it was scheduled for, and how
    /// far the timekeeper overslept it).  `deadline` is moved on when the
    /// period is dropped.
    pub fn begin(
        &mut self,
        deadline: &mut u64,
        overslept: u64,
        interval: u64,
        now: u64,
    ) -> (Period, Next) {
        let latency = now.saturating_sub(*deadline + overslept);
        if interval > 0 && now > *deadline + interval {
            // Missed the deadline before doing any work: drop the period.
            *deadline += interval;
            let intervals = (now - *deadline) / interval + 1;
            self.missed_deadlines += intervals;
            self.missed_burns += intervals;
            *deadline += intervals * interval;
            let p = Period {
                latency: latency + intervals * interval,
            };
            return (p, Next::Sleep(*deadline));
        }
        (Period { latency }, Next::Burn)
    }

    /// After the burn, at `now`: the next deadline, and whether to sleep
    /// until it (an interval of 0 never sleeps: the next period starts now).
    pub fn after_burn(
        &mut self,
        p: &mut Period,
        deadline: &mut u64,
        interval: u64,
        now: u64,
    ) -> bool {
        self.achieved_burns += 1;
        *deadline += interval;
        if *deadline >= now {
            self.deadlines_met += 1;
            return true;
        }
        if interval == 0 {
            *deadline = now;
            return false;
        }
        let intervals = (now - *deadline) / interval + 1;
        self.missed_deadlines += intervals;
        p.latency += intervals * interval;
        *deadline += intervals * interval;
        if intervals > 1 {
            self.missed_burns += intervals;
        }
        true
    }

    /// Close a period: its latency becomes a sample.
    pub fn end(&mut self, p: Period) -> u64 {
        self.sample(p.latency);
        p.latency
    }

    /// One latency sample.
    pub fn sample(&mut self, latency: u64) {
        self.max_latency = self.max_latency.max(latency);
        self.total_latency += u128::from(latency);
        self.sum_latency_squared += u128::from(latency) * u128::from(latency);
        self.samples += 1;
    }

    /// Mean latency, ns.
    pub fn mean(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.total_latency as f64 / self.samples as f64
        }
    }

    /// The "+/- SD" interbench prints: its variance subtracts mean²/n, not
    /// n·mean², from the sum of squares, so the figure is close to the root
    /// mean square (which is why interbench's tables show SD ≈ mean).
    pub fn interbench_sd(&self) -> f64 {
        if self.samples < 2 {
            return 0.0;
        }
        let n = self.samples as f64;
        let avg = self.mean();
        ((self.sum_latency_squared as f64 - avg * avg / n) / (n - 1.0))
            .max(0.0)
            .sqrt()
    }

    /// The sample standard deviation of the latencies, ns.
    pub fn sd(&self) -> f64 {
        if self.samples < 2 {
            return 0.0;
        }
        let n = self.samples as f64;
        let avg = self.mean();
        ((self.sum_latency_squared as f64 - n * avg * avg) / (n - 1.0))
            .max(0.0)
            .sqrt()
    }

    /// % of the wanted CPU obtained.
    pub fn desired_cpu_pct(&self) -> f64 {
        if self.achieved_burns == 0 {
            return 0.0;
        }
        self.achieved_burns as f64 / (self.achieved_burns + self.missed_burns) as f64 * 100.0
    }

    /// % of deadlines met.
    pub fn deadlines_met_pct(&self) -> f64 {
        if self.deadlines_met == 0 {
            return 0.0;
        }
        self.deadlines_met as f64 / (self.deadlines_met + self.missed_deadlines) as f64 * 100.0
    }
}

/// C's `%W.Pg`: `prec` significant digits, trailing zeros dropped,
/// exponent form below 1e-4 or from 10^prec, right-aligned in `width`.
pub fn fmt_g(v: f64, width: usize, prec: usize) -> String {
    let s = if v == 0.0 || !v.is_finite() {
        if v.is_nan() {
            "nan".to_string()
        } else if v.is_infinite() {
            "inf".to_string()
        } else {
            "0".to_string()
        }
    } else {
        let exp = v.abs().log10().floor() as i32;
        let trim = |t: String| {
            if t.contains('.') {
                t.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                t
            }
        };
        // Rounding can carry into the next power of ten (99.96 -> 100).
        let rounded_exp = {
            let r = format!("{:.*e}", prec.saturating_sub(1), v);
            r.split('e')
                .nth(1)
                .and_then(|e| e.parse::<i32>().ok())
                .unwrap_or(exp)
        };
        if rounded_exp < -4 || rounded_exp >= prec as i32 {
            let r = format!("{:.*e}", prec.saturating_sub(1), v);
            let (m, e) = r.split_once('e').unwrap_or((&r, "0"));
            let e: i32 = e.parse().unwrap_or(0);
            format!(
                "{}e{}{:02}",
                trim(m.to_string()),
                if e < 0 { '-' } else { '+' },
                e.abs()
            )
        } else {
            let decimals = (prec as i32 - 1 - rounded_exp).max(0) as usize;
            trim(format!("{v:.decimals$}"))
        }
    };
    format!("{s:>width$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Audio (5 ms every 50 ms) on an idle timeline: every deadline met,
    /// all the CPU obtained, latency as the wake-ups were late.
    #[test]
    fn an_unloaded_periodic_task_meets_every_deadline() {
        let (mut a, mut deadline) = (Account::default(), 0u64);
        let mut now = 0;
        for k in 0..20 {
            let late = k % 3 * 10_000; // 0, 10, 20 us late
            now += late;
            let (mut p, next) = a.begin(&mut deadline, 0, 50 * MS, now);
            assert_eq!(next, Next::Burn);
            now += 5 * MS;
            assert!(a.after_burn(&mut p, &mut deadline, 50 * MS, now));
            a.end(p);
            now = deadline;
        }
        assert_eq!((a.deadlines_met, a.missed_deadlines), (20, 0));
        assert_eq!(a.desired_cpu_pct(), 100.0);
        assert_eq!(a.deadlines_met_pct(), 100.0);
        assert_eq!(a.max_latency, 20_000);
        assert!(
            (a.mean() - 10_000.0 * 19.0 / 20.0).abs() < 1e-9,
            "{}",
            a.mean()
        );
    }

    /// A task starved for 2.5 intervals drops those periods: two deadlines
    /// and two burns missed, two intervals added to that period's latency.
    #[test]
    fn a_starved_task_drops_periods_and_counts_them() {
        let mut a = Account::default();
        let mut deadline = 0;
        let (p, next) = a.begin(&mut deadline, 0, 10 * MS, 25 * MS);
        assert_eq!(next, Next::Sleep(30 * MS));
        assert_eq!(deadline, 30 * MS);
        assert_eq!((a.missed_deadlines, a.missed_burns), (2, 2));
        assert_eq!(a.end(p), 25 * MS + 20 * MS);
        // The next period is on time but its burn overruns by 1.5 intervals.
        let (mut p, _) = a.begin(&mut deadline, 0, 10 * MS, 30 * MS);
        assert!(a.after_burn(&mut p, &mut deadline, 10 * MS, 55 * MS));
        assert_eq!(deadline, 60 * MS);
        assert_eq!(a.missed_deadlines, 2 + 2);
        assert_eq!(a.missed_burns, 2 + 2);
        assert_eq!(a.achieved_burns, 1);
        assert!((a.desired_cpu_pct() - 100.0 / 5.0).abs() < 1e-9);
        assert_eq!(a.deadlines_met_pct(), 0.0);
        // Overslept time of the timekeeper is not the task's latency.
        let (p, _) = a.begin(&mut deadline, 3 * MS, 10 * MS, 63 * MS + 400);
        assert_eq!(a.end(p), 400);
    }

    /// An interval of 0 (X at 100 % CPU) never sleeps.
    #[test]
    fn no_interval_no_sleep() {
        let mut a = Account::default();
        let mut deadline = 0;
        let (mut p, _) = a.begin(&mut deadline, 0, 0, 5);
        assert!(!a.after_burn(&mut p, &mut deadline, 0, 100 * MS));
        assert_eq!(deadline, 100 * MS);
        assert_eq!(a.missed_deadlines, 0);
    }

    #[test]
    fn interbench_sd_is_its_own_formula() {
        let mut a = Account::default();
        for v in [1000u64, 3000] {
            a.sample(v);
        }
        // interbench: sqrt((sumsq - avg^2/n) / (n-1)) = sqrt(10e6 - 2e6).
        assert!((a.interbench_sd() - (8.0e6f64).sqrt()).abs() < 1e-6);
        assert!((a.sd() - (2.0e6f64).sqrt()).abs() < 1e-6);
    }

    #[test]
    fn c_style_g_format() {
        assert_eq!(fmt_g(100.0, 4, 3), " 100");
        assert_eq!(fmt_g(99.7, 4, 3), "99.7");
        assert_eq!(fmt_g(96.0, 4, 3), "  96");
        assert_eq!(fmt_g(62.71, 11, 3), "       62.7");
        assert_eq!(fmt_g(99.96, 4, 3), " 100");
        assert_eq!(fmt_g(0.0, 4, 3), "   0");
        assert_eq!(fmt_g(0.000_012_3, 1, 3), "1.23e-05");
        assert_eq!(fmt_g(1234.0, 1, 3), "1.23e+03");
    }
}
