//! Comparing labels: stored runs grouped by benchmark and parameters (so
//! unlike runs are never pooled), each metric summarised per label and set
//! against the baseline with Welch's t-test, the Mann–Whitney U test and
//! effect sizes, and the fingerprints set side by side.
//!
//! The result is plain data ([`Comparison`]); `report/` renders it.

pub mod config_diff;

use crate::bench::Better;
use crate::stats::describe::Summary;
use crate::stats::{bootstrap, effect, mann_whitney, welch};
use crate::store::RunRecord;
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;

/// Which test decides "significant".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decider {
    /// Welch's t-test (can reach significance with 3 runs a side).
    Welch,
    /// Mann–Whitney U (distribution-free; needs 4+ runs a side to reach 0.05).
    MannWhitney,
}

/// Below this many runs on either side no verdict is given.
pub const MIN_RUNS: usize = 3;

/// What to compare.
#[derive(Clone, Debug)]
pub struct Options {
    /// Labels in order; empty = every label found, oldest first.
    pub labels: Vec<String>,
    pub baseline: Option<String>,
    /// Only these metrics (empty = every directional metric, per-CPU ones left out).
    pub metrics: Vec<String>,
    pub alpha: f64,
    pub decider: Decider,
}

/// One label's figures for one metric.
#[derive(Clone, Debug, Serialize)]
pub struct LabelStats {
    pub label: String,
    pub values: Vec<f64>,
    pub summary: Summary,
    /// Percentile-bootstrap 95 % CI of the mean over runs.
    pub bootstrap_ci: Option<(f64, f64)>,
    /// Against the baseline (None for the baseline itself).
    pub versus: Option<Versus>,
}

/// A label against the baseline.
#[derive(Clone, Debug, Serialize)]
pub struct Versus {
    /// Change of the mean, in % of the baseline's mean.
    pub change_pct: f64,
    /// Whether the change is an improvement given the metric's direction.
    pub improved: Option<bool>,
    pub welch_p_value: Option<f64>,
    pub welch_df: Option<f64>,
    pub mann_whitney_p_value: Option<f64>,
    pub mann_whitney_exact: Option<bool>,
    /// Effect size: the Hodges–Lehmann shift (label − baseline), in the
    /// metric's unit.
    pub effect_size: f64,
    pub cohens_d: f64,
    /// None when there are too few runs to say.
    pub significant: Option<bool>,
    /// "better", "worse", "not significant" or "too few runs".
    pub verdict: String,
}

/// One metric of one group.
#[derive(Clone, Debug, Serialize)]
pub struct MetricComparison {
    pub metric: String,
    pub unit: String,
    pub better: Better,
    pub labels: Vec<LabelStats>,
}

/// Runs of one benchmark with one set of parameters.
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub benchmark: String,
    pub params: serde_json::Value,
    pub metrics: Vec<MetricComparison>,
    /// Run ids per label, for reports that need the runs (histograms).
    #[serde(skip)]
    pub run_ids: BTreeMap<String, Vec<i64>>,
}

/// Everything a report shows.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub labels: Vec<String>,
    pub baseline: String,
    pub alpha: f64,
    pub decider: Decider,
    pub config_diff: Vec<config_diff::Row>,
    pub warnings: Vec<String>,
    pub groups: Vec<Group>,
}

/// Parameters that differ between runs of the same experiment and must
/// not split groups.
const VOLATILE_PARAMS: &[&str] = &["round", "stored_ids"];

