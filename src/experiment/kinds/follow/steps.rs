//! The steps of `track --follow` around its re-measure: which change
//! points to follow, each label's revision, the revisions built, whether a
//! change held, the bisection, and what differs between the culprit and
//! its parent.

use super::design::label_of;
use super::state::{Again, Explained, Point};
use crate::compare::{self, Verdict};
use crate::error::input;
use crate::track::Tracked;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// The change points of `metric`'s series of `benchmark`, largest first:
/// (the labels either side, the change, its adjusted p).
pub fn points_of(t: &Tracked, benchmark: &str, metric: &str) -> Vec<(String, String, f64, f64)> {
    let mut out = Vec::new();
    for (i, s) in t.series.iter().enumerate() {
        if s.benchmark != benchmark || s.metric != metric {
            continue;
        }
        for c in &t.detection.per_series[i] {
            let before = s.points[c.at - 1].label.clone();
            let after = s.points[c.at].label.clone();
            if !out
                .iter()
                .any(|o: &(String, String, f64, f64)| o.0 == before && o.1 == after)
            {
                out.push((before, after, c.change_pct, c.p_adjusted));
            }
        }
    }
    out.sort_by(|a, b| b.2.abs().total_cmp(&a.2.abs()));
    out
}

/// A label's revision in `repo`: the one `--rev` gives it, else the label
/// itself as git reads it; the full id, or why there is none.
pub fn rev_of(repo: &Path, label: &str, revs: &[(String, String)]) -> Result<String, String> {
    let rev = revs
        .iter()
        .find(|(l, _)| l == label)
        .map_or(label, |(_, r)| r.as_str());
    crate::bisect::git::commit(repo, rev)
        .map(|c| c.id)
        .map_err(|_| {
            format!(
                "label {label}: no commit '{rev}' in {} (map it with --rev {label}=REV)",
                repo.display()
            )
        })
}

/// Each side of each point built in a work tree of its own under
/// `scratch`; per item (point × 2 + side), its tree, or `None` where the
/// point cannot be followed (said in the point).
pub fn prepare(
    repo: &Path,
    build: Option<&str>,
    points: &mut [Point],
    scratch: &Path,
    say: &dyn Fn(&str),
) -> Result<Vec<Option<PathBuf>>> {
    crate::bisect::git::lend(scratch, repo)?;
    crate::bisect::git::prune(repo);
    let mut trees = Vec::new();
    for (i, p) in points.iter_mut().enumerate() {
        let mut sides = Vec::new();
        for side in 0..2 {
            if p.cannot.is_some() {
                sides.push(None);
                continue;
            }
            let dir = scratch.join(format!("tree-{}", i * 2 + side));
            crate::bisect::git::worktree(repo, &dir, &p.revs[side])?;
            if let Some(b) = build {
                say(&format!(
                    "building {} ({}) with `{b}`",
                    p.between[side],
                    &p.revs[side][..12.min(p.revs[side].len())]
                ));
                let log = scratch.join(format!("build-{}.log", i * 2 + side));
                if let Err(why) = crate::bisect::git::build(&dir, b, &log) {
                    p.cannot = Some(format!("{}: {why}", p.between[side]));
                }
            }
            sides.push(Some(dir));
        }
        if p.cannot.is_some() {
            sides = vec![None, None];
        }
        trees.extend(sides);
    }
    Ok(trees)
}

/// The compare options of a follow's question: `labels`, its metric
/// alone or every metric, at `alpha`.
fn options(
    labels: Vec<String>,
    metrics: Vec<String>,
    alpha: f64,
    threshold_pct: f64,
) -> compare::Options {
    compare::Options {
        labels,
        metrics,
        alpha,
        threshold_pct,
        ..compare::Options::default()
    }
}

/// Did point `p` hold: its two revisions measured side by side differ
/// the way `track` saw, beyond the threshold, at `alpha`?
pub fn held(
    runs: &[crate::store::RunRecord],
    id: &str,
    p: &Point,
    (benchmark, metric): (&str, &str),
    alpha: f64,
    threshold_pct: f64,
) -> Result<Again> {
    let labels = vec![label_of(id, &p.between[0]), label_of(id, &p.between[1])];
    let c = compare::build(
        runs,
        &options(labels, vec![metric.to_string()], alpha, threshold_pct),
    )?;
    let row = c
        .groups
        .iter()
        .filter(|g| g.benchmark == benchmark)
        .flat_map(|g| &g.metrics)
        .find(|m| m.metric == metric)
        .ok_or_else(|| input(format!("measured again, the runs have no metric {metric}")))?;
    let after = row.labels.get(1);
    let v = after.and_then(|l| l.versus.as_ref());
    let verdict = v.map(|v| v.verdict);
    let up = v.and_then(|v| v.change_pct).is_some_and(|c| c > 0.0);
    let same_way = up == (p.track_change_pct > 0.0);
    Ok(Again {
        units: [row.labels[0].summary.n, after.map_or(0, |l| l.summary.n)],
        change_pct: v.and_then(|v| v.change_pct),
        ci_pct: v.and_then(|v| v.change_ci_pct),
        p_adjusted: v.and_then(|v| v.p_adjusted),
        verdict: verdict.map_or("too few runs", Verdict::as_str).to_string(),
        held: matches!(verdict, Some(Verdict::Better | Verdict::Worse)) && same_way,
    })
}

