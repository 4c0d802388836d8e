//! `kbench compare`: read runs, build the comparison, render it.

use crate::cli::{CompareArgs, CorrectionKind, FailOn, Layout, ReportFormat, TestKind};
use crate::compare::{self, Decider, Options};
use crate::error::input;
use crate::report;
use crate::session::Ctx;
use crate::stats::multiple::Correction;
use crate::store::{RunFilter, RunRecord};
use anyhow::Result;

pub fn run(ctx: &Ctx, a: &CompareArgs) -> Result<()> {
    let since = a.since;
    if let Some(o) = &a.output {
        super::output::check(o)?;
    }
    let format = if ctx.global.json {
        ReportFormat::Json
    } else {
        a.format
    };
    if a.bundle && !matches!(format, ReportFormat::Html | ReportFormat::Markdown) {
        return Err(input(
            "--bundle puts the runs in an HTML or Markdown report: give --format html or markdown",
        ));
    }
    let store = ctx.store_for_reading()?;
    let filter = RunFilter {
        labels: ctx.global.label.clone(),
        benchmarks: a.benchmark.clone(),
        since,
        // The others are only counted (runs an ejection failed).
        only_complete: false,
        limit: None,
        scenario: None,
    };
    if a.layout == Layout::Contest {
        return contest_layout(ctx, a);
    }
    let (runs, others): (Vec<_>, Vec<_>) = store
        .load_runs(&filter, format == ReportFormat::Html || a.bundle)?
        .into_iter()
        .partition(|r| r.status == crate::store::RunStatus::Complete);
    if runs.is_empty() {
        return Err(input(format!(
            "no complete runs in {} match{}{}",
            store.describe(),
            if ctx.global.label.is_empty() {
                String::new()
            } else {
                format!(" label {}", ctx.global.label.join(", "))
            },
            if a.benchmark.is_empty() {
                String::new()
            } else {
                format!(" benchmark {}", a.benchmark.join(", "))
            }
        )));
    }
    let mut c = compare::build(&runs, &options(ctx, a))?;
    ejections(&runs, &others, &mut c);
    c.wide = a.wide;
    let curves = match &a.curve {
        Some(flag) => Some(curves_over(&c, flag, &a.metric)?),
        None => None,
    };
    if curves.is_none() {
        nothing_compared(&c, &runs, a)?;
    }
    if curves.is_some() && (matches!(format, ReportFormat::Csv) || a.layout != Layout::Stats) {
        return Err(input(
            "--curve is shown as a table, Markdown, JSON or HTML (not CSV or another --layout)",
        ));
    }
    let renderer: &dyn report::Format<report::Input> = match (format, a.layout) {
        (ReportFormat::Json, _) => &report::Json,
        (ReportFormat::Csv, _) => &report::csv::Csv,
        (ReportFormat::Markdown, _) => &report::markdown::Markdown,
        (ReportFormat::Html, _) => &report::html::Html,
        (ReportFormat::Kcidb, _) => &report::kcidb::Kcidb,
        (ReportFormat::Table, Layout::Seed2023) => &report::seed2023::Article,
        (ReportFormat::Table, _) => &report::terminal::Terminal,
    };
    let mut text = renderer.render(&report::Input {
        comparison: &c,
        runs: &runs,
        colour: a.output.is_none() && crate::text::colour::stdout(),
        details: a.details,
        curves: curves.as_deref(),
    })?;
    if a.bundle {
        text = bundled(&text, format, &runs, &others)?;
    }
    emit(a, &text)?;
    gate(&c, a.fail_on, a.allow_one_boot)
}

