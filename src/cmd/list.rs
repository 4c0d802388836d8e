//! `kbench list`: what kbench knows, read from its registries: every
//! benchmark with its help line, every metric a benchmark declares (name,
//! unit, direction, meaning), and every background load.  Tables for
//! people, `--json` for scripts and for kbench's own tests, which learn the
//! lists here so a new benchmark or load cannot be left out of them.

use crate::cli::ListWhat;
use crate::error::input;
use crate::session::{print_json, Ctx};
use crate::text::table;
use anyhow::Result;
use serde_json::json;

pub fn run(ctx: &Ctx, what: ListWhat, benchmark: Option<&str>) -> Result<()> {
    if let Some(b) = benchmark {
        if !matches!(what, ListWhat::Metrics) {
            return Err(input(format!(
                "a benchmark ('{b}') narrows `kbench list metrics` only"
            )));
        }
        if crate::registry::find(b).is_none() {
            return Err(input(format!(
                "unknown benchmark '{b}' (one of: {})",
                crate::registry::names().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    match what {
        ListWhat::Benchmarks => benchmarks(ctx),
        ListWhat::Metrics => metrics(ctx, benchmark),
        ListWhat::Loads => loads(ctx),
    }
}

fn benchmarks(ctx: &Ctx) -> Result<()> {
    let entries: Vec<_> = crate::registry::names()
        .filter_map(crate::registry::find)
        .collect();
    if ctx.global.json {
        let list: Vec<_> = entries
            .iter()
            .map(|e| json!({"name": e.name, "about": e.about, "headline": e.headline}))
            .collect();
        return print_json("benchmarks", json!({ "benchmarks": list }));
    }
    let mut t = table::new(&["benchmark", "headline metric", "what it measures"]);
    for e in entries {
        t.add_row(vec![e.name.into(), e.headline.into(), e.about.into()]);
    }
    println!("{t}");
    Ok(())
}

fn metrics(ctx: &Ctx, only: Option<&str>) -> Result<()> {
    let rows: Vec<_> = crate::registry::names()
        .filter(|n| only.is_none_or(|o| o == *n))
        .filter_map(crate::registry::find)
        .flat_map(|e| {
            let whole = e
                .metrics
                .iter()
                .map(move |m| (e.name, m.name.to_string(), m));
            let parts = e
                .parts
                .iter()
                .map(move |m| (e.name, format!("<part>_{}", m.name), m));
            whole.chain(parts)
        })
        .collect();
    if ctx.global.json {
        let list: Vec<_> = rows
            .iter()
            .map(|(b, name, m)| {
                json!({"benchmark": b, "name": name, "unit": m.unit,
                       "better": m.better.as_str(), "meaning": m.meaning})
            })
            .collect();
        return print_json("metrics", json!({ "metrics": list }));
    }
    let mut t = table::new(&["benchmark", "metric", "unit", "better", "meaning"]);
    for (b, name, m) in rows {
        t.add_row(vec![
            b.into(),
            name,
            m.unit.into(),
            m.better.as_str().into(),
            m.meaning.into(),
        ]);
    }
    println!("{t}");
    Ok(())
}

fn loads(ctx: &Ctx) -> Result<()> {
    if ctx.global.json {
        let list: Vec<_> = crate::load::KINDS
            .iter()
            .map(|k| json!({"name": k.name, "help": k.help, "contest_default": k.contest_default}))
            .collect();
        return print_json("loads", json!({ "loads": list }));
    }
    let mut t = table::new(&["load", "in contest by default", "what it does"]);
    for k in crate::load::KINDS {
        t.add_row(vec![
            k.name.into(),
            if k.contest_default { "yes" } else { "no" }.into(),
            k.help.into(),
        ]);
    }
    println!("{t}");
    Ok(())
}
