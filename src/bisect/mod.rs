//! `kbench bisect`: which change made it slower, with the whole
//! bisection's chance of naming a wrong culprit stated and bounded, and
//! `kbench decide`, the verdict `git bisect run` can use.
//!
//! Candidates are a git range (each built in a work tree of its own) or a
//! list (kernel images, or labels already in the store).  Each step
//! measures its candidate (and an end only while the units known to be
//! like that end are fewer than the candidate's) and decides it against
//! every unit of the candidates already decided, with a sequential test
//! ([`call`]); a candidate that does not build or run is skipped as `git
//! bisect skip` does.  The first bad candidate is named only when a
//! comparison of its own, measured afresh against its parent, finds it
//! worse at `--alpha` ([`budget`]: that bounds the chance of naming a
//! culprit that is not, whatever the search did), and where its revert
//! applies cleanly on the bad end, the revert is measured against the bad
//! end too.  The state is a store document, saved after
//! every unit, so Ctrl-C, SIGKILL or a reboot lose at most the unit being
//! measured (`--resume`).

mod budget;
mod call;
pub mod decide;
mod decisions;
pub mod git;
mod measure;
mod parts;
mod report;
mod search;
mod session;
/// The simulator of `bench/bisect-runs.sh`: a test, not in the binary.
#[cfg(test)]
mod sim;
/// Pinpoint's published rule, beside it.
#[cfg(test)]
mod sim_pinpoint;
mod stale;

use crate::error::input;
use crate::stats::Better;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Where the candidates come from.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Source {
    /// A git range, each candidate built with `build`.
    Git {
        repo: PathBuf,
        good: String,
        bad: String,
        build: String,
        /// The built image's path in the tree (else the build's last line).
        image: Option<PathBuf>,
    },
    /// An ordered list: kernel images (booted under `--vm`) or labels.
    List { items: Vec<String> },
}

/// How a candidate is measured.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Runner {
    /// The command runs here, in the candidate's work tree.
    InPlace,
    /// The candidate is a kernel image, booted once per unit.
    Vm { append: Option<String> },
    /// The candidates are stored labels: their runs, in order, are the
    /// units; nothing is measured.
    Stored,
}

/// A metric to bisect and its direction (`NAME`, or `NAME:lower|higher`
/// where the benchmark does not declare it).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MetricArg {
    pub name: String,
    pub better: Option<Better>,
}

pub fn parse_metric(s: &str) -> std::result::Result<MetricArg, String> {
    let (name, dir) = match s.rsplit_once(':') {
        Some((n, "lower")) => (n, Some(Better::Lower)),
        Some((n, "higher")) => (n, Some(Better::Higher)),
        Some((_, d)) => {
            return Err(format!(
                "'{s}': the direction after : is lower or higher, not '{d}'"
            ))
        }
        None => (s, None),
    };
    if name.is_empty()
        || name.len() > 200
        || name.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(format!("'{s}' is not a metric name"));
    }
    Ok(MetricArg {
        name: name.to_string(),
        better: dir,
    })
}

/// Everything a bisection is, kept in its document so `--resume` can go on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub id: String,
    pub source: Source,
    pub runner: Runner,
    pub command: Vec<String>,
    pub metrics: Vec<MetricArg>,
    pub alpha: f64,
    /// Most units a side one decision takes.
    pub cap: usize,
    pub threshold_pct: f64,
    pub seed: u64,
    /// Runs are labelled `<label>/<candidate>`.
    pub label: String,
    pub allow_emulated: bool,
    /// Measure both ends beside every candidate and test on those alone.
    #[serde(default)]
    pub fresh_ends: bool,
    pub started: f64,
}

/// What to bisect, as asked.
#[derive(Clone, Debug)]
pub struct Options {
    pub source: Source,
    pub runner: Runner,
    pub command: Vec<String>,
    pub metrics: Vec<MetricArg>,
    pub alpha: f64,
    pub cap: usize,
    pub threshold_pct: f64,
    pub seed: Option<u64>,
    pub label: Option<String>,
    pub allow_emulated: bool,
    pub fresh_ends: bool,
    pub dry_run: bool,
    pub parse: crate::experiment::ParseCommand,
    pub env: Env,
}

/// What every bisect command shares.
#[derive(Clone, Debug)]
pub struct Env {
    /// The store, verbosity and voice.
    pub front: crate::session::Front,
    /// Machine options for a resumed `--vm` bisection.
    pub machine: Option<crate::vm::MachineOptions>,
}

/// The plan of a new bisection, with a fresh id.
fn plan_of(o: &Options) -> Plan {
    let id = crate::experiment::plan::new_id(crate::store::Kind::Bisect);
    Plan {
        label: o.label.clone().unwrap_or_else(|| format!("bisect-{id}")),
        id,
        source: o.source.clone(),
        runner: o.runner.clone(),
        command: o.command.clone(),
        metrics: o.metrics.clone(),
        alpha: o.alpha,
        cap: o.cap,
        threshold_pct: o.threshold_pct,
        seed: o.seed.unwrap_or_else(crate::experiment::order::fresh_seed),
        allow_emulated: o.allow_emulated,
        fresh_ends: o.fresh_ends,
        started: crate::sys::time::unix_now(),
    }
}

