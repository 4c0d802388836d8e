//! Change points across every series of a report, with the false
//! discovery rate held across all of them.
//!
//! Each series is first tested whole ([`crate::stats::changepoint`]: has
//! it changed anywhere?).  Those p-values, one per series, are adjusted
//! together with Benjamini & Hochberg's step-up (1995, *J. R. Statist.
//! Soc. B* 57(1), 289–300) at q = `--alpha`: when nothing changed in any
//! series, the chance that the report shows any change point is then at
//! most q (under independence or positive dependence of the tests, as
//! metrics of the same runs have).  In a series found to have changed,
//! the split is the test's argmax, and each side is tested again
//! (binary segmentation, Vostrikova (1981); the scheme e-divisive uses,
//! Matteson & James (2014), *JASA* 109(505), 334–345) at the level BH
//! reached (R·q/m for R series found of m), until no side changes.
//! A split found in a segment that holds two changes can land anywhere
//! between them (the CUSUM is flat there), so each change point is then
//! placed again within its neighbours (the segment from the change point
//! before it to the one after), until none moves.  Finally a change point
//! must matter: the medians or the 90th percentiles of the segments on
//! either side differ by at least `--threshold`; the weakest one under it
//! is merged away first (and the rest placed again), until every one left
//! is past it.

use super::series::Series;
use crate::stats::changepoint::{self, Score};
use crate::stats::describe::{mean, median};
use crate::stats::Better;
use serde::Serialize;

/// Fewest values on each side of a split.
pub const MIN_UNITS: usize = 3;

/// One change point of one series.
#[derive(Clone, Debug, Serialize)]
pub struct ChangePoint {
    /// The index (in the series' points) of the first label of the new segment.
    pub at: usize,
    pub p: f64,
    /// Adjusted over the report (BH): accepted when at most q.
    pub p_adjusted: f64,
    /// Level (Wilcoxon scores) or spread/tail (Mood's).
    pub score: &'static str,
    /// The segments' medians and 90th percentiles, before and after.
    pub median: (f64, f64),
    pub p90: (f64, f64),
    pub median_change_pct: f64,
    pub p90_change_pct: f64,
    /// The ratio of the segments' means, % change, and its 95 % interval.
    pub change_pct: f64,
    pub change_ci_pct: Option<(f64, f64)>,
    /// Worse by the metric's direction (by the median, or the tail).
    pub worse: bool,
}

/// Every series' change points, and how they were decided.
#[derive(Clone, Debug, Serialize)]
pub struct Detection {
    pub per_series: Vec<Vec<ChangePoint>>,
    /// Series tested (m), and found changed by BH (R).
    pub tests: usize,
    pub found: usize,
    pub q: f64,
    pub threshold_pct: f64,
}

/// Start of each point's values in the flattened series, and the total.
fn offsets(s: &Series) -> Vec<usize> {
    let mut v = vec![0];
    for p in &s.points {
        v.push(v.last().copied().unwrap_or(0) + p.values.len());
    }
    v
}

fn flat(s: &Series, from: usize, to: usize) -> Vec<f64> {
    s.points[from..to]
        .iter()
        .flat_map(|p| p.values.iter().copied())
        .collect()
}

/// Test points `[from, to)`, the split located at level `at`: the p,
/// the split as a point index, and the score that found it.
fn test_segment(
    s: &Series,
    off: &[usize],
    from: usize,
    to: usize,
    at: f64,
) -> Option<(f64, usize, Score)> {
    let base = off[from];
    let n = off[to] - base;
    let splits: Vec<usize> = (from + 1..to)
        .map(|i| off[i] - base)
        .filter(|&k| k >= MIN_UNITS && n - k >= MIN_UNITS)
        .collect();
    let f = changepoint::test(&flat(s, from, to), &splits, at)?;
    let point = (from + 1..to).find(|&i| off[i] - base == f.split)?;
    Some((f.p, point, f.score))
}

