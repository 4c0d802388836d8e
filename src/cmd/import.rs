//! `kbench import FILE --format …`: other tools' results stored as runs,
//! marked imported, with no fingerprint.

use crate::cli::{ImportArgs, ImportFormat};
use crate::error::input;
use crate::import;
use crate::session::{print_json, Ctx};
use crate::store::{RunRecord, StoredHistogram};
use anyhow::Result;
use std::io::Read;

pub fn run(ctx: &Ctx, a: &ImportArgs) -> Result<()> {
    let text = if a.file.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        std::fs::read_to_string(&a.file)
            .map_err(|e| input(format!("cannot read {}: {e}", a.file.display())))?
    };
    if a.format == ImportFormat::Report {
        return report(ctx, a, &text);
    }
    let parsed = match a.format {
        ImportFormat::Hackbench => crate::benchmarks::hackbench::import::parse(&text),
        ImportFormat::Cyclictest => crate::benchmarks::cyclictest::import::parse(&text),
        ImportFormat::CyclictestJson => crate::benchmarks::cyclictest::import_json::parse(&text),
        ImportFormat::Report => unreachable!("read above"),
        ImportFormat::Csv => import::csv::parse(
            &text,
            ctx.global.label.first().map(String::as_str),
            a.better.map(|b| match b {
                crate::cli::BetterArg::Lower => crate::measure::Better::Lower,
                crate::cli::BetterArg::Higher => crate::measure::Better::Higher,
            }),
        ),
    }
    .map_err(|e| input(format!("{}: {e}", a.file.display())))?;
    let given = ctx.global.label.first().cloned();
    if a.format != ImportFormat::Csv && given.is_none() {
        return Err(input(
            "give --label to name the configuration these results came from",
        ));
    }
    let assumed = assumptions(&a.assume)?;
    let now = crate::sys::time::unix_now();
    let mut runs = Vec::with_capacity(parsed.len());
    for p in parsed {
        // CSV rows carry their own label (--label only filled blanks).
        let label = p.label.or(given.clone()).unwrap_or_default();
        // A row's label is held to what --label is (a label is printed
        // in every report).
        crate::values::label(&label).map_err(|e| {
            input(format!(
                "{}: {}",
                a.file.display(),
                crate::text::clip(&e, 300)
            ))
        })?;
        let benchmark = a.benchmark.as_deref().unwrap_or(&p.benchmark);
        let mut params = p.params;
        assume(&mut params, &assumed, benchmark)?;
        let mut r = RunRecord::new(&label, benchmark, params, None);
        r.imported = true;
        r.started = now;
        r.ended = now;
        r.metrics = p.metrics;
        for h in &p.histograms {
            r.histograms.push(StoredHistogram::encode(h)?);
        }
        r.notes.push(format!(
            "imported from {} ({:?})",
            a.file.display(),
            a.format
        ));
        runs.push(r);
    }
    if ctx.global.no_store {
        return Err(input("--no-store makes import do nothing"));
    }
    let mut store = ctx.store_for_update()?;
    let ids = store.save_runs(&runs)?;
    if ctx.global.json {
        return print_json(
            "import",
            serde_json::json!({ "stored_ids": ids, "runs": ids.len() }),
        );
    }
    let names = |f: fn(&RunRecord) -> &str| {
        let all: std::collections::BTreeSet<&str> = runs.iter().map(f).collect();
        few(all.into_iter().collect())
    };
    ctx.info(&format!(
        "imported {} run(s) of {} into {} (label {})",
        ids.len(),
        names(|r| r.benchmark.as_str()),
        store.describe(),
        names(|r| r.label.as_str()),
    ));
    Ok(())
}

/// At most five names, made safe to print, then how many more.
fn few(names: Vec<&str>) -> String {
    const SHOWN: usize = 5;
    let mut out: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|n| crate::text::clip(&crate::text::clean(n), 80))
        .collect();
    if names.len() > SHOWN {
        out.push(format!("and {} more", names.len() - SHOWN));
    }
    out.join(", ")
}

