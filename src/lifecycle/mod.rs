//! One run lifecycle for every measuring command.
//!
//! A benchmark says how to measure one repetition and how to show it; the
//! [`drive`] loop owns everything around that, once for all of them:
//! `--runs`, Ctrl-C, the run's status (`complete`, `failed` with its error,
//! `interrupted` with what was measured), saving every status the same way,
//! `--json`, and the one closing line.  Scenario tasks are kbench
//! subcommands run as children, so they take this same path.
//!
//! The engines under `bench/` never print or store: they return an outcome
//! and this loop turns it into a stored run.

use crate::error::Interrupted;
use crate::session::{print_json, save, say_stored, Ctx};
use crate::stats::sequential;
use crate::store::{RunRecord, RunStatus};
use crate::values::Runs;
use anyhow::Result;
use entry::Entry;

pub mod entry;

/// Which repetition is being shown: `index` of `of` (0-based).
#[derive(Clone, Copy, Debug)]
pub struct Rep {
    pub index: u32,
    pub of: u32,
}

impl Rep {
    /// `" [run 2/3]"` when there are several, else nothing.
    pub fn suffix(self) -> String {
        if self.of > 1 {
            format!(" [run {}/{}]", self.index + 1, self.of)
        } else {
            String::new()
        }
    }
}

/// A measuring command, as the driver sees it.
pub trait Benchmark {
    /// What one repetition returns.
    type Outcome;

    /// Its registry entry (its `ENTRY`): name, metrics, headline, warm-up.
    fn entry(&self) -> &'static Entry;

    /// The registry name, stored as the run's benchmark.
    fn name(&self) -> &'static str {
        self.entry().name
    }

    /// The typed, versioned parameters, as stored (and grouped by compare).
    fn params(&self) -> Result<serde_json::Value>;

    /// Printed once, before the first repetition (a peer tool's banner).
    fn banner(&self) -> Option<String> {
        None
    }

    /// The CPUs the measurement runs on, when it pins itself (`--isolate`
    /// keeps everything else off them; default: every CPU but the first).
    fn probe_cpus(&self) -> Option<Vec<usize>> {
        None
    }

    /// Untimed set-up, once, after the store is open (so a bad `--db`
    /// fails before minutes of preparation).
    fn prepare(&mut self, _ctx: &Ctx) -> Result<()> {
        Ok(())
    }

    /// Whether a repetition runs in kbench's own threads alone, starting
    /// no process: the run-health monitor then reads kbench's processes at
    /// the ends only, instead of waking each second to follow them.
    fn threads_only(&self) -> bool {
        false
    }

    /// Settings known before a repetition starts; stored on every status.
    fn settings(&self) -> serde_json::Value {
        serde_json::json!({})
    }

    /// Measure one repetition.  An interruption before anything was
    /// measured is `Err(Interrupted)`; one with a partial measurement is an
    /// outcome for which [`Benchmark::stopped`] says so.
    fn measure(&mut self, ctx: &Ctx, rep: Rep) -> Result<Self::Outcome>;

    /// Why a repetition that returned an outcome did not complete:
    /// `Interrupted`, or the failure that cut it short (its partial
    /// figures are kept).
    fn stopped(&self, _out: &mut Self::Outcome) -> Option<anyhow::Error> {
        None
    }

    /// Metrics, histograms, run settings and notes of one outcome.
    fn record(&self, out: &Self::Outcome, rec: &mut RunRecord) -> Result<()>;

    /// The text of one repetition, on stdout.
    fn text(&self, ctx: &Ctx, out: &Self::Outcome, rep: Rep) -> String;

    /// The JSON of one repetition.
    fn json(&self, out: &Self::Outcome) -> serde_json::Value;

    /// The JSON `parameters` member: what the options were.
    fn json_parameters(&self) -> serde_json::Value {
        self.params().unwrap_or_default()
    }

    /// Members of the JSON document beside `runs` (figures over all
    /// repetitions, or a one-shot command's whole result).
    fn json_top(&self, _outs: &[Self::Outcome]) -> serde_json::Value {
        serde_json::json!({})
    }

    /// Lines after all repetitions (text mode, not quiet).
    fn summary(&self, _outs: &[Self::Outcome]) -> Option<String> {
        None
    }
}

/// `--runs auto`: the headline metric's values so far and the rule that
/// decides when they are enough ([`sequential`]).
struct AutoRuns {
    metric: &'static str,
    rule: sequential::Rule,
    values: Vec<f64>,
    decision: sequential::Decision,
    why_stopped: Option<String>,
}

