//! What a matrix reads back and says: the `--rounds auto` look over the
//! rounds so far, and the closing comparison across combinations
//! (compare's verdicts, Holm across the report), as a table or, under
//! `--json`, one document with the plan beside it.

use super::state::State;
use super::Options;
use crate::compare;
use crate::error::input;
use crate::experiment::combos::Combination;
use crate::experiment::engine::{self, Plan};
use crate::stats::sequential;
use crate::store::{Kind, RunRecord, Store, Tag};
use crate::values::Runs;
use anyhow::Result;

/// This matrix's complete runs.
pub fn runs(
    store: &dyn Store,
    combos: &[Combination],
    plan: &Plan<State>,
) -> Result<Vec<RunRecord>> {
    let labels: Vec<String> = combos.iter().map(|c| c.label.clone()).collect();
    engine::runs_of(
        store,
        Kind::Matrix,
        &plan.id,
        &labels,
        Some(plan.state.started),
    )
}

/// The `--rounds auto` look after `round` rounds: `Some(reason)` to stop.
pub fn decided(
    o: &Options,
    combos: &[Combination],
    plan: &Plan<State>,
    store: &dyn Store,
    metric: &str,
    round: usize,
    events: &crate::experiment::event::Events,
) -> Result<Option<String>> {
    let cap = match o.rounds {
        Runs::Auto { max } => max as usize,
        Runs::Fixed(n) => n as usize,
    };
    if !sequential::is_look(round, cap) {
        return Ok(None);
    }
    let runs = runs(store, combos, plan)?;
    if let Some(why) = crate::experiment::look::withheld(&runs) {
        events.emit(&crate::experiment::event::Event::Note {
            text: &format!("round {round}: {why}"),
            warning: false,
        });
        return Ok(None);
    }
    // One value per combination and round: the mean of that round's runs.
    let (per_combo, better) =
        crate::experiment::look::round_means(&runs, combos.len(), round, metric, |x, ci, r| {
            x.label == combos[ci].label
                && matches!(Tag::of(x), Some(Tag::Matrix { round, combination, .. })
                if round == r && combination == ci)
        });
    let Some(better) = better else {
        return Err(input(format!(
            "--rounds auto: the runs have no metric {metric} (choose one with --metric)"
        )));
    };
    let labels: Vec<String> = combos.iter().map(|c| c.label.clone()).collect();
    Ok(crate::experiment::look::decided(
        &crate::experiment::look::Rounds {
            labels: &labels,
            values: &per_combo,
            better,
            alpha: o.alpha,
            threshold_pct: o.threshold_pct,
            cap,
        },
        round,
        metric,
    ))
}

/// The plan as a reader of the closing document sees it: the order by
/// combination, as shown.
pub fn view(plan: &Plan<State>) -> serde_json::Value {
    let s = &plan.state;
    serde_json::json!({
        "id": plan.id, "seed": plan.seed, "command": s.command, "knobs": s.knobs,
        "originals": s.originals, "vary": s.vary, "schedulers": s.schedulers,
        "order": plan.order.iter()
            .map(|b| b.iter().map(|&i| s.combinations[i].clone()).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
    })
}

/// The closing report: the comparison across combinations, after `done`
/// rounds that ended for the reason `stop`.
pub fn closing(
    o: &Options,
    combos: &[Combination],
    plan: &Plan<State>,
    done: usize,
    stop: &str,
) -> Result<()> {
    let runs = runs(o.front.read_store()?.as_ref(), combos, plan)?;
    let mut labels: Vec<String> = Vec::new();
    for c in combos {
        if !labels.contains(&c.label) {
            labels.push(c.label.clone());
        }
    }
    let opts = compare::Options {
        labels,
        baseline: None,
        metrics: o.metric.iter().cloned().collect(),
        alpha: o.alpha,
        decider: compare::Decider::Welch,
        correction: crate::stats::multiple::Correction::Holm,
        threshold_pct: o.threshold_pct,
        detect_pct: None,
        exclude_suspect: false,
        include_warmup: false,
        allow_emulated: false,
    };
    let mut c = compare::build(&runs, &opts)?;
    c.wide = o.wide;
    // A sweep reads as its curves: over the first varied flag (a second
    // one makes a curve per value).
    let curves = o
        .vary
        .first()
        .map(|v| compare::curve::curves(&c, &v.flag, &opts.metrics));
    if o.front.json {
        let doc = serde_json::json!({
            "experiment": view(plan), "rounds_done": done, "stopped": stop, "comparison": c,
            "curves": curves,
        });
        o.front.line(&crate::session::json_doc("matrix", doc)?);
        return Ok(());
    }
    let head = format!(
        "matrix {} (seed {}): {done} round{} of {} combinations, {stop}; runs {} (`kbench runs list --label …`)",
        plan.id,
        plan.seed,
        if done == 1 { "" } else { "s" },
        combos.len(),
        crate::text::id_list(&runs.iter().map(|r| r.id).collect::<Vec<_>>())
    );
    o.front
        .line(&crate::text::wrap(&head, crate::text::width()));
    o.front.out(&crate::report::terminal::render_with(
        &c,
        crate::text::colour::stdout(),
        false,
        curves.as_deref().filter(|cs| !cs.is_empty()),
    ));
    Ok(())
}
