//! "How the kernel scheduled the run": the `sched.*` counters of every
//! run (switches, CPU, run-queue wait, migrations of the probe's tasks
//! and of a scenario's background tasks; every other task's switches;
//! interrupts and softirqs) compared between labels with the scoreboard's
//! own tests and interval rules, as a family of their own: they explain
//! the scoreboard's answer and are not the question, so they are adjusted
//! among themselves and never cost a headline metric its power
//! (`compare::build` decides the two families apart).  Listed: the counters whose
//! difference is decided, largest change first; counted: those that did
//! not differ.  Per-CPU counters (`sched.cpuN.*`) are stored but left out
//! here unless named with `--metric`.

use super::{undecided as build_undecided, Comparison, Options, Verdict};
use crate::store::RunRecord;
use serde::Serialize;

/// One decided counter of one group and label.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub benchmark: String,
    /// The scenario task, when the runs are one's.
    pub task: Option<String>,
    pub metric: String,
    pub unit: String,
    pub label: String,
    pub change_pct: Option<f64>,
    pub change_ci_pct: Option<(f64, f64)>,
    pub verdict: Verdict,
}

/// The section: what differed, how many tests it took, the rest.
#[derive(Clone, Debug, Serialize)]
pub struct Scheduling {
    pub rows: Vec<Row>,
    pub tests: usize,
    pub not_different: usize,
    pub too_few_runs: usize,
}

fn in_section(name: &str) -> bool {
    name.starts_with("sched.") && !name.starts_with("sched.cpu")
}

/// The section's comparison over `runs`, its verdicts not made yet
/// (`None` when no run has a `sched.*` counter under more than one label).
pub fn undecided(runs: &[RunRecord], o: &Options) -> Option<Comparison> {
    let mut names: Vec<String> = runs
        .iter()
        .flat_map(|r| r.metrics.iter())
        .filter(|m| in_section(&m.name))
        .map(|m| m.name.clone())
        .collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return None;
    }
    let opts = Options {
        metrics: names,
        ..o.clone()
    };
    build_undecided(runs, &opts).ok()
}

/// The section from its decided comparison: what differed, largest change
/// first, and how many did not.
pub fn section(c: &Comparison) -> Option<Scheduling> {
    let (mut rows, mut tests, mut not_different, mut too_few) = (Vec::new(), 0, 0, 0);
    for g in &c.groups {
        let task = g
            .params
            .get("task")
            .and_then(|t| t.as_str())
            .map(str::to_string);
        for m in &g.metrics {
            for l in &m.labels {
                let Some(v) = &l.versus else { continue };
                match v.verdict {
                    Verdict::Better | Verdict::Worse | Verdict::Different => {
                        tests += 1;
                        rows.push(Row {
                            benchmark: g.benchmark.clone(),
                            task: task.clone(),
                            metric: m.metric.clone(),
                            unit: m.unit.clone(),
                            label: l.label.clone(),
                            change_pct: v.change_pct,
                            change_ci_pct: v.change_ci_pct,
                            verdict: v.verdict,
                        })
                    }
                    Verdict::TooFewRuns => too_few += 1,
                    _ => {
                        tests += 1;
                        not_different += 1;
                    }
                }
            }
        }
    }
    if tests == 0 && too_few == 0 {
        return None;
    }
    rows.sort_by(|a, b| {
        let size = |r: &Row| r.change_pct.map_or(0.0, f64::abs);
        size(b).total_cmp(&size(a))
    });
    Some(Scheduling {
        rows,
        tests,
        not_different,
        too_few_runs: too_few,
    })
}
