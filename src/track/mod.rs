//! `kbench track`: where a series of labels (release candidates, nightly
//! builds, a distribution's kernel updates) changed, by how much, and
//! whether that is real.
//!
//! The labels are ordered (by time, kernel version, or as given); every
//! benchmark and metric group forms a series, each label's runs (or
//! boots) its values; change points are found with rank CUSUM tests
//! sensitive to level and to spread or a tail, the false discovery rate
//! held across every series of the report ([`detect`]), and each change
//! point is said as a comparison between two labels, with the change and
//! its interval, the segments' medians and what differs between the two
//! labels' systems ([`report`], [`html`]).

pub mod detect;
mod html;
pub mod order;
pub mod report;
pub mod series;
pub mod units;

use crate::error::input;
use crate::store::{RunFilter, RunRecord, Store};
use anyhow::Result;
use order::{Keyed, Order};

/// What to track.
#[derive(Clone, Debug)]
pub struct Options {
    /// Labels named (in the order given).
    pub labels: Vec<String>,
    /// Labels matching this pattern (`*` any run of characters, `?` one).
    pub glob: Option<String>,
    /// Only runs started on or after this time (Unix seconds).
    pub since: Option<f64>,
    pub order: Order,
    pub metrics: Vec<String>,
    /// The false discovery rate held across the report.
    pub q: f64,
    pub threshold_pct: f64,
    pub format: Format,
    pub fail_on_change: bool,
    /// Find change points in series of emulated runs too.
    pub allow_emulated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Markdown,
    Json,
    Html,
}

impl Format {
    /// The report format that renders it: track's formats are
    /// [`crate::report::Format`]s of a series report, as compare's are of
    /// a comparison.
    pub fn renderer(self) -> &'static dyn crate::report::Format<Tracked> {
        match self {
            Format::Table => &report::Table,
            Format::Markdown => &report::Markdown,
            Format::Json => &report::Json,
            Format::Html => &html::Html,
        }
    }
}

/// Everything a report shows.
pub struct Tracked {
    pub labels: Vec<Keyed>,
    pub series: Vec<series::Series>,
    pub detection: detect::Detection,
    pub order: Order,
    /// What differs between the two labels at each change point, per
    /// series and change point.
    pub systems: Vec<Vec<Vec<String>>>,
    /// Per label, its runs failed by a sched_ext ejection, with the
    /// kernel's reasons (left out of every series).
    pub ejections: Vec<String>,
    /// Why series of emulated runs have no change point (or, allowed,
    /// that they have the emulator's), said above the series.
    pub emulated: Option<String>,
}

/// `*` and `?` matching, the whole text.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // Iterative matching with one backtrack point (linear in practice).
    let (mut i, mut j, mut star, mut mark) = (0usize, 0usize, None::<usize>, 0usize);
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    while i < p.len() && p[i] == '*' {
        i += 1;
    }
    i == p.len()
}

/// The labels to track, keyed for ordering.
fn labels(o: &Options, store: &dyn Store) -> Result<Vec<Keyed>> {
    let all = store.labels()?;
    let chosen: Vec<String> = if !o.labels.is_empty() {
        for l in &o.labels {
            if !all.iter().any(|s| &s.label == l) {
                return Err(input(format!(
                    "no label '{l}' in {} (see `kbench labels`)",
                    store.describe()
                )));
            }
        }
        o.labels.clone()
    } else {
        all.iter()
            .filter(|s| o.glob.as_deref().is_none_or(|g| glob_match(g, &s.label)))
            .filter(|s| o.since.is_none_or(|t| s.last >= t))
            .map(|s| s.label.clone())
            .collect()
    };
    if chosen.len() < 2 {
        return Err(input(format!(
            "a series needs at least two labels; {} match{}",
            chosen.len(),
            if chosen.len() == 1 { "es" } else { "" }
        )));
    }
    Ok(chosen
        .into_iter()
        .map(|label| {
            let first = all
                .iter()
                .find(|s| s.label == label)
                .map_or(0.0, |s| s.first);
            Keyed {
                label,
                first,
                release: None,
            }
        })
        .collect())
}