impl AutoRuns {
    fn new(
        ctx: &Ctx,
        entry: &'static Entry,
        params: &serde_json::Value,
        max: u32,
    ) -> Result<AutoRuns> {
        let benchmark = entry.name;
        let spec = entry
            .metrics
            .iter()
            .find(|m| m.name == entry.headline)
            .copied()
            .ok_or_else(|| {
                crate::error::input(format!("--runs auto: {benchmark} has no headline metric"))
            })?;
        let baseline = match &ctx.global.against {
            None => None,
            Some(label) => Some(baseline_values(ctx, label, entry, params, spec.name)?),
        };
        Ok(AutoRuns {
            metric: spec.name,
            rule: sequential::Rule {
                alpha: 0.05,
                precision_pct: ctx.global.precision,
                threshold_pct: crate::stats::DEFAULT_THRESHOLD_PCT,
                better: spec.better,
                baseline,
                cap: max as usize,
                futility: true,
            },
            values: Vec::new(),
            decision: sequential::Decision::Continue,
            why_stopped: None,
        })
    }

    /// After a stored run: is it time to stop?
    fn after(
        &mut self,
        rec: &RunRecord,
        last: bool,
        elapsed: std::time::Duration,
        budget: Option<std::time::Duration>,
    ) -> bool {
        if let Some(m) = rec.metrics.iter().find(|m| m.name == self.metric) {
            if rec.status == RunStatus::Complete && !crate::health::is_suspect(&rec.settings) {
                self.values.push(m.value);
            }
        }
        self.decision = sequential::decide(&self.rule, &self.values);
        if self.decision != sequential::Decision::Continue {
            self.why_stopped = Some(self.decision.describe());
        } else if budget.is_some_and(|b| elapsed >= b) {
            self.why_stopped = Some("the time budget is spent; undecided".into());
        } else if last {
            self.why_stopped = Some("the most runs allowed; undecided".into());
        }
        self.why_stopped.is_some()
    }

    fn outcome(&self, runs: usize) -> String {
        format!(
            "{} after {runs} run(s), {} of them counted ({} of complete, not suspect runs; 5% error rate kept across every look)",
            self.why_stopped.as_deref().unwrap_or("stopped"),
            self.values.len(),
            self.metric
        )
    }
}

/// The headline metric of `label`'s stored runs of this benchmark with the
/// same canonical parameters (complete, not suspect).
fn baseline_values(
    ctx: &Ctx,
    label: &str,
    entry: &Entry,
    params: &serde_json::Value,
    metric: &str,
) -> Result<Vec<f64>> {
    let benchmark = entry.name;
    let store = ctx.store_for_reading()?;
    let runs = store.load_runs(
        &crate::store::RunFilter {
            labels: vec![label.to_string()],
            benchmarks: vec![benchmark.to_string()],
            only_complete: true,
            ..Default::default()
        },
        false,
    )?;
    let want = (entry.canonical)(params);
    let v: Vec<f64> = runs
        .iter()
        .filter(|r| (entry.canonical)(&r.params) == want)
        .filter(|r| !crate::health::is_suspect(&r.settings))
        .filter_map(|r| r.metrics.iter().find(|m| m.name == metric).map(|m| m.value))
        .collect();
    if v.len() < 2 {
        return Err(crate::error::input(format!(
            "--against {label}: {} stored run(s) of {benchmark} with these settings; at least 2 are needed",
            v.len()
        )));
    }
    Ok(v)
}

/// How a repetition ended, for its record.
pub fn status_of(e: &anyhow::Error) -> RunStatus {
    if e.downcast_ref::<Interrupted>().is_some() {
        RunStatus::Interrupted
    } else {
        RunStatus::Failed
    }
}

