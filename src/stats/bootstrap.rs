//! Studentized (bootstrap-t) confidence intervals of a mean, seeded so
//! reports are reproducible.
//!
//! The percentile bootstrap kbench used before covered 75 % at n = 3 and
//! 85 % at n = 5 where it claimed 95 %: resampling a handful of runs
//! cannot show the spread the next run will have.  The bootstrap-t
//! studentizes each resample, which restores the t distribution's heavier
//! tails (Efron, B. & Tibshirani, R. (1993), *An Introduction to the
//! Bootstrap*, §12.5); for positive data it works on ln(mean) with the
//! delta-method standard error s/(√n·x̄) (§12.6, transformations), so the
//! interval never crosses zero.  Below [`MIN_N`] runs it is not given: the
//! simulation test below shows where its coverage holds.

/// Fewest runs for which the interval is given (coverage ≥ 93 % at 95 %
/// on normal data from here on, by the simulation in the tests; about
/// 90 % on data as skewed as a log-normal of σ = 1, by the simulation in
/// `compare/tests.rs`).
pub const MIN_N: usize = 5;

/// Most runs for which it is given: past 200 runs the bootstrap-t and
/// the interval of the t distribution (or Cox's) agree to far less than
/// the runs' own spread (the reason for the bootstrap is the few-run
/// case), while 2,000 resamples of a thousand runs cost 15 ms a label and
/// of 50,000 runs most of a second.
pub const MAX_N: usize = 200;

/// A small deterministic generator (SplitMix64, Steele et al. 2014).
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.uniform().max(f64::MIN_POSITIVE);
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

fn mean_sd(x: &[f64]) -> (f64, f64) {
    (
        super::describe::mean(x),
        super::describe::variance(x).sqrt(),
    )
}

/// `level` (e.g. 0.95) bootstrap-t interval of the mean of `x`, from
/// `resamples` resamples with replacement, seeded by `seed`.  `None` below
/// [`MIN_N`] or above [`MAX_N`] values, or when the interval is not finite.
pub fn mean_ci(x: &[f64], level: f64, resamples: usize, seed: u64) -> Option<(f64, f64)> {
    let n = x.len();
    if !(MIN_N..=MAX_N).contains(&n) {
        return None;
    }
    let positive = x.iter().all(|v| *v > 0.0 && v.is_finite());
    let (m, s) = mean_sd(x);
    if s == 0.0 {
        return Some((m, m));
    }
    // θ = ln x̄ (positive data) or x̄, with its standard error.
    let (theta, se) = if positive {
        (m.ln(), s / ((n as f64).sqrt() * m))
    } else {
        (m, s / (n as f64).sqrt())
    };
    let mut rng = SplitMix(seed);
    let mut buf = vec![0.0; n];
    let mut t: Vec<f64> = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for b in buf.iter_mut() {
            *b = x[(rng.next_u64() % n as u64) as usize];
        }
        let (ms, ss) = mean_sd(&buf);
        if ss == 0.0 {
            continue; // a resample of one repeated value has no t
        }
        let (th, se_s) = if positive {
            (ms.ln(), ss / ((n as f64).sqrt() * ms))
        } else {
            (ms, ss / (n as f64).sqrt())
        };
        t.push((th - theta) / se_s);
    }
    if t.len() < resamples / 2 {
        return None;
    }
    t.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| t[((p * t.len() as f64).floor() as usize).min(t.len() - 1)];
    let (q_lo, q_hi) = ((1.0 - level) / 2.0, 1.0 - (1.0 - level) / 2.0);
    let (lo, hi) = (theta - q(q_hi) * se, theta - q(q_lo) * se);
    let (lo, hi) = if positive {
        (lo.exp(), hi.exp())
    } else {
        (lo, hi)
    };
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_brackets_the_mean_and_is_reproducible() {
        let x = [10.0, 12.0, 11.0, 15.0, 9.0, 13.0];
        let (lo, hi) = mean_ci(&x, 0.95, 2000, 42).unwrap();
        let m = x.iter().sum::<f64>() / 6.0;
        assert!(lo < m && m < hi, "{lo} {m} {hi}");
        assert!(lo > 0.0, "positive data keep a positive interval");
        assert_eq!(mean_ci(&x, 0.95, 2000, 42), Some((lo, hi)));
        let (lo2, hi2) = mean_ci(&x, 0.5, 2000, 42).unwrap();
        assert!(
            hi2 - lo2 < hi - lo,
            "a lower level gives a narrower interval"
        );
    }

    #[test]
    fn constant_data_has_zero_width_and_few_runs_get_none() {
        assert_eq!(
            mean_ci(&[3.0, 3.0, 3.0, 3.0, 3.0], 0.95, 500, 1),
            Some((3.0, 3.0))
        );
        assert_eq!(mean_ci(&[3.0, 4.0, 5.0, 6.0], 0.95, 500, 1), None);
    }

    /// Coverage on normal data at n = 5: 600 samples of N(10, 1) and of
    /// N(10, 3), each interval from 1000 resamples; the claim is 95 %.
    /// (The percentile bootstrap this replaced covers ~85 % here.)
    #[test]
    fn holds_its_coverage_at_five_runs() {
        for sd in [1.0, 3.0] {
            let mut rng = SplitMix(7);
            let (mut covered, trials) = (0, 600);
            for k in 0..trials {
                let x: Vec<f64> = (0..5).map(|_| 10.0 + sd * rng.normal()).collect();
                let x: Vec<f64> = x.into_iter().map(|v| v.max(0.01)).collect();
                if let Some((lo, hi)) = mean_ci(&x, 0.95, 1000, k) {
                    if lo <= 10.0 && 10.0 <= hi {
                        covered += 1;
                    }
                }
            }
            let cov = covered as f64 / trials as f64;
            assert!(cov >= 0.93, "coverage {cov} at sd {sd}");
        }
    }
}
