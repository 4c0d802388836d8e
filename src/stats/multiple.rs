//! Multiple comparisons: the tests of one family (a `compare` report's
//! scoreboard, or its scheduling counters) are adjusted together, so the
//! family's error rate is the one it states, however many metrics it
//! tests.

use serde::Serialize;

/// How a family of p-values is adjusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Correction {
    /// Holm's step-down: family-wise error rate ≤ alpha under any dependence.
    Holm,
    /// Benjamini–Hochberg: false discovery rate ≤ alpha (independent or
    /// positively dependent tests).
    Bh,
    /// No adjustment: each test at alpha on its own.
    None,
}

impl Correction {
    pub fn as_str(self) -> &'static str {
        match self {
            Correction::Holm => "Holm",
            Correction::Bh => "Benjamini-Hochberg",
            Correction::None => "no correction",
        }
    }
}

/// Adjusted p-values, in the order given.  `None` entries (tests not made)
/// stay `None` and do not count towards the family's size.
///
/// Holm: with p₍₁₎ ≤ … ≤ p₍ₘ₎, p̃₍ᵢ₎ = maxⱼ≤ᵢ min(1, (m − j + 1)·p₍ⱼ₎).
/// Holm, S. (1979), "A simple sequentially rejective multiple test
/// procedure", *Scand. J. Statist.* 6(2): 65–70.
///
/// Benjamini–Hochberg: p̃₍ᵢ₎ = minⱼ≥ᵢ min(1, m·p₍ⱼ₎/j).  Benjamini, Y. &
/// Hochberg, Y. (1995), "Controlling the false discovery rate", *J. R.
/// Statist. Soc. B* 57(1): 289–300.
pub fn adjust(p: &[Option<f64>], how: Correction) -> Vec<Option<f64>> {
    let mut idx: Vec<usize> = (0..p.len()).filter(|&i| p[i].is_some()).collect();
    idx.sort_by(|&a, &b| p[a].unwrap().total_cmp(&p[b].unwrap()));
    let m = idx.len() as f64;
    let mut out = p.to_vec();
    match how {
        Correction::None => {}
        Correction::Holm => {
            let mut running = 0.0f64;
            for (rank, &i) in idx.iter().enumerate() {
                let v = ((m - rank as f64) * p[i].unwrap()).min(1.0);
                running = running.max(v);
                out[i] = Some(running);
            }
        }
        Correction::Bh => {
            let mut running = 1.0f64;
            for (rank, &i) in idx.iter().enumerate().rev() {
                let v = (m * p[i].unwrap() / (rank as f64 + 1.0)).min(1.0);
                running = running.min(v);
                out[i] = Some(running);
            }
        }
    }
    out
}

