//! Effect sizes: how big a difference is, beside whether it is real.

use super::describe::{mean, median, variance};

/// Hodges–Lehmann estimate of the shift from `base` to `x`: the median of
/// all pairwise differences xⱼ − baseᵢ.  Hodges, J. L. & Lehmann, E. L.
/// (1963), "Estimates of location based on rank tests", *Ann. Math.
/// Statist.* 34(2): 598–611.
pub fn hodges_lehmann(base: &[f64], x: &[f64]) -> f64 {
    let d: Vec<f64> = base
        .iter()
        .flat_map(|b| x.iter().map(move |v| v - b))
        .collect();
    median(&d)
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

    #[test]
    fn matches_numpy() {
        for &(b, x, hl, d) in REF {
            assert!(close(hodges_lehmann(b, x), hl, 1e-9), "{b:?} {x:?}");
            assert!(close(cohens_d(b, x), d, 1e-9), "{b:?} {x:?}");
        }
    }
}
