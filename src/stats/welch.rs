//! Welch's unequal-variances t-test.

use super::describe::{mean, variance};
use super::student_t;
use serde::Serialize;

/// The test's statistic, degrees of freedom and two-sided p-value.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Welch {
    pub t: f64,
    pub df: f64,
    pub p: f64,
}

/// t = (x̄ − ȳ) / √(s²ₓ/nₓ + s²ᵧ/nᵧ), with the Welch–Satterthwaite degrees
/// of freedom ν = (s²ₓ/nₓ + s²ᵧ/nᵧ)² / [(s²ₓ/nₓ)²/(nₓ−1) + (s²ᵧ/nᵧ)²/(nᵧ−1)].
/// Welch, B. L. (1947), "The generalization of 'Student's' problem when
/// several different population variances are involved", *Biometrika*
/// 34(1–2): 28–35.  Two-sided p from the t distribution.  `None` when
/// either sample has fewer than two values.  Identical constant samples
/// give t = ±∞ (p = 0) when their means differ and p = 1 when not.
pub fn test(x: &[f64], y: &[f64]) -> Option<Welch> {
    if x.len() < 2 || y.len() < 2 {
        return None;
    }
    // t and its degrees of freedom do not change when both samples are
    // scaled alike; scaled by their largest magnitude, values near 1e300
    // or 1e-300 neither overflow nor underflow the variances.
    let both: Vec<f64> = x.iter().chain(y).copied().collect();
    let s = super::describe::scale_of(&both);
    let (xs, ys): (Vec<f64>, Vec<f64>) = (
        x.iter().map(|v| v / s).collect(),
        y.iter().map(|v| v / s).collect(),
    );
    let (x, y) = (xs.as_slice(), ys.as_slice());
    let (nx, ny) = (x.len() as f64, y.len() as f64);
    let (vx, vy) = (variance(x) / nx, variance(y) / ny);
    let diff = mean(x) - mean(y);
    let se2 = vx + vy;
    if se2 == 0.0 {
        return Some(if diff == 0.0 {
            Welch {
                t: 0.0,
                df: nx + ny - 2.0,
                p: 1.0,
            }
        } else {
            Welch {
                t: diff.signum() * f64::INFINITY,
                df: nx + ny - 2.0,
                p: 0.0,
            }
        });
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / (vx * vx / (nx - 1.0) + vy * vy / (ny - 1.0));
    Some(Welch {
        t,
        df,
        p: student_t::two_sided_p(t, df),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::close;

    /// (x, y, scipy ttest_ind(x, y, equal_var=False): statistic, df, pvalue)
    type Case = (&'static [f64], &'static [f64], f64, f64, f64);
    const REF: &[Case] = &[
        (
            &[15.758, 15.630, 16.127],
            &[14.716, 14.627, 14.597],
            7.777_843_236_374_866,
            2.229_317_848_527_336_4,
            0.011_727_569_955_962_445,
        ),
        (
            &[11.164, 11.128, 11.187],
            &[12.104, 12.015, 11.949],
            -17.949_759_244_919_967,
            2.572_422_018_001_270_2,
            0.000_899_149_539_095_277_6,
        ),
        (
            &[0.100391, 0.102956, 0.232901],
            &[0.059826, 0.058776, 0.058987],
            1.970_737_860_971_218_7,
            2.000_214_906_063_409,
            0.187_530_739_702_355_18,
        ),
        (
            &[1.0, 2.0],
            &[3.0, 4.5],
            -2.496_150_883_013_531_3,
            1.742_268_041_237_113_4,
            0.148_066_746_649_698_88,
        ),
        (
            &[7.1, 7.3, 6.9, 7.0, 7.2],
            &[7.0, 7.4, 7.1, 7.3, 7.5, 7.2],
            -1.441_153_384_245_787_8,
            8.989_361_702_127_66,
            0.183_452_244_953_159_34,
        ),
        (
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
            &[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0],
            -0.738_548_945_875_996_3,
            18.0,
            0.469_702_072_800_801,
        ),
    ];

    #[test]
    fn matches_scipy() {
        for &(x, y, t, df, p) in REF {
            let w = test(x, y).unwrap();
            assert!(close(w.t, t, 1e-10), "t {w:?} vs {t}");
            assert!(close(w.df, df, 1e-10), "df {w:?} vs {df}");
            assert!(close(w.p, p, 1e-8), "p {w:?} vs {p}");
        }
    }

    #[test]
    fn too_few_and_degenerate() {
        assert!(test(&[1.0], &[1.0, 2.0]).is_none());
        assert_eq!(test(&[2.0, 2.0], &[2.0, 2.0]).unwrap().p, 1.0);
        assert_eq!(test(&[2.0, 2.0], &[3.0, 3.0]).unwrap().p, 0.0);
    }

    #[test]
    fn extreme_magnitudes_give_the_same_test() {
        let (a, b) = ([1.0, 1.1, 1.2, 1.05], [2.0, 2.1, 2.2, 2.05]);
        let w = test(&a, &b).unwrap();
        for k in [1e300, 1e-300, 1e-310] {
            let (ak, bk): (Vec<f64>, Vec<f64>) = (
                a.iter().map(|v| v * k).collect(),
                b.iter().map(|v| v * k).collect(),
            );
            let wk = test(&ak, &bk).unwrap();
            assert!((wk.t - w.t).abs() < 1e-6 * w.t.abs(), "{k}: {wk:?} {w:?}");
            assert!((wk.p - w.p).abs() < 1e-9, "{k}: {wk:?} {w:?}");
            assert!(wk.p < 0.01, "{k}: {wk:?}");
        }
        assert!((super::super::describe::mean(&[1e308, 1e308]) - 1e308).abs() < 1e293);
    }
}
