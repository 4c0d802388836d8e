//! Comparing labels: stored runs grouped by benchmark and parameters (so
//! unlike runs are never pooled), each metric summarised per label and set
//! against the baseline with Welch's t-test, the Mann–Whitney U test and
//! effect sizes, and the fingerprints set side by side.
//!
//! The result is plain data ([`Comparison`]); `report/` renders it.

mod boots;
pub mod config_diff;
mod confound;
pub mod curve;
pub mod ejected;
mod emulated;
mod group;
mod missing;
pub mod noise;
#[cfg(test)]
mod report_tests;
pub mod scheduling;
#[cfg(test)]
mod tests;
pub mod traced;
mod undecided;
pub mod verdict;

pub use boots::{boot_of, by_boot, BootSpread};
#[cfg(test)]
use group::summary;
pub(crate) use undecided::undecided;

use crate::measure::Better;
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
    /// Comparisons of the scoreboard, decided as one family, each a
    /// difference and an equivalence test (the scheduling section's
    /// counters are a family of their own: [`scheduling::Scheduling`]).
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

impl Comparison {
    /// How many comparisons of the report, scoreboard and scheduling
    /// section alike, rest on one boot each and have a verdict `counts`.
    pub fn on_one_boot(&self, counts: impl Fn(Verdict) -> bool) -> usize {
        self.groups
            .iter()
            .flat_map(|g| &g.metrics)
            .flat_map(|m| &m.labels)
            .filter_map(|l| l.versus.as_ref())
            .filter(|v| v.rests_on.is_some() && counts(v.verdict))
            .count()
    }
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
        Some(e) => e.spelled(params),
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
/// and, with no `--metric` named, the scheduling section's counters.  The
/// scoreboard (the headline metrics and those named) is the person's
/// question and one family; the counters explain it and are a family of
/// their own, adjusted among themselves, so adding or dropping counters
/// never changes a headline's p adj.
pub fn build(runs: &[RunRecord], o: &Options) -> Result<Comparison> {
    let mut c = undecided(runs, o)?;
    let mut sched = if o.metrics.is_empty() {
        scheduling::undecided(runs, o)
    } else {
        None
    };
    decide_all(&mut c.groups.iter_mut().collect::<Vec<_>>(), o);
    if let Some(s) = sched.as_mut() {
        decide_all(&mut s.groups.iter_mut().collect::<Vec<_>>(), o);
    }
    if !o.allow_emulated {
        emulated::withhold(&mut c.groups, &c.emulated_ids);
        if let Some(s) = sched.as_mut() {
            emulated::withhold(&mut s.groups, &c.emulated_ids);
        }
    }
    c.tally = tally(&c.groups);
    c.tests = c.groups.iter().map(tests_of).sum();
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

/// Every pair of `groups` is one family; a metric that is a fixed
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
