//! One group's figures: its metrics chosen (mixed units said, never
//! pooled; duplicates and fixed multiples found), each label's values
//! (boot means when a label has several boots) summarised and set against
//! the baseline.

use super::boots::{boot_of, by_boot, one_boot_each, BootSpread};
use super::{default_metric, traced, verdict, Group, LabelStats, MetricComparison, Options};
use crate::measure::Better;
use crate::stats::bootstrap;
use crate::stats::describe::Summary;
use crate::store::RunRecord;
use std::collections::BTreeMap;

/// A metric's identity within a group: name, unit and direction.  Runs
/// that give one name in two units (`s` and `ms`) are never pooled.
type MetricKey = (String, String, Better);

/// One group's metrics, per label, with duplicates and mixed units said.
pub(super) fn build_group(
    benchmark: &str,
    params: &str,
    rs: &[&RunRecord],
    labels: &[String],
    baseline: &str,
    o: &Options,
    warnings: &mut Vec<String>,
) -> Option<Group> {
    let order = metric_order(benchmark, rs, o, warnings);
    let (kept, duplicates) = without_duplicates(rs, order);
    let derived = multiples(&kept);
    let mut run_ids: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for r in rs {
        run_ids.entry(r.label.clone()).or_default().push(r.id);
    }
    let side = Side {
        benchmark,
        rs,
        labels,
        baseline,
        o,
    };
    let metrics: Vec<MetricComparison> = kept
        .into_iter()
        .filter_map(|(key, _)| side.metric(key, warnings))
        .collect();
    if metrics.is_empty() {
        return None;
    }
    Some(Group {
        benchmark: benchmark.to_string(),
        params: serde_json::from_str(params).unwrap_or_default(),
        metrics,
        duplicates,
        derived,
        waited_behind: traced::waited_behind(rs, labels),
        run_ids,
    })
}

/// The metrics the group compares, in the order runs give them; a name
/// given in two units (or directions) is said, and kept apart.
fn metric_order(
    benchmark: &str,
    rs: &[&RunRecord],
    o: &Options,
    warnings: &mut Vec<String>,
) -> Vec<MetricKey> {
    let mut order: Vec<MetricKey> = Vec::new();
    for r in rs {
        for m in &r.metrics {
            let wanted = if o.metrics.is_empty() {
                default_metric(&m.name, m.better)
            } else {
                o.metrics.contains(&m.name)
            };
            let key = (m.name.clone(), m.unit.clone(), m.better);
            if wanted && !order.contains(&key) {
                order.push(key);
            }
        }
    }
    for (i, (name, unit, better)) in order.iter().enumerate() {
        if let Some((_, u2, b2)) = order[..i].iter().find(|k| &k.0 == name) {
            warnings.push(format!(
                "{benchmark} {name}: runs give it as {u2} ({}) and as {unit} ({}); compared separately, never pooled",
                b2.as_str(),
                better.as_str()
            ));
        }
    }
    order
}

/// The metrics kept with each one's value in every run, and those left out
/// because an earlier one has the same unit and the same value in every run
/// (duplicate, original).
fn without_duplicates(rs: &[&RunRecord], order: Vec<MetricKey>) -> (Kept, Vec<(String, String)>) {
    let per_run = |k: &MetricKey| -> Vec<Option<f64>> {
        rs.iter()
            .map(|r| {
                r.metrics
                    .iter()
                    .find(|m| m.name == k.0 && m.unit == k.1 && m.better == k.2)
                    .map(|m| m.value)
            })
            .collect()
    };
    let mut duplicates = Vec::new();
    let mut kept: Kept = Vec::new();
    for k in order {
        let v = per_run(&k);
        if let Some((orig, _)) = kept.iter().find(|(o, ov)| o.1 == k.1 && *ov == v) {
            duplicates.push((k.0.clone(), orig.0.clone()));
            continue;
        }
        kept.push((k, v));
    }
    (kept, duplicates)
}

/// Each metric kept, with its value in every run of the group.
type Kept = Vec<(MetricKey, Vec<Option<f64>>)>;

/// Each label's values of one metric, with the boot of each.
type PerLabel<'a> = Vec<Vec<(f64, Option<&'a str>)>>;

/// What every metric of one group is compared within.
struct Side<'a> {
    benchmark: &'a str,
    rs: &'a [&'a RunRecord],
    labels: &'a [String],
    baseline: &'a str,
    o: &'a Options,
}

