//! Where a series changed: rank CUSUM tests with closed-form p-values.
//!
//! A series is the values of one metric over ordered labels (each
//! label's runs, or boot means, as its values).  Under "no change" every
//! ordering of the values is equally likely, so a statistic of their
//! ranks has a distribution that does not depend on theirs.  For a split
//! after the k-th of N values, S_k = Σ_{i≤k} a_i sums the scores of the
//! first k ranks; T_k = (S_k − k·ā) / (s·√N), with s² the scores' sample
//! variance, is a rank process whose law converges to the Brownian bridge
//! (Csörgő & Horváth (1997), *Limit Theorems in Change-Point Analysis*,
//! Wiley, §2.4; for Wilcoxon scores this is Pettitt's (1979) test, "A
//! non-parametric approach to the change-point problem", *Appl. Statist.*
//! 28(2), 126–135).  K = max_k |T_k| is then referred to the Kolmogorov
//! distribution, P(sup |B| > x) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²x²}
//! (the small-x form: 1 − √(2π)/x · Σ_{j≥1} e^{−(2j−1)²π²/(8x²)}), a
//! closed form: no permutation, the same answer every time.  Splits are
//! only allowed between labels, a subset of the N − 1 places, so the p is
//! conservative.
//!
//! Two scores, so that a change is seen in level and in spread or tail
//! alike: Wilcoxon's (the ranks themselves: a shift in level) and Mood's
//! (the squared distance of a rank from the middle, (r − (N+1)/2)²: a
//! change in spread, or a tail that grows at one end; Mood (1954), *Ann.
//! Math. Statist.* 25(3), 514–522).  Each p is doubled (Bonferroni) and
//! the segment's p is the smaller.  The split is Wilcoxon's argmax
//! whenever that test alone passes the level, since a shift in level
//! also moves Mood's scores but Wilcoxon's places it exactly (two level
//! shifts in one segment look to Mood's score like a spread between
//! them); Mood's otherwise.

use super::mann_whitney::midranks;

/// P(sup_t |B(t)| > x) for a Brownian bridge B.
pub fn kolmogorov_sf(x: f64) -> f64 {
    if !x.is_finite() || x <= 0.0 {
        return if x.is_finite() || x.is_nan() {
            1.0
        } else {
            0.0
        };
    }
    if x < 1.18 {
        // 1 − P(sup |B| ≤ x), from the theta-function form of the CDF.
        let mut s = 0.0;
        for j in 1..=20 {
            let k = f64::from(2 * j - 1);
            s += (-(k * k) * std::f64::consts::PI.powi(2) / (8.0 * x * x)).exp();
        }
        return (1.0 - (2.0 * std::f64::consts::PI).sqrt() / x * s).clamp(0.0, 1.0);
    }
    let mut s = 0.0;
    for j in 1..=100 {
        let t = (-2.0 * f64::from(j * j) * x * x).exp();
        s += if j % 2 == 1 { t } else { -t };
        if t < 1e-18 {
            break;
        }
    }
    (2.0 * s).clamp(0.0, 1.0)
}

/// Which score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Level (Wilcoxon).
    Level,
    /// Spread or a tail (Mood).
    Spread,
}

/// The best split of `values` among `splits` (each a count of leading
/// values: the split is after that many) by one score: (K, the split).
fn cusum(ranks: &[f64], splits: &[usize], score: Score) -> Option<(f64, usize)> {
    let n = ranks.len();
    if n < 2 || splits.is_empty() {
        return None;
    }
    let mid = (n as f64 + 1.0) / 2.0;
    let a: Vec<f64> = ranks
        .iter()
        .map(|r| match score {
            Score::Level => *r,
            Score::Spread => (r - mid).powi(2),
        })
        .collect();
    let mean = a.iter().sum::<f64>() / n as f64;
    let var = a.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n as f64 - 1.0);
    if var <= 0.0 {
        return None;
    }
    let scale = (var * n as f64).sqrt();
    let mut prefix = vec![0.0; n + 1];
    for i in 0..n {
        prefix[i + 1] = prefix[i] + a[i];
    }
    splits
        .iter()
        .filter(|&&k| k > 0 && k < n)
        .map(|&k| ((prefix[k] - k as f64 * mean).abs() / scale, k))
        .max_by(|x, y| x.0.total_cmp(&y.0).then(y.1.cmp(&x.1)))
}