/// Run `runs` repetitions of `b`, store each, print, and close.
pub fn drive<B: Benchmark>(ctx: &Ctx, b: &mut B, runs: Runs) -> Result<()> {
    let mut store = ctx.store_for_writing()?;
    let params = b.params()?;
    let mut isolated = None;
    let (count, mut auto) = match runs {
        Runs::Fixed(n) => (n, None),
        Runs::Auto { max } => (max, Some(AutoRuns::new(ctx, b.entry(), &params, max)?)),
    };
    b.prepare(ctx)?;
    let isolation = match ctx.global.isolate {
        false => ctx
            .inherited
            .isolation
            .clone()
            .unwrap_or_else(|| serde_json::json!({ "isolated": false })),
        true => match crate::isolate::apply(b.probe_cpus().as_deref(), ctx.inherited.root_pid) {
            crate::isolate::Outcome::Isolated(i) => {
                let s = i.summary.clone();
                ctx.info(&format!(
                    "kbench: isolated: CPUs {} for the probe, {} for the {} other tasks moved",
                    s["probe_cpus"].as_str().unwrap_or("?"),
                    s["house_cpus"].as_str().unwrap_or("?"),
                    s["tasks_moved"]
                ));
                isolated = Some(i);
                s
            }
            crate::isolate::Outcome::NotPossible(why) => {
                ctx.info(&format!("kbench: not isolated: {why}; the run goes on"));
                serde_json::json!({ "isolated": false, "asked": true, "reason": why })
            }
        },
    };
    let json = ctx.global.json;
    if !json {
        if let Some(s) = b.banner() {
            println!("{s}");
        }
    }
    let mut outs = Vec::new();
    let mut docs = Vec::new();
    let mut ids = Vec::new();
    let mut ending: Result<()> = Ok(());
    let started = std::time::Instant::now();
    for index in 0..count {
        let rep = Rep { index, of: count };
        if crate::sys::signals::stop_requested() {
            ending = Err(Interrupted.into());
            break;
        }
        let mut rec = ctx.new_run(b.name(), params.clone());
        rec.set_settings(b.settings());
        rec.set_settings(serde_json::json!({ "isolation": isolation }));
        if index == 0 && count > 1 && b.entry().warmup {
            rec.set_settings(serde_json::json!({ "warmup": true }));
            rec.notes.push(
                "warm-up: the first repetition differs from the rest for this benchmark; compare leaves it out unless --include-warmup".into(),
            );
        }
        let monitor = crate::health::Monitor::start(ctx.inherited.root_pid, b.threads_only());
        let result = b
            .measure(ctx, rep)
            .and_then(|out| injected_failure(rep).map(|()| out));
        rec.ended = crate::sys::time::unix_now();
        let health = monitor.and_then(crate::health::Monitor::finish);
        let mut out = match result {
            Ok(out) => out,
            Err(e) => {
                record_health(health, &mut rec)?;
                rec.status = status_of(&e);
                rec.notes.push(format!("{e:#}"));
                match save(&mut store, &rec) {
                    Ok(Some(id)) => ids.push(id),
                    Ok(None) => {}
                    Err(s) => ctx.info(&format!("kbench: the failed run was not stored: {s:#}")),
                }
                ending = Err(e);
                break;
            }
        };
        let stop = b.stopped(&mut out);
        b.record(&out, &mut rec)?;
        let suspect = record_health(health, &mut rec)?;
        if let Some(e) = &stop {
            rec.status = status_of(e);
            rec.notes.push(match rec.status {
                RunStatus::Interrupted => {
                    "interrupted: the figures cover the time until then".into()
                }
                _ => format!("{e:#}"),
            });
        }
        if let Some(id) = save(&mut store, &rec)? {
            ids.push(id);
        }
        if json {
            docs.push(b.json(&out));
        } else {
            print!("{}", b.text(ctx, &out, rep));
        }
        if let Some(s) = suspect {
            ctx.info(&format!("kbench: {s}"));
        }
        outs.push(out);
        if let Some(e) = stop {
            ending = Err(e);
            break;
        }
        if let Some(a) = auto.as_mut() {
            if a.after(
                &rec,
                index + 1 == count,
                started.elapsed(),
                ctx.global.time_budget,
            ) {
                break;
            }
        }
    }
    if let Some(a) = &auto {
        ctx.info(&format!("kbench: --runs auto: {}", a.outcome(outs.len())));
    }
    let failed = ending
        .as_ref()
        .err()
        .is_some_and(|e| status_of(e) == RunStatus::Failed);
    if json && !failed {
        let mut doc = b.json_top(&outs);
        if let serde_json::Value::Object(m) = &mut doc {
            let base = serde_json::json!({
                "label": ctx.label(), "parameters": b.json_parameters(), "runs": docs,
                "stored_ids": ids, "interrupted": ending.is_err(),
                "auto": auto.as_ref().map(|a| a.outcome(outs.len())),
            });
            if let serde_json::Value::Object(b) = base {
                for (k, v) in b {
                    m.entry(k).or_insert(v);
                }
            }
        }
        print_json(b.name(), doc)?;
    } else if !json && ending.is_ok() && !ctx.global.quiet {
        if let Some(s) = b.summary(&outs) {
            println!("{s}");
        }
    }
    if let Some(mut i) = isolated {
        i.undo();
    }
    say_stored(ctx, &store, &ids);
    ending
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
    if cfg!(debug_assertions)
        && std::env::var("KBENCH_INJECT_FAILURE").ok() == Some((rep.index + 1).to_string())
    {
        anyhow::bail!(
            "failure injected by KBENCH_INJECT_FAILURE in repetition {}",
            rep.index + 1
        );
    }
    Ok(())
}
