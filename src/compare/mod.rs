//! Comparing labels: stored runs grouped by benchmark and parameters (so
//! unlike runs are never pooled), each metric summarised per label and set
//! against the baseline with Welch's t-test, the Mann–Whitney U test and
//! effect sizes, and the fingerprints set side by side.
//!
//! The result is plain data ([`Comparison`]); `report/` renders it.

pub mod config_diff;
pub mod curve;
mod emulated;
mod missing;
#[cfg(test)]
mod report_tests;
pub mod scheduling;
#[cfg(test)]
mod tests;
pub mod traced;
pub mod verdict;

use crate::bench::Better;
use crate::stats::bootstrap;
use crate::stats::describe::Summary;
use crate::stats::multiple::Correction;
use crate::store::RunRecord;
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeMap;
pub use verdict::{Verdict, Versus};

/// Which test decides "significant".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decider {
    /// Welch's t-test (can reach significance with 3 runs a side).
    Welch,
    /// Mann–Whitney U (distribution-free; needs 4+ runs a side to reach 0.05).
    MannWhitney,
}

pub use crate::stats::MIN_RUNS;

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
    pub correction: Correction,
    /// Smallest change (%) that matters; within it, *equivalent*.
    pub threshold_pct: f64,
    /// With `--detect`: the change (%) to size the runs needed for.
    pub detect_pct: Option<f64>,
    /// Leave out runs the health monitor marked suspect.
    pub exclude_suspect: bool,
    /// Keep runs stored as warm-up (left out by default).
    pub include_warmup: bool,
    /// Give verdicts on runs marked emulated (guests under TCG or nested
    /// virtualisation), which otherwise get none.
    pub allow_emulated: bool,
}

impl Default for Options {
    /// Every label, Welch, Holm at 0.05, the default threshold.
    fn default() -> Options {
        Options {
            labels: Vec::new(),
            baseline: None,
            metrics: Vec::new(),
            alpha: 0.05,
            decider: Decider::Welch,
            correction: Correction::Holm,
            threshold_pct: crate::stats::DEFAULT_THRESHOLD_PCT,
            detect_pct: None,
            exclude_suspect: false,
            include_warmup: false,
            allow_emulated: false,
        }
    }
}

/// One label's figures for one metric.
#[derive(Clone, Debug, Serialize)]
pub struct LabelStats {
    pub label: String,
    pub values: Vec<f64>,
    /// n, mean, median, sd, range; its CI is the t interval, or for
    /// positive metrics the log-normal (Cox) interval, which stays positive.
    pub summary: Summary,
    /// Bootstrap-t 95 % CI of the mean over runs (from 5 runs on).
    pub bootstrap_ci: Option<(f64, f64)>,
    /// Against the baseline (None for the baseline itself).
    pub versus: Option<Versus>,
    /// When the comparison takes the boot as its unit: the spread within
    /// and between boots (`values` are then boot means).
    pub boots: Option<BootSpread>,
}

/// Variation within and between boots of one label and metric.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BootSpread {
    pub boots: usize,
    pub runs: usize,
    /// Pooled SD of runs around their own boot's mean.
    pub within_sd: Option<f64>,
    /// SD of the boot means.
    pub between_sd: Option<f64>,
}