/// A report that compares nothing is a mistake, not an answer: one line
/// naming the fix, and exit 2 (a curve over one label is a comparison of
/// its points, and a label's traced runs say what its worst wake-ups
/// waited behind: both are answers, and left alone).
fn nothing_compared(c: &compare::Comparison, runs: &[RunRecord], a: &CompareArgs) -> Result<()> {
    let compared = c
        .groups
        .iter()
        .flat_map(|g| &g.metrics)
        .flat_map(|m| &m.labels)
        .any(|l| l.versus.is_some());
    let explained = c.groups.iter().any(|g| !g.waited_behind.is_empty());
    if compared || explained {
        return Ok(());
    }
    let labels = &c.labels;
    if labels.len() < 2 {
        return Err(input(format!(
            "only label {} has runs here, and compare needs two: give a second --label (`kbench labels` lists them)",
            labels.first().map_or("(none)", String::as_str)
        )));
    }
    if !a.metric.is_empty() {
        let mut names: Vec<&str> = runs
            .iter()
            .flat_map(|r| &r.metrics)
            .map(|m| m.name.as_str())
            .filter(|n| !n.contains('.'))
            .collect();
        names.sort_unstable();
        names.dedup();
        let more = names.len().saturating_sub(12);
        return Err(input(format!(
            "no run of {} has metric {}: these runs have {}{}",
            labels.join(", "),
            a.metric.join(", "),
            names[..names.len().min(12)].join(", "),
            if more > 0 {
                format!(" and {more} more (`kbench runs show ID` lists a run's)")
            } else {
                String::new()
            }
        )));
    }
    Err(input(format!(
        "labels {} share no benchmark run with the same parameters, so nothing is compared: give --label for runs of the same benchmark and flags (`kbench labels` lists them)",
        labels.join(", ")
    )))
}

/// The comparison's options, from the flags.
fn options(ctx: &Ctx, a: &CompareArgs) -> Options {
    Options {
        labels: ctx.global.label.clone(),
        baseline: a.baseline.clone(),
        metrics: a.metric.clone(),
        alpha: a.alpha.alpha,
        decider: match a.test {
            TestKind::Welch => Decider::Welch,
            TestKind::MannWhitney => Decider::MannWhitney,
        },
        correction: match a.correction {
            CorrectionKind::Holm => Correction::Holm,
            CorrectionKind::Bh => Correction::Bh,
            CorrectionKind::None => Correction::None,
        },
        threshold_pct: ctx.global.threshold,
        detect_pct: a.detect,
        exclude_suspect: a.exclude_suspect,
        include_warmup: a.include_warmup,
        allow_emulated: a.allow_emulated,
    }
}

/// The report with the runs it was made from: the complete runs it
/// compares and the failed ones it counts.
fn bundled(
    text: &str,
    format: ReportFormat,
    runs: &[RunRecord],
    others: &[RunRecord],
) -> Result<String> {
    let all: Vec<RunRecord> = runs.iter().chain(others).cloned().collect();
    let scratch = crate::sys::janitor::Scratch::in_tmp("bundle")?;
    let block = report::bundle::encode(&all, scratch.path())?;
    Ok(match format {
        ReportFormat::Html => report::bundle::into_html(text, &block, all.len()),
        _ => report::bundle::into_markdown(text, &block, all.len()),
    })
}

/// The curves over `flag`, or why there are none.
pub fn curves_over(
    c: &compare::Comparison,
    flag: &str,
    metrics: &[String],
) -> Result<Vec<compare::curve::Curve>> {
    let cs = compare::curve::curves(c, flag, metrics);
    if cs.is_empty() {
        let mut keys: Vec<String> = c
            .groups
            .iter()
            .filter_map(|g| g.params.as_object())
            .flat_map(|m| m.keys().cloned())
            .collect();
        keys.sort();
        keys.dedup();
        return Err(input(format!(
            "--curve {flag}: no runs differ only in {flag} (their parameters: {})",
            keys.join(", ")
        )));
    }
    Ok(cs)
}