/// Start a bisection.
pub fn run(o: &Options) -> Result<()> {
    if o.runner != Runner::Stored {
        crate::experiment::command::check_command(&o.command, o.parse)?;
    }
    let plan = plan_of(o);
    session::start(&plan, &o.env, o.dry_run).map(|_| ())
}

/// A bisection's answer, for an experiment that bisects as one of its
/// steps (`track --follow`): the first bad candidate, if one was found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Answer {
    /// The bisection's id and the label its runs are under
    /// (`<label>/<candidate>`).
    pub id: String,
    pub label: String,
    pub culprit: Option<Culprit>,
    /// How it ended, in words.
    pub outcome: String,
    /// Units it measured.
    pub units: usize,
}

/// A first bad candidate and its parent.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Culprit {
    /// Its name (a commit's short id) and subject; its parent's name.
    pub rev: String,
    pub subject: String,
    pub parent: String,
    /// Measured afresh against its parent, shown worse at the bisection's
    /// alpha.
    pub confirmed: bool,
    /// Per bisected metric: the change from the parent (%) and its 95 %
    /// interval.
    pub changes: Vec<search::Change>,
}

/// Bisect as [`run`] does, and hand back its answer.
pub fn answer(o: &Options) -> Result<Answer> {
    crate::experiment::command::check_command(&o.command, o.parse)?;
    let plan = plan_of(o);
    let state = session::start(&plan, &o.env, false)?
        .ok_or_else(|| anyhow::anyhow!("the bisection did not run"))?;
    let culprit = match state.outcome.as_ref() {
        Some(search::Outcome::Culprit {
            index,
            confirmed,
            changes,
            ..
        }) => Some(Culprit {
            rev: state.candidates[*index].name.clone(),
            subject: state.candidates[*index].detail.clone(),
            parent: state.candidates[index.saturating_sub(1)].name.clone(),
            confirmed: *confirmed,
            changes: changes.iter().map(|c| (c.0.clone(), c.1, c.2)).collect(),
        }),
        _ => None,
    };
    Ok(Answer {
        id: plan.id.clone(),
        label: plan.label.clone(),
        culprit,
        outcome: report::outcome_lines(&state).join("; "),
        units: state.units,
    })
}

/// Go on with a stopped bisection (`None`: the newest unfinished one).
pub fn resume(env: &Env, id: Option<&str>) -> Result<()> {
    // A stored plan's build and command run as whoever resumes it: only
    // from a store no one else could have planted them in.
    if let Err(why) = crate::store::trusted_for_commands(env.front.db()) {
        return Err(input(format!(
            "bisect --resume: kbench runs no command from this store: {why}; keep the store where only you (and root) can write, or start the bisection again"
        )));
    }
    let (plan, state) = report::load(env, id, true)?;
    session::go_on(plan, state, env).map(|_| ())
}

/// Every step of a bisection, with its decision and units.
pub fn log(env: &Env, id: Option<&str>) -> Result<()> {
    let (plan, state) = report::load(env, id, false)?;
    report::log(&plan, &state, &env.front)
}

/// The metrics' directions: given, else declared by the benchmark.
pub fn directions(plan: &Plan) -> Result<Vec<(String, Better)>> {
    let entry = plan.command.first().and_then(|c| crate::registry::find(c));
    let metrics: Vec<MetricArg> = if plan.metrics.is_empty() {
        match entry {
            Some(e) => vec![MetricArg {
                name: e.headline.to_string(),
                better: None,
            }],
            None => return Err(input(
                "say which metric to bisect: --metric NAME (with `run`, NAME:lower or NAME:higher)",
            )),
        }
    } else {
        plan.metrics.clone()
    };
    metrics
        .iter()
        .map(|m| {
            let declared = entry
                .and_then(|e| e.metrics.iter().find(|s| s.name == m.name))
                .map(|s| s.better);
            match m.better.or(declared) {
                Some(Better::Neither) | None => Err(input(format!(
                    "--metric {}: its direction is not known{}: give {}:lower or {}:higher",
                    m.name,
                    entry.map_or(String::new(), |e| format!(
                        " ({} does not declare it)",
                        e.name
                    )),
                    m.name,
                    m.name
                ))),
                Some(b) => Ok((m.name.clone(), b)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_parse_with_their_direction() {
        assert_eq!(
            parse_metric("time").unwrap(),
            MetricArg {
                name: "time".into(),
                better: None
            }
        );
        assert_eq!(
            parse_metric("rps:higher").unwrap().better,
            Some(Better::Higher)
        );
        assert!(parse_metric("x:sideways").is_err());
        assert!(parse_metric("").is_err());
        assert!(parse_metric("a b").is_err());
    }
}
