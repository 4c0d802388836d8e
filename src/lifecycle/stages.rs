//! The stages of one run of a benchmark, as `drive` puts them together:
//! isolation before the first repetition, each repetition (its record, the
//! health monitor around the measurement, its status, saving, its text or
//! JSON), and the closing (the JSON document or the summary, the result,
//! the isolation undone, the closing line).

use super::{status_of, Benchmark, Rep};
use crate::session::{print_json, save, say_stored, Ctx};
use crate::store::{RunRecord, RunStatus, Store};
use anyhow::Result;

/// A run that ended in an error: its health, and its role, known
/// whatever its outcome (a background task cut short before it measured
/// anything is still background); its counters are not kept, as no figure
/// of it counts.
fn failed_role(
    ctx: &Ctx,
    health: Result<crate::health::Health, String>,
    rec: &mut RunRecord,
) -> Result<()> {
    record_health(health, rec)?;
    rec.set_settings(serde_json::json!({ "sched": { "role": role_of(ctx) } }));
    Ok(())
}

/// What the repetitions have done so far.
pub struct Done<O> {
    pub outs: Vec<O>,
    pub docs: Vec<serde_json::Value>,
    pub ids: Vec<i64>,
    /// How the run ends: Ok, or the error that stopped it.
    pub ending: Result<()>,
    /// Repetitions that failed while the run went on.
    pub failed_on: Vec<String>,
}

impl<O> Default for Done<O> {
    fn default() -> Self {
        Done {
            outs: Vec::new(),
            docs: Vec::new(),
            ids: Vec::new(),
            ending: Ok(()),
            failed_on: Vec::new(),
        }
    }
}

/// `--isolate`, or the isolation a parent (a scenario) put in place: what
/// to store with every run, and the isolation to undo at the end.
pub fn isolate(
    ctx: &Ctx,
    probe: Option<&[usize]>,
) -> (serde_json::Value, Option<Box<crate::isolate::Isolation>>) {
    if !ctx.global.isolate {
        let inherited = ctx.inherited.isolation.clone();
        return (
            inherited.unwrap_or_else(|| serde_json::json!({ "isolated": false })),
            None,
        );
    }
    match crate::isolate::apply(probe, ctx.inherited.root_pid) {
        crate::isolate::Outcome::Isolated(i) => {
            let s = i.summary.clone();
            ctx.info(&format!(
                "kbench: isolated: CPUs {} for the probe, {} for the {} other tasks moved",
                s["probe_cpus"].as_str().unwrap_or("?"),
                s["house_cpus"].as_str().unwrap_or("?"),
                s["tasks_moved"]
            ));
            (s, Some(i))
        }
        crate::isolate::Outcome::NotPossible(why) => {
            ctx.info(&format!("kbench: not isolated: {why}; the run goes on"));
            (
                serde_json::json!({ "isolated": false, "asked": true, "reason": why }),
                None,
            )
        }
    }
}

