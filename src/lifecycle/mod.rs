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
use crate::session::Ctx;
use crate::store::{RunRecord, RunStatus};
use crate::values::Runs;
use anyhow::Result;
use entry::Entry;

mod auto;
pub mod entry;
pub mod sched_ext;
mod scheduling;
pub mod spell;
mod stages;
mod tracing;

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

/// `--trace` as a benchmark has it.
#[derive(Clone, Debug)]
pub enum Trace {
    /// Not a latency probe: nothing to explain, nothing recorded.
    NotAProbe,
    /// A probe, not traced (recorded as such).
    Off,
    On(crate::trace::Options),
}

impl Trace {
    pub fn of(o: Option<&crate::trace::Options>) -> Trace {
        o.map_or(Trace::Off, |o| Trace::On(o.clone()))
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

    /// Whether this benchmark is a latency probe whose wake-ups `--trace`
    /// explains, and what it asked for.
    fn trace(&self) -> Trace {
        Trace::NotAProbe
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

    /// The stored parameters of one repetition: `all` (what
    /// [`Benchmark::params`] gave) unless its repetitions differ (each of
    /// contest's is one load in one round).
    fn params_of(&self, _rep: Rep, all: &serde_json::Value) -> serde_json::Value {
        all.clone()
    }

    /// Whether the run goes on after repetition `rep` failed with `err`
    /// (stored as failed either way).  By default a failure ends the run;
    /// contest goes on after a load that failed, as contest did, and the
    /// command then ends with how many failed.
    fn goes_on_after(&mut self, _rep: Rep, _err: &anyhow::Error) -> bool {
        false
    }

    /// Whether a repetition stopped as planned (a scenario's background
    /// task whose phase ended) is complete: true where the figures are work
    /// and rates up to the stop (a load); false where a figure is the time
    /// a fixed amount of work took (hackbench, a job), which a stop makes
    /// meaningless, so the run stays `interrupted`.
    fn complete_when_stopped(&self) -> bool {
        false
    }

    /// The command's result over what was measured (contest's table),
    /// printed in text mode after the repetitions however they ended, and
    /// with `-q` too.
    fn result_text(&self, _ctx: &Ctx, _outs: &[Self::Outcome]) -> Option<String> {
        None
    }
}

/// How a repetition ended, for its record.
pub fn status_of(e: &anyhow::Error) -> RunStatus {
    if e.downcast_ref::<Interrupted>().is_some() {
        RunStatus::Interrupted
    } else {
        RunStatus::Failed
    }
}

/// Run `runs` repetitions of `b`, store each, print, and close: set-up
/// and isolation, the repetitions, then the closing (JSON or summary, the
/// isolation undone, the closing line).
pub fn drive<B: Benchmark>(ctx: &Ctx, b: &mut B, runs: Runs) -> Result<()> {
    let mut store = ctx.store_for_writing()?;
    let params = b.params()?;
    let (count, mut auto) = match runs {
        Runs::Fixed(n) => (n, None),
        Runs::Auto { max } => (
            max,
            Some(auto::AutoRuns::new(ctx, b.entry(), &params, max)?),
        ),
    };
    b.prepare(ctx)?;
    let (isolation, isolated) = stages::isolate(ctx, b.probe_cpus().as_deref());
    if !ctx.global.json {
        if let Some(s) = b.banner() {
            println!("{s}");
        }
    }
    let mut done = stages::Done::default();
    let started = std::time::Instant::now();
    for index in 0..count {
        let rep = Rep { index, of: count };
        if crate::sys::signals::stop_requested() {
            done.ending = Err(Interrupted.into());
            break;
        }
        let rec = stages::repetition(ctx, &mut store, b, rep, &params, &isolation, &mut done)?;
        if done.ending.is_err() {
            break;
        }
        if let (Some(a), Some(rec)) = (auto.as_mut(), rec) {
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
    let auto_outcome = auto.as_ref().map(|a| a.outcome(done.outs.len()));
    stages::close(ctx, b, &store, done, auto_outcome, isolated)
}