/// Adjusted p-values of a family in which each comparison has two tests
/// whose nulls cannot both be true: "no difference" (`diff`) and "a
/// difference of at least the threshold" (`equiv`, the two one-sided
/// tests of equivalence).  At most one hypothesis of a pair is true, so
/// after the first j − 1 rejections at most t_j hypotheses can be true,
/// t_j the pairs with a hypothesis not yet rejected; Shaffer's (1986)
/// step-down rejects the j-th smallest p while p₍ⱼ₎ ≤ α / t_j, i.e.
/// p̃₍ⱼ₎ = maxₖ≤ⱼ min(1, tₖ·p₍ₖ₎), and keeps the family-wise error of all
/// 2m tests at α (Shaffer, J. P. (1986), "Modified sequentially rejective
/// multiple test procedures", *JASA* 81(395): 826–831).  With Holm this
/// is that; BH adjusts the union of both tests' p-values as one family
/// (false discovery rate at α under positive dependence); none leaves
/// them raw.  Returns (diff adjusted, equiv adjusted), in the order given.
#[allow(clippy::type_complexity)]
pub fn adjust_paired(
    diff: &[Option<f64>],
    equiv: &[Option<f64>],
    how: Correction,
) -> (Vec<Option<f64>>, Vec<Option<f64>>) {
    let m = diff.len();
    let all: Vec<Option<f64>> = diff.iter().chain(equiv).copied().collect();
    let out = match how {
        Correction::None => all.clone(),
        Correction::Bh => adjust(&all, Correction::Bh),
        Correction::Holm => {
            let mut idx: Vec<usize> = (0..all.len()).filter(|&i| all[i].is_some()).collect();
            idx.sort_by(|&a, &b| all[a].unwrap().total_cmp(&all[b].unwrap()));
            let partner = |h: usize| if h < m { h + m } else { h - m };
            // Pairs with a hypothesis not rejected yet.
            let mut t = (0..m)
                .filter(|&s| all[s].is_some() || all[s + m].is_some())
                .count();
            let mut rejected = vec![false; all.len()];
            let mut out = all.clone();
            let mut running = 0.0f64;
            for &h in &idx {
                running = running.max((t.max(1) as f64 * all[h].unwrap()).min(1.0));
                out[h] = Some(running);
                rejected[h] = true;
                let q = partner(h);
                if all[q].is_none() || rejected[q] {
                    t -= 1;
                }
            }
            out
        }
    };
    (out[..m].to_vec(), out[m..].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shaffer's paired step-down: with at most one true null a pair, the
    /// first steps divide by the pairs, not by all 2m tests; a pair with
    /// both rejected no longer counts.
    #[test]
    fn paired_hypotheses_count_as_one_until_both_are_rejected() {
        let diff = [Some(0.001), Some(0.2), Some(0.03), None];
        let equiv = [Some(0.004), Some(0.01), None, Some(0.04)];
        let (d, e) = adjust_paired(&diff, &equiv, Correction::Holm);
        // Order: 0.001 (t 4), 0.004 (t 4: pair 0 then both rejected),
        // 0.01 (t 3), 0.03 (t 3: pair 1 keeps its diff), 0.04, 0.2.
        let near = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-12;
        assert!(near(d[0], 0.004));
        assert!(near(e[0], 0.016));
        assert!(near(e[1], 0.03));
        assert!(near(d[2], 0.09));
        assert_eq!(d[3], None);
        // None: raw; BH: the union as one family.
        assert_eq!(
            adjust_paired(&diff, &equiv, Correction::None).0,
            diff.to_vec()
        );
        let (bd, _) = adjust_paired(&diff, &equiv, Correction::Bh);
        let all: Vec<Option<f64>> = diff.iter().chain(&equiv).copied().collect();
        assert_eq!(bd, adjust(&all, Correction::Bh)[..4].to_vec());
    }
    use crate::stats::close;

    const P: [f64; 8] = [
        0.011_727_569_955_962_4,
        0.000898,
        0.1875,
        0.04,
        0.5,
        0.03,
        0.0001,
        0.2,
    ];

    fn check(how: Correction, want: &[f64]) {
        let p: Vec<Option<f64>> = P.iter().map(|&v| Some(v)).collect();
        let got = adjust(&p, how);
        for (g, w) in got.iter().zip(want) {
            assert!(close(g.unwrap(), *w, 1e-12), "{how:?}: {got:?} vs {want:?}");
        }
    }

    /// Reference: statsmodels 0.15 `multipletests(P, method='holm')`.
    #[test]
    fn holm_matches_statsmodels() {
        check(
            Correction::Holm,
            &[
                0.070_365_419_735_774_4,
                0.006286,
                0.5625,
                0.16,
                0.5625,
                0.15,
                0.0008,
                0.5625,
            ],
        );
    }

    /// Reference: statsmodels 0.15 `multipletests(P, method='fdr_bh')`.
    #[test]
    fn bh_matches_statsmodels() {
        check(
            Correction::Bh,
            &[
                0.031_273_519_882_566_4,
                0.003592,
                0.228_571_428_571_428_6,
                0.064,
                0.5,
                0.06,
                0.0008,
                0.228_571_428_571_428_6,
            ],
        );
    }

    #[test]
    fn tests_not_made_are_not_counted() {
        let got = adjust(&[Some(0.01), None, Some(0.04)], Correction::Holm);
        assert_eq!(got[1], None);
        assert!(close(got[0].unwrap(), 0.02, 1e-12));
        assert!(close(got[2].unwrap(), 0.04, 1e-12));
        assert_eq!(
            adjust(&[Some(0.3)], Correction::None),
            vec![Some(0.3)],
            "no correction leaves p as it is"
        );
    }
}