/// `--assume KEY=VALUE` pairs; a value that reads as JSON (`false`, `4`)
/// is taken as such, anything else as text.
fn assumptions(given: &[String]) -> Result<Vec<(String, serde_json::Value)>> {
    given
        .iter()
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .filter(|(k, _)| !k.trim().is_empty())
                .ok_or_else(|| input(format!("--assume {kv}: expected KEY=VALUE")))?;
            let v = serde_json::from_str(v.trim())
                .unwrap_or_else(|_| serde_json::Value::String(v.trim().to_string()));
            Ok((k.trim().to_string(), v))
        })
        .collect()
}

/// Fill parameters the file left unknown; refuse to contradict what it says.
fn assume(
    params: &mut serde_json::Value,
    assumed: &[(String, serde_json::Value)],
    benchmark: &str,
) -> Result<()> {
    if assumed.is_empty() {
        return Ok(());
    }
    let serde_json::Value::Object(m) = params else {
        return Err(input("--assume: these runs have no parameters to fill"));
    };
    for (k, v) in assumed {
        match m.get(k) {
            Some(old) if !old.is_null() && old != v => {
                return Err(input(format!(
                    "--assume {k}={v}: the file says {k} is {old}"
                )))
            }
            _ => {
                m.insert(k.clone(), v.clone());
            }
        }
    }
    if benchmark == "hackbench"
        && crate::benchmarks::hackbench::params::Params::from_stored(params).is_none()
    {
        return Err(input(format!(
            "--assume: {params} are not hackbench parameters (transport is socket or pipe, fifo true or false)"
        )));
    }
    let canonical = crate::registry::canonical_params(benchmark, params);
    if let (Some(e), serde_json::Value::Object(c)) = (crate::registry::find(benchmark), &canonical)
    {
        if let Some((k, _)) = assumed.iter().find(|(k, _)| !c.contains_key(k)) {
            return Err(input(format!(
                "--assume {k}: {} has no parameter {k}",
                e.name
            )));
        }
    }
    Ok(())
}

/// `--format report`: the runs a `compare --bundle` report carries, as
/// they were (labels, fingerprints, settings, histograms), each once: a
/// run already in the store (by its id) is not added again.
fn report(ctx: &Ctx, a: &ImportArgs, text: &str) -> Result<()> {
    let file = a.file.display();
    if ctx.global.no_store {
        return Err(input("--no-store makes import do nothing"));
    }
    if !ctx.global.label.is_empty() || a.benchmark.is_some() || !a.assume.is_empty() {
        return Err(input(
            "a report's runs keep their own labels, benchmarks and parameters: --label, --benchmark and --assume do not apply",
        ));
    }
    let bytes = crate::report::bundle::decode(text)
        .map_err(|e| input(format!("{file}: {e:#}")))?
        .ok_or_else(|| {
            input(format!(
                "{file} carries no runs (a report made with `kbench compare --format html --bundle` does)"
            ))
        })?;
    let scratch = crate::sys::janitor::Scratch::in_tmp("import")?;
    let want = crate::store::foreign::Expect {
        label: None,
        below: false,
        max_rows: 10_000_000,
    };
    let mut runs = crate::store::foreign::runs(&bytes, &scratch.path().join("report.db"), &want)
        .map_err(|e| input(format!("{file}: {e:#}")))?;
    let mut store = ctx.store_for_update()?;
    let known: std::collections::HashSet<String> = store
        .list_runs(&crate::store::RunFilter::default())?
        .into_iter()
        .map(|r| r.uuid)
        .collect();
    let carried = runs.len();
    runs.retain(|r| !known.contains(&r.uuid));
    for r in &mut runs {
        crate::store::foreign::disown(r);
        r.notes.push(format!("from the report {file}"));
    }
    let ids = store.save_runs(&runs)?;
    if ctx.global.json {
        return print_json(
            "import",
            serde_json::json!({ "ids": ids, "carried": carried, "added": ids.len() }),
        );
    }
    ctx.info(&format!(
        "{file}: {carried} runs carried, {} new in {}{}",
        ids.len(),
        store.describe(),
        if ids.is_empty() {
            String::new()
        } else {
            format!(" (runs {})", crate::text::id_list(&ids))
        }
    ));
    Ok(())
}
