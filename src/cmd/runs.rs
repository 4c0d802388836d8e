//! `kbench runs list|show|delete` and `kbench labels`.

use crate::cli::RunsCommand;
use crate::error::input;
use crate::session::{print_json, Ctx};
use crate::store::{RunFilter, RunRecord};
use crate::sys::time::rfc3339;
use crate::text::table;
use anyhow::Result;
use std::io::{BufRead, IsTerminal, Write};

pub fn run(ctx: &Ctx, cmd: RunsCommand) -> Result<()> {
    match cmd {
        RunsCommand::List { benchmark, last } => list(ctx, benchmark, last),
        RunsCommand::Show { id } => show(ctx, id),
        RunsCommand::Trace { id, output } => super::trace_export::run(ctx, id, &output),
        RunsCommand::Delete { ids, yes } => delete(ctx, &ids, yes),
    }
}

fn list(ctx: &Ctx, benchmark: Option<String>, last: Option<usize>) -> Result<()> {
    let store = ctx.store_for_reading()?;
    let filter = RunFilter {
        labels: ctx.global.label.to_vec(),
        benchmarks: benchmark.into_iter().collect(),
        ..Default::default()
    };
    let mut runs = store.list_runs(&filter)?;
    if let Some(n) = last {
        let skip = runs.len().saturating_sub(n);
        runs.drain(..skip);
    }
    if ctx.global.json {
        return print_json("runs", serde_json::json!({ "runs": runs }));
    }
    if runs.is_empty() {
        ctx.info(&format!("no runs in {}", store.describe()));
        return Ok(());
    }
    let mut t = table::new(&[
        "id",
        "started",
        "label",
        "benchmark",
        "status",
        "fingerprint",
        "headline",
    ]);
    for r in &runs {
        t.add_row(vec![
            r.id.to_string(),
            rfc3339(r.started),
            r.label.clone(),
            r.benchmark.clone(),
            r.status.as_str().to_string(),
            r.fingerprint_id.clone().unwrap_or_else(|| "-".into()),
            r.headline
                .as_ref()
                .map(|m| format!("{} {} {}", m.name, table::num(m.value), m.unit))
                .unwrap_or_default(),
        ]);
    }
    t.paint_verdicts(4);
    t.set_colour(crate::text::colour::stdout());
    println!("{t}");
    Ok(())
}

fn show(ctx: &Ctx, id: i64) -> Result<()> {
    let store = ctx.store_for_reading()?;
    let Some(run) = store.load_run(id)? else {
        return Err(input(format!(
            "no run with id {id} in {}",
            store.describe()
        )));
    };
    if ctx.global.json {
        return print_json("run", run_json(&run)?);
    }
    let mut head = vec![
        ("id".to_string(), format!("{} ({})", run.id, run.uuid)),
        ("label".into(), run.label.clone()),
        ("benchmark".into(), run.benchmark.clone()),
        ("status".into(), run.status.as_str().into()),
        ("started".into(), rfc3339(run.started)),
        (
            "duration".into(),
            format!("{:.3} s", run.ended - run.started),
        ),
        ("parameters".into(), run.params.to_string()),
        ("settings".into(), {
            let mut s = run.settings.clone();
            if let Some(m) = s.as_object_mut() {
                m.remove("trace");
            }
            s.to_string()
        }),
    ];
    if let Some(s) = &run.scenario {
        head.push((
            "scenario".into(),
            format!(
                "{s} phase {} rep {}",
                run.phase.as_deref().unwrap_or("-"),
                run.repetition.unwrap_or(0)
            ),
        ));
    }
    if run.imported {
        head.push(("imported".into(), "yes".into()));
    }
    println!("{}", table::kv(&head));
    print_figures(&run)?;
    print_notes(&run.notes);
    if let Some(t) = run.settings.get("trace") {
        println!(
            "\n{}",
            crate::trace::show::summary(t, usize::MAX).trim_end()
        );
    }
    if let Some(fp) = &run.fingerprint {
        println!("\nsystem:");
        println!("{}", table::kv(&super::sysinfo::rows(fp)));
    }
    Ok(())
}