/// Benjamini–Hochberg ([`crate::stats::multiple::adjust`]): the
/// adjusted p-values and R, the count accepted at q.
pub fn bh(p: &[f64], q: f64) -> (Vec<f64>, usize) {
    let some: Vec<Option<f64>> = p.iter().map(|&x| Some(x)).collect();
    let adj: Vec<f64> =
        crate::stats::multiple::adjust(&some, crate::stats::multiple::Correction::Bh)
            .into_iter()
            .map(|a| a.unwrap_or(1.0))
            .collect();
    let r = adj.iter().filter(|&&a| a <= q).count();
    (adj, r)
}

fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let h = (s.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (h - lo as f64)
}

fn pct(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        f64::NAN
    } else {
        (b / a - 1.0) * 100.0
    }
}

/// The change between points `[a, b)` and `[b, c)`.
fn effect(
    s: &Series,
    a: usize,
    b: usize,
    c: usize,
    p: f64,
    p_adjusted: f64,
    score: Score,
) -> ChangePoint {
    let (l, r) = (flat(s, a, b), flat(s, b, c));
    let median_ = (median(&l), median(&r));
    let p90 = (quantile(&l, 0.9), quantile(&r, 0.9));
    let (dm, dt) = (pct(median_.0, median_.1), pct(p90.0, p90.1));
    let ci = crate::stats::interval::LogRatio::of(&l, &r).map(|lr| {
        let (lo, hi) = lr.ratio_ci(0.95);
        ((lo - 1.0) * 100.0, (hi - 1.0) * 100.0)
    });
    // The larger of the two changes says the direction.
    let d = if dt.is_finite() && (!dm.is_finite() || dt.abs() > dm.abs()) {
        dt
    } else {
        dm
    };
    let worse = match s.better {
        Better::Lower => d > 0.0,
        Better::Higher => d < 0.0,
        Better::Neither => false,
    };
    ChangePoint {
        at: b,
        p,
        p_adjusted,
        score: match score {
            Score::Level => "level",
            Score::Spread => "spread or tail",
        },
        median: median_,
        p90,
        median_change_pct: dm,
        p90_change_pct: dt,
        change_pct: pct(mean(&l), mean(&r)),
        change_ci_pct: ci,
        worse,
    }
}

/// Find every series' change points.
pub fn detect(series: &[Series], q: f64, threshold_pct: f64) -> Detection {
    let offs: Vec<Vec<usize>> = series.iter().map(offsets).collect();
    let first: Vec<Option<(f64, usize, Score)>> = series
        .iter()
        .zip(&offs)
        .map(|(s, off)| test_segment(s, off, 0, s.points.len(), q))
        .collect();
    let tested: Vec<usize> = (0..series.len()).filter(|&i| first[i].is_some()).collect();
    let ps: Vec<f64> = tested
        .iter()
        .map(|&i| first[i].map_or(1.0, |f| f.0))
        .collect();
    let (adj, found) = bh(&ps, q);
    let m = tested.len();
    let cutoff = found as f64 * q / m.max(1) as f64;
    let mut per_series: Vec<Vec<ChangePoint>> = vec![Vec::new(); series.len()];
    for (k, &i) in tested.iter().enumerate() {
        if adj[k] > q {
            continue;
        }
        let (s, off) = (&series[i], &offs[i]);
        let Some((p0, at0, sc0)) = first[i] else {
            continue;
        };
        // (at, p, p adjusted, score) of each split found.
        let mut cps = vec![(at0, p0, adj[k], sc0)];
        let mut todo = vec![(0, at0), (at0, s.points.len())];
        while let Some((a, b)) = todo.pop() {
            if let Some((p, at, sc)) = test_segment(s, off, a, b, cutoff).filter(|f| f.0 <= cutoff)
            {
                cps.push((at, p, (p * m as f64 / found.max(1) as f64).min(1.0), sc));
                todo.push((a, at));
                todo.push((at, b));
            }
        }
        per_series[i] = mattering(s, off, cps, threshold_pct, cutoff);
    }
    Detection {
        per_series,
        tests: m,
        found,
        q,
        threshold_pct,
    }
}

