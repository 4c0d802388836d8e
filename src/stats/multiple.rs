//! Multiple comparisons: every test in one `compare` is one family, and
//! its p-values are adjusted together so a report's error rate is the one
//! it states, however many metrics it tests.

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

#[cfg(test)]
mod tests {
    use super::*;
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
