//! The Mann–Whitney U test (Wilcoxon rank-sum), exact for small samples,
//! ties included.
//!
//! Exact: the permutation distribution of the rank sum of the first
//! sample over all C(n₁+n₂, n₁) assignments, counted by dynamic
//! programming over doubled mid-ranks (integers), so ties are handled
//! exactly rather than with the no-ties tables.  Two-sided p = min(1,
//! 2·min(P(U ≥ u), P(U ≤ u))), as SciPy defines it.  Large samples use the
//! normal approximation with tie and continuity corrections.
//! Mann, H. B. & Whitney, D. R. (1947), *Ann. Math. Statist.* 18(1): 50–60;
//! Hollander, Wolfe & Chicken, *Nonparametric Statistical Methods*, 3rd
//! ed., §4.1 (ties, large-sample approximation).

use serde::Serialize;

/// Result of the test.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct MannWhitney {
    /// U of the first sample: pairs (xᵢ, yⱼ) with xᵢ > yⱼ, ties counting ½.
    pub u: f64,
    pub p: f64,
    /// Whether p is exact (small samples) or the normal approximation.
    pub exact: bool,
}

/// Below this size in both samples the exact distribution is used.
pub const EXACT_BELOW: usize = 20;

/// Mid-ranks (1-based; tied values share the mean of their ranks).
pub fn midranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for k in &idx[i..=j] {
            r[*k] = rank;
        }
        i = j + 1;
    }
    r
}

/// Two-sided Mann–Whitney test of `x` against `y`; `None` when either is empty.
pub fn test(x: &[f64], y: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
    let ranks = midranks(&pooled);
    let r1: f64 = ranks[..n1].iter().sum();
    let u = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    if n1 < EXACT_BELOW && n2 < EXACT_BELOW {
        Some(MannWhitney {
            u,
            p: exact_p(&ranks, n1),
            exact: true,
        })
    } else {
        Some(MannWhitney {
            u,
            p: normal_p(&ranks, n1, n2, u),
            exact: false,
        })
    }
}

/// Exact two-sided p from the permutation distribution of the first
/// sample's (doubled) rank sum.
fn exact_p(ranks: &[f64], n1: usize) -> f64 {
    let doubled: Vec<usize> = ranks.iter().map(|r| (r * 2.0).round() as usize).collect();
    let total: usize = doubled.iter().sum();
    // ways[k][s]: subsets of size k with doubled rank sum s.
    let mut ways = vec![vec![0u128; total + 1]; n1 + 1];
    ways[0][0] = 1;
    for &d in &doubled {
        for k in (1..=n1).rev() {
            for s in (d..=total).rev() {
                let add = ways[k - 1][s - d];
                if add > 0 {
                    ways[k][s] += add;
                }
            }
        }
    }
    let obs: usize = doubled[..n1].iter().sum();
    let all: u128 = ways[n1].iter().sum();
    let le: u128 = ways[n1][..=obs].iter().sum();
    let ge: u128 = ways[n1][obs..].iter().sum();
    let p = 2.0 * (le.min(ge) as f64) / all as f64;
    p.min(1.0)
}

/// P(U ≤ u) for u = 0…mn under the null hypothesis with no ties, from
/// the counts c(m, n, u) = c(m − 1, n, u − n) + c(m, n − 1, u) (Mann &
/// Whitney 1947, eq. 2).  Used for the Hodges–Lehmann interval.
pub fn u_null_cdf(m: usize, n: usize) -> Vec<f64> {
    // ways[j][u]: assignments of the first sample's j values below … built
    // one value of the second sample at a time (the classic recurrence,
    // iterated over n with m fixed).
    let mn = m * n;
    let mut prev = vec![vec![0f64; mn + 1]; m + 1];
    for row in prev.iter_mut() {
        row[0] = 1.0; // c(j, 0, 0) = 1
    }
    for k in 1..=n {
        let mut cur = vec![vec![0f64; mn + 1]; m + 1];
        cur[0][0] = 1.0; // c(0, k, 0) = 1
        for j in 1..=m {
            for u in 0..=j * k {
                let a = if u >= k { cur[j - 1][u - k] } else { 0.0 };
                cur[j][u] = a + prev[j][u];
            }
        }
        prev = cur;
    }
    let counts = &prev[m];
    let total: f64 = counts.iter().sum();
    let mut acc = 0.0;
    counts
        .iter()
        .map(|c| {
            acc += c;
            acc / total
        })
        .collect()
}