/// Place each change point again within its neighbours, until none
/// moves (a few passes); two that meet become one.
fn refine(s: &Series, off: &[usize], cps: &mut Vec<(usize, f64, f64, Score)>, at: f64) {
    for _ in 0..4 {
        cps.sort_by_key(|c| c.0);
        cps.dedup_by_key(|c| c.0);
        let mut moved = false;
        for j in 0..cps.len() {
            let a = if j == 0 { 0 } else { cps[j - 1].0 };
            let b = cps.get(j + 1).map_or(s.points.len(), |c| c.0);
            if let Some((_, point, _)) = test_segment(s, off, a, b, at) {
                if point != cps[j].0 {
                    cps[j].0 = point;
                    moved = true;
                }
            }
        }
        if !moved {
            break;
        }
    }
    cps.sort_by_key(|c| c.0);
    cps.dedup_by_key(|c| c.0);
}

/// Keep the change points whose segments differ by at least the
/// threshold in median or 90th percentile, merging the weakest away first.
fn mattering(
    s: &Series,
    off: &[usize],
    mut cps: Vec<(usize, f64, f64, Score)>,
    threshold_pct: f64,
    at: f64,
) -> Vec<ChangePoint> {
    loop {
        refine(s, off, &mut cps, at);
        let n = s.points.len();
        let bounds: Vec<usize> = std::iter::once(0)
            .chain(cps.iter().map(|c| c.0))
            .chain(std::iter::once(n))
            .collect();
        let effects: Vec<ChangePoint> = cps
            .iter()
            .enumerate()
            .map(|(j, c)| effect(s, bounds[j], bounds[j + 1], bounds[j + 2], c.1, c.2, c.3))
            .collect();
        let size = |e: &ChangePoint| {
            let m = e.median_change_pct.abs();
            let t = e.p90_change_pct.abs();
            if m.is_finite() && t.is_finite() {
                m.max(t)
            } else if m.is_finite() {
                m
            } else {
                t
            }
        };
        let weakest = effects
            .iter()
            .enumerate()
            .filter(|(_, e)| size(e).is_nan() || size(e) < threshold_pct)
            .min_by(|a, b| size(a.1).total_cmp(&size(b.1)))
            .map(|(j, _)| j);
        match weakest {
            Some(j) => {
                cps.remove(j);
            }
            None => return effects,
        }
    }
}

