//! Chromium Pinpoint's published bisection rule, for `bench/bisect-runs.sh`:
//! what the runs kbench spends are measured against.
//!
//! As catapult's `pinpoint/models` has it (`job_state.py`,
//! `compare/compare.py`, `compare/thresholds.py`):
//! - every change starts with 10 attempts; a comparison that is neither
//!   "different" nor "same" adds 10 more to the side with fewer;
//! - two changes are compared by p = min(Kolmogorov–Smirnov,
//!   Mann–Whitney): "different" at p ≤ the low threshold (0.01, what
//!   `LowThreshold()` returns), "same" above a high threshold that falls
//!   with the number of attempts, "unknown" between;
//! - the high threshold is looked up by the number of attempts (the mean
//!   of the two sides) and the magnitude sought in interquartile ranges
//!   (the regression's size over the larger of the two sides' IQR);
//! - every adjacent pair of changes is compared in each round, a
//!   "different" pair with commits between gets its midpoint, and the
//!   culprits are the adjacent "different" pairs at the end.
//!
//! The high thresholds are not copied: they are made here by the method
//! `thresholds_performance.py` publishes, the 99th percentile of the
//! two-sided Mann–Whitney p-value (normal approximation, as SciPy's of
//! 2018) between two normal samples the magnitude apart, at each number
//! of values, until it falls below the low threshold (where Pinpoint's
//! table ends, so that a comparison is always decided there).
//!
//! What is left out favours Pinpoint: it is given the true size of the
//! regression, and it speculates on no more than one midpoint at a time
//! (its default speculates two levels deep, which spends more runs to
//! finish sooner).

use crate::stats::bootstrap::SplitMix;
use std::collections::HashMap;

/// Attempts added at a time (`_REPEAT_COUNT_INCREASE`).
const STEP: usize = 10;
/// Σ of runs at which a simulated bisection is stopped (never reached
/// when the thresholds end below the low one, as they do).
const RUNS_CAP: usize = 100_000;

/// The high thresholds, a row per tenth of an IQR (0.3 to 4.0), made on
/// first use.
pub struct Thresholds {
    low: f64,
    sims: usize,
    seed: u64,
    rows: HashMap<u32, Vec<f64>>,
}

impl Thresholds {
    pub fn new(low: f64, sims: usize, seed: u64) -> Thresholds {
        Thresholds {
            low,
            sims,
            seed,
            rows: HashMap::new(),
        }
    }

    /// The high threshold for `magnitude` IQRs at `n` attempts a side.
    fn high(&mut self, magnitude: f64, n: usize) -> f64 {
        let tenths = (magnitude * 10.0).floor().clamp(3.0, 40.0) as u32;
        let (low, sims, seed) = (self.low, self.sims, self.seed);
        let row = self
            .rows
            .entry(tenths)
            .or_insert_with(|| row(tenths, low, sims, seed ^ u64::from(tenths)));
        row[n.clamp(1, row.len()) - 1]
    }
}

/// One row: at n = 1, 2, … values a side, the 99th percentile of the
/// Mann–Whitney p-value between N(0, 1) and N(d, 1), d the magnitude in
/// standard deviations, until it is below `low`.
fn row(tenths: u32, low: f64, sims: usize, seed: u64) -> Vec<f64> {
    const SD_PER_IQR: f64 = 1.348_979_500_392_163_3;
    let d = f64::from(tenths) / 10.0 * SD_PER_IQR;
    let mut rng = SplitMix(seed);
    let mut out = Vec::new();
    // All simulations grow together, a value a side at a time, so each
    // size's p-values are at hand when its percentile is taken.
    let mut a: Vec<Vec<f64>> = vec![Vec::new(); sims];
    let mut b: Vec<Vec<f64>> = vec![Vec::new(); sims];
    let mut u = vec![0.0f64; sims];
    let mut ps = vec![0.0f64; sims];
    for n in 1..=2000usize {
        for s in 0..sims {
            let (x, y) = (rng.normal(), d + rng.normal());
            // U (pairs with a's value above b's) grows by the pairs the
            // new values make.
            u[s] += b[s].iter().filter(|&&v| x > v).count() as f64
                + a[s].iter().filter(|&&v| v > y).count() as f64
                + f64::from(u8::from(x > y));
            a[s].push(x);
            b[s].push(y);
            // No ties between continuous draws.
            ps[s] = crate::stats::mann_whitney::normal_p_of(u[s], n, n, 0.0);
        }
        let mut sorted = ps.clone();
        sorted.sort_by(f64::total_cmp);
        let q = sorted[((sims as f64 * 0.99).ceil() as usize).clamp(1, sims) - 1];
        out.push(q);
        if q < low {
            break;
        }
    }
    out
}

