//! `--runs auto`: repeat until the headline metric's answer is clear, by
//! the sequential rule of `stats::sequential` (alone: until the interval
//! is within `--precision`; against a stored label: until the verdict is
//! decided), or until the cap or the time budget.

use super::entry::Entry;
use crate::session::Ctx;
use crate::stats::sequential;
use crate::store::{RunRecord, RunStatus};
use anyhow::Result;

/// `--runs auto`: the headline metric's values so far and the rule that
/// decides when they are enough ([`sequential`]).
pub struct AutoRuns {
    metric: &'static str,
    rule: sequential::Rule,
    values: Vec<f64>,
    decision: sequential::Decision,
    why_stopped: Option<String>,
}

impl AutoRuns {
    pub fn new(
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
                threshold_pct: ctx.global.threshold,
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
    pub fn after(
        &mut self,
        rec: &RunRecord,
        last: bool,
        elapsed: std::time::Duration,
        budget: Option<std::time::Duration>,
    ) -> bool {
        if let Some(m) = rec.metrics.iter().find(|m| m.name == self.metric) {
            if counts(rec) {
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

    pub fn outcome(&self, runs: usize) -> String {
        format!(
            "{}; stopped after {runs} run(s), {} of them counted ({} of complete runs, warm-up left out and suspect runs kept, as compare counts by default; 5% error rate kept across every look)",
            self.why_stopped.as_deref().unwrap_or("stopped"),
            self.values.len(),
            self.metric
        )
    }
}

/// Whether a run counts for the sequential rule: exactly the runs compare
/// counts by default (complete, not a warm-up repetition; suspect runs
/// are kept, as compare keeps them unless `--exclude-suspect`).
fn counts(r: &RunRecord) -> bool {
    r.status == RunStatus::Complete && r.settings["warmup"] != true
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
    let same: Vec<&RunRecord> = runs
        .iter()
        .filter(|r| (entry.canonical)(&r.params) == want)
        .collect();
    let counted: Vec<&RunRecord> = same.iter().copied().filter(|r| counts(r)).collect();
    let v: Vec<f64> = counted
        .iter()
        .filter_map(|r| r.metrics.iter().find(|m| m.name == metric).map(|m| m.value))
        .collect();
    if v.len() < 2 {
        let warm = same.len() - counted.len();
        return Err(crate::error::input(format!(
            "--against {label}: {} stored run(s) of {benchmark} with these settings count ({} of {} runs with other settings, {warm} warm-up left out, as compare counts); at least 2 are needed",
            v.len(),
            runs.len() - same.len(),
            runs.len()
        )));
    }
    // Boots as boots: where the baseline's runs come from several boots
    // compare takes the boot as its unit, and more runs of this one boot
    // add none.
    let mut boots: Vec<&str> = counted
        .iter()
        .filter_map(|r| r.fingerprint.as_ref()?.boot_id.as_deref())
        .collect();
    boots.sort_unstable();
    boots.dedup();
    if boots.len() >= 2 {
        return Err(crate::error::input(format!(
            "--against {label}: its runs come from {} boots, so compare takes the boot as the unit and more runs within this one boot add none; compare boots instead (kbench vm or kbench campaign), or --against a label of one boot",
            boots.len()
        )));
    }
    Ok(v)
}
