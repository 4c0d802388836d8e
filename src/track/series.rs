//! A store's runs as series: for every benchmark and metric group as
//! `compare` forms them (benchmark and canonical parameters), each
//! metric's values per label, in the series' order.  A label's values are
//! its runs', or its boots' means where its runs come from several boots
//! (the boot is then the unit, as in `compare`).

use crate::compare::{boot_of, by_boot, default_metric, group_key};
use crate::stats::Better;
use crate::store::RunRecord;
use std::collections::BTreeMap;

/// One label's place in a series.
#[derive(Clone, Debug)]
pub struct Point {
    pub label: String,
    pub values: Vec<f64>,
    /// Values are boot means (how many boots).
    pub boots: Option<usize>,
    /// The fingerprint id of its runs (the last one's), for system changes.
    pub system: Option<String>,
}

/// One metric of one group over the labels.
#[derive(Clone, Debug)]
pub struct Series {
    pub benchmark: String,
    pub params: serde_json::Value,
    pub metric: String,
    pub unit: String,
    pub better: Better,
    /// In series order; labels without a value of this metric left out.
    pub points: Vec<Point>,
}

impl Series {
    /// The group's command line, as reports name it.
    pub fn title(&self) -> String {
        crate::compare::command_text(&self.benchmark, &self.params)
    }
}

/// Every series of `runs` over `labels` (in order): complete runs only,
/// warm-up runs left out; `metrics` narrows them (empty: every
/// directional metric, per-CPU ones left out, as in `compare`).
pub fn build(runs: &[RunRecord], labels: &[String], metrics: &[String]) -> Vec<Series> {
    let pos: BTreeMap<&str, usize> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i))
        .collect();
    let mut groups: BTreeMap<(String, String), Vec<&RunRecord>> = BTreeMap::new();
    for r in runs {
        if r.status != crate::store::RunStatus::Complete
            || r.settings["warmup"] == true
            || !pos.contains_key(r.label.as_str())
        {
            continue;
        }
        groups.entry(group_key(r)).or_default().push(r);
    }
    let mut out = Vec::new();
    for ((benchmark, params), rs) in groups {
        // The metrics of the group, in the order they first appear.
        let mut keys: Vec<(String, String, Better)> = Vec::new();
        for r in &rs {
            for m in &r.metrics {
                let wanted = if metrics.is_empty() {
                    default_metric(&m.name, m.better)
                } else {
                    metrics.contains(&m.name)
                };
                let k = (m.name.clone(), m.unit.clone(), m.better);
                if wanted && m.better != Better::Neither && !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        for (metric, unit, better) in keys {
            let mut per: Vec<Vec<(f64, Option<&str>)>> = vec![Vec::new(); labels.len()];
            let mut system: Vec<Option<String>> = vec![None; labels.len()];
            for r in &rs {
                let i = pos[r.label.as_str()];
                if let Some(m) = r
                    .metrics
                    .iter()
                    .find(|m| m.name == metric && m.unit == unit && m.better == better)
                {
                    if m.value.is_finite() {
                        per[i].push((m.value, boot_of(r)));
                        system[i] = r.fingerprint.as_ref().map(|f| f.id.clone());
                    }
                }
            }
            let points: Vec<Point> = per
                .into_iter()
                .zip(system)
                .enumerate()
                .filter(|(_, (v, _))| !v.is_empty())
                .map(|(i, (v, sys))| {
                    let mut boots: Vec<&str> = v.iter().filter_map(|x| x.1).collect();
                    boots.sort_unstable();
                    boots.dedup();
                    let (values, by) = if boots.len() >= 2 {
                        let (means, spread) = by_boot(&v);
                        (means, Some(spread.boots))
                    } else {
                        (v.iter().map(|x| x.0).collect(), None)
                    };
                    Point {
                        label: labels[i].clone(),
                        values,
                        boots: by,
                        system: sys,
                    }
                })
                .collect();
            if points.len() >= 2 {
                out.push(Series {
                    benchmark: benchmark.clone(),
                    params: serde_json::from_str(&params).unwrap_or_default(),
                    metric,
                    unit,
                    better,
                    points,
                });
            }
        }
    }
    out
}