/// A readable name for a group's parameters.
pub fn params_text(p: &serde_json::Value) -> String {
    match p {
        serde_json::Value::Object(m) => m
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}={s}"),
                v => format!("{k}={v}"),
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

fn group_key(r: &RunRecord) -> (String, String) {
    let mut p = r.params.clone();
    if let serde_json::Value::Object(m) = &mut p {
        for k in VOLATILE_PARAMS {
            m.remove(*k);
        }
    }
    (r.benchmark.clone(), p.to_string())
}

/// Per-CPU / per-thread metrics (`cpu0.p99_us`) are left out unless named.
fn default_metric(name: &str, better: Better) -> bool {
    better != Better::Neither && !name.contains('.')
}

/// Compare `runs` (complete runs only are used).
pub fn build(runs: &[RunRecord], o: &Options) -> Result<Comparison> {
    let runs: Vec<&RunRecord> = runs
        .iter()
        .filter(|r| r.status == crate::store::RunStatus::Complete)
        .collect();
    let mut labels = o.labels.clone();
    if labels.is_empty() {
        for r in &runs {
            if !labels.contains(&r.label) {
                labels.push(r.label.clone());
            }
        }
    }
    for l in &labels {
        if !runs.iter().any(|r| &r.label == l) {
            return Err(crate::error::input(format!(
                "no complete runs for label '{l}' (see `kbench labels`)"
            )));
        }
    }
    if labels.is_empty() {
        return Err(crate::error::input("no complete runs to compare"));
    }
    let baseline = o.baseline.clone().unwrap_or_else(|| labels[0].clone());
    if !labels.contains(&baseline) {
        return Err(crate::error::input(format!(
            "--baseline {baseline} is not among the labels compared"
        )));
    }
    let mut warnings = Vec::new();
    let mut by_group: BTreeMap<(String, String), Vec<&RunRecord>> = BTreeMap::new();
    for r in &runs {
        if labels.contains(&r.label) {
            by_group.entry(group_key(r)).or_default().push(r);
        }
    }
    let mut groups = Vec::new();
    for ((benchmark, params), rs) in by_group {
        let mut metric_order: Vec<(String, String, Better)> = Vec::new();
        for r in &rs {
            for m in &r.metrics {
                let wanted = if o.metrics.is_empty() {
                    default_metric(&m.name, m.better)
                } else {
                    o.metrics.contains(&m.name)
                };
                if wanted && !metric_order.iter().any(|(n, _, _)| n == &m.name) {
                    metric_order.push((m.name.clone(), m.unit.clone(), m.better));
                }
            }
        }
        let mut run_ids: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        for r in &rs {
            run_ids.entry(r.label.clone()).or_default().push(r.id);
        }
        let mut metrics = Vec::new();
        for (name, unit, better) in metric_order {
            let values_of = |label: &str| -> Vec<f64> {
                rs.iter()
                    .filter(|r| r.label == label)
                    .filter_map(|r| r.metrics.iter().find(|m| m.name == name).map(|m| m.value))
                    .filter(|v| v.is_finite())
                    .collect()
            };
            let base_vals = values_of(&baseline);
            let mut per = Vec::new();
            for l in &labels {
                let vals = values_of(l);
                if vals.is_empty() {
                    continue;
                }
                let versus = (l != &baseline && !base_vals.is_empty())
                    .then(|| versus(&base_vals, &vals, better, o));
                per.push(LabelStats {
                    label: l.clone(),
                    summary: Summary::of(&vals, 0.95),
                    bootstrap_ci: bootstrap::mean_ci(&vals, 0.95, 2000, 0x6b62_656e_6368),
                    versus,
                    values: vals,
                });
            }
            if per.len() >= 2 || labels.len() == 1 {
                metrics.push(MetricComparison {
                    metric: name,
                    unit,
                    better,
                    labels: per,
                });
            }
        }
        if !metrics.is_empty() {
            let params: serde_json::Value = serde_json::from_str(&params).unwrap_or_default();
            groups.push(Group {
                benchmark,
                params,
                metrics,
                run_ids,
            });
        }
    }
    if groups.is_empty() {
        warnings.push(
            "no benchmark has runs under more than one of the labels: nothing to set side by side"
                .into(),
        );
    }
    let diff = config_diff::build(&runs, &labels, &mut warnings);
    Ok(Comparison {
        labels,
        baseline,
        alpha: o.alpha,
        decider: o.decider,
        config_diff: diff,
        warnings,
        groups,
    })
}

fn versus(base: &[f64], x: &[f64], better: Better, o: &Options) -> Versus {
    let bm = crate::stats::describe::mean(base);
    let xm = crate::stats::describe::mean(x);
    let change_pct = if bm != 0.0 {
        (xm - bm) / bm.abs() * 100.0
    } else {
        f64::NAN
    };
    let w = welch::test(base, x);
    let mw = mann_whitney::test(base, x);
    let p = match o.decider {
        Decider::Welch => w.map(|w| w.p),
        Decider::MannWhitney => mw.map(|m| m.p),
    };
    let enough = base.len() >= MIN_RUNS && x.len() >= MIN_RUNS;
    let significant = if enough { p.map(|p| p < o.alpha) } else { None };
    let improved = match better {
        Better::Lower => Some(xm < bm),
        Better::Higher => Some(xm > bm),
        Better::Neither => None,
    };
    let verdict = match (significant, improved) {
        (None, _) => "too few runs".to_string(),
        (Some(false), _) => "not significant".to_string(),
        (Some(true), Some(true)) => "better".to_string(),
        (Some(true), Some(false)) => "worse".to_string(),
        (Some(true), None) => "different".to_string(),
    };
    Versus {
        change_pct,
        improved,
        welch_p_value: w.map(|w| w.p),
        welch_df: w.map(|w| w.df),
        mann_whitney_p_value: mw.map(|m| m.p),
        mann_whitney_exact: mw.map(|m| m.exact),
        effect_size: effect::hodges_lehmann(base, x),
        cohens_d: effect::cohens_d(base, x),
        significant,
        verdict,
    }
}