/// One repetition: measured with the health monitor beside it, stored
/// whatever its status, shown.  Returns its record when it measured (for
/// `--runs auto`); sets `done.ending` when the run is to stop.
pub fn repetition<B: Benchmark>(
    ctx: &Ctx,
    store: &mut Option<Box<dyn Store>>,
    b: &mut B,
    rep: Rep,
    params: &serde_json::Value,
    isolation: &serde_json::Value,
    done: &mut Done<B::Outcome>,
) -> Result<Option<RunRecord>> {
    let mut rec = ctx.new_run(b.name(), b.params_of(rep, params));
    #[cfg(debug_assertions)]
    unspelled_params_panic(b.entry(), &rec.params);
    rec.set_settings(b.settings());
    rec.set_settings(serde_json::json!({ "isolation": isolation }));
    if rep.index == 0 && rep.of > 1 && b.entry().warmup {
        rec.set_settings(serde_json::json!({ "warmup": true }));
        rec.notes.push(
            "warm-up: the first repetition differs from the rest for this benchmark; compare leaves it out unless --include-warmup".into(),
        );
    }
    let monitor = crate::health::Monitor::start(ctx.inherited.root_pid, b.threads_only());
    let forks = !b.threads_only();
    let tracing = super::tracing::begin(ctx, b.trace(), b.probe_cpus().as_deref(), forks, rep);
    let sched = super::scheduling::begin();
    let scx = super::sched_ext::begin();
    let result = b
        .measure(ctx, rep)
        .and_then(|out| injected_failure(rep).map(|()| out));
    let scx = super::sched_ext::finish(scx);
    let sched = super::scheduling::take(sched);
    let (trace_text, waits) = super::tracing::end(tracing, &mut rec);
    rec.ended = crate::sys::time::unix_now();
    let health = monitor.and_then(crate::health::Monitor::finish);
    let mut out = match result {
        Ok(out) => out,
        Err(e) => {
            failed_role(ctx, health, &mut rec)?;
            rec.status = status_of(&e);
            rec.notes.push(format!("{e:#}"));
            match save(store, &rec) {
                Ok(Some(id)) => done.ids.push(id),
                Ok(None) => {}
                Err(s) => ctx.info(&format!("kbench: the failed run was not stored: {s:#}")),
            }
            if rec.status == RunStatus::Failed && b.goes_on_after(rep, &e) {
                done.failed_on.push(format!("{e:#}"));
            } else {
                done.ending = Err(e);
            }
            return Ok(None);
        }
    };
    let stop = b.stopped(&mut out);
    b.record(&out, &mut rec)?;
    #[cfg(debug_assertions)]
    undeclared_metrics_panic(b.entry(), &rec.metrics);
    super::scheduling::record(&sched, &role_of(ctx), &mut rec)?;
    super::sched_ext::record(scx, ctx, &mut rec)?;
    rec.absorb(&waits)?;
    let suspect = record_health(health, &mut rec)?;
    if let Some(e) = &stop {
        rec.status = status_of(e);
        rec.notes.push(match rec.status {
            // A scenario's background task stopped because its phase
            // ended: that was the plan, and its work up to then counts.
            RunStatus::Interrupted
                if crate::sys::signals::stop_was_planned() && b.complete_when_stopped() =>
            {
                rec.status = RunStatus::Complete;
                "stopped as planned when its scenario phase ended: the figures cover the time until then".into()
            }
            RunStatus::Interrupted => "interrupted: the figures cover the time until then".into(),
            _ => format!("{e:#}"),
        });
    }
    if let Some(id) = save(store, &rec)? {
        done.ids.push(id);
    }
    if ctx.global.json {
        let mut doc = b.json(&out);
        if let (serde_json::Value::Object(m), Some(t)) = (&mut doc, rec.settings.get("trace")) {
            m.insert("trace".into(), t.clone());
        }
        done.docs.push(doc);
    } else {
        print!("{}", b.text(ctx, &out, rep));
        if !ctx.global.quiet {
            print!("{trace_text}");
        }
    }
    if let Some(s) = suspect {
        ctx.info(&format!("kbench: {s}"));
    }
    done.outs.push(out);
    if let Some(e) = stop {
        done.ending = Err(e);
    }
    Ok(Some(rec))
}

/// After the repetitions: the JSON document (unless the run failed) or
/// the summary and the result, the isolation undone, the closing line;
/// then how the run ended (with how many repetitions failed while it
/// went on).
pub fn close<B: Benchmark>(
    ctx: &Ctx,
    b: &B,
    store: &Option<Box<dyn Store>>,
    done: Done<B::Outcome>,
    auto: Option<String>,
    isolated: Option<Box<crate::isolate::Isolation>>,
) -> Result<()> {
    if let Some(a) = &auto {
        ctx.info(&format!("kbench: --runs auto: {a}"));
    }
    let failed = done
        .ending
        .as_ref()
        .err()
        .is_some_and(|e| status_of(e) == RunStatus::Failed);
    if ctx.global.json && !failed {
        let mut doc = b.json_top(&done.outs);
        if let serde_json::Value::Object(m) = &mut doc {
            let base = serde_json::json!({
                "label": ctx.label(), "parameters": b.json_parameters(), "runs": done.docs,
                "stored_ids": done.ids, "interrupted": done.ending.is_err(),
                "auto": auto,
            });
            if let serde_json::Value::Object(b) = base {
                for (k, v) in b {
                    m.entry(k).or_insert(v);
                }
            }
        }
        print_json(b.name(), doc)?;
    } else if !ctx.global.json {
        if done.ending.is_ok() && !ctx.global.quiet {
            if let Some(s) = b.summary(&done.outs) {
                println!("{s}");
            }
        }
        if let Some(s) = b.result_text(ctx, &done.outs) {
            print!("{s}");
        }
    }
    if let Some(mut i) = isolated {
        i.undo();
    }
    say_stored(ctx, store, &done.ids);
    done.ending?;
    match done.failed_on.len() {
        0 => Ok(()),
        n => Err(anyhow::anyhow!("{n} of the runs failed (see above)")),
    }
}

