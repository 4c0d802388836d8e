//! `runs = "auto[:MAX]"` in a scenario file: repeat the scenario until
//! every probe's figure is known within `precision`, or MAX repetitions.
//!
//! The rule is `--runs auto`'s (see `lifecycle::sequential`): the looks
//! fall after repetitions 3, 5, 8, 12, … and at MAX, α is split over them
//! in proportion to the repetitions each has seen, and a probe is decided
//! when the t interval of its mean at that look's α is within `precision`
//! % of the mean.  A scenario has several probes (a task per phase), so α
//! is split over them too (Bonferroni): the stated 95 % holds for all the
//! probes' intervals at once.  A probe's value in a repetition is the mean
//! of its runs there (a task may run several), of the figure its report
//! row shows first, so one repetition is one value.

use super::{Role, Scenario};
use crate::stats::sequential::{decide, is_look, Decision, Rule};
use crate::store::{RunFilter, RunRecord, RunStatus, Store};
use anyhow::Result;

/// The scenario's α (a 95 % confidence sequence).
const ALPHA: f64 = 0.05;

/// One probe's values, a repetition each.
struct Series {
    what: String,
    values: Vec<f64>,
}

/// The probes' series from the runs of `reps` complete repetitions.
fn series(sc: &Scenario, runs: &[RunRecord], reps: u32) -> Vec<Series> {
    let mut out = Vec::new();
    for ph in &sc.phases {
        for task in ph.tasks.iter().filter(|t| t.role == Role::Probe) {
            let Some(metric) = task.show.first() else {
                continue;
            };
            let mut values = Vec::new();
            for rep in 0..reps {
                let vals: Vec<f64> = runs
                    .iter()
                    .filter(|r| {
                        r.status == RunStatus::Complete
                            && r.phase.as_deref() == Some(ph.name.as_str())
                            && r.repetition == Some(rep as i64)
                            && r.params.get("task").and_then(|t| t.as_str())
                                == Some(task.name.as_str())
                    })
                    .filter_map(|r| r.metrics.iter().find(|m| &m.name == metric))
                    .map(|m| m.value)
                    .filter(|v| v.is_finite())
                    .collect();
                if !vals.is_empty() {
                    values.push(vals.iter().sum::<f64>() / vals.len() as f64);
                }
            }
            out.push(Series {
                what: format!("{} {metric}", task.row),
                values,
            });
        }
    }
    out
}

/// After `reps` complete repetitions: `Some(why)` when every probe is
/// decided (stop), `None` to go on.  Only at the planned looks.
pub fn decided(
    sc: &Scenario,
    precision_pct: f64,
    store: &dyn Store,
    id: &str,
    reps: u32,
) -> Result<Option<String>> {
    let cap = sc.runs as usize;
    if !is_look(reps as usize, cap) || reps as usize >= cap {
        return Ok(None);
    }
    let runs = store.load_runs(
        &RunFilter {
            scenario: Some(id.to_string()),
            only_complete: true,
            ..Default::default()
        },
        false,
    )?;
    Ok(decide_all(
        sc,
        precision_pct,
        &series(sc, &runs, reps),
        reps,
    ))
}

/// Every series precise at its share of α (at this look), or `None`.
fn decide_all(sc: &Scenario, precision_pct: f64, all: &[Series], reps: u32) -> Option<String> {
    if all.is_empty() {
        return None;
    }
    let rule = Rule {
        alpha: ALPHA / all.len() as f64,
        precision_pct,
        threshold_pct: 0.0,
        better: crate::measure::Better::Neither,
        baseline: None,
        cap: sc.runs as usize,
        futility: false,
    };
    let mut widest: f64 = 0.0;
    for s in all {
        if s.values.len() != reps as usize {
            return None; // a repetition without this probe's figure
        }
        match decide(&rule, &s.values) {
            Decision::Precise(h) => widest = widest.max(h),
            _ => return None,
        }
    }
    Some(format!(
        "stopped after {reps} repetitions: every probe's figure ({}) is within ±{widest:.2}% of its mean (95% confidence sequence over {} probe(s) and the planned looks)",
        all.iter().map(|s| s.what.as_str()).collect::<Vec<_>>().join(", "),
        all.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sc(cap: u32) -> Scenario {
        Scenario {
            name: "t".into(),
            description: String::new(),
            runs: cap,
            auto_precision: Some(2.0),
            scale: 1.0,
            isolate: false,
            phases: Vec::new(),
            sweep: Vec::new(),
        }
    }

    #[test]
    fn every_probe_must_be_precise_and_only_at_looks() {
        let steady = Series {
            what: "a".into(),
            values: vec![10.0, 10.01, 9.99],
        };
        let noisy = Series {
            what: "b".into(),
            values: vec![10.0, 14.0, 7.0],
        };
        let s = sc(20);
        let why = decide_all(&s, 2.0, &[steady], 3).expect("a steady probe is decided");
        assert!(
            why.contains("stopped after 3 repetitions") && why.contains("1 probe"),
            "{why}"
        );
        let steady = Series {
            what: "a".into(),
            values: vec![10.0, 10.01, 9.99],
        };
        assert!(
            decide_all(&s, 2.0, &[steady, noisy], 3).is_none(),
            "one noisy probe keeps it going"
        );
        // Not a look: 4 repetitions.
        let four = Series {
            what: "a".into(),
            values: vec![10.0, 10.01, 9.99, 10.0],
        };
        assert!(decide_all(&s, 2.0, &[four], 4).is_none());
        // A probe with a missing repetition is not decided.
        let short = Series {
            what: "a".into(),
            values: vec![10.0, 10.01],
        };
        assert!(decide_all(&s, 2.0, &[short], 3).is_none());
    }
}