/// What differs between the culprit and its parent: every metric of their
/// runs (the bisected one, the CPU times, the scheduling counters where
/// the runs have them), decided as `compare` decides them (Holm across
/// them at `alpha`); those found better or worse.
pub fn explain(
    runs: &[crate::store::RunRecord],
    bisection: &crate::bisect::Answer,
    alpha: f64,
    threshold_pct: f64,
) -> Result<Vec<Explained>> {
    let Some(c) = &bisection.culprit else {
        return Ok(Vec::new());
    };
    let labels = vec![
        format!("{}/{}", bisection.label, c.parent),
        format!("{}/{}", bisection.label, c.rev),
    ];
    let cmp = compare::build(runs, &options(labels, Vec::new(), alpha, threshold_pct))?;
    let mut out = Vec::new();
    for g in &cmp.groups {
        for m in &g.metrics {
            let (Some(a), Some(b)) = (m.labels.first(), m.labels.get(1)) else {
                continue;
            };
            let Some(v) = &b.versus else { continue };
            if matches!(
                v.verdict,
                Verdict::Better | Verdict::Worse | Verdict::Different
            ) {
                out.push(Explained {
                    benchmark: g.benchmark.clone(),
                    metric: m.metric.clone(),
                    unit: m.unit.clone(),
                    parent: a.summary.median,
                    culprit: b.summary.median,
                    change_pct: v.change_pct,
                    ci_pct: v.change_ci_pct,
                    verdict: v.verdict.as_str().to_string(),
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::stats::bootstrap::SplitMix;
    use crate::stats::Better;
    use crate::track::series::{Point, Series};

    /// A nightly series of 14 one-boot labels with no change: each label
    /// its boot's offset (SD 1 %), its 5 runs CV 3 % around it.
    fn null_series(rng: &mut SplitMix) -> Series {
        Series {
            benchmark: "job".into(),
            params: serde_json::json!({}),
            metric: "time".into(),
            unit: "s".into(),
            better: Better::Lower,
            points: (0..14)
                .map(|l| {
                    let m = 100.0 * (1.0 + 0.01 * rng.normal());
                    Point {
                        label: format!("n{l:02}"),
                        values: (0..5).map(|_| m * (1.0 + 0.03 * rng.normal())).collect(),
                        boots: None,
                        system: None,
                    }
                })
                .collect(),
        }
    }

    /// The chain's error on series that did not change: of 4,000 null
    /// series, how many give a change point (track at 0.05), and how many
    /// of those hold when measured again (5 units a side drawn from the
    /// same law, one run each, in one boot: a two-sided Welch test at 0.025, the same direction and
    /// at least the 2 % threshold, as `held` asks of compare).  Only a held
    /// change is bisected, and a bisection confirms a culprit that is not
    /// there at most 0.025 of the time, so the loop's false-culprit rate
    /// is at most (held / series) × 0.025.
    #[test]
    fn on_null_series_the_loop_rarely_reaches_a_bisection() {
        let mut rng = SplitMix(77);
        let (mut points, mut held) = (0, 0);
        let n = 4000;
        for _ in 0..n {
            let s = null_series(&mut rng);
            let d = crate::track::detect::detect(std::slice::from_ref(&s), 0.05, 2.0);
            for c in &d.per_series[0] {
                points += 1;
                let draw = |rng: &mut SplitMix| -> Vec<f64> {
                    (0..5)
                        .map(|_| 100.0 * (1.0 + 0.03 * rng.normal()))
                        .collect()
                };
                let (a, b) = (draw(&mut rng), draw(&mut rng));
                let w = crate::stats::welch::test(&a, &b).unwrap();
                let ma = a.iter().sum::<f64>() / 5.0;
                let mb = b.iter().sum::<f64>() / 5.0;
                let change = (mb / ma - 1.0) * 100.0;
                if w.p <= 0.025 && (change > 0.0) == (c.change_pct > 0.0) && change.abs() >= 2.0 {
                    held += 1;
                }
            }
        }
        let bound = held as f64 / n as f64 * 0.025;
        eprintln!(
            "null series: {points} change points in {n}, {held} held; false-culprit rate at most {bound:.6}"
        );
        assert!(
            points as f64 / n as f64 <= 0.065,
            "{points} change points in {n}"
        );
        assert!(held * 20 <= points.max(20), "{held} of {points} held");
    }
}
