//! What one label has and another lacks: a metric (or a whole benchmark
//! with its parameters) with values under some of the compared labels
//! but not all, or under each in a different unit.  Nothing is compared
//! for it, so it is listed in every format and counts for `--fail-on
//! missing` and `--fail-on inconclusive` (exit 3): a candidate that stops
//! reporting p99 must not pass a gate.

use super::{command_words, default_metric, Options};
use crate::store::RunRecord;
use std::collections::BTreeMap;

/// A line per thing missing, in group order.
pub fn missing(
    by_group: &BTreeMap<(String, String), Vec<&RunRecord>>,
    labels: &[String],
    o: &Options,
) -> Vec<String> {
    if labels.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for ((benchmark, params), rs) in by_group {
        let name = {
            let p = command_words(benchmark, &serde_json::from_str(params).unwrap_or_default());
            if p.is_empty() {
                benchmark.clone()
            } else {
                format!("{benchmark} [{}]", p.join(" "))
            }
        };
        let has: Vec<&String> = labels
            .iter()
            .filter(|l| rs.iter().any(|r| &r.label == *l))
            .collect();
        if has.len() < labels.len() {
            let lacking: Vec<&str> = labels
                .iter()
                .filter(|l| !has.contains(l))
                .map(String::as_str)
                .collect();
            out.push(format!("{name}: no runs under {}", lacking.join(", ")));
            continue;
        }
        // Metric name -> unit -> labels that have it.
        let mut seen: BTreeMap<&str, BTreeMap<&str, Vec<&str>>> = BTreeMap::new();
        for r in rs {
            for m in &r.metrics {
                let wanted = if o.metrics.is_empty() {
                    default_metric(&m.name, m.better)
                } else {
                    o.metrics.contains(&m.name)
                };
                if !wanted || !m.value.is_finite() {
                    continue;
                }
                let e = seen.entry(&m.name).or_default().entry(&m.unit).or_default();
                if !e.contains(&r.label.as_str()) {
                    e.push(&r.label);
                }
            }
        }
        for (metric, units) in seen {
            let complete = units.values().any(|ls| ls.len() == labels.len());
            if complete && units.len() == 1 {
                continue;
            }
            if units.len() > 1 {
                let each: Vec<String> = units
                    .iter()
                    .map(|(u, ls)| format!("{u} under {}", ls.join(", ")))
                    .collect();
                out.push(format!(
                    "{name} {metric}: given in different units ({}): not compared",
                    each.join("; ")
                ));
            } else if let Some((u, ls)) = units.iter().next() {
                let lacking: Vec<&str> = labels
                    .iter()
                    .map(String::as_str)
                    .filter(|l| !ls.contains(l))
                    .collect();
                out.push(format!(
                    "{name} {metric} ({u}): missing under {}",
                    lacking.join(", ")
                ));
            }
        }
    }
    out
}
