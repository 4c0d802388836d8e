//! Curves: a comparison's groups that differ only in one parameter (the
//! varied flag of a sweep: hackbench's `groups`, a scenario's `var.N`),
//! set side by side as a row per point.  The statistics are the
//! comparison's own: each point's verdicts come from the report's one
//! family (Holm across every point and metric), so a sweep of five points
//! is five tests of that family, not five reports.

use super::{Comparison, LabelStats};
use crate::measure::Better;
use serde::Serialize;
use std::collections::BTreeMap;

/// One point of a curve: the varied value and each label's statistics.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub x: String,
    pub labels: Vec<LabelStats>,
}

/// One metric of one benchmark across the points.
#[derive(Clone, Debug, Serialize)]
pub struct Curve {
    pub benchmark: String,
    /// The parameter that varies.
    pub key: String,
    /// The parameters every point shares.
    pub fixed: serde_json::Value,
    pub metric: String,
    pub unit: String,
    pub better: Better,
    pub points: Vec<Point>,
    /// Whether every point is a positive number (a log scale may fit).
    pub numeric: bool,
}

/// The parameter `flag` names in `c`'s groups: the flag itself, its
/// underscore spelling, a scenario variable `var.FLAG`, or else (per
/// benchmark) the one parameter whose value differs between its groups.
pub fn key_of(c: &Comparison, benchmark: &str, flag: &str) -> Option<String> {
    let groups: Vec<&super::Group> = c
        .groups
        .iter()
        .filter(|g| g.benchmark == benchmark)
        .collect();
    let has = |k: &str| groups.iter().any(|g| g.params.get(k).is_some());
    let under = flag.replace('-', "_");
    for k in [flag.to_string(), under, format!("var.{flag}")] {
        if has(&k) {
            return Some(k);
        }
    }
    let mut varying: Vec<String> = Vec::new();
    for g in &groups {
        if let serde_json::Value::Object(m) = &g.params {
            for (k, v) in m {
                if groups.iter().any(|h| h.params.get(k) != Some(v)) && !varying.contains(k) {
                    varying.push(k.clone());
                }
            }
        }
    }
    (varying.len() == 1).then(|| varying.remove(0))
}

fn text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// The curves over `flag` in `c`: per benchmark, the groups that share
/// every parameter but the varied one, for each metric they have (or
/// only `metrics` when given), with at least two points.
pub fn curves(c: &Comparison, flag: &str, metrics: &[String]) -> Vec<Curve> {
    let mut benchmarks: Vec<&str> = c.groups.iter().map(|g| g.benchmark.as_str()).collect();
    benchmarks.dedup();
    let mut out = Vec::new();
    for b in benchmarks {
        let Some(key) = key_of(c, b, flag) else {
            continue;
        };
        let gs: Vec<&super::Group> = c.groups.iter().filter(|g| g.benchmark == b).collect();
        let follows = follows_key(&gs, &key);
        // Groups by their parameters less the varied one (and those that
        // follow it: a scenario variable that sets hackbench's groups).
        let mut by_rest: BTreeMap<String, Vec<&super::Group>> = BTreeMap::new();
        for g in gs {
            let Some(_) = g.params.get(&key) else {
                continue;
            };
            let mut rest = g.params.clone();
            if let serde_json::Value::Object(m) = &mut rest {
                m.remove(&key);
                for f in &follows {
                    m.remove(f);
                }
            }
            by_rest.entry(rest.to_string()).or_default().push(g);
        }
        for (rest, gs) in by_rest {
            if gs.len() < 2 {
                continue;
            }
            let mut names: Vec<(String, String, Better)> = Vec::new();
            for g in &gs {
                for m in &g.metrics {
                    let k = (m.metric.clone(), m.unit.clone(), m.better);
                    let wanted = if metrics.is_empty() {
                        crate::registry::find(b).is_none_or(|e| e.headline == m.metric)
                    } else {
                        metrics.contains(&m.metric)
                    };
                    if wanted && !names.contains(&k) {
                        names.push(k);
                    }
                }
            }
            for (metric, unit, better) in names {
                let mut points: Vec<Point> =
                    gs.iter()
                        .filter_map(|g| {
                            let m = g.metrics.iter().find(|m| {
                                m.metric == metric && m.unit == unit && m.better == better
                            })?;
                            Some(Point {
                                x: text(g.params.get(&key)?),
                                labels: m.labels.clone(),
                            })
                        })
                        .collect();
                let numeric = points
                    .iter()
                    .all(|p| p.x.parse::<f64>().is_ok_and(|v| v > 0.0 && v.is_finite()));
                if numeric {
                    points.sort_by(|a, b| {
                        let f = |p: &Point| p.x.parse::<f64>().unwrap_or(0.0);
                        f(a).total_cmp(&f(b))
                    });
                } else {
                    points.sort_by(|a, b| a.x.cmp(&b.x));
                }
                if points.len() >= 2 {
                    out.push(Curve {
                        benchmark: b.to_string(),
                        key: key.clone(),
                        fixed: serde_json::from_str(&rest).unwrap_or_default(),
                        metric,
                        unit,
                        better,
                        points,
                        numeric,
                    });
                }
            }
        }
    }
    out
}

/// The parameters other than `key` whose value is one per value of `key`
/// and not one for all (they follow the varied value).
fn follows_key(gs: &[&super::Group], key: &str) -> Vec<String> {
    let mut names: Vec<String> = gs
        .iter()
        .filter_map(|g| g.params.as_object())
        .flat_map(|m| m.keys().cloned())
        .filter(|k| k != key)
        .collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|p| {
            let mut by_x: BTreeMap<String, Option<&serde_json::Value>> = BTreeMap::new();
            let mut values = std::collections::BTreeSet::new();
            for g in gs {
                let Some(x) = g.params.get(key) else { continue };
                let v = g.params.get(p);
                values.insert(v.map(|v| v.to_string()));
                if *by_x.entry(text(x)).or_insert(v) != v {
                    return false;
                }
            }
            values.len() >= 2
        })
        .collect()
}

/// Where the curves part: per label against the baseline, the points by
/// verdict (`autogroup=1: better at 4, 8, 16; equivalent at 1, 2`).
pub fn parting(curve: &Curve, baseline: &str, short: impl Fn(&str) -> String) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for p in &curve.points {
        for l in &p.labels {
            if l.label != baseline && !labels.contains(&l.label) {
                labels.push(l.label.clone());
            }
        }
    }
    labels
        .iter()
        .map(|label| {
            let mut by: Vec<(&'static str, Vec<&str>)> = Vec::new();
            for p in &curve.points {
                let Some(v) = p
                    .labels
                    .iter()
                    .find(|l| &l.label == label)
                    .and_then(|l| l.versus.as_ref())
                else {
                    continue;
                };
                let what = v.verdict.as_str();
                match by.iter_mut().find(|(w, _)| *w == what) {
                    Some((_, xs)) => xs.push(&p.x),
                    None => by.push((what, vec![&p.x])),
                }
            }
            let order = [
                "better",
                "worse",
                "different",
                "equivalent",
                "inconclusive",
                "too few runs",
            ];
            by.sort_by_key(|(w, _)| order.iter().position(|o| o == w).unwrap_or(order.len()));
            let parts: Vec<String> = by
                .iter()
                .map(|(w, xs)| format!("{w} at {} {}", curve.key, xs.join(", ")))
                .collect();
            format!(
                "{} against {}: {}",
                short(label),
                short(baseline),
                if parts.is_empty() {
                    "nothing compared".into()
                } else {
                    parts.join("; ")
                }
            )
        })
        .collect()
}
