//! Descriptive statistics of a sample of runs.

use super::student_t;
use serde::Serialize;

/// n, mean, median, standard deviation, 95 % CI of the mean, range.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    /// Sample standard deviation (n − 1 denominator); NaN for n < 2.
    pub sd: f64,
    /// 95 % confidence interval of the mean (Student t); NaN for n < 2.
    pub ci_low: f64,
    pub ci_high: f64,
    pub min: f64,
    pub max: f64,
}

/// Arithmetic mean, summed on values scaled by the largest magnitude, so
/// that values near 1e300 do not overflow the sum (nor values near
/// 1e-300 lose their digits).
pub fn mean(x: &[f64]) -> f64 {
    let s = scale_of(x);
    x.iter().map(|v| v / s).sum::<f64>() / x.len() as f64 * s
}

/// The largest magnitude of `x`, as a divisor: 1 when there is none
/// (empty, all zero, or not finite).
pub fn scale_of(x: &[f64]) -> f64 {
    let m = x.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
    if m > 0.0 && m.is_finite() {
        m
    } else {
        1.0
    }
}

/// Sample variance with Bessel's correction, by the two-pass algorithm
/// (Chan, Golub & LeVeque 1983, "Algorithms for computing the sample
/// variance"), which avoids the cancellation of the one-pass formula.
pub fn variance(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return f64::NAN;
    }
    let m = mean(x);
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64
}

/// Median (mean of the two middle values for even n).
pub fn median(x: &[f64]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// The `q` quantile of `v` (linear between order statistics,
/// numpy's default); NaN for an empty `v`.
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let h = (s.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (h - lo as f64)
}

impl Summary {
    /// Summarise `x` with a `level` (e.g. 0.95) CI of the mean:
    /// mean ± t_{1−(1−level)/2, n−1} · s/√n.
    pub fn of(x: &[f64], level: f64) -> Summary {
        let n = x.len();
        let m = if n == 0 { f64::NAN } else { mean(x) };
        let sd = variance(x).sqrt();
        let (lo, hi) = if n >= 2 {
            let h = student_t::quantile(1.0 - (1.0 - level) / 2.0, (n - 1) as f64) * sd
                / (n as f64).sqrt();
            (m - h, m + h)
        } else {
            (f64::NAN, f64::NAN)
        };
        Summary {
            n,
            mean: m,
            median: median(x),
            sd,
            ci_low: lo,
            ci_high: hi,
            min: x.iter().cloned().fold(f64::INFINITY, f64::min),
            max: x.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::close;

    /// (sample, scipy.stats.t.interval(0.95, n-1, mean, sem))
    const CI: &[(&[f64], f64, f64)] = &[
        (
            &[15.758, 15.630, 16.127],
            15.197_289_415_303_295,
            16.479_377_251_363_37,
        ),
        (
            &[1.0, 2.0, 3.0, 4.0, 5.0],
            1.036_756_838_522_442_8,
            4.963_243_161_477_557,
        ),
        (&[7.1, 7.3], 5.929_379_526_382_529, 8.470_620_473_617_469),
    ];

    #[test]
    fn mean_ci_matches_scipy() {
        for &(x, lo, hi) in CI {
            let s = Summary::of(x, 0.95);
            assert!(
                close(s.ci_low, lo, 1e-9) && close(s.ci_high, hi, 1e-9),
                "{x:?}: {s:?}"
            );
        }
    }

    #[test]
    fn basics() {
        let s = Summary::of(&[3.0, 1.0, 2.0, 10.0], 0.95);
        assert_eq!(s.n, 4);
        assert_eq!(s.mean, 4.0);
        assert_eq!(s.median, 2.5);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 10.0);
        // Squared deviations from 4: 1 + 9 + 4 + 36 = 50, over n − 1 = 3.
        assert!(close(s.sd, (50.0f64 / 3.0).sqrt(), 1e-12));
        let one = Summary::of(&[5.0], 0.95);
        assert!(one.sd.is_nan() && one.ci_low.is_nan());
    }
}