/// Runs nested in boots are not independent: when any label of a group
/// has runs from two or more boots, each label's values become its boot
/// means (runs of unknown boot count as one boot), and the spread within
/// and between boots is kept.  This is the "analyse the cluster means"
/// approach to nested data (Snedecor & Cochran, *Statistical Methods*,
/// 8th ed., 1989, §13.12): exact for balanced designs and never
/// anticonservative, at the cost of fewer degrees of freedom than a mixed
/// model would claim.
pub fn by_boot(runs: &[(f64, Option<&str>)]) -> (Vec<f64>, BootSpread) {
    let mut boots: Vec<(Option<&str>, Vec<f64>)> = Vec::new();
    for &(v, b) in runs {
        match boots.iter_mut().find(|(k, _)| *k == b) {
            Some((_, vs)) => vs.push(v),
            None => boots.push((b, vec![v])),
        }
    }
    let means: Vec<f64> = boots
        .iter()
        .map(|(_, v)| v.iter().sum::<f64>() / v.len() as f64)
        .collect();
    let n = runs.len();
    let ss: f64 = boots
        .iter()
        .zip(&means)
        .map(|((_, v), m)| v.iter().map(|x| (x - m).powi(2)).sum::<f64>())
        .sum();
    let spread = BootSpread {
        boots: boots.len(),
        runs: n,
        within_sd: (n > boots.len()).then(|| (ss / (n - boots.len()) as f64).sqrt()),
        between_sd: (means.len() > 1).then(|| crate::stats::describe::variance(&means).sqrt()),
    };
    (means, spread)
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
    /// Metrics left out because they equal another in every run
    /// (`p9999_us` = `max_us` below 10,000 samples): (left out, kept).
    pub duplicates: Vec<(String, String)>,
    /// Metrics shown but not tested on their own because they are a fixed
    /// multiple of another in every run (`mb_per_s` of `messages_per_s`):
    /// (derived, the one it is a multiple of).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub derived: Vec<(String, String)>,
    /// What each label's worst wake-ups waited behind, when traced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub waited_behind: Vec<traced::LabelTrace>,
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
    pub correction: Correction,
    pub threshold_pct: f64,
    /// Verdict counts over every label and metric, in report order.
    pub tally: Vec<(Verdict, usize)>,
    /// Comparisons decided as one family (the scoreboard's and the
    /// scheduling section's), each a difference and an equivalence test.
    pub tests: usize,
    pub config_diff: Vec<config_diff::Row>,
    /// What a reader must know before the scoreboard (emulated runs),
    /// said above it in every format.
    pub above: Vec<String>,
    pub warnings: Vec<String>,
    /// Runs left out by rule, not by trouble (warm-up runs), said in the
    /// footnotes of every report.
    pub left_out: Vec<String>,
    /// Metrics or benchmarks some compared label has and another lacks
    /// (or has in another unit): not compared, and said.
    pub missing: Vec<String>,
    pub groups: Vec<Group>,
    /// How the kernel scheduled the runs: the `sched.*` counters that
    /// differ, a family of their own (default reports only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling: Option<scheduling::Scheduling>,
    /// Shown `--wide`: whole labels, no wrapping (a presentation choice
    /// the command sets after building).
    #[serde(skip)]
    pub wide: bool,
    /// The runs from emulated guests, whose verdicts are withheld.
    #[serde(skip)]
    pub emulated_ids: Vec<i64>,
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

/// A group's benchmark and parameters as its command line, every flag at
/// its default left out (`schbench -t 1 -r 8`), then what no flag says
/// (`var.level=4`); another tool's import as `name=value` members.  The
/// scenario task is not in it (reports say it apart).
pub fn command_text(benchmark: &str, params: &serde_json::Value) -> String {
    std::iter::once(benchmark.to_string())
        .chain(command_words(benchmark, params))
        .collect::<Vec<_>>()
        .join(" ")
}

/// [`command_text`] without the benchmark's name: its flags alone.
pub fn command_words(benchmark: &str, params: &serde_json::Value) -> Vec<String> {
    match crate::registry::find(benchmark) {
        Some(e) => (e.spell)(params),
        None => crate::lifecycle::spell::members(params),
    }
}

/// Runs compare when their benchmark and canonical parameters are equal:
/// each benchmark reads its stored parameters of any version (see
/// [`crate::registry::canonical_params`]), so a field added with a default
/// does not split old runs from new ones.
pub fn group_key(r: &RunRecord) -> (String, String) {
    let mut p = crate::registry::canonical_params(&r.benchmark, &r.params);
    if let serde_json::Value::Object(m) = &mut p {
        for k in VOLATILE_PARAMS {
            m.remove(*k);
        }
        // What a scenario adds (its task, the variables set with --var)
        // stays, whatever the benchmark's own reading keeps.
        if let Some(raw) = r.params.as_object() {
            for (k, v) in raw {
                if k == "task" || k.starts_with("var.") {
                    m.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
    (r.benchmark.clone(), p.to_string())
}

/// Per-CPU / per-thread metrics (`cpu0.p99_us`) are left out unless named.
pub fn default_metric(name: &str, better: Better) -> bool {
    better != Better::Neither && !name.contains('.')
}

/// Compare `runs` (complete runs only are used): the scoreboard's groups
/// and, with no `--metric` named, the scheduling section's counters, all
/// of their tests decided as one family, so the whole report keeps α.
pub fn build(runs: &[RunRecord], o: &Options) -> Result<Comparison> {
    let mut c = undecided(runs, o)?;
    let mut sched = if o.metrics.is_empty() {
        scheduling::undecided(runs, o)
    } else {
        None
    };
    let mut both: Vec<&mut Group> = c.groups.iter_mut().collect();
    if let Some(s) = sched.as_mut() {
        both.extend(s.groups.iter_mut());
    }
    decide_all(&mut both, o);
    if !o.allow_emulated {
        emulated::withhold(&mut c.groups, &c.emulated_ids);
        if let Some(s) = sched.as_mut() {
            emulated::withhold(&mut s.groups, &c.emulated_ids);
        }
    }
    c.tally = tally(&c.groups);
    c.tests = c
        .groups
        .iter()
        .chain(sched.iter().flat_map(|s| &s.groups))
        .map(tests_of)
        .sum();
    c.scheduling = sched.and_then(|s| scheduling::section(&s));
    Ok(c)
}

/// Tests that can give a verdict in a group: the comparisons with enough
/// runs (each a difference test and an equivalence test), a metric that
/// is a fixed multiple of another not counted again.
fn tests_of(g: &Group) -> usize {
    g.metrics
        .iter()
        .flat_map(|m| &m.labels)
        .filter(|l| {
            l.versus
                .as_ref()
                .is_some_and(|v| v.p_value.is_some() && v.same_test_as.is_none())
        })
        .count()
}

/// The comparison with every pair's figures but no verdict yet.
pub(crate) fn undecided(runs: &[RunRecord], o: &Options) -> Result<Comparison> {
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
    let suspect =
        crate::health::suspect_ids(runs.iter().copied().filter(|r| labels.contains(&r.label)));
    if !suspect.is_empty() {
        let chosen = runs.iter().filter(|r| labels.contains(&r.label)).count();
        let ids = crate::text::id_list(&suspect);
        warnings.push(if o.exclude_suspect {
            format!(
                "{} suspect run(s) left out (--exclude-suspect): {ids}",
                suspect.len()
            )
        } else {
            format!(
                "{} of {chosen} runs are suspect (the machine disturbed them; `kbench runs show ID` says how): {ids}; --exclude-suspect leaves them out",
                suspect.len()
            )
        });
    }
    let emulated = emulated::find(&runs, &labels);
    let compared = runs.iter().filter(|r| labels.contains(&r.label)).count();
    let mut above: Vec<String> = emulated::notice(&emulated, compared, o.allow_emulated)
        .into_iter()
        .collect();
    let warmup: Vec<i64> = runs
        .iter()
        .filter(|r| labels.contains(&r.label) && r.settings["warmup"] == true)
        .map(|r| r.id)
        .collect();
    let mut left_out = Vec::new();
    if !warmup.is_empty() {
        left_out.push(if o.include_warmup {
            format!(
                "{} warm-up run(s) kept (--include-warmup): {}",
                warmup.len(),
                crate::text::id_list(&warmup)
            )
        } else {
            format!(
                "{} warm-up run(s) left out (the first repetition differs for their benchmark; --include-warmup keeps them): {}",
                warmup.len(),
                crate::text::id_list(&warmup)
            )
        });
    }
    let mut by_group: BTreeMap<(String, String), Vec<&RunRecord>> = BTreeMap::new();
    for r in &runs {
        if o.exclude_suspect && suspect.contains(&r.id) {
            continue;
        }
        if !o.include_warmup && warmup.contains(&r.id) {
            continue;
        }
        if labels.contains(&r.label) {
            by_group.entry(group_key(r)).or_default().push(r);
        }
    }
    let missing = missing::missing(&by_group, &labels, o);
    // Said first, and beside each verdict it touches.
    if let Some(w) = single_boot(&runs, &labels) {
        above.push(w);
    }
    let mut groups = Vec::new();
    for ((benchmark, params), rs) in by_group {
        let g = build_group(
            &benchmark,
            &params,
            &rs,
            &labels,
            &baseline,
            o,
            &mut warnings,
        );
        if let Some(g) = g {
            groups.push(g);
        }
    }
    if groups.is_empty() && missing.is_empty() {
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
        correction: o.correction,
        threshold_pct: o.threshold_pct,
        tally: Vec::new(),
        tests: 0,
        config_diff: diff,
        above,
        warnings,
        left_out,
        missing,
        groups,
        scheduling: None,
        wide: false,
        emulated_ids: emulated.ids.clone(),
    })
}

/// A metric's identity within a group: name, unit and direction.  Runs
/// that give one name in two units (`s` and `ms`) are never pooled.
type MetricKey = (String, String, Better);

/// One group's metrics, per label, with duplicates and mixed units said.
fn build_group(
    benchmark: &str,
    params: &str,
    rs: &[&RunRecord],
    labels: &[String],
    baseline: &str,
    o: &Options,
    warnings: &mut Vec<String>,
) -> Option<Group> {
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
    // Each metric's value in each run of the group, for the duplicate check.
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
    let mut kept: Vec<(MetricKey, Vec<Option<f64>>)> = Vec::new();
    for k in order {
        let v = per_run(&k);
        if let Some((orig, _)) = kept.iter().find(|(o, ov)| o.1 == k.1 && *ov == v) {
            duplicates.push((k.0.clone(), orig.0.clone()));
            continue;
        }
        kept.push((k, v));
    }
    let derived = multiples(&kept);
    let mut run_ids: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for r in rs {
        run_ids.entry(r.label.clone()).or_default().push(r.id);
    }
    let mut metrics = Vec::new();
    for ((name, unit, better), _) in kept {
        let mut dropped = 0usize;
        let mut runs_of = |label: &str| -> Vec<(f64, Option<&str>)> {
            let all: Vec<(f64, Option<&str>)> = rs
                .iter()
                .filter(|r| r.label == label)
                .filter_map(|r| {
                    r.metrics
                        .iter()
                        .find(|m| m.name == name && m.unit == unit && m.better == better)
                        .map(|m| (m.value, boot_of(r)))
                })
                .collect();
            let finite: Vec<_> = all.iter().copied().filter(|v| v.0.is_finite()).collect();
            dropped += all.len() - finite.len();
            finite
        };
        let per_label: Vec<Vec<(f64, Option<&str>)>> = labels.iter().map(|l| runs_of(l)).collect();
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
        let base_idx = labels.iter().position(|l| l == baseline).unwrap_or(0);
        let base_vals = values_of(base_idx).0;
        let mut per = Vec::new();
        for (i, l) in labels.iter().enumerate() {
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
            let mut versus = (l != baseline && !base_vals.is_empty())
                .then(|| verdict::versus(&base_vals, &vals, better, o));
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
            warnings.push(format!(
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
            ));
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

/// Metrics that are a fixed multiple of an earlier one in every run of
/// the group (the same ratio, other than 1, to 1e-9): (derived, of).
fn multiples(kept: &[(MetricKey, Vec<Option<f64>>)]) -> Vec<(String, String)> {
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

/// The README's A/B workflow (run on kernel A, reboot, run on B) gives
/// each label's runs from one boot: the boot-to-boot difference (a few %
/// on many machines) is then inside every change and no interval sees it.
/// Said whenever some label's runs all come from one boot while the
/// labels' boots differ.
fn single_boot(runs: &[&RunRecord], labels: &[String]) -> Option<String> {
    if labels.len() < 2 {
        return None;
    }
    let boots = |l: &String| {
        let mut b: Vec<&str> = runs
            .iter()
            .filter(|r| &r.label == l)
            .filter_map(|r| boot_of(r))
            .collect();
        b.sort_unstable();
        b.dedup();
        b
    };
    let per: Vec<(&String, Vec<&str>)> = labels.iter().map(|l| (l, boots(l))).collect();
    let mut all: Vec<&str> = per.iter().flat_map(|(_, b)| b.iter().copied()).collect();
    all.sort_unstable();
    all.dedup();
    if all.len() < 2 {
        return None;
    }
    let one: Vec<&str> = per
        .iter()
        .filter(|(_, b)| b.len() == 1)
        .map(|(l, _)| l.as_str())
        .collect();
    (!one.is_empty()).then(|| {
        format!(
            "{}: each of these labels' runs come from one boot, and the labels' boots differ: what differs between boots (memory layout, caches, interrupt placement; often a few %) is then part of every change shown and of no interval; for a verdict on the kernel rather than the boot, give each label several boots (kbench campaign), or compare settings within one boot (kbench matrix)",
            one.join(", ")
        )
    })
}

/// Both sides' runs from one boot each, and the boots differ: a verdict
/// then cannot tell the kernel from the luck of its boot.
fn one_boot_each(base: &[(f64, Option<&str>)], x: &[(f64, Option<&str>)]) -> Option<String> {
    let boots = |v: &[(f64, Option<&str>)]| {
        let mut b: Vec<&str> = v.iter().filter_map(|r| r.1).collect();
        b.sort_unstable();
        b.dedup();
        (b.len() == 1 && v.iter().all(|r| r.1.is_some())).then(|| b[0].to_string())
    };
    match (boots(base), boots(x)) {
        (Some(a), Some(b)) if a != b => Some(verdict::ONE_BOOT.to_string()),
        _ => None,
    }
}

/// The boot a run was measured in, when known.
pub fn boot_of(r: &RunRecord) -> Option<&str> {
    r.fingerprint.as_ref()?.boot_id.as_deref()
}

/// Summary with a 95 % interval that respects positive metrics.
fn summary(vals: &[f64]) -> Summary {
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

/// Every pair of the report is one family; a metric that is a fixed
/// multiple of another takes that one's test ([`Group::derived`]).
fn decide_all(groups: &mut [&mut Group], o: &Options) {
    let mut all = Vec::new();
    // (group, metric name, label) of each pair, to find a derived one's source.
    let mut keys: Vec<(usize, String, String)> = Vec::new();
    let mut derived: Vec<(usize, String, String)> = Vec::new();
    for (gi, g) in groups.iter_mut().enumerate() {
        for (d, of) in &g.derived {
            derived.push((gi, d.clone(), of.clone()));
        }
        for m in g.metrics.iter_mut() {
            let base = m
                .labels
                .iter()
                .find(|l| l.versus.is_none())
                .map(|l| l.values.clone())
                .unwrap_or_default();
            for l in m.labels.iter_mut() {
                if let Some(v) = l.versus.as_mut() {
                    keys.push((gi, m.metric.clone(), l.label.clone()));
                    all.push((v, base.clone(), l.values.clone()));
                }
            }
        }
    }
    let source: Vec<Option<usize>> = keys
        .iter()
        .map(|(gi, name, label)| {
            let of = derived.iter().find(|(g, d, _)| g == gi && d == name)?;
            keys.iter()
                .position(|(g, n, l)| g == gi && n == &of.2 && l == label)
        })
        .collect();
    let mut refs: Vec<(&mut Versus, &[f64], &[f64])> = all
        .iter_mut()
        .map(|(v, b, x)| (&mut **v, b.as_slice(), x.as_slice()))
        .collect();
    for (r, s) in refs.iter_mut().zip(&source) {
        if let Some(s) = s {
            r.0.same_test_as = Some(keys[*s].1.clone());
        }
    }
    verdict::decide(&mut refs, &source, o);
}

/// Verdict counts in a fixed order, zero counts left out.
fn tally(groups: &[Group]) -> Vec<(Verdict, usize)> {
    let order = [
        Verdict::Better,
        Verdict::Worse,
        Verdict::Different,
        Verdict::Equivalent,
        Verdict::Inconclusive,
        Verdict::Emulated,
        Verdict::TooFewRuns,
    ];
    order
        .iter()
        .map(|v| {
            let n = groups
                .iter()
                .flat_map(|g| &g.metrics)
                .flat_map(|m| &m.labels)
                .filter(|l| l.versus.as_ref().is_some_and(|x| x.verdict == *v))
                .count();
            (*v, n)
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}
