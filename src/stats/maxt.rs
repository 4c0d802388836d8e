//! Where a short series of unit means changed: the largest two-sample t
//! over the allowed splits, referred to its exact null under independent
//! normal units.
//!
//! For a split after the k-th of N values, t_k is the pooled two-sample
//! t of the values before and after it (Student (1908); the pooled SD on
//! N − 2 degrees of freedom), and the statistic is M = max_k |t_k| over
//! the allowed splits.  M is unchanged by a shift or a positive scaling
//! of the values, so under "no change, the units independent and normal
//! with any one mean and SD" its law depends on N and the splits alone:
//! it is drawn here once per (N, splits), by simulation from a fixed
//! seed (the same p every time), and M's p is the share of draws at
//! least as large.  This is the likelihood-ratio scan for one shift in
//! a normal mean (Worsley (1979), "On the likelihood ratio test for a
//! shift in location of normal populations", *JASA* 74(366), 365–367;
//! James, James & Siegmund (1987), *Biometrika* 74(1), 71–83), with its
//! null taken exactly rather than from an asymptote.
//!
//! Why not ranks: a rank statistic on N values has a floor (on 12 values
//! the rank CUSUM cannot go below p ≈ 0.03, so with two scores and a
//! false-discovery threshold over many series it never passes), and a
//! permutation reference has one too (1/C(N, k)).  The t reference has
//! none, at the price of assuming normal units, which unit means (each a
//! label's or a boot's mean of runs) are nearly; [`super::changepoint`]'s
//! rank tests take over where N is large enough that their floor does
//! not bite.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Draws of the null for each (N, splits).
const DRAWS: usize = 100_000;

/// The scan of one segment: the largest |t|, where, and its p.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scan {
    pub stat: f64,
    /// The split (values before it) with the largest |t|.
    pub split: usize,
    pub p: f64,
    /// The signed t there (positive: the values after it are larger).
    pub t: f64,
}

/// |t| at every split of `values` (prefix sums: O(N)); the largest and
/// where, with its sign.  `None` when the values have no spread at all.
fn largest(values: &[f64], splits: &[usize]) -> Option<(f64, usize, f64)> {
    let n = values.len();
    if n < 3 || splits.is_empty() {
        return None;
    }
    let total: f64 = values.iter().sum();
    let total2: f64 = values.iter().map(|v| v * v).sum();
    let mut best: Option<(f64, usize, f64)> = None;
    let (mut s, mut s2, mut k) = (0.0, 0.0, 0usize);
    for &split in splits {
        while k < split {
            s += values[k];
            s2 += values[k] * values[k];
            k += 1;
        }
        let (a, b) = (k as f64, (n - k) as f64);
        let (m1, m2) = (s / a, (total - s) / b);
        let ss = (s2 - s * m1) + ((total2 - s2) - (total - s) * m2);
        let ss = ss.max(0.0);
        let se = (ss / (n as f64 - 2.0) * (1.0 / a + 1.0 / b)).sqrt();
        let t = if se > 0.0 {
            (m2 - m1) / se
        } else if m1 == m2 {
            0.0
        } else {
            f64::INFINITY.copysign(m2 - m1)
        };
        if best.is_none_or(|x| t.abs() > x.0) {
            best = Some((t.abs(), split, t));
        }
    }
    let mean = total / n as f64;
    let spread = values
        .iter()
        .any(|v| (v - mean).abs() > 1e-12 * mean.abs().max(1e-300));
    best.filter(|_| spread)
}

/// The null draws of M for (N, splits), sorted, made once.
fn null(n: usize, splits: &[usize]) -> std::sync::Arc<Vec<f64>> {
    type Cache = Mutex<HashMap<(usize, Vec<usize>), std::sync::Arc<Vec<f64>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (n, splits.to_vec());
    if let Some(v) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return v;
    }
    // The seed is the key's own, so every process draws the same null.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ n as u64;
    for &s in splits {
        seed = seed.rotate_left(7) ^ s as u64;
    }
    let mut rng = super::bootstrap::SplitMix(seed);
    let mut x = vec![0.0; n];
    let mut draws: Vec<f64> = (0..DRAWS)
        .map(|_| {
            for v in x.iter_mut() {
                *v = rng.normal();
            }
            largest(&x, splits).map_or(0.0, |b| b.0)
        })
        .collect();
    draws.sort_by(f64::total_cmp);
    let v = std::sync::Arc::new(draws);
    if let Ok(mut c) = cache.lock() {
        if c.len() > 512 {
            c.clear();
        }
        c.insert(key, v.clone());
    }
    v
}