/// `--fail-on`: exit 3 (after the report is out) when the condition holds.
fn gate(c: &compare::Comparison, fail_on: Option<FailOn>, allow_one_boot: bool) -> Result<()> {
    use crate::compare::Verdict as V;
    let bad: &[V] = match fail_on {
        None => return Ok(()),
        Some(FailOn::Worse) => &[V::Worse],
        Some(FailOn::Inconclusive) => &[V::Worse, V::Inconclusive, V::TooFewRuns],
        Some(FailOn::Missing) => &[],
    };
    let mut thin = 0;
    let mut hits: Vec<String> = Vec::new();
    for (v, n) in c.tally.iter().filter(|(v, n)| bad.contains(v) && *n > 0) {
        // How many of this bad verdict rest on one boot each.
        let t = c.on_one_boot(|x| x == *v).min(*n);
        thin += t;
        let counted = if allow_one_boot { *n } else { n - t };
        if counted > 0 {
            hits.push(format!("{counted} {}", v.as_str()));
        }
    }
    if matches!(fail_on, Some(FailOn::Inconclusive | FailOn::Missing)) && !c.missing.is_empty() {
        hits.push(format!("{} missing", c.missing.len()));
    }
    if thin > 0 && !allow_one_boot {
        eprintln!(
            "kbench: --fail-on: {thin} verdict(s) rest on one boot each and do not fail the gate: boot-to-boot variation alone can make them (--allow-one-boot lets them fail it; a campaign or vm --boots gives several boots a label)"
        );
    }
    if hits.is_empty() {
        return Ok(());
    }
    // A verdict that rests on one boot each is said as such here too.
    let rests = if thin > 0 && allow_one_boot {
        format!(" ({thin} of them on one boot each: the kernel and its boot cannot be told apart)")
    } else {
        String::new()
    };
    Err(crate::error::GateFailed(format!("--fail-on: {}{rests}", hits.join(", "))).into())
}

fn emit(a: &CompareArgs, text: &str) -> Result<()> {
    super::output::emit(a.output.as_deref(), text)
}

/// `--layout contest` is contest's own table, from the store.
fn contest_layout(ctx: &Ctx, a: &CompareArgs) -> Result<()> {
    if a.output.is_some() || !matches!(a.format, ReportFormat::Table | ReportFormat::Json) {
        return Err(input(
            "--layout contest prints contest's table to stdout (as table or --json)",
        ));
    }
    crate::benchmarks::contest::show(ctx, &ctx.global.label, a.baseline.as_deref())
}

/// Runs failed by a sched_ext ejection are not compared, but said above
/// the scoreboard, for the labels compared and those left with none.
fn ejections(runs: &[RunRecord], others: &[RunRecord], c: &mut compare::Comparison) {
    let mut asked: Vec<String> = c.labels.clone();
    for r in others {
        if !asked.contains(&r.label) {
            asked.push(r.label.clone());
        }
    }
    c.above
        .extend(compare::ejected::notice(runs, others, &asked));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Better, Metric};
    use crate::store::RunRecord;

    /// Label a on one boot, b on another, b 10 % slower: a verdict that
    /// rests on one boot each.
    fn one_boot_each() -> compare::Comparison {
        let mut runs = Vec::new();
        for (label, base) in [("a", 100.0), ("b", 110.0)] {
            for k in 0..6 {
                let fp = crate::fingerprint::Fingerprint {
                    boot_id: Some(format!("boot-{label}")),
                    ..Default::default()
                };
                let mut r = RunRecord::new(label, "bench", serde_json::json!({}), Some(fp));
                r.id = runs.len() as i64;
                let v = base * (1.0 + 0.002 * f64::from(k % 3));
                r.metrics.push(Metric::new("m", "s", v, Better::Lower));
                runs.push(r);
            }
        }
        compare::build(
            &runs,
            &compare::Options {
                labels: vec!["a".into(), "b".into()],
                ..Default::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn one_boot_verdicts_do_not_fail_the_gate_unless_allowed() {
        let c = one_boot_each();
        let v = c.groups[0].metrics[0].labels[1].versus.as_ref().unwrap();
        assert_eq!(v.verdict, compare::Verdict::Worse);
        assert!(v.rests_on.is_some());
        assert!(gate(&c, Some(FailOn::Worse), false).is_ok());
        let e = gate(&c, Some(FailOn::Worse), true).unwrap_err();
        assert!(e.to_string().contains("1 worse"), "{e}");
        let notes = crate::report::footnotes::footnotes(&c).join("\n");
        assert!(notes.contains("not from one boot to the next"), "{notes}");
    }
}