/// The comparison's three answers.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Answer {
    Different,
    Same,
    Unknown,
}

/// Interquartile range, by linear interpolation (numpy's default).
fn iqr(v: &[f64]) -> f64 {
    use crate::stats::describe::quantile;
    quantile(v, 0.75) - quantile(v, 0.25)
}

fn compare(t: &mut Thresholds, a: &[f64], b: &[f64], size: f64) -> Answer {
    let attempts = (a.len() + b.len()) / 2;
    let widest = iqr(a).max(iqr(b));
    let magnitude = if widest > 0.0 { size / widest } else { 1000.0 };
    let mw = crate::stats::mann_whitney::test(a, b).map_or(1.0, |m| m.p);
    let ks = crate::stats::ks::p_value(a, b).unwrap_or(1.0);
    let p = mw.min(ks);
    if p <= t.low {
        Answer::Different
    } else if p <= t.high(magnitude, attempts) {
        Answer::Unknown
    } else {
        Answer::Same
    }
}

/// One bisection over `n` candidates drawn by `value` (candidate index →
/// a run's value) looking for a regression of `size` (absolute): the
/// culprits it names and the runs it spent.
pub fn bisect(
    t: &mut Thresholds,
    n: usize,
    size: f64,
    mut value: impl FnMut(usize) -> f64,
) -> (Vec<usize>, usize) {
    let mut runs: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut add = |runs: &mut Vec<Vec<f64>>, c: usize| {
        for _ in 0..STEP {
            let v = value(c);
            runs[c].push(v);
        }
    };
    let mut changes = vec![0, n - 1];
    add(&mut runs, 0);
    add(&mut runs, n - 1);
    loop {
        let mut refine = Vec::new();
        let mut midpoints = Vec::new();
        for w in changes.windows(2) {
            let (a, b) = (w[0], w[1]);
            match compare(t, &runs[a], &runs[b], size) {
                Answer::Different if b - a > 1 => midpoints.push((a + b) / 2),
                Answer::Unknown => {
                    refine.push(if runs[a].len() <= runs[b].len() { a } else { b });
                }
                _ => {}
            }
        }
        let total: usize = runs.iter().map(Vec::len).sum();
        if (refine.is_empty() && midpoints.is_empty()) || total > RUNS_CAP {
            break;
        }
        refine.sort_unstable();
        refine.dedup();
        for c in refine {
            add(&mut runs, c);
        }
        for m in midpoints {
            add(&mut runs, m);
            changes.push(m);
        }
        changes.sort_unstable();
    }
    let named = changes
        .windows(2)
        .filter(|w| w[1] - w[0] == 1)
        .filter(|w| compare(t, &runs[w[0]], &runs[w[1]], size) == Answer::Different)
        .map(|w| w[1])
        .collect();
    (named, runs.iter().map(Vec::len).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The made thresholds behave as the published ones: 1 (or near) at a
    /// few values, falling with n, ending below the low threshold, and
    /// sooner for larger magnitudes.
    #[test]
    fn thresholds_fall_with_n_and_end_sooner_for_larger_shifts() {
        let small = row(5, 0.01, 400, 1);
        let large = row(20, 0.01, 400, 1);
        assert!(small[0] > 0.9 && large[0] > 0.9);
        assert!(*small.last().unwrap() < 0.01 && *large.last().unwrap() < 0.01);
        assert!(large.len() < small.len(), "{} {}", large.len(), small.len());
        // Pinpoint's own tables end near 110 values at 0.5 IQR, near 10
        // at 2.0 IQR.
        assert!((70..160).contains(&small.len()), "{}", small.len());
        assert!((6..16).contains(&large.len()), "{}", large.len());
    }

    /// A clear regression is found at its commit; identical candidates
    /// name none.
    #[test]
    fn a_clear_shift_is_found_and_no_shift_names_nothing() {
        let mut t = Thresholds::new(0.01, 400, 7);
        let mut rng = SplitMix(3);
        let (named, runs) = bisect(&mut t, 16, 30.0, |i| {
            100.0 + if i >= 9 { 30.0 } else { 0.0 } + 5.0 * rng.normal()
        });
        assert_eq!(named, vec![9]);
        assert!(runs >= 10 * 5, "{runs}");
        let (named, _) = bisect(&mut t, 16, 30.0, |_| 100.0 + 5.0 * rng.normal());
        assert!(named.is_empty(), "{named:?}");
    }
}
