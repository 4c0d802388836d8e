//! Student's t distribution: CDF and quantile.

use super::special::inc_beta;

/// P(T ≤ t) for ν degrees of freedom (ν > 0, not necessarily whole):
/// for t ≥ 0, 1 − ½·I_{ν/(ν+t²)}(ν/2, ½).  Abramowitz & Stegun 26.7.1
/// with 26.5.27; *Numerical Recipes*, 3rd ed., §6.14.
pub fn cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    let tail = 0.5 * inc_beta(df / 2.0, 0.5, df / (df + t * t));
    if t >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// Two-sided tail probability P(|T| ≥ |t|).
pub fn two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() {
        return f64::NAN;
    }
    inc_beta(df / 2.0, 0.5, df / (df + t * t)).min(1.0)
}

/// The quantile t such that P(T ≤ t) = p, by bisection on [`cdf`] (the
/// CDF is monotone, so this converges to full precision).
pub fn quantile(p: f64, df: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) || df <= 0.0 {
        return f64::NAN;
    }
    if p == 0.5 {
        return 0.0;
    }
    let (mut lo, mut hi) = (-1.0f64, 1.0f64);
    while cdf(lo, df) > p {
        lo *= 2.0;
    }
    while cdf(hi, df) < p {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-14 * hi.abs().max(1.0) {
            break;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::close;

    /// (t, df, scipy.stats.t.cdf(t, df))
    const CDF: &[(f64, f64, f64)] = &[
        (0.0, 1.0, 0.5),
        (1.0, 1.0, 0.75),
        (2.0, 3.0, 0.930_337_015_720_578_5),
        (-1.5, 4.5, 0.100_109_542_828_076_76),
        (2.776, 4.0, 0.974_988_610_840_011_8),
        (10.0, 2.0, 0.995_073_771_488_337_2),
        (0.5, 30.0, 0.689_638_497_557_436_3),
        (3.0, 100.0, 0.998_296_042_328_335_2),
    ];

    /// (df, scipy.stats.t.ppf(0.975, df))
    const PPF: &[(f64, f64)] = &[
        (1.0, 12.706_204_736_174_694),
        (2.0, 4.302_652_729_749_462),
        (3.0, 3.182_446_305_283_707_8),
        (4.0, 2.776_445_105_197_793_4),
        (5.0, 2.570_581_835_636_314_6),
        (9.0, 2.262_157_162_798_205),
        (29.0, 2.045_229_642_132_703),
        (4.5, 2.658_912_347_204_403_4),
        (120.0, 1.979_930_405_082_440_2),
    ];

    #[test]
    fn cdf_matches_scipy() {
        for &(t, df, want) in CDF {
            assert!(
                close(cdf(t, df), want, 1e-10),
                "t={t} df={df}: {} vs {want}",
                cdf(t, df)
            );
        }
    }

    #[test]
    fn quantile_matches_scipy() {
        for &(df, want) in PPF {
            assert!(
                close(quantile(0.975, df), want, 1e-9),
                "df={df}: {} vs {want}",
                quantile(0.975, df)
            );
            assert!(close(quantile(0.025, df), -want, 1e-9));
        }
    }
}