/// One test of a segment: its p-value, the split it points to, and which
/// score found it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found {
    pub p: f64,
    pub split: usize,
    pub score: Score,
}

/// Both scores' tests of one segment (each p doubled).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Both {
    pub level: Option<Found>,
    pub spread: Option<Found>,
}

impl Both {
    /// The segment's p: the smaller of the two.
    pub fn p(&self) -> f64 {
        [self.level, self.spread]
            .iter()
            .flatten()
            .map(|f| f.p)
            .fold(1.0, f64::min)
    }

    /// Where the change is, judged at level `at`: Wilcoxon's split when
    /// its test alone passes, else the smaller p's.
    pub fn split(&self, at: f64) -> Option<Found> {
        match (self.level, self.spread) {
            (Some(l), _) if l.p <= at => Some(l),
            (Some(l), Some(s)) => Some(if s.p < l.p { s } else { l }),
            (l, s) => l.or(s),
        }
    }
}

/// Test `values` (in series order) for a change at one of `splits` with
/// both scores; `None` when no split is possible or the values are all
/// tied.
pub fn test_both(values: &[f64], splits: &[usize]) -> Option<Both> {
    let ranks = midranks(values);
    let one = |score| {
        cusum(&ranks, splits, score).map(|(k, split)| Found {
            p: (2.0 * kolmogorov_sf(k)).min(1.0),
            split,
            score,
        })
    };
    let b = Both {
        level: one(Score::Level),
        spread: one(Score::Spread),
    };
    (b.level.is_some() || b.spread.is_some()).then_some(b)
}

/// [`test_both`], judged at level `at`: the segment's p and its split.
pub fn test(values: &[f64], splits: &[usize], at: f64) -> Option<Found> {
    let b = test_both(values, splits)?;
    let f = b.split(at)?;
    Some(Found { p: b.p(), ..f })
}