/// Normal approximation: z = (|U − n₁n₂/2| − ½) / σ, with
/// σ² = n₁n₂/12 · [(N+1) − Σ(t³−t)/(N(N−1))] for tie groups of size t.
fn normal_p(ranks: &[f64], n1: usize, n2: usize, u: f64) -> f64 {
    let mut sorted = ranks.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[i] {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    normal_p_of(u, n1, n2, tie_term)
}

/// Two-sided p of `u` by the normal approximation with continuity
/// correction, `tie_term` the sum of t³ − t over the groups of t tied
/// values (0 without ties).
pub fn normal_p_of(u: f64, n1: usize, n2: usize, tie_term: f64) -> f64 {
    let (a, b) = (n1 as f64, n2 as f64);
    let n = a + b;
    let sigma = (a * b / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
    if sigma == 0.0 {
        return 1.0;
    }
    let z = ((u - a * b / 2.0).abs() - 0.5).max(0.0) / sigma;
    (2.0 * normal_sf(z)).min(1.0)
}

/// Upper tail of the standard normal, ½·erfc(z/√2), with erfc from the
/// Chebyshev expansion of *Numerical Recipes*, 3rd ed., §6.2.2
/// (`Erf::erfccheb`); pinned below against SciPy's `norm.sf`.
#[allow(clippy::excessive_precision)]
pub fn normal_sf(z: f64) -> f64 {
    let x = z / std::f64::consts::SQRT_2;
    let t = 2.0 / (2.0 + x.abs());
    const COF: [f64; 28] = [
        -1.3026537197817094,
        6.4196979235649026e-1,
        1.9476473204185836e-2,
        -9.561514786808631e-3,
        -9.46595344482036e-4,
        3.66839497852761e-4,
        4.2523324806907e-5,
        -2.0278578112534e-5,
        -1.624290004647e-6,
        1.303655835580e-6,
        1.5626441722e-8,
        -8.5238095915e-8,
        6.529054439e-9,
        5.059343495e-9,
        -9.91364156e-10,
        -2.27365122e-10,
        9.6467911e-11,
        2.394038e-12,
        -6.886027e-12,
        8.94487e-13,
        3.13092e-13,
        -1.12708e-13,
        3.81e-16,
        7.106e-15,
        -1.523e-15,
        -9.4e-17,
        1.21e-16,
        -2.8e-17,
    ];
    let ty = 4.0 * t - 2.0;
    let (mut d, mut dd) = (0.0, 0.0);
    for &c in COF.iter().skip(1).rev() {
        let tmp = d;
        d = ty * d - dd + c;
        dd = tmp;
    }
    let erfc = t * (-x * x + 0.5 * (COF[0] + ty * d) - dd).exp();
    let erfc = if x >= 0.0 { erfc } else { 2.0 - erfc };
    0.5 * erfc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::close;

    /// (x, y, scipy mannwhitneyu(x, y, method='exact'): U, p) — no ties.
    const EXACT: &[(&[f64], &[f64], f64, f64)] = &[
        (&[1.0, 2.0], &[3.0, 4.0], 0.0, 0.333_333_333_333_333_3),
        (&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], 0.0, 0.1),
        (
            &[15.758, 15.63, 16.127],
            &[14.716, 14.627, 14.597],
            9.0,
            0.1,
        ),
        (&[1.0, 4.0, 6.0, 9.0], &[2.0, 3.0, 5.0, 7.0, 8.0], 10.0, 1.0),
        (
            &[0.3, 1.2, 2.5, 3.1, 4.4, 5.0, 6.7],
            &[0.9, 2.2, 3.3, 3.9, 5.5, 6.1, 7.2, 8.0],
            19.0,
            0.335_664_335_664_335_73,
        ),
        (
            &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
            &[0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5],
            45.0,
            0.739_364_350_819_459_3,
        ),
        (
            &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
            &[5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5],
            10.0,
            0.001_504_687_263_201_195_2,
        ),
    ];

    /// (x, y, U, p) with ties: scipy permutation_test (exact, U statistic,
    /// two-sided), checked again by brute-force enumeration in Python.
    const TIES: &[(&[f64], &[f64], f64, f64)] = &[
        (&[1.0, 2.0, 2.0], &[2.0, 3.0, 4.0], 1.0, 0.3),
        (
            &[5.0, 5.0, 6.0, 7.0],
            &[5.0, 6.0, 6.0, 8.0, 9.0],
            6.0,
            0.380_952_380_952_380_93,
        ),
        (
            &[1.0, 1.0, 1.0, 2.0, 3.0],
            &[1.0, 2.0, 2.0, 3.0, 3.0, 4.0],
            7.5,
            0.238_095_238_095_238_08,
        ),
    ];

    #[test]
    fn exact_without_ties_matches_scipy() {
        for &(x, y, u, p) in EXACT {
            let r = test(x, y).unwrap();
            assert!(r.exact);
            assert_eq!(r.u, u, "{x:?} {y:?}");
            assert!(close(r.p, p, 1e-12), "{x:?} {y:?}: {} vs {p}", r.p);
        }
    }

    #[test]
    fn exact_with_ties_matches_permutation_test() {
        for &(x, y, u, p) in TIES {
            let r = test(x, y).unwrap();
            assert_eq!(r.u, u, "{x:?} {y:?}");
            assert!(close(r.p, p, 1e-12), "{x:?} {y:?}: {} vs {p}", r.p);
        }
    }

    #[test]
    fn large_samples_use_the_normal_approximation() {
        // scipy mannwhitneyu(method='asymptotic') with continuity correction.
        let x: Vec<f64> = (0..25).map(f64::from).collect();
        let y: Vec<f64> = (0..22).map(|i| f64::from(i) + 3.5).collect();
        let r = test(&x, &y).unwrap();
        assert!(!r.exact);
        assert_eq!(r.u, 231.0);
        assert!(close(r.p, 0.353_706_893_209_338_35, 1e-6), "{}", r.p);
        let mut x = vec![1.0; 10];
        x.extend([2.0; 12]);
        let mut y = vec![2.0; 8];
        y.extend([3.0; 15]);
        let r = test(&x, &y).unwrap();
        assert_eq!(r.u, 48.0);
        assert!(close(r.p, 5.925_617_237_659_432e-7, 1e-5), "{}", r.p);
    }

    /// (z, scipy.stats.norm.sf(z))
    const SF: &[(f64, f64)] = &[
        (0.0, 0.5),
        (0.5, 0.308_537_538_725_986_9),
        (1.0, 0.158_655_253_931_457_07),
        (1.959_963_984_540_054, 0.025),
        (2.5, 0.006_209_665_325_776_132),
        (3.0, 0.001_349_898_031_630_093_3),
        (4.0, 3.167_124_183_311_986e-5),
        (5.0, 2.866_515_718_791_933e-7),
        (6.0, 9.865_876_450_376_946e-10),
    ];

    #[test]
    fn normal_tail_matches_scipy() {
        for &(z, want) in SF {
            assert!(
                close(normal_sf(z), want, 1e-12),
                "z={z}: {} vs {want}",
                normal_sf(z)
            );
        }
    }

    #[test]
    fn null_distribution_of_u() {
        // 3 + 3: C(6, 3) = 20 assignments, one with U = 0, one with U = 1.
        let c = u_null_cdf(3, 3);
        assert_eq!(c.len(), 10);
        assert!(close(c[0], 0.05, 1e-12) && close(c[1], 0.1, 1e-12));
        assert!(close(c[9], 1.0, 1e-12));
        // Two-sided exact p from it agrees with the rank-sum enumeration.
        let x = [0.3, 1.2, 2.5, 3.1, 4.4, 5.0, 6.7];
        let y = [0.9, 2.2, 3.3, 3.9, 5.5, 6.1, 7.2, 8.0];
        let r = test(&x, &y).unwrap();
        let c = u_null_cdf(7, 8);
        assert!(close((2.0 * c[r.u as usize]).min(1.0), r.p, 1e-12));
    }

    #[test]
    fn midranks_share_ties() {
        assert_eq!(midranks(&[10.0, 20.0, 20.0, 5.0]), vec![2.0, 3.5, 3.5, 1.0]);
    }

    #[test]
    fn n_one_is_never_significant() {
        let r = test(&[1.0], &[100.0]).unwrap();
        assert_eq!(r.p, 1.0);
    }
}
