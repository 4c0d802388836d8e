//! Scenarios: benchmarks and loads run together, with CPU placement and
//! priorities, repeated, every result stored.
//!
//! A scenario file (TOML) has phases that run one after another; a phase
//! runs its tasks together.  A task is one of kbench's own commands
//! (hackbench, cyclictest, responsiveness, coldwalk, job, load) with its
//! flags under the same names as on the command line.  Probes define how
//! long a phase lasts; background tasks start first, restart if they end
//! early, and stop when the probes are done.  Each task runs as a child
//! kbench, so it measures and stores exactly as the command does alone,
//! and its runs are tied to the scenario run, the phase and the repetition.

pub mod auto;
pub mod expr;
mod file_values;
pub mod presets;
pub mod report;
pub mod runner;
pub mod schema;
mod spec;

use crate::sys::sched::Policy;
use serde::Serialize;
use std::time::Duration;

/// What a task is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The phase lasts until every probe has finished.
    Probe,
    /// Started first, kept running (restarted if it ends), stopped after the probes.
    Background,
}

/// One task, ready to run.
#[derive(Clone, Debug, Serialize)]
pub struct Task {
    pub name: String,
    pub kind: String,
    pub role: Role,
    /// The command's flags (after the subcommand name).
    pub argv: Vec<String>,
    pub cpus: Option<Vec<usize>>,
    pub policy: Option<(Policy, i32)>,
    pub nice: Option<i32>,
    /// Run in a session of its own (setsid), so with autogroup it is a
    /// scheduling group of its own, as the seed's separate terminals were.
    pub own_session: bool,
    /// Report rows: a title and the metrics to show.
    pub row: String,
    pub show: Vec<String>,
    /// Expected seconds, when the flags say (cyclictest -D, responsiveness -t, …).
    pub estimate_s: Option<f64>,
}

/// One phase.
#[derive(Clone, Debug, Serialize)]
pub struct Phase {
    pub name: String,
    pub drop_caches: bool,
    #[serde(skip)]
    pub settle: Duration,
    pub tasks: Vec<Task>,
}

impl Phase {
    /// The longest probe estimate; None when a probe's length is unknown.
    pub fn estimate_s(&self) -> Option<f64> {
        let mut m: f64 = self.settle.as_secs_f64();
        for t in self.tasks.iter().filter(|t| t.role == Role::Probe) {
            m = m.max(t.estimate_s? + self.settle.as_secs_f64());
        }
        Some(m)
    }
}

/// A scenario with every value resolved for this machine.
#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// Repetitions (with `auto_precision`, the most there may be).
    pub runs: u32,
    /// `runs = "auto[:MAX]"`: stop once every probe's figure is within
    /// this % of its mean (see `auto`).
    pub auto_precision: Option<f64>,
    pub scale: f64,
    /// Keep every other process off the CPUs for the whole scenario
    /// (`isolate = true`; the first CPU is the house's).
    pub isolate: bool,
    pub phases: Vec<Phase>,
    /// Variables the file sweeps (`[sweep]`), not set with `--var`:
    /// `kbench run` runs them as a matrix.
    pub sweep: Vec<(String, String)>,
}