/// Where a shift in level is, once a test has found one: the split
/// among `splits` that minimises the sum of absolute deviations from
/// each side's median (the least-absolute-deviations estimate of a
/// shift; Bai (1995), "Least absolute deviation estimation of a shift",
/// *Econometric Theory* 11(3), 403–436).  The rank CUSUM's argmax is a
/// test statistic, not an estimate: in a short series with unequal
/// sides it can stop a few places early when the last values before a
/// shift happen to rank high (on 29 label medians with a +8 % shift at
/// 20, it said 17); the values' distances place it.  Ties go to the
/// earlier split.
pub fn place_level(values: &[f64], splits: &[usize]) -> Option<usize> {
    let cost = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        let m = if s.len() % 2 == 1 {
            s[s.len() / 2]
        } else {
            (s[s.len() / 2 - 1] + s[s.len() / 2]) / 2.0
        };
        s.iter().map(|x| (x - m).abs()).sum::<f64>()
    };
    splits
        .iter()
        .filter(|&&k| k > 0 && k < values.len())
        .map(|&k| (cost(&values[..k]) + cost(&values[k..]), k))
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::close;

    /// Reference values: `scipy.special.kolmogorov(x)` (SciPy 1.17),
    /// tests/fixtures/stats-reference.py.
    /// The case the rank CUSUM placed three labels early.
    #[test]
    fn a_shift_is_placed_by_the_values_distances() {
        let v = [
            295.0, 294.0, 302.0, 306.0, 299.0, 302.0, 311.0, 296.0, 302.0, 296.0, 301.0, 296.0,
            303.0, 296.0, 288.0, 301.0, 298.0, 308.0, 303.0, 307.0, 327.0, 320.0, 319.0, 321.0,
            324.0, 316.0, 326.0, 313.0, 320.0,
        ];
        let splits: Vec<usize> = (3..=26).collect();
        assert_eq!(test(&v, &splits, 0.05).unwrap().split, 17);
        assert_eq!(place_level(&v, &splits), Some(20));
        assert_eq!(place_level(&v, &[]), None);
        assert_eq!(place_level(&[1.0, 1.0, 1.0], &[1, 2]), Some(1));
    }

    #[test]
    fn the_kolmogorov_tail_matches_scipy() {
        for (x, want) in [
            (0.3, 0.999_990_694_198_665_5),
            (0.5, 0.963_945_243_664_875_1),
            (0.8, 0.544_142_411_574_198_1),
            (1.0, 0.269_999_671_677_354_56),
            (1.2, 0.112_249_666_670_724_97),
            (1.36, 0.049_485_876_755_377_876),
            (2.0, 6.709_252_557_796_953e-4),
            (3.0, 3.045_995_948_942_526e-8),
        ] {
            let got = kolmogorov_sf(x);
            assert!(close(got, want, 1e-9), "x = {x}: {got} vs {want}");
        }
        assert_eq!(kolmogorov_sf(0.0), 1.0);
        assert_eq!(kolmogorov_sf(f64::INFINITY), 0.0);
    }

    /// The statistic on a fixed series, against a direct computation in
    /// numpy (the fixture script prints it).
    #[test]
    fn a_level_shift_is_found_where_it_is() {
        let v: Vec<f64> = (0..20)
            .map(|i| {
                if i < 12 {
                    10.0 + f64::from((i * 7) % 12) * 0.01
                } else {
                    11.0 + f64::from((i * 5) % 8) * 0.01
                }
            })
            .collect();
        let splits: Vec<usize> = (1..20).collect();
        let f = test(&v, &splits, 0.05).unwrap();
        assert_eq!((f.split, f.score), (12, Score::Level));
        let ranks = midranks(&v);
        let (k, _) = cusum(&ranks, &splits, Score::Level).unwrap();
        assert!(close(k, REF_K, 1e-9), "{k}");
        // Splits only between labels (every 4 values): 12 is one.
        let f = test(&v, &[4, 8, 12, 16], 0.05).unwrap();
        assert_eq!(f.split, 12);
        // Nothing to split, or nothing but ties.
        assert!(test(&v, &[], 0.05).is_none());
        assert!(test(&[3.0; 10], &[5], 0.05).is_none());
    }

    /// K of the series above (numpy, the fixture script).
    const REF_K: f64 = 1.814_229_470_444_290_5;

    /// A spread change with the level kept is found by Mood's score.
    #[test]
    fn a_spread_change_is_seen_by_its_own_score() {
        let mut rng = crate::stats::bootstrap::SplitMix(8);
        let v: Vec<f64> = (0..60)
            .map(|i| 100.0 + if i < 30 { 1.0 } else { 6.0 } * rng.normal())
            .collect();
        let f = test(&v, &(1..60).collect::<Vec<_>>(), 0.05).unwrap();
        assert_eq!(f.score, Score::Spread);
        assert!(f.p < 0.01 && (25..=35).contains(&f.split), "{f:?}");
    }

    /// Under no change, the test's p is (at most) uniform: at 0.05 it
    /// rejects no more than 5 % (here 2,000 seeded null series of 30
    /// labels × 5 values, splits between labels).
    #[test]
    fn the_test_keeps_its_level_under_no_change() {
        let mut rng = crate::stats::bootstrap::SplitMix(21);
        let splits: Vec<usize> = (1..30).map(|l| l * 5).collect();
        let mut hits = 0;
        for _ in 0..2000 {
            let v: Vec<f64> = (0..150).map(|_| rng.normal()).collect();
            if test(&v, &splits, 0.05).is_some_and(|f| f.p < 0.05) {
                hits += 1;
            }
        }
        assert!(hits <= 110, "{hits} of 2000 null series rejected at 0.05");
    }
}
