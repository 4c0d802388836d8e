//! How many runs are needed: the smallest change these runs could have
//! detected, and the runs per side needed to detect a given change.
//!
//! Two-sample, unequal variances, two-sided level α, power 1 − β:
//! a true difference Δ is detected when Δ ≥ (t_{1−α/2,ν} + t_{1−β,ν})·SE,
//! with SE and ν (Welch–Satterthwaite) from the samples' own spread.
//! Chow, S.-C., Shao, J. & Wang, H. (2008), *Sample Size Calculations in
//! Clinical Research*, 2nd ed., §3.2 (two-sample parallel design), with
//! t quantiles iterated over ν as in §3.2.1.  Changes are relative: the
//! standard error is that of ln(mean ratio) (delta method), so a change of
//! p % means a ratio of 1 + p/100.

use super::describe::{mean, variance};
use super::student_t;

/// Power the figures are computed for.
pub const POWER: f64 = 0.8;

fn z_sum(alpha: f64, df: f64) -> f64 {
    student_t::quantile(1.0 - alpha / 2.0, df) + student_t::quantile(POWER, df)
}

/// Squared coefficient of variation s²/x̄² of a sample.
fn cv2(x: &[f64]) -> f64 {
    let m = mean(x);
    variance(x) / (m * m)
}

/// Welch–Satterthwaite df of two samples' squared CVs `a`, `b` at sizes
/// `na`, `nb` (the same formula the intervals use).
fn welch_df(a: f64, na: usize, b: f64, nb: usize) -> f64 {
    super::interval::satterthwaite(&[(a / na as f64, na), (b / nb as f64, nb)])
}

/// Smallest relative change (in %, as a ratio's distance from 1 in the
/// harder direction) detectable with 80 % power at two-sided `alpha`,
/// with these runs and this noise.  `None` below 2 runs a side or for
/// non-positive data.
pub fn detectable_change_pct(base: &[f64], x: &[f64], alpha: f64) -> Option<f64> {
    if base.len() < 2 || x.len() < 2 || mean(base) <= 0.0 || mean(x) <= 0.0 {
        return None;
    }
    let (cb, cx) = (cv2(base), cv2(x));
    let (nb, nx) = (base.len() as f64, x.len() as f64);
    let se = (cb / nb + cx / nx).sqrt();
    let df = welch_df(cb, base.len(), cx, x.len());
    Some(((z_sum(alpha, df) * se).exp() - 1.0) * 100.0)
}

/// Runs per side needed to detect a relative change of `change_pct` %
/// with 80 % power at two-sided `alpha`, given the noise seen in `base`
/// and `x` (their squared CVs).  `None` when the samples cannot say
/// (fewer than 2 runs, non-positive) or when more than 100,000 runs would
/// be needed.
pub fn runs_needed(base: &[f64], x: &[f64], change_pct: f64, alpha: f64) -> Option<usize> {
    if base.len() < 2 || x.len() < 2 || mean(base) <= 0.0 || mean(x) <= 0.0 {
        return None;
    }
    let (cb, cx) = (cv2(base), cv2(x));
    let target = (1.0 + change_pct.abs() / 100.0).ln();
    if cb + cx == 0.0 {
        return Some(2);
    }
    (2..=100_000usize).find(|&n| {
        let nf = n as f64;
        let se = ((cb + cx) / nf).sqrt();
        z_sum(alpha, welch_df(cb, n, cx, n)) * se <= target
    })
}

/// The same rule for an effect size d = Δ/σ with equal variances, for
/// checking against published power tables.
#[cfg(test)]
pub fn runs_needed_for_d(d: f64, alpha: f64) -> usize {
    (2..=100_000usize)
        .find(|&n| {
            let nf = n as f64;
            z_sum(alpha, 2.0 * nf - 2.0) * (2.0 / nf).sqrt() <= d
        })
        .unwrap_or(100_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// statsmodels 0.15 `TTestIndPower().solve_power(d, alpha=0.05,
    /// power=0.8)` (exact, noncentral t): 63.77, 16.71, 5.09 runs a side.
    /// The t-quantile rule is within one run of it.
    #[test]
    fn agrees_with_statsmodels_within_a_run() {
        for (d, exact) in [(0.5, 63.77), (1.0, 16.71), (2.0, 5.09)] {
            let n = runs_needed_for_d(d, 0.05) as f64;
            assert!((n - exact).abs() <= 1.0, "d {d}: {n} vs {exact}");
        }
    }

    #[test]
    fn more_noise_needs_more_runs_and_hides_smaller_changes() {
        let quiet = [10.0, 10.1, 9.9, 10.05, 9.95];
        let noisy = [10.0, 11.0, 9.0, 10.5, 9.5];
        let q = detectable_change_pct(&quiet, &quiet, 0.05).unwrap();
        let n = detectable_change_pct(&noisy, &noisy, 0.05).unwrap();
        assert!(q < n, "{q} {n}");
        let rq = runs_needed(&quiet, &quiet, 1.0, 0.05).unwrap();
        let rn = runs_needed(&noisy, &noisy, 1.0, 0.05).unwrap();
        assert!(rq < rn, "{rq} {rn}");
        // Detecting exactly the detectable change needs about these runs.
        let r = runs_needed(&noisy, &noisy, n, 0.05).unwrap();
        assert!((4..=6).contains(&r), "{r}");
    }
}