impl Side<'_> {
    /// Each label's finite values of one metric with the boot of each, and
    /// how many values were not finite.
    fn values(&self, key: &MetricKey) -> (PerLabel<'_>, usize) {
        let (name, unit, better) = key;
        let mut dropped = 0usize;
        let per_label = self
            .labels
            .iter()
            .map(|label| {
                let all: Vec<(f64, Option<&str>)> = self
                    .rs
                    .iter()
                    .filter(|r| &r.label == label)
                    .filter_map(|r| {
                        r.metrics
                            .iter()
                            .find(|m| &m.name == name && &m.unit == unit && m.better == *better)
                            .map(|m| (m.value, boot_of(r)))
                    })
                    .collect();
                let finite: Vec<_> = all.iter().copied().filter(|v| v.0.is_finite()).collect();
                dropped += all.len() - finite.len();
                finite
            })
            .collect();
        (per_label, dropped)
    }

    /// One metric compared across the labels, or None when fewer than two
    /// labels have values (and more than one label is compared).
    fn metric(&self, key: MetricKey, warnings: &mut Vec<String>) -> Option<MetricComparison> {
        let (per_label, dropped) = self.values(&key);
        let (name, unit, better) = key;
        let benchmark = self.benchmark;
        let boot_unit = per_label.iter().any(|rs| {
            let mut seen: Vec<&str> = rs.iter().filter_map(|r| r.1).collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len() >= 2
        });
        let values_of = |i: usize| -> (Vec<f64>, Option<BootSpread>) {
            if boot_unit {
                let (v, s) = by_boot(&per_label[i]);
                (v, Some(s))
            } else {
                (per_label[i].iter().map(|r| r.0).collect(), None)
            }
        };
        let base_idx = self
            .labels
            .iter()
            .position(|l| l == self.baseline)
            .unwrap_or(0);
        let base_vals = values_of(base_idx).0;
        let mut per = Vec::new();
        for (i, l) in self.labels.iter().enumerate() {
            let (vals, boots) = values_of(i);
            if vals.is_empty() {
                continue;
            }
            if let Some(b) = boots.as_ref().filter(|b| b.boots == 1) {
                warnings.push(format!(
                    "{benchmark} {name}: {l} has runs from one boot only ({} runs): boot-to-boot variation is unseen, and with the boot as the unit it has n = 1",
                    b.runs
                ));
            }
            let mut versus = (l != self.baseline && !base_vals.is_empty())
                .then(|| verdict::versus(&base_vals, &vals, better, self.o));
            if let Some(v) = versus.as_mut() {
                v.unit = if boot_unit { "boots" } else { "runs" };
                v.rests_on = one_boot_each(&per_label[base_idx], &per_label[i]);
            }
            per.push(LabelStats {
                label: l.clone(),
                summary: summary(&vals),
                bootstrap_ci: bootstrap::mean_ci(&vals, 0.95, 2000, 0x6b62_656e_6368),
                versus,
                values: vals,
                boots,
            });
        }
        if dropped > 0 {
            warnings.push(format!(
                "{benchmark} {name}: {dropped} value(s) that are not finite numbers left out"
            ));
        }
        if boot_unit {
            warnings.push(boot_unit_note(benchmark, &name, &per));
        }
        (per.len() >= 2 || self.labels.len() == 1).then_some(MetricComparison {
            metric: name,
            unit,
            better,
            labels: per,
        })
    }
}

/// The note above a metric compared by boot means: each label's boots,
/// runs and the spread within and between its boots.
fn boot_unit_note(benchmark: &str, name: &str, per: &[LabelStats]) -> String {
    format!(
        "{benchmark} {name}: runs come from several boots, so the boot is the unit (n = boots, each a boot mean): {}",
        per.iter()
            .filter_map(|p| p.boots.as_ref().map(|b| format!(
                "{} {} boots/{} runs, SD within boots {}, SD of boot means {}",
                p.label,
                b.boots,
                b.runs,
                b.within_sd.map_or("-".into(), |v| format!("{v:.4}")),
                b.between_sd.map_or("-".into(), |v| format!("{v:.4}"))
            )))
            .collect::<Vec<_>>()
            .join("; ")
    )
}

/// Metrics that are a fixed multiple of an earlier one in every run of
/// the group (the same ratio, other than 1, to 1e-9): (derived, of).
fn multiples(kept: &Kept) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (j, (k, v)) in kept.iter().enumerate() {
        let of = kept[..j].iter().find(|(_, w)| {
            let mut ratio = None;
            v.len() >= 2
                && v.iter().zip(w).all(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) if *b != 0.0 && a.is_finite() && b.is_finite() => {
                        let r = a / b;
                        match ratio {
                            None => {
                                ratio = Some(r);
                                r != 1.0 && r > 0.0
                            }
                            Some(q) => (r - q).abs() <= 1e-9 * q.abs(),
                        }
                    }
                    _ => false,
                })
        });
        if let Some((o, _)) = of {
            if !out.iter().any(|(d, _): &(String, String)| d == &o.0) {
                out.push((k.0.clone(), o.0.clone()));
            }
        }
    }
    out
}

/// Summary with a 95 % interval that respects positive metrics.
pub(super) fn summary(vals: &[f64]) -> Summary {
    let mut s = Summary::of(vals, 0.95);
    if let Some((lo, hi)) = crate::stats::interval::cox_mean(vals, 0.95) {
        s.ci_low = lo;
        s.ci_high = hi;
    }
    // A metric none of whose values is negative (a latency that read 0)
    // has a mean of at least 0: the interval is cut there (cutting an
    // interval to where the mean can be keeps its coverage).
    // (f64::max would turn the NaN of a single run's interval into 0.)
    if vals.iter().all(|v| *v >= 0.0) && s.ci_low.is_finite() {
        s.ci_low = s.ci_low.max(0.0);
    }
    s
}
