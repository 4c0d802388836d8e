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

/// Whether the samples can say how much they vary: 2 runs a side or more,
/// positive means (the figures are relative).
fn can_say(base: &[f64], x: &[f64]) -> bool {
    base.len() >= 2 && x.len() >= 2 && mean(base) > 0.0 && mean(x) > 0.0
}

/// Smallest relative change (in %, as a ratio's distance from 1 in the
/// harder direction) detectable with 80 % power at two-sided `alpha`,
/// with these runs and this noise.  `None` below 2 runs a side or for
/// non-positive data.
pub fn detectable_change_pct(base: &[f64], x: &[f64], alpha: f64) -> Option<f64> {
    if !can_say(base, x) {
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
    if !can_say(base, x) {
        return None;
    }
    let (cb, cx) = (cv2(base), cv2(x));
    let target = (1.0 + change_pct.abs() / 100.0).ln();
    if cb + cx == 0.0 {
        return Some(2);
    }
    let enough = |n: usize| {
        let nf = n as f64;
        let se = ((cb + cx) / nf).sqrt();
        z_sum(alpha, welch_df(cb, n, cx, n)) * se <= target
    };
    first_true(2, 100_000, enough)
}

/// The smallest n in `lo..=hi` for which `enough(n)` holds, by bisection:
/// `enough` must be monotone (false, then true), as "these runs suffice"
/// is (the standard error falls with n and so does the t quantile, with
/// the degrees of freedom).  A linear scan took seconds where the noise is
/// large and the change small (log-normal runs: some 68,000 steps, each a
/// t quantile).
fn first_true(lo: usize, hi: usize, enough: impl Fn(usize) -> bool) -> Option<usize> {
    if !enough(hi) {
        return None;
    }
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if enough(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// Φ⁻¹(p), the standard normal quantile, by bisection on the normal
/// tail [`super::mann_whitney::normal_sf`] (monotone, so this converges
/// to full precision).
fn normal_quantile(p: f64) -> f64 {
    let (mut lo, mut hi) = (-40.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if 1.0 - super::mann_whitney::normal_sf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// z_{1−α/2} + z_{1−β} of the normal distribution: [`z_sum`] for
/// Noether's large-sample formulas.
fn normal_z_sum(alpha: f64) -> f64 {
    normal_quantile(1.0 - alpha / 2.0) + normal_quantile(POWER)
}

/// The common spread on the log scale of a location-shift model, from
/// both samples' squared CVs pooled by their degrees of freedom (the
/// delta method's SD of ln x is the CV).
fn pooled_log_sd(base: &[f64], x: &[f64]) -> f64 {
    let (nb, nx) = (base.len() as f64, x.len() as f64);
    (((nb - 1.0) * cv2(base) + (nx - 1.0) * cv2(x)) / (nb + nx - 2.0)).sqrt()
}

/// Mann–Whitney's own power for many runs, by Noether's formula: the
/// rank test with sizes m and n detects P(Y > X) = p at two-sided level
/// α with power 1 − β when (p − ½)² = (z_{1−α/2} + z_{1−β})² /
/// (12·mn/(m + n)).  Noether, G. E. (1987), "Sample size determination
/// for some common nonparametric tests", *J. Amer. Statist. Assoc.*
/// 82:645–647.  Under a shift δ (in σ) of normal data p = Φ(δ/√2), so
/// δ = √2·Φ⁻¹(½ + excess).  `None` when no shift reaches the power.
fn noether_shift(alpha: f64, m: usize, n: usize) -> Option<f64> {
    let (m, n) = (m as f64, n as f64);
    let excess = normal_z_sum(alpha) / (12.0 * m * n / (m + n)).sqrt();
    (excess < 0.5).then(|| std::f64::consts::SQRT_2 * normal_quantile(0.5 + excess))
}

/// Simulated samples for the small-sample power: enough that the power
/// found is within about a percentage point (binomial SE of 0.8 at 4000
/// is 0.6 %).
const SIMULATIONS: usize = 4000;

/// Mann–Whitney's own power with few runs (up to [`SIMULATED_UP_TO`] a
/// side): the shift δ, in units of σ, of normal data at which kbench's
/// two-sided test at level α rejects with probability [`POWER`], by
/// seeded simulation.  The test rejects towards "higher" when U ≥ k
/// ([`upper_critical`]: from the exact null distribution, Mann & Whitney
/// 1947, where the test is exact).  With the second sample shifted
/// by δ, U(δ) = #{(i, j): aᵢ − bⱼ < δ} for the unshifted draws a, b, so
/// U(δ) ≥ k exactly when δ is above the k-th smallest difference: the
/// power at δ is the share of simulated samples whose k-th smallest
/// difference is below δ, and the δ of 80 % power is that difference's
/// 80th percentile over the simulations.  (The lower tail, P(U < α/2's
/// count) under a positive shift, is left out: it adds less than α/2.)
/// `None` when the test cannot reach α with these sizes at all.
fn simulated_shift(alpha: f64, m: usize, n: usize) -> Option<f64> {
    let k = upper_critical(alpha, m, n)?;
    let mut rng = super::bootstrap::SplitMix(0x006e_6f65_7468_6572 ^ ((m as u64) << 32) ^ n as u64);
    let (mut a, mut b) = (vec![0.0; m], vec![0.0; n]);
    let mut diffs = vec![0.0; m * n];
    let mut at: Vec<f64> = (0..SIMULATIONS)
        .map(|_| {
            a.iter_mut().for_each(|v| *v = rng.normal());
            b.iter_mut().for_each(|v| *v = rng.normal());
            for (i, ai) in a.iter().enumerate() {
                for (j, bj) in b.iter().enumerate() {
                    diffs[i * n + j] = ai - bj;
                }
            }
            *diffs.select_nth_unstable_by(k - 1, f64::total_cmp).1
        })
        .collect();
    let q = ((SIMULATIONS as f64 * POWER).ceil() as usize).saturating_sub(1);
    Some(*at.select_nth_unstable_by(q, f64::total_cmp).1)
}

/// The smallest U at which kbench's two-sided Mann–Whitney test rejects
/// towards "higher" at level α with sizes m and n and no ties: from the
/// exact null distribution where the test is exact (P(U ≥ k) = 1 −
/// cdf[k − 1] below α/2), else from the same normal approximation with
/// continuity correction the test uses.  `None` when no U reaches α.
fn upper_critical(alpha: f64, m: usize, n: usize) -> Option<usize> {
    let exact = super::mann_whitney::EXACT_BELOW;
    if m < exact && n < exact {
        let cdf = super::mann_whitney::u_null_cdf(m, n);
        return (1..cdf.len()).find(|&k| 2.0 * (1.0 - cdf[k - 1]) < alpha);
    }
    let (a, b) = (m as f64, n as f64);
    let sd = (a * b * (a + b + 1.0) / 12.0).sqrt();
    let p = |u: usize| 2.0 * super::mann_whitney::normal_sf((u as f64 - a * b / 2.0 - 0.5) / sd);
    (m * n / 2..=m * n).find(|&u| p(u) < alpha)
}

/// Up to this many runs a side the Mann–Whitney power is simulated;
/// beyond, Noether's formula is within 2 % of the simulation (1.7 % at
/// 40 a side, 0.7 % at 60; 5 % at 20, where it is too cautious).
const SIMULATED_UP_TO: usize = 40;

/// The shift δ (in σ of normal data) that the Mann–Whitney test as kbench
/// runs it detects with [`POWER`] at two-sided `alpha` with sizes m and n:
/// by simulation up to [`SIMULATED_UP_TO`] a side, by Noether's formula
/// beyond.
/// Memoised: a report asks for the same sizes for many metrics.
pub fn mann_whitney_shift(alpha: f64, m: usize, n: usize) -> Option<f64> {
    use std::sync::Mutex;
    if m < 2 || n < 2 {
        return None;
    }
    if m > SIMULATED_UP_TO || n > SIMULATED_UP_TO {
        return noether_shift(alpha, m, n);
    }
    // A handful of sizes per report: a list is enough.
    type Sizes = (u64, usize, usize);
    static MEMO: Mutex<Vec<(Sizes, Option<f64>)>> = Mutex::new(Vec::new());
    let key = (alpha.to_bits(), m, n);
    let mut memo = MEMO.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, d)) = memo.iter().find(|(k, _)| *k == key) {
        return *d;
    }
    let d = simulated_shift(alpha, m, n);
    memo.push((key, d));
    d
}

/// [`detectable_change_pct`] for the Mann–Whitney test, from its own
/// power ([`mann_whitney_shift`]) on the log scale, whose spread σ is the
/// runs' pooled CV (delta method).  `None` where [`detectable_change_pct`]
/// has none, or when the test cannot reach `alpha` with so few runs.
pub fn mann_whitney_detectable_change_pct(base: &[f64], x: &[f64], alpha: f64) -> Option<f64> {
    if !can_say(base, x) {
        return None;
    }
    let shift = mann_whitney_shift(alpha, base.len(), x.len())?;
    Some((pooled_log_sd(base, x) * shift).exp_m1() * 100.0)
}

/// [`runs_needed`] for the Mann–Whitney test: the fewest runs a side
/// whose [`mann_whitney_shift`] reaches a relative change of
/// `change_pct` % at this noise.
pub fn mann_whitney_runs_needed(
    base: &[f64],
    x: &[f64],
    change_pct: f64,
    alpha: f64,
) -> Option<usize> {
    if !can_say(base, x) {
        return None;
    }
    let sigma = pooled_log_sd(base, x);
    if sigma == 0.0 {
        return Some(2);
    }
    let target = (1.0 + change_pct.abs() / 100.0).ln() / sigma;
    let reaches = |n: usize| mann_whitney_shift(alpha, n, n).is_some_and(|d| d <= target);
    if reaches(SIMULATED_UP_TO) {
        // Bisection: the shift falls with the runs (up to the exact
        // test's small steps), and each size is a simulation.
        let (mut lo, mut hi) = (1, SIMULATED_UP_TO);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if reaches(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return Some(hi.max(2));
    }
    // Noether (1987) with m = n: n = z² / (6·(p − ½)²), p = Φ(δ/√2).
    let p = 1.0 - super::mann_whitney::normal_sf(target / std::f64::consts::SQRT_2);
    let n = (normal_z_sum(alpha).powi(2) / (6.0 * (p - 0.5).powi(2))).ceil();
    (n <= 100_000.0).then(|| (n as usize).max(SIMULATED_UP_TO + 1))
}

/// The same rule for an effect size d = Δ/σ with equal variances, for
/// checking against published power tables.
#[cfg(test)]
pub fn runs_needed_for_d(d: f64, alpha: f64) -> usize {
    first_true(2, 100_000, |n| {
        let nf = n as f64;
        z_sum(alpha, 2.0 * nf - 2.0) * (2.0 / nf).sqrt() <= d
    })
    .unwrap_or(100_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bisection finds what the scan found, for every n it could.
    #[test]
    fn the_bisection_finds_the_first_n() {
        for want in [2, 3, 17, 5000, 100_000] {
            assert_eq!(first_true(2, 100_000, |n| n >= want), Some(want));
        }
        assert_eq!(first_true(2, 100_000, |_| false), None);
    }

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

    /// The shift of normal data at which kbench's Mann–Whitney test has
    /// 80 % power, against SciPy 1.16: `mannwhitneyu(y + δ, x,
    /// method='exact')` (`'asymptotic'` from 20 a side, as kbench) on
    /// 40,000 seeded normal samples, δ by bisection on the share with
    /// p < α.  Simulation against simulation: within 3 %.  SciPy's power
    /// at kbench's δ was 0.795–0.806 for each of these.
    #[test]
    fn mann_whitney_power_agrees_with_scipy() {
        for (alpha, m, n, scipy) in [
            (0.05, 5, 5, 2.3057),
            (0.05, 3, 7, 2.5365),
            (0.01, 8, 12, 1.7843),
            (0.05, 10, 10, 1.3946),
            (0.05, 30, 30, 0.7588),
        ] {
            let d = mann_whitney_shift(alpha, m, n).unwrap();
            assert!(
                (d / scipy - 1.0).abs() < 0.03,
                "{alpha} {m}+{n}: {d} vs {scipy}"
            );
        }
        // Beyond the simulated sizes, Noether's formula, against SciPy's
        // `sqrt(2) * norm.ppf(0.5 + z / sqrt(12 m n / (m + n)))`.
        for (alpha, m, n, scipy) in [
            (0.05, 100, 100, 0.41116595872275835),
            (0.001, 80, 200, 0.574826356787294),
        ] {
            let d = mann_whitney_shift(alpha, m, n).unwrap();
            assert!(
                (d / scipy - 1.0).abs() < 1e-6,
                "{alpha} {m}+{n}: {d} vs {scipy}"
            );
        }
        // Where the exact test cannot reach α (3+3 runs: p ≥ 0.1), no
        // shift is detectable at all.
        assert_eq!(mann_whitney_shift(0.05, 3, 3), None);
        // Where simulation hands over to the formula, the figure moves by
        // less than 3 % (the formula is a little cautious there: up).
        let (a, b) = (
            mann_whitney_shift(0.05, SIMULATED_UP_TO, SIMULATED_UP_TO).unwrap(),
            mann_whitney_shift(0.05, SIMULATED_UP_TO + 1, SIMULATED_UP_TO + 1).unwrap(),
        );
        assert!((a / b - 1.0).abs() < 0.03, "{a} {b}");
    }

    #[test]
    fn the_rank_test_needs_more_than_welch_and_its_runs_reach_its_change() {
        let base = [10.0, 11.0, 9.0, 10.5, 9.5, 10.2, 9.8];
        let x = [10.2, 10.8, 9.7, 10.1, 9.9, 10.4, 9.6];
        let welch = detectable_change_pct(&base, &x, 0.05).unwrap();
        let mw = mann_whitney_detectable_change_pct(&base, &x, 0.05).unwrap();
        // Normal data: the rank test's efficiency is 3/π, and less with
        // few runs.
        assert!(
            mw > welch * (std::f64::consts::PI / 3.0).sqrt(),
            "{mw} {welch}"
        );
        assert!(mw < welch * 1.5, "{mw} {welch}");
        // The runs needed for exactly that change are these 7.
        assert_eq!(mann_whitney_runs_needed(&base, &x, mw, 0.05), Some(7));
        // Smaller changes need more, past the simulated sizes too.
        let r10 = mann_whitney_runs_needed(&base, &x, mw / 2.0, 0.05).unwrap();
        let r100 = mann_whitney_runs_needed(&base, &x, mw / 6.0, 0.05).unwrap();
        assert!(
            7 < r10 && r10 < r100 && r100 > SIMULATED_UP_TO,
            "{r10} {r100}"
        );
        // Quiet runs need the fewest the test can decide with.
        assert_eq!(
            mann_whitney_runs_needed(&[5.0; 4], &[5.0; 4], 1.0, 0.05),
            Some(2)
        );
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