/// Each label's first run and the release its runs say (when they agree
/// on one), in one pass over the runs.
fn first_and_release(runs: &[RunRecord]) -> std::collections::HashMap<&str, (f64, Option<String>)> {
    let mut seen: std::collections::HashMap<&str, (f64, std::collections::BTreeSet<&str>)> =
        std::collections::HashMap::new();
    for r in runs {
        let e = seen
            .entry(r.label.as_str())
            .or_insert((f64::INFINITY, Default::default()));
        e.0 = e.0.min(r.started);
        if let Some(rel) = r.fingerprint.as_ref().and_then(|f| f.release.as_deref()) {
            e.1.insert(rel);
        }
    }
    seen.into_iter()
        .map(|(l, (t, rel))| {
            let one =
                (rel.len() == 1).then(|| rel.into_iter().next().unwrap_or_default().to_string());
            (l, (t, one))
        })
        .collect()
}

/// Build the report: the labels in order, their series, the change points.
pub fn build(o: &Options, store: &dyn Store) -> Result<(Tracked, Vec<RunRecord>)> {
    let keyed = labels(o, store)?;
    let filter = RunFilter {
        labels: keyed.iter().map(|k| k.label.clone()).collect(),
        since: o.since,
        ..Default::default()
    };
    // Failed runs are only counted: a sched_ext scheduler ejected during
    // some of a label's runs is said beside the series.
    let (runs, others): (Vec<RunRecord>, Vec<RunRecord>) = store
        .load_runs(&filter, false)?
        .into_iter()
        .partition(|r| r.status == crate::store::RunStatus::Complete);
    let known = first_and_release(&runs);
    let keyed: Vec<Keyed> = keyed
        .into_iter()
        .map(|mut k| {
            if let Some((t, rel)) = known.get(k.label.as_str()) {
                k.first = *t;
                k.release = rel.clone();
            }
            k
        })
        .collect();
    let ordered = order::sort(keyed, o.order);
    let names: Vec<String> = ordered.iter().map(|k| k.label.clone()).collect();
    let series = series::build(&runs, &names, &o.metrics);
    if series.is_empty() {
        return Err(input(
            "no metric has values under two or more of these labels: nothing to track",
        ));
    }
    let (detection, emulated) = detect_decidable(&series, &runs, o);
    let systems = report::systems(&series, &detection, &runs);
    let ejections = crate::compare::ejected::notice(&runs, &others, &names);
    Ok((
        Tracked {
            labels: ordered,
            series,
            detection,
            order: o.order,
            systems,
            ejections,
            emulated,
        },
        runs,
    ))
}

/// Change points in every series but those of emulated runs (unless
/// allowed), the false discovery rate held over the series tested; and
/// the line that says so.
fn detect_decidable(
    series: &[series::Series],
    runs: &[RunRecord],
    o: &Options,
) -> (detect::Detection, Option<String>) {
    let e = crate::health::emulated::among(runs);
    if !e.any() || o.allow_emulated {
        let line = e.any().then(|| {
            format!(
                "emulated: {}; change points are found in them anyway (--allow-emulated): they are the emulator's as much as the kernel's",
                e.counted()
            )
        });
        return (detect::detect(series, o.q, o.threshold_pct), line);
    }
    // A series is withheld when a run of its group under one of its labels
    // is emulated (the series' params are its group key's, parsed).
    let touched: std::collections::BTreeSet<(String, String, &str)> = runs
        .iter()
        .filter(|r| e.ids.contains(&r.id))
        .map(|r| {
            let (benchmark, params) = crate::compare::group_key(r);
            (benchmark, params, r.label.as_str())
        })
        .collect();
    let withheld: Vec<bool> = series
        .iter()
        .map(|s| {
            let params = s.params.to_string();
            s.points
                .iter()
                .any(|p| touched.contains(&(s.benchmark.clone(), params.clone(), p.label.as_str())))
        })
        .collect();
    let kept: Vec<series::Series> = series
        .iter()
        .zip(&withheld)
        .filter(|(_, w)| !**w)
        .map(|(s, _)| s.clone())
        .collect();
    let part = detect::detect(&kept, o.q, o.threshold_pct);
    // The tested series' results back in their places, nothing in the
    // withheld ones'.
    let (mut cps, mut spread, mut detectable) = (
        part.per_series.into_iter(),
        part.label_spread_pct.into_iter(),
        part.detectable_pct.into_iter(),
    );
    let mut d = detect::Detection {
        per_series: Vec::new(),
        label_spread_pct: Vec::new(),
        detectable_pct: Vec::new(),
        withheld: withheld.iter().filter(|w| **w).count(),
        ..part
    };
    for &w in &withheld {
        if w {
            d.per_series.push(Vec::new());
            d.label_spread_pct.push(None);
            d.detectable_pct.push(None);
        } else {
            d.per_series.push(cps.next().unwrap_or_default());
            d.label_spread_pct.push(spread.next().flatten());
            d.detectable_pct.push(detectable.next().flatten());
        }
    }
    let line = e.withheld(&format!(
        "change point ({} of {} series withheld)",
        d.withheld,
        series.len()
    ));
    (d, Some(line))
}