/// `--fail-on change`'s question, asked of every series: are the last
/// label's values worse than those of the segment it would extend (from
/// the series' last change point before it)?  One split named in
/// advance, so no search over splits: the Mann–Whitney test (exact below
/// 20 a side), the p-values adjusted over the series with
/// Benjamini–Hochberg at q, and the medians worse by at least the
/// threshold.  The series (by index) whose last label is worse.
pub fn last_worse(series: &[Series], d: &Detection, q: f64, threshold_pct: f64) -> Vec<usize> {
    let mut tested = Vec::new();
    let mut ps = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let n = s.points.len();
        let from = d.per_series[i]
            .iter()
            .map(|c| c.at)
            .filter(|&a| a < n - 1)
            .max()
            .unwrap_or(0);
        let (before, last) = (flat(s, from, n - 1), flat(s, n - 1, n));
        if before.len() < MIN_UNITS || last.len() < MIN_UNITS {
            continue;
        }
        let change = pct(median(&before), median(&last));
        let worse = match s.better {
            Better::Lower => change >= threshold_pct,
            Better::Higher => change <= -threshold_pct,
            Better::Neither => false,
        };
        if let Some(t) = crate::stats::mann_whitney::test(&last, &before) {
            tested.push((i, worse));
            ps.push(t.p);
        }
    }
    let (adj, _) = bh(&ps, q);
    tested
        .iter()
        .zip(adj)
        .filter(|((_, worse), a)| *worse && *a <= q)
        .map(|((i, _), _)| *i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap::SplitMix;
    use crate::track::series::Point;

    /// A series of `labels` labels of `runs` values each, CV `cv`, its
    /// mean from `mean(label index)`.
    fn series(
        rng: &mut SplitMix,
        labels: usize,
        runs: usize,
        cv: f64,
        mean: impl Fn(usize) -> f64,
    ) -> Series {
        Series {
            benchmark: "b".into(),
            params: serde_json::json!({}),
            metric: "m".into(),
            unit: "us".into(),
            better: Better::Lower,
            points: (0..labels)
                .map(|l| Point {
                    label: format!("l{l}"),
                    values: (0..runs)
                        .map(|_| mean(l) * (1.0 + cv * rng.normal()))
                        .collect(),
                    boots: None,
                    system: None,
                })
                .collect(),
        }
    }

    /// The case: 60 labels, 5 runs, CV 3 %, +8 % at label 20 in
    /// both metrics and +30 % in the tail metric alone at label 40: found
    /// there, and nowhere else.
    #[test]
    fn a_level_shift_and_a_tail_change_are_found_where_they_are() {
        let mut rng = SplitMix(2026);
        let level = |l: usize| if l >= 20 { 108.0 } else { 100.0 };
        let median = series(&mut rng, 60, 5, 0.03, level);
        let tail = series(&mut rng, 60, 5, 0.03, |l| {
            3.0 * level(l) * if l >= 40 { 1.3 } else { 1.0 }
        });
        let d = detect(&[median, tail], 0.05, 2.0);
        let at: Vec<Vec<usize>> = d
            .per_series
            .iter()
            .map(|c| c.iter().map(|c| c.at).collect())
            .collect();
        assert_eq!(at, vec![vec![20], vec![20, 40]]);
        let c = &d.per_series[1][1];
        assert!(c.worse && (c.change_pct - 30.0).abs() < 3.0, "{c:?}");
        let (lo, hi) = c.change_ci_pct.unwrap();
        assert!(lo < 30.0 && 30.0 < hi, "{lo} {hi}");
    }

    /// The gate's question: a last label clearly worse is seen, one like
    /// the rest is not.
    #[test]
    fn a_worse_last_label_is_seen_by_the_gate() {
        let mut rng = SplitMix(9);
        let flat_series = series(&mut rng, 30, 5, 0.03, |_| 100.0);
        let jump = series(
            &mut rng,
            30,
            5,
            0.03,
            |l| if l == 29 { 115.0 } else { 100.0 },
        );
        let s = vec![flat_series, jump];
        let d = detect(&s, 0.05, 2.0);
        assert_eq!(last_worse(&s, &d, 0.05, 2.0), vec![1]);
    }

    /// 200 seeded null reports of 40 metrics × 30 labels × 5 runs: the
    /// share with any change point at all stays at the stated 5 % (plus
    /// sampling error: the binomial 95 % bound for 200 reports is 8.5 %).
    #[test]
    fn null_reports_keep_the_stated_rate() {
        let mut rng = SplitMix(7);
        let mut any = 0;
        for _ in 0..200 {
            let s: Vec<Series> = (0..40)
                .map(|_| series(&mut rng, 30, 5, 0.05, |_| 100.0))
                .collect();
            if detect(&s, 0.05, 2.0)
                .per_series
                .iter()
                .any(|c| !c.is_empty())
            {
                any += 1;
            }
        }
        eprintln!("null reports with a change point: {any} of 200");
        assert!(any <= 17, "{any} of 200 null reports showed a change point");
    }

    /// R, the count BH accepts (its adjusted values are pinned where
    /// `stats::multiple` is).
    #[test]
    fn bh_counts_what_it_accepts() {
        let p = [0.01, 0.04, 0.03, 0.005, 0.2];
        let (adj, r) = bh(&p, 0.05);
        let want = [0.025, 0.05, 0.05, 0.025, 0.2];
        for (a, w) in adj.iter().zip(want) {
            assert!((a - w).abs() < 1e-12, "{adj:?}");
        }
        assert_eq!(r, 4);
        assert_eq!(bh(&[], 0.05).1, 0);
    }
}