/// Scan `values` (in series order) for one shift at one of `splits`
/// (each the count of values before it, 2 ≤ k ≤ N − 2 to be useful);
/// `None` when no split is possible or the values do not vary.
pub fn scan(values: &[f64], splits: &[usize]) -> Option<Scan> {
    let (stat, split, t) = largest(values, splits)?;
    let draws = null(values.len(), splits);
    let at_least = draws.len() - draws.partition_point(|&d| d < stat);
    Some(Scan {
        stat,
        split,
        p: (1 + at_least) as f64 / (draws.len() + 1) as f64,
        t,
    })
}

/// The |t| a scan of N values over `splits` must reach to pass at level
/// `at` (the null's upper `at` quantile).
pub fn critical(n: usize, splits: &[usize], at: f64) -> Option<f64> {
    if n < 3 || splits.is_empty() || !(0.0..1.0).contains(&at) {
        return None;
    }
    let draws = null(n, splits);
    let i = ((1.0 - at) * draws.len() as f64).ceil() as usize;
    draws.get(i.min(draws.len() - 1)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap::SplitMix;

    /// t at one split agrees with SciPy's pooled two-sample t:
    /// `scipy.stats.ttest_ind([1, 2, 3], [5, 6, 8, 9])` gives
    /// statistic −4.2258.
    #[test]
    fn one_split_is_students_pooled_t() {
        let (stat, split, t) = largest(&[1.0, 2.0, 3.0, 5.0, 6.0, 8.0, 9.0], &[3]).unwrap();
        assert_eq!(split, 3);
        assert!((stat - 4.225771).abs() < 1e-5, "{stat}");
        assert!(t > 0.0);
    }

    /// With one split the scan's null is Student's t on N − 2 degrees of
    /// freedom: P(|t_5| ≥ 2.5706) = 0.05 (`scipy.stats.t.sf(2.5706, 5)*2`).
    #[test]
    fn with_one_split_the_null_is_students_t() {
        let c = critical(7, &[3], 0.05).unwrap();
        assert!((c - 2.5706).abs() < 0.05, "{c}");
    }

    /// The null holds: of 2,000 normal series of 8 values, at most about
    /// 5 % give p ≤ 0.05; and it has no floor: a shift of 10 SDs in 8
    /// values, off centre, gives p far below a 40-series BH threshold.
    #[test]
    fn the_null_holds_and_a_large_shift_in_eight_values_passes() {
        let splits: Vec<usize> = (2..=6).collect();
        let mut rng = SplitMix(11);
        let mut hits = 0;
        for _ in 0..2000 {
            let x: Vec<f64> = (0..8).map(|_| rng.normal()).collect();
            if scan(&x, &splits).unwrap().p <= 0.05 {
                hits += 1;
            }
        }
        assert!((60..=140).contains(&hits), "{hits} of 2000");
        let x: Vec<f64> = (0..8)
            .map(|i| 100.0 + rng.normal() + if i >= 2 { 10.0 } else { 0.0 })
            .collect();
        let s = scan(&x, &splits).unwrap();
        assert_eq!(s.split, 2);
        assert!(s.p < 0.05 / 40.0, "{s:?}");
    }

    #[test]
    fn constant_values_have_no_scan() {
        assert!(scan(&[3.0; 8], &[2, 4, 6]).is_none());
        assert!(scan(&[1.0, 2.0], &[1]).is_none());
        // Two constant sides that differ: as extreme as can be.
        let s = scan(&[1.0, 1.0, 1.0, 2.0, 2.0, 2.0], &[3]).unwrap();
        assert!(s.stat.is_infinite() && s.p < 1e-4);
    }
}
