//! Is the culprit the whole change?  A bisection assumes one change in its
//! range; when there are two, or the metric drifts a little at every
//! commit, it still ends at one candidate, and confirming that candidate
//! against its parent says only that it made things worse, not that it
//! made them as much worse as the range did.
//!
//! So the ends' change (good end to bad end) and the culprit's (parent to
//! culprit) are compared, both as log ratios of means with their delta-
//! method standard errors (the scale `compare` decides on): when the ends
//! changed more than the culprit, beyond what chance explains at the
//! bisection's α (one-sided Welch test on the difference of two
//! independent log ratios, Satterthwaite's degrees of freedom), the result
//! says so with both figures.  A simulated range with two +5 % changes or
//! a steady drift is told apart from one with a single change by the
//! tests in `parts_tests.rs`.

use crate::measure::Better;
use crate::stats::interval::{satterthwaite, LogRatio};
use crate::stats::student_t;

/// A log ratio of means: its estimate, standard error and degrees of
/// freedom (kept in the bisection's state, so a resumed one has them).
pub type Lr = (f64, f64, f64);

/// The log ratio of `x` to `base`, where both are positive.
pub fn of(base: &[f64], x: &[f64]) -> Option<Lr> {
    LogRatio::of(base, x).map(|l| (l.estimate, l.se, l.df))
}

/// Running moments of one end's values for one metric: count, mean and
/// the sum of squared deviations (Welford 1962), so every unit of the
/// ends, from every decision, counts without being kept.
pub type Moments = (usize, f64, f64);

/// Add a decided decision's values of the ends to `pool` (per metric,
/// good then bad): `ends` pairs a side of `v` with its end (0 the good,
/// 1 the bad).  The ends are measured beside every candidate, so the
/// pool's change is the range's, estimated from far more units than the
/// ends' own decision, which stops early and so overstates the change it
/// stops on.
pub fn pool(pool: &mut Vec<[Moments; 2]>, ends: &[(usize, usize)], v: &[Vec<Vec<f64>>]) {
    for &(side, end) in ends {
        for (j, values) in v[side].iter().enumerate() {
            if pool.len() <= j {
                pool.resize(j + 1, [(0, 0.0, 0.0); 2]);
            }
            let m = &mut pool[j][end];
            for &x in values {
                m.0 += 1;
                let d = x - m.1;
                m.1 += d / m.0 as f64;
                m.2 += d * (x - m.1);
            }
        }
    }
}

/// The ends' change per metric, from the pool.
pub fn ends(pool: &[[Moments; 2]]) -> Vec<Option<Lr>> {
    let side = |m: Moments| (m.0, m.1, if m.0 > 1 { m.2 / (m.0 - 1) as f64 } else { 0.0 });
    pool.iter()
        .map(|[g, b]| LogRatio::from_moments(side(*g), side(*b)).map(|l| (l.estimate, l.se, l.df)))
        .collect()
}

/// One-sided p that the ends' log ratio exceeds the culprit's in the
/// worse direction of a metric where `better` is the good direction.
fn p_more(ends: Lr, culprit: Lr, better: Better) -> Option<f64> {
    let sign = match better {
        Better::Lower => 1.0,
        Better::Higher => -1.0,
        Better::Neither => return None,
    };
    let d = sign * (ends.0 - culprit.0);
    let (ve, vc) = (ends.1 * ends.1, culprit.1 * culprit.1);
    let se = (ve + vc).sqrt();
    if se == 0.0 || !se.is_finite() {
        return None;
    }
    // Satterthwaite over the two variances, each with its own df + 1
    // units (its df is already Welch's).
    let df = satterthwaite(&[
        (ve, (ends.2 + 1.0).round().max(2.0) as usize),
        (vc, (culprit.2 + 1.0).round().max(2.0) as usize),
    ]);
    Some(1.0 - student_t::cdf(d / se, df))
}

/// A line per metric whose ends changed more than its culprit did, at
/// one-sided level `alpha`: the change comes in parts or gradually.
pub fn lines(
    metrics: &[(String, Better)],
    ends: &[Option<Lr>],
    culprit: &[(usize, Lr)],
    alpha: f64,
) -> Vec<String> {
    let pct = |l: f64| (l.exp() - 1.0) * 100.0;
    culprit
        .iter()
        .filter_map(|&(j, c)| {
            let (name, better) = metrics.get(j)?;
            let e = (*ends.get(j)?)?;
            let p = p_more(e, c, *better)?;
            (p < alpha).then(|| {
                format!(
                    "{name}: the ends differ by {:+.1} %, the culprit by {:+.1} % (one-sided p {p:.3} that the ends changed more): the change comes in parts or gradually, and the rest lies elsewhere in the range",
                    pct(e.0),
                    pct(c.0)
                )
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "parts_tests.rs"]
mod parts_tests;
