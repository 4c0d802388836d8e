//! The two-sample Kolmogorov–Smirnov test, exact: D = sup |F₁ − F₂| of
//! the two empirical distribution functions, and P(D ≥ d) under the null
//! by counting the lattice paths of the merged sample that stay inside
//! the band |i/m − j/n| < d (Hodges (1958), "The significance probability
//! of the Smirnov two-sample test", *Arkiv för Matematik* 3(5): 469–486;
//! the same count SciPy's `ks_2samp(method="exact")` makes).  The walk is
//! counted as probabilities (each step takes the next value of the first
//! sample with probability (m − i)/(m + n − i − j)), so no binomial
//! coefficient overflows; the band is decided in integers, |i·n − j·m| <
//! D·m·n, so no rounding moves a path across it.  As SciPy's exact method
//! it treats the samples as continuous (ties are not corrected for).
//!
//! kbench decides with Welch and Mann–Whitney; this is here for the
//! bisection benchmark's model of Chromium's Pinpoint, which compares
//! with the smaller of the Mann–Whitney and KS p-values.

/// D·m·n (an integer): the largest gap between the two empirical
/// distribution functions, scaled.
fn statistic_scaled(x: &[f64], y: &[f64]) -> u64 {
    let (m, n) = (x.len() as i64, y.len() as i64);
    let mut xs = x.to_vec();
    let mut ys = y.to_vec();
    xs.sort_by(f64::total_cmp);
    ys.sort_by(f64::total_cmp);
    let (mut i, mut j, mut best) = (0usize, 0usize, 0i64);
    while i < xs.len() || j < ys.len() {
        // Step past every value equal to the smallest next one, in both.
        let v = match (xs.get(i), ys.get(j)) {
            (Some(a), Some(b)) => a.min(*b),
            (Some(a), None) => *a,
            (None, Some(b)) => *b,
            (None, None) => break,
        };
        while i < xs.len() && xs[i] == v {
            i += 1;
        }
        while j < ys.len() && ys[j] == v {
            j += 1;
        }
        best = best.max((i as i64 * n - j as i64 * m).abs());
    }
    best as u64
}

/// Two-sided p = P(D ≥ d) for samples `x` and `y`; `None` when either is
/// empty or over 10,000 values (where the count would be slow).
pub fn p_value(x: &[f64], y: &[f64]) -> Option<f64> {
    let (m, n) = (x.len(), y.len());
    if m == 0 || n == 0 || m > 10_000 || n > 10_000 {
        return None;
    }
    let d = statistic_scaled(x, y);
    Some((1.0 - inside(m, n, d)).clamp(0.0, 1.0))
}

/// The statistic D itself.
#[cfg(test)]
pub fn statistic(x: &[f64], y: &[f64]) -> f64 {
    statistic_scaled(x, y) as f64 / (x.len() as f64 * y.len() as f64)
}

/// P(every point of the walk has |i·n − j·m| < d).
fn inside(m: usize, n: usize, d: u64) -> f64 {
    let ok = |i: usize, j: usize| ((i * n) as i64 - (j * m) as i64).unsigned_abs() < d;
    // prob[j] for the current i: the chance the walk reaches (i, j) inside.
    let mut prob = vec![0.0f64; n + 1];
    for i in 0..=m {
        for j in 0..=n {
            let p = if i == 0 && j == 0 {
                1.0
            } else {
                let left = i.checked_sub(1).map_or(0.0, |_| {
                    // from (i-1, j): prob[j] still holds row i-1's value.
                    let rem = (m + n - (i - 1) - j) as f64;
                    prob[j] * (m - (i - 1)) as f64 / rem
                });
                let down = j.checked_sub(1).map_or(0.0, |_| {
                    let rem = (m + n - i - (j - 1)) as f64;
                    prob[j - 1] * (n - (j - 1)) as f64 / rem
                });
                left + down
            };
            prob[j] = if ok(i, j) { p } else { 0.0 };
        }
    }
    prob[n]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::close;

    /// Reference values: SciPy 1.17 `ks_2samp(x, y, method="exact")`
    /// (tests/fixtures/stats-reference.py).
    #[test]
    fn exact_p_values_match_scipy() {
        let x = [15.758, 15.63, 16.127, 15.9, 16.3];
        let y = [14.716, 14.627, 14.597, 15.1];
        assert!((statistic(&x, &y) - 1.0).abs() < 1e-12);
        assert!(close(
            p_value(&x, &y).unwrap(),
            0.015_873_015_873_015_872,
            1e-9
        ));
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        let b = [2.5, 4.5, 6.5, 8.5, 10.5, 12.5];
        assert!(close(statistic(&a, &b), 0.5, 1e-12));
        assert!(close(
            p_value(&a, &b).unwrap(),
            0.301_698_301_698_301_75,
            1e-9
        ));
        let c: Vec<f64> = (0..30).map(|i| f64::from(i) * 0.37 % 5.0).collect();
        let d: Vec<f64> = (0..25).map(|i| 1.0 + f64::from(i) * 0.41 % 5.0).collect();
        assert!(close(statistic(&c, &d), 0.293_333_333_333_333_33, 1e-12));
        assert!(
            close(p_value(&c, &d).unwrap(), REF_30_25, 1e-6),
            "{}",
            p_value(&c, &d).unwrap()
        );
        assert_eq!(p_value(&[], &b), None);
        // Identical samples: D = 0, p = 1.
        assert!(close(p_value(&a, &a).unwrap(), 1.0, 1e-12));
    }

    /// `ks_2samp` of the 30- and 25-value samples above.
    const REF_30_25: f64 = 0.156_772_040_792_257_18;
}