/// The report in its format, and what `--fail-on change` found.
pub struct Output {
    pub text: String,
    pub gate: Option<String>,
}

/// Track: build the report once, render it, and check the gate.
pub fn run(o: &Options, store: &dyn crate::store::Store) -> Result<Output> {
    let (t, _) = build(o, store)?;
    let text = o.format.renderer().render(&t)?;
    let gate = if o.fail_on_change { gate(&t, o) } else { None };
    Ok(Output { text, gate })
}

/// `--fail-on change`: the last label starts a new, worse segment
/// ([`detect::last_worse`]; only series whose last point is the last label).
fn gate(t: &Tracked, o: &Options) -> Option<String> {
    if t.detection.withheld > 0 {
        // Passing would say "no worse segment" about what was not looked at.
        return Some(format!(
            "--fail-on change: {} series {} of emulated runs, so this gate neither passes nor fails on them: leave their labels out, or give --allow-emulated to gate on the emulator's figures",
            t.detection.withheld,
            if t.detection.withheld == 1 { "is" } else { "are" }
        ));
    }
    let last = t.labels.last().map(|k| k.label.clone()).unwrap_or_default();
    let worse: Vec<String> = detect::last_worse(&t.series, &t.detection, o.q, o.threshold_pct)
        .into_iter()
        .map(|i| &t.series[i])
        .filter(|s| s.points.last().is_some_and(|p| p.label == last))
        .map(|s| format!("{} {}", s.title(), s.metric))
        .collect();
    (!worse.is_empty()).then(|| {
        format!(
            "--fail-on change: the last label, {last}, starts a new worse segment in {}",
            worse.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_labels() {
        assert!(glob_match("6.1.0-*", "6.1.0-42-amd64"));
        assert!(glob_match("*rt*", "6.1.0-42-rt-amd64"));
        assert!(!glob_match("6.1.0-*", "6.2.0-1"));
        assert!(glob_match("6.?", "6.9"));
        assert!(!glob_match("6.?", "6.10"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "aXXbYYc"));
        assert!(!glob_match("a*b*c", "aXXbYY"));
    }

    /// A series of emulated runs is withheld and the others are tested in
    /// their places: the first (emulated) series has no change point, the
    /// second keeps its own.
    #[test]
    fn an_emulated_series_is_withheld_and_the_rest_keep_their_places() {
        let d = tempfile::tempdir().unwrap();
        let mut store = crate::store::SqliteStore::open(
            &d.path().join("r.db"),
            crate::store::Access::ReadWrite,
        )
        .unwrap();
        let mut rng = crate::stats::bootstrap::SplitMix(5);
        let mut runs = Vec::new();
        let labels: Vec<String> = (1..=14).map(|l| format!("k{l:02}")).collect();
        for bench in ["a", "b"] {
            for (i, label) in labels.iter().enumerate() {
                for _ in 0..5 {
                    let level = if i >= 7 { 130.0 } else { 100.0 };
                    let mut run = RunRecord::new(label, bench, serde_json::json!({}), None);
                    run.metrics.push(crate::measure::Metric::new(
                        "t",
                        "s",
                        level * (1.0 + 0.03 * rng.normal()),
                        crate::stats::Better::Lower,
                    ));
                    if bench == "a" {
                        crate::store::foreign::mark_emulated(&mut run, "TCG");
                    }
                    runs.push(run);
                }
            }
        }
        store.save_runs(&runs).unwrap();
        let o = Options {
            labels,
            glob: None,
            since: None,
            order: Order::Given,
            metrics: Vec::new(),
            q: 0.05,
            threshold_pct: 2.0,
            format: Format::Table,
            fail_on_change: false,
            allow_emulated: false,
        };
        let (t, _) = build(&o, &store).unwrap();
        assert_eq!(
            t.series
                .iter()
                .map(|s| s.benchmark.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!((t.detection.withheld, t.detection.tests), (1, 1));
        assert!(t.detection.per_series[0].is_empty());
        assert_eq!(t.detection.per_series[1].len(), 1, "{:?}", t.detection);
        assert_eq!(t.detection.per_series[1][0].at, 7);
        assert!(t.detection.detectable_pct[0].is_none());
        assert!(t
            .emulated
            .as_deref()
            .unwrap()
            .contains("(1 of 2 series withheld)"));
        let allowed = build(
            &Options {
                allow_emulated: true,
                ..o
            },
            &store,
        )
        .unwrap()
        .0;
        assert_eq!(allowed.detection.withheld, 0);
        assert!(allowed.detection.per_series.iter().all(|c| c.len() == 1));
    }

    /// A label whose sched_ext scheduler was ejected in some runs says so
    /// in every format, and its failed runs stay out of the series.
    #[test]
    fn ejected_runs_are_counted_beside_the_series() {
        let d = tempfile::tempdir().unwrap();
        let mut store = crate::store::SqliteStore::open(
            &d.path().join("r.db"),
            crate::store::Access::ReadWrite,
        )
        .unwrap();
        let mut runs = Vec::new();
        for (i, label) in ["k1/sched=lavd", "k2/sched=lavd", "k3/sched=lavd"]
            .iter()
            .enumerate()
        {
            for r in 0..3 {
                let mut run = RunRecord::new(label, "b", serde_json::json!({}), None);
                run.metrics.push(crate::measure::Metric::new(
                    "t",
                    "s",
                    100.0 + i as f64 + r as f64 * 0.1,
                    crate::stats::Better::Lower,
                ));
                runs.push(run);
            }
        }
        let mut failed = RunRecord::new("k2/sched=lavd", "b", serde_json::json!({}), None);
        failed.status = crate::store::RunStatus::Failed;
        failed.settings["sched_ext"] =
            serde_json::json!({ "ejected": "ejected: lavd: runnable task stall" });
        failed.metrics.push(crate::measure::Metric::new(
            "t",
            "s",
            1e6,
            crate::stats::Better::Lower,
        ));
        runs.push(failed);
        store.save_runs(&runs).unwrap();
        let o = Options {
            labels: vec![
                "k1/sched=lavd".into(),
                "k2/sched=lavd".into(),
                "k3/sched=lavd".into(),
            ],
            glob: None,
            since: None,
            order: Order::Given,
            metrics: Vec::new(),
            q: 0.05,
            threshold_pct: 2.0,
            format: Format::Table,
            fail_on_change: false,
            allow_emulated: false,
        };
        let (t, kept) = build(&o, &store).unwrap();
        assert_eq!(kept.len(), 9, "the failed run is not in a series");
        assert_eq!(
            t.ejections,
            vec!["k2/sched=lavd: 1 of 4 runs failed because the sched_ext scheduler changed during them (ejected: lavd: runnable task stall); they are left out"]
        );
        for f in [Format::Table, Format::Markdown, Format::Html, Format::Json] {
            let text = f.renderer().render(&t).unwrap();
            assert!(text.contains("1 of 4 runs failed"), "{f:?}: {text}");
        }
    }
}