/// A run's metrics and histogram summaries, as tables.
fn print_figures(run: &RunRecord) -> Result<()> {
    let mut t = table::new(&["metric", "value", "unit", "better"]);
    for m in &run.metrics {
        t.add_row(vec![
            m.name.clone(),
            table::num(m.value),
            m.unit.clone(),
            m.better.as_str().into(),
        ]);
    }
    table::right_align_from(&mut t, 1);
    println!("\n{t}");
    if !run.histograms.is_empty() {
        let mut t = table::new(&[
            "histogram",
            "samples",
            "min",
            "p50",
            "p99",
            "p99.9",
            "max",
            "unit",
        ]);
        for h in &run.histograms {
            let d = h.decode()?;
            let q = |p: f64| d.value_at_quantile(p).to_string();
            t.add_row(vec![
                h.name.clone(),
                d.len().to_string(),
                d.min().to_string(),
                q(0.5),
                q(0.99),
                q(0.999),
                d.max().to_string(),
                h.unit.clone(),
            ]);
        }
        table::right_align_from(&mut t, 1);
        println!("\n{t}");
    }
    Ok(())
}

/// A run's notes; one of several lines (a failed boot's console) keeps
/// its lines, each made safe to print and indented under the first.
fn print_notes(notes: &[String]) {
    for n in notes {
        let lines: Vec<String> = n
            .lines()
            .map(|l| crate::text::clean(l).into_owned())
            .collect();
        println!("note: {}", lines.join("\n      "));
    }
}

/// A run as JSON (histograms summarised, not dumped).
pub fn run_json(run: &RunRecord) -> Result<serde_json::Value> {
    let mut hists = Vec::new();
    for h in &run.histograms {
        let d = h.decode()?;
        hists.push(serde_json::json!({
            "name": h.name, "unit": h.unit, "samples": d.len(), "min": d.min(),
            "p50": d.value_at_quantile(0.5), "p99": d.value_at_quantile(0.99),
            "p999": d.value_at_quantile(0.999), "max": d.max(),
        }));
    }
    Ok(serde_json::json!({
        "id": run.id, "uuid": run.uuid, "label": run.label, "benchmark": run.benchmark,
        "status": run.status, "started": rfc3339(run.started), "ended": rfc3339(run.ended),
        "params": run.params, "settings": run.settings, "metrics": run.metrics,
        "histograms": hists, "notes": run.notes, "fingerprint": run.fingerprint,
        "scenario": run.scenario, "phase": run.phase, "repetition": run.repetition,
        "imported": run.imported,
    }))
}

fn delete(ctx: &Ctx, ids: &[i64], yes: bool) -> Result<()> {
    let mut store = ctx.store_for_update()?;
    let mut missing = Vec::new();
    for &id in ids {
        if store.load_run(id)?.is_none() {
            missing.push(id.to_string());
        }
    }
    if !missing.is_empty() {
        return Err(input(format!(
            "no run with id {} in {}",
            missing.join(", "),
            store.describe()
        )));
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(input("refusing to delete without confirmation: pass --yes"));
        }
        eprint!(
            "delete {} run(s) from {}? [y/N] ",
            ids.len(),
            store.describe()
        );
        std::io::stderr().flush()?;
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        if !matches!(line.trim(), "y" | "Y" | "yes") {
            ctx.info("nothing deleted");
            return Ok(());
        }
    }
    let n = store.delete_runs(ids)?;
    ctx.info(&format!("deleted {n} run(s)"));
    Ok(())
}

pub fn labels(ctx: &Ctx) -> Result<()> {
    let store = ctx.store_for_reading()?;
    let labels = store.labels()?;
    if ctx.global.json {
        return print_json("labels", serde_json::json!({ "labels": labels }));
    }
    if labels.is_empty() {
        ctx.info(&format!("no runs in {}", store.describe()));
        return Ok(());
    }
    let mut t = table::new(&[
        "label",
        "runs",
        "benchmarks",
        "fingerprints",
        "first",
        "last",
    ]);
    for l in &labels {
        t.add_row(vec![
            l.label.clone(),
            l.runs.to_string(),
            l.benchmarks.join(","),
            l.fingerprint_ids.join(","),
            rfc3339(l.first),
            rfc3339(l.last),
        ]);
    }
    println!("{t}");
    Ok(())
}