/// Store what the health monitor saw with the run; the note to show when
/// it makes the run suspect.
pub fn record_health(
    health: Result<crate::health::Health, String>,
    rec: &mut RunRecord,
) -> Result<Option<String>> {
    match health {
        Ok(h) => {
            rec.absorb(&h.measurement())?;
            let t = crate::health::Thresholds::from_env();
            rec.set_settings(serde_json::json!({ "health": h.settings(&t) }));
            let reasons = h.reasons(&t);
            if reasons.is_empty() {
                return Ok(None);
            }
            let msg = format!("suspect run: {}", reasons.join("; "));
            rec.notes.push(msg.clone());
            Ok(Some(msg))
        }
        Err(e) => {
            let msg = format!("run health not monitored: {e}");
            rec.set_settings(serde_json::json!({ "health": { "suspect": null, "error": &msg } }));
            rec.notes.push(msg);
            Ok(None)
        }
    }
}

/// In debug builds, `KBENCH_INJECT_FAILURE=N` fails repetition N of any
/// command after it measured, so tests can drive every command's failed
/// path through this loop; release builds never fail this way.
fn injected_failure(rep: Rep) -> Result<()> {
    if crate::sys::hooks::failing_repetition() == Some((rep.index + 1).to_string()) {
        anyhow::bail!(
            "failure injected by KBENCH_INJECT_FAILURE in repetition {}",
            rep.index + 1
        );
    }
    Ok(())
}

/// The role this run's own tasks are stored under: a scenario's
/// background task's, or the probe's.
fn role_of(ctx: &Ctx) -> String {
    match ctx
        .inherited
        .placement
        .as_ref()
        .and_then(|p| p["role"].as_str())
    {
        Some("background") => "background".into(),
        _ => "probe".into(),
    }
}

/// A stored parameter reports cannot spell: one stored under a name no
/// flag has as its clap id, and no rule of the entry's `spell` says.
/// Stopped in debug builds (every test), as an undeclared metric is, so a
/// new flag cannot be stored under a name that differs from its id.
#[cfg(debug_assertions)]
fn unspelled_params_panic(e: &super::entry::Entry, params: &serde_json::Value) {
    let left = e.unspelled(params);
    assert!(
        left.is_empty(),
        "{} stores parameters {left:?} that no flag has as its id: give the flag `#[arg(id = \"...\")]` in benchmarks/{}/args.rs, or a rule in its entry's spell",
        e.name,
        e.name
    );
}

/// Debug builds (every test) stop at a metric a benchmark stores under a
/// fixed name that its entry does not declare, or declares with another
/// unit or direction: a metric is declared once, in the benchmark's
/// `metrics.rs`, and the engine records it through that declaration.
/// Names with a dot (`cpu0.p99_us`, `sched.*`) are per-CPU, per-thread or
/// per-counter and come on top.
#[cfg(debug_assertions)]
fn undeclared_metrics_panic(e: &super::entry::Entry, metrics: &[crate::measure::Metric]) {
    for m in metrics.iter().filter(|m| !m.name.contains('.')) {
        let declared =
            e.metrics.iter().any(|s| s.declares(m)) || e.parts.iter().any(|s| s.declares_part(m));
        assert!(
            declared,
            "{} stored {} ({}, {}) which its entry does not declare: declare it in benchmarks/{}/metrics.rs and record it through that",
            e.name,
            m.name,
            m.unit,
            m.better.as_str(),
            e.name
        );
    }
}
