//! `kbench compare`: read runs, build the comparison, render it.

use crate::cli::{CompareArgs, CorrectionKind, FailOn, Layout, ReportFormat, TestKind};
use crate::compare::{self, Decider, Options};
use crate::error::input;
use crate::report;
use crate::session::Ctx;
use crate::stats::multiple::Correction;
use crate::store::RunFilter;
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
    let store = ctx.store_for_reading()?;
    let filter = RunFilter {
        labels: ctx.global.label.clone(),
        benchmarks: a.benchmark.clone(),
        since,
        only_complete: true,
        limit: None,
        scenario: None,
    };
    if a.layout == Layout::Contest {
        return contest_layout(ctx, a);
    }
    let runs = store.load_runs(&filter, format == ReportFormat::Html)?;
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
    let opts = Options {
        labels: ctx.global.label.clone(),
        baseline: a.baseline.clone(),
        metrics: a.metric.clone(),
        alpha: a.alpha,
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
    };
    let mut c = compare::build(&runs, &opts)?;
    c.wide = a.wide;
    let curves = match &a.curve {
        Some(flag) => Some(curves_over(&c, flag, &a.metric)?),
        None => None,
    };
    if curves.is_some() && (matches!(format, ReportFormat::Csv) || a.layout != Layout::Stats) {
        return Err(input(
            "--curve is shown as a table, Markdown, JSON or HTML (not CSV or another --layout)",
        ));
    }
    let format: &dyn report::Format = match (format, a.layout) {
        (ReportFormat::Json, _) => &report::Json,
        (ReportFormat::Csv, _) => &report::csv::Csv,
        (ReportFormat::Markdown, _) => &report::markdown::Markdown,
        (ReportFormat::Html, _) => &report::html::Html,
        (ReportFormat::Table, Layout::Seed2023) => &report::seed2023::Article,
        (ReportFormat::Table, _) => &report::terminal::Terminal,
    };
    let text = format.render(&report::Input {
        comparison: &c,
        runs: &runs,
        colour: a.output.is_none() && crate::text::colour::stdout(),
        details: a.details,
        curves: curves.as_deref(),
    })?;
    emit(a, &text)?;
    gate(&c, a.fail_on)
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
fn gate(c: &compare::Comparison, fail_on: Option<FailOn>) -> Result<()> {
    use crate::compare::Verdict as V;
    let bad: &[V] = match fail_on {
        None => return Ok(()),
        Some(FailOn::Worse) => &[V::Worse],
        Some(FailOn::Inconclusive) => &[V::Worse, V::Inconclusive, V::TooFewRuns],
        Some(FailOn::Missing) => &[],
    };
    let mut hits: Vec<String> = c
        .tally
        .iter()
        .filter(|(v, n)| bad.contains(v) && *n > 0)
        .map(|(v, n)| format!("{n} {}", v.as_str()))
        .collect();
    if matches!(fail_on, Some(FailOn::Inconclusive | FailOn::Missing)) && !c.missing.is_empty() {
        hits.push(format!("{} missing", c.missing.len()));
    }
    if hits.is_empty() {
        return Ok(());
    }
    // A verdict that rests on one boot each is said as such here too.
    let thin = c
        .groups
        .iter()
        .flat_map(|g| &g.metrics)
        .flat_map(|m| &m.labels)
        .filter_map(|l| l.versus.as_ref())
        .filter(|v| bad.contains(&v.verdict) && v.rests_on.is_some())
        .count();
    let rests = if thin > 0 {
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
