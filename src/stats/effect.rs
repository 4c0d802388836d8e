//! Effect sizes: how big a difference is, beside whether it is real.

use super::describe::{mean, variance};
use super::mann_whitney::{normal_sf, u_null_cdf, EXACT_BELOW};
use super::pairwise::Pairs;

/// P(U ≤ u) under the null, exact below [`EXACT_BELOW`] runs a side, else
/// the normal approximation with continuity correction.
fn u_cdf(m: usize, n: usize) -> Box<dyn Fn(f64) -> f64> {
    if m < EXACT_BELOW && n < EXACT_BELOW {
        let c = u_null_cdf(m, n);
        Box::new(move |u: f64| {
            if u < 0.0 {
                0.0
            } else {
                c[(u.floor() as usize).min(c.len() - 1)]
            }
        })
    } else {
        let (a, b) = (m as f64, n as f64);
        let sigma = (a * b * (a + b + 1.0) / 12.0).sqrt();
        Box::new(move |u: f64| 1.0 - normal_sf((u + 0.5 - a * b / 2.0) / sigma))
    }
}

/// `level` confidence interval of the Hodges–Lehmann shift: with the mn
/// sorted pairwise differences D₍₁₎ ≤ … ≤ D₍ₘₙ₎, [D₍ₖ₎, D₍ₘₙ₊₁₋ₖ₎] for the
/// largest k with P(U ≤ k − 1) ≤ (1 − level)/2 under the null (exact,
/// no-ties distribution below 20 runs a side; normal above).  `None` when
/// no k exists: with 3 runs a side a 95 % interval cannot be had (the
/// most extreme ordering already has probability 0.05).  Hollander, M.,
/// Wolfe, D. A. & Chicken, E. (2014), *Nonparametric Statistical
/// Methods*, 3rd ed., §4.3; Bauer, D. F. (1972), *JASA* 67(339): 687–690.
///
/// The differences are never all written out ([`Pairs`]: the two order
/// statistics are selected in O((m + n) log mn)), and k is found by
/// bisection on the null distribution, which rises with k.
pub fn hodges_lehmann_ci(base: &[f64], x: &[f64], level: f64) -> Option<(f64, f64)> {
    let (m, n) = (base.len(), x.len());
    if m == 0 || n == 0 {
        return None;
    }
    let cdf = u_cdf(m, n);
    let tail = (1.0 - level) / 2.0 + 1e-12;
    // The largest k in 1..=mn/2+1 with P(U ≤ k − 1) ≤ tail (0: none).
    let (mut lo, mut hi) = (0usize, m * n / 2 + 1);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if cdf(mid as f64 - 1.0) <= tail {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let k = lo;
    let d = Pairs::new(base, x);
    (k >= 1).then(|| (d.select(k - 1), d.select(m * n - k)))
}

/// [`hodges_lehmann_ci`] made to agree with the Mann–Whitney test as
/// [`super::mann_whitney::test`] computes it on tied values (integer
/// microseconds).  The no-ties interval beside a tie-corrected p could
/// end at exactly 0 while p < α: the two disagreed.  With ties, the
/// interval is the one the test inverts (Hollander, Wolfe & Chicken
/// (2014), §4.3: the shifts δ the test does not reject at 1 − `level`
/// when run on x − δ against the baseline), found by walking the
/// distinct pairwise differences (where the test's value can change)
/// from the no-ties interval's ends.  Between two such differences the
/// test's value is constant; a bound whose difference is rejected but
/// whose interval beside it is not is open, and reported one ulp inside,
/// so "the interval holds 0" is exactly "p ≥ α at 0".  Without ties
/// the no-ties interval is already that inversion and is returned.
pub fn hodges_lehmann_ci_tied(base: &[f64], x: &[f64], level: f64) -> Option<(f64, f64)> {
    let mut pooled: Vec<f64> = base.iter().chain(x).copied().collect();
    pooled.sort_by(f64::total_cmp);
    if pooled.windows(2).all(|w| w[0] != w[1]) {
        return hodges_lehmann_ci(base, x, level);
    }
    let (m, n) = (base.len(), x.len());
    if m == 0 || n == 0 || pooled.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let alpha = 1.0 - level;
    let d = Pairs::new(base, x);
    let mn = m * n;
    let accepted = |delta: f64| {
        let shifted: Vec<f64> = x.iter().map(|v| v - delta).collect();
        super::mann_whitney::test(base, &shifted).is_some_and(|t| t.p >= alpha)
    };
    let next = |v: f64| {
        let (_, upto) = d.count(v);
        (upto < mn).then(|| d.select(upto))
    };
    let prev = |v: f64| {
        let (below, _) = d.count(v);
        (below > 0).then(|| d.select(below - 1))
    };
    // The test accepts the point, or the open interval beyond it (on the
    // side of `toward`): `Some(bound)` as reported.
    let ok = |v: f64, toward: Option<f64>| {
        if accepted(v) {
            Some(v)
        } else {
            let w = toward?;
            accepted((v + w) / 2.0).then(|| if w > v { v.next_up() } else { v.next_down() })
        }
    };
    let centre = hodges_lehmann(base, x);
    let (start_lo, start_hi) =
        hodges_lehmann_ci(base, x, level).unwrap_or((d.select(0), d.select(mn - 1)));
    let lower = walk(start_lo.min(centre), centre, &ok, &prev, &next);
    let upper = walk(start_hi.max(centre), centre, &ok, &next, &prev);
    Some((lower, upper))
}

/// One bound of [`hodges_lehmann_ci_tied`]: from `start`, outward (by
/// `out`, away from the `centre`) while the test still accepts, or, when
/// it rejects there, inward (by `inward`) until it accepts (it does at
/// the centre).  `ok(v, toward)` is the bound the test gives at the
/// difference `v`, or `None`.
fn walk(
    start: f64,
    centre: f64,
    ok: &dyn Fn(f64, Option<f64>) -> Option<f64>,
    out: &dyn Fn(f64) -> Option<f64>,
    inward: &dyn Fn(f64) -> Option<f64>,
) -> f64 {
    const STEPS: usize = 10_000;
    let mut v = start;
    if let Some(mut b) = ok(v, inward(v)) {
        for _ in 0..STEPS {
            let Some(p) = out(v) else { break };
            match ok(p, Some(v)) {
                Some(c) => (v, b) = (p, c),
                None => break,
            }
        }
        return b;
    }
    if start == centre {
        return centre;
    }
    let before_centre = |q: f64| {
        if start < centre {
            q <= centre
        } else {
            q >= centre
        }
    };
    for _ in 0..STEPS {
        let Some(q) = inward(v).filter(|&q| before_centre(q)) else {
            break;
        };
        v = q;
        if let Some(c) = ok(v, inward(v)) {
            return c;
        }
    }
    centre
}

/// Equivalence of the shift within ±`margin` (in the metric's unit) by
/// two one-sided Mann–Whitney tests on the shifted samples (Wellek, S.
/// (2010), *Testing Statistical Hypotheses of Equivalence and
/// Noninferiority*, 2nd ed., §6.2): p = max(P(U ≥ U₋), P(U ≤ U₊)) where
/// U±δ counts pairs with xⱼ − baseᵢ > ±δ (ties ½).
pub fn hodges_lehmann_tost_p(base: &[f64], x: &[f64], margin: f64) -> Option<f64> {
    let (m, n) = (base.len(), x.len());
    if m == 0 || n == 0 {
        return None;
    }
    let d = Pairs::new(base, x);
    // Pairs above δ, ties counting ½: counted, not listed.
    let u_above = |delta: f64| -> f64 {
        let (below, upto) = d.count(delta);
        (d.len() - upto) as f64 + 0.5 * (upto - below) as f64
    };
    let cdf = u_cdf(m, n);
    let mn = (m * n) as f64;
    // H0: shift ≤ −margin, rejected when U(−margin) is large.
    // P(U ≥ u) = P(U ≤ mn − u) by the null distribution's symmetry.
    let p_lo = cdf(mn - u_above(-margin));
    // H0: shift ≥ +margin, rejected when U(+margin) is small.
    let p_hi = cdf(u_above(margin));
    Some(p_lo.max(p_hi).min(1.0))
}

/// Hodges–Lehmann estimate of the shift from `base` to `x`: the median of
/// all pairwise differences xⱼ − baseᵢ.  Hodges, J. L. & Lehmann, E. L.
/// (1963), "Estimates of location based on rank tests", *Ann. Math.
/// Statist.* 34(2): 598–611.
pub fn hodges_lehmann(base: &[f64], x: &[f64]) -> f64 {
    Pairs::new(base, x).median()
}

/// Cohen's d of `x` against `base` with the pooled standard deviation
/// s = √[((n₁−1)s₁² + (n₂−1)s₂²)/(n₁+n₂−2)].  Cohen, J. (1988),
/// *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., §2.2.
pub fn cohens_d(base: &[f64], x: &[f64]) -> f64 {
    if base.len() < 2 || x.len() < 2 {
        return f64::NAN;
    }
    let (n1, n2) = (base.len() as f64, x.len() as f64);
    let pooled =
        (((n1 - 1.0) * variance(base) + (n2 - 1.0) * variance(x)) / (n1 + n2 - 2.0)).sqrt();
    (mean(x) - mean(base)) / pooled
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The case: integer microseconds, many ties.  Wherever the
    /// tie-corrected test says p < α the interval leaves 0 out, and where
    /// it says p ≥ α the interval holds 0 (over 200 seeded pairs with
    /// small shifts, where the no-ties interval disagreed with the p).
    #[test]
    fn with_ties_the_interval_and_the_test_agree() {
        let mut rng = super::super::bootstrap::SplitMix(58);
        let (mut rejected, mut disagreed_before) = (0, 0);
        for case in 0..200 {
            let n = 6 + case % 15;
            let shift = (case % 4) as f64;
            let draw = |rng: &mut super::super::bootstrap::SplitMix, s: f64| -> Vec<f64> {
                (0..n)
                    .map(|_| (100.0 + s + 3.0 * rng.normal()).round())
                    .collect()
            };
            let (a, b) = (draw(&mut rng, 0.0), draw(&mut rng, shift));
            let p = super::super::mann_whitney::test(&a, &b).unwrap().p;
            let (lo, hi) = hodges_lehmann_ci_tied(&a, &b, 0.95).unwrap();
            let holds = lo <= 0.0 && 0.0 <= hi;
            assert_eq!(
                p < 0.05,
                !holds,
                "case {case}: p {p}, interval [{lo}, {hi}]"
            );
            rejected += usize::from(p < 0.05);
            if let Some((lo, hi)) = hodges_lehmann_ci(&a, &b, 0.95) {
                disagreed_before += usize::from((p < 0.05) == (lo <= 0.0 && 0.0 <= hi));
            }
        }
        eprintln!(
            "rejected {rejected} of 200; the no-ties interval disagreed in {disagreed_before}"
        );
        assert!(rejected > 20 && disagreed_before > 0);
    }

    /// Without ties it is the exact interval, pinned below.
    #[test]
    fn without_ties_it_is_the_exact_interval() {
        let a = [1.1, 2.3, 3.2, 4.8, 5.0, 6.7];
        let b = [2.0, 3.9, 4.4, 6.1, 7.5, 8.2];
        assert_eq!(
            hodges_lehmann_ci_tied(&a, &b, 0.95),
            hodges_lehmann_ci(&a, &b, 0.95)
        );
    }
    use crate::stats::close;

    /// (base, x, numpy median of pairwise x − base, Cohen's d by numpy)
    const REF: &[(&[f64], &[f64], f64, f64)] = &[
        (
            &[15.758, 15.63, 16.127],
            &[14.716, 14.627, 14.597],
            -1.130_999_999_999_998_5,
            -6.350_582_409_491_919,
        ),
        (
            &[11.164, 11.128, 11.187],
            &[12.104, 12.015, 11.949],
            0.851_000_000_000_000_9,
            14.655_917_051_952_994,
        ),
        (
            &[0.100391, 0.102956, 0.232901],
            &[0.059826, 0.058776, 0.058987],
            -0.043_969_000_000_000_01,
            -1.609_100_725_387_820_2,
        ),
        (
            &[1.0, 2.0, 3.0],
            &[2.0, 4.0, 7.0, 9.0],
            3.5,
            1.405_633_825_579_373,
        ),
    ];

    /// Brute-force enumeration in tests/fixtures/stats-reference.py.
    #[test]
    fn hodges_lehmann_interval_matches_enumeration() {
        let b = [10.0, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7];
        let x = [9.0, 9.1, 9.2, 9.3, 9.4, 9.5, 9.6, 60.0];
        let (lo, hi) = hodges_lehmann_ci(&b, &x, 0.95).unwrap();
        assert!(close(lo, -1.3, 1e-9) && close(hi, -0.6, 1e-9), "{lo} {hi}");
        let (lo, hi) =
            hodges_lehmann_ci(&[15.758, 15.63, 16.127], &[14.716, 14.627, 14.597], 0.90).unwrap();
        assert!(
            close(lo, -1.53, 1e-9) && close(hi, -0.914, 1e-9),
            "{lo} {hi}"
        );
        assert_eq!(
            hodges_lehmann_ci(&[15.758, 15.63, 16.127], &[14.716, 14.627, 14.597], 0.95),
            None,
            "3 runs a side cannot give a 95 % interval"
        );
        let (lo, hi) = hodges_lehmann_ci(
            &[1.0, 2.5, 3.1, 4.8, 5.2],
            &[3.3, 4.1, 6.0, 6.2, 7.7, 9.9],
            0.95,
        )
        .unwrap();
        assert!(close(lo, -0.7, 1e-9) && close(hi, 6.7, 1e-9), "{lo} {hi}");
    }

    #[test]
    fn hodges_lehmann_equivalence() {
        let b: Vec<f64> = (0..8).map(|i| 10.0 + 0.01 * f64::from(i)).collect();
        let x: Vec<f64> = (0..8).map(|i| 10.005 + 0.01 * f64::from(i)).collect();
        // A shift of 0.005 is well within ±1 and well outside ±0.001.
        assert!(hodges_lehmann_tost_p(&b, &x, 1.0).unwrap() < 0.001);
        assert!(hodges_lehmann_tost_p(&b, &x, 0.001).unwrap() > 0.5);
    }

    #[test]
    fn matches_numpy() {
        for &(b, x, hl, d) in REF {
            assert!(close(hodges_lehmann(b, x), hl, 1e-9), "{b:?} {x:?}");
            assert!(close(cohens_d(b, x), d, 1e-9), "{b:?} {x:?}");
        }
    }
}
