//! `campaign init --rounds auto[:MAX]`: after each whole round, every
//! label is decided against the first with `matrix --rounds auto`'s rule
//! ([`crate::experiment::look`]), each boot one unit (the mean of its
//! block's runs, warm-ups left out); when none is left undecided the
//! campaign's order ends there, and the last step compares as usual.
//! An A/A twin (`LABEL/aa`) is the noise floor, not an arm: it is left
//! out of the decision.

use super::Plan;
use crate::store::{RunFilter, RunRecord, RunStatus, Store, Tag};
use anyhow::Result;

/// After a step: `Some(why)` when the campaign is decided (its order is
/// cut to the blocks run), `None` to go on.
pub fn look(store: &dyn Store, plan: &mut Plan) -> Result<Option<String>> {
    let Some(auto) = plan.auto.clone() else {
        return Ok(None);
    };
    let per_round = plan.boots.len();
    if plan.next == 0 || !plan.next.is_multiple_of(per_round) || plan.next >= plan.order.len() {
        return Ok(None);
    }
    let round = plan.next / per_round;
    let labels: Vec<String> = plan
        .boots
        .iter()
        .map(|b| b.label.clone())
        .filter(|l| *l != crate::experiment::plan::aa_label(&plan.boots[0].label))
        .collect();
    let runs = store.load_runs(
        &RunFilter {
            labels: labels.clone(),
            ..Default::default()
        },
        false,
    )?;
    // This campaign's runs: those the look is about.
    let runs: Vec<RunRecord> = runs
        .into_iter()
        .filter(|x| matches!(Tag::of(x), Some(Tag::Campaign { ref id, .. }) if *id == plan.name))
        .collect();
    if let Some(why) = crate::experiment::look::withheld(&runs) {
        // Said as the step's warning; the campaign runs to its cap.
        return Err(anyhow::anyhow!("{why}"));
    }
    let (values, better) = crate::experiment::look::round_means(
        &runs,
        labels.len(),
        round,
        &auto.metric,
        |x, arm, r| {
            x.label == labels[arm]
                && x.status == RunStatus::Complete
                && x.settings["warmup"] != true
                && matches!(Tag::of(x), Some(Tag::Campaign { ref id, round, .. })
                    if *id == plan.name && round == r)
        },
    );
    let Some(better) = better else {
        return Err(crate::error::input(format!(
            "--rounds auto: the campaign's runs have no metric {}",
            auto.metric
        )));
    };
    // A label short of a round (a failed block) waits for the next look.
    if values.iter().any(|v| v.len() < round) {
        return Ok(None);
    }
    let why = crate::experiment::look::decided(
        &crate::experiment::look::Rounds {
            labels: &labels,
            values: &values,
            better,
            alpha: auto.alpha,
            threshold_pct: auto.threshold_pct,
            cap: plan.rounds,
        },
        round,
        &auto.metric,
    );
    if why.is_some() {
        plan.order.truncate(plan.next);
    }
    Ok(why)
}
