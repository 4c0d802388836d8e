//! The comparison before its verdicts: the labels chosen and checked,
//! suspect, warm-up and emulated runs said, runs grouped by benchmark and
//! parameters, and each group's figures built.

use super::{
    boots, config_diff, confound, emulated, group, group_key, missing, Comparison, Options,
};
use crate::store::RunRecord;
use anyhow::Result;
use std::collections::BTreeMap;

/// The comparison with every pair's figures but no verdict yet.
pub(crate) fn undecided(runs: &[RunRecord], o: &Options) -> Result<Comparison> {
    let runs: Vec<&RunRecord> = runs
        .iter()
        .filter(|r| r.status == crate::store::RunStatus::Complete)
        .collect();
    let (labels, baseline) = labels_and_baseline(&runs, o)?;
    let mut warnings = Vec::new();
    let chosen = || runs.iter().copied().filter(|r| labels.contains(&r.label));
    let suspect = crate::health::suspect_ids(chosen());
    if !suspect.is_empty() {
        warnings.push(suspect_note(&suspect, chosen().count(), o));
    }
    let emulated = emulated::find(&runs, &labels);
    let mut above: Vec<String> = emulated::notice(&emulated, o.allow_emulated)
        .into_iter()
        .collect();
    let warmup: Vec<i64> = chosen()
        .filter(|r| r.settings["warmup"] == true)
        .map(|r| r.id)
        .collect();
    let left_out: Vec<String> = warmup_note(&warmup, o).into_iter().collect();
    let mut by_group: BTreeMap<(String, String), Vec<&RunRecord>> = BTreeMap::new();
    for r in chosen() {
        let left = (o.exclude_suspect && suspect.contains(&r.id))
            || (!o.include_warmup && warmup.contains(&r.id));
        if !left {
            by_group.entry(group_key(r)).or_default().push(r);
        }
    }
    let missing = missing::missing(&by_group, &labels, o);
    // Said first, and beside each verdict it touches.
    above.extend(boots::single_boot(&runs, &labels));
    let groups: Vec<_> = by_group
        .into_iter()
        .filter_map(|((benchmark, params), rs)| {
            group::build_group(
                &benchmark,
                &params,
                &rs,
                &labels,
                &baseline,
                o,
                &mut warnings,
            )
        })
        .collect();
    if groups.is_empty() && missing.is_empty() {
        warnings.push(
            "no benchmark has runs under more than one of the labels: nothing to set side by side"
                .into(),
        );
    }
    let diff = config_diff::build(&runs, &labels, &mut warnings);
    let knobs = config_diff::knob_names(&runs, &labels);
    above.extend(confound::guard(&diff, &knobs, &runs, &labels));
    Ok(Comparison {
        labels,
        baseline,
        alpha: o.alpha,
        decider: o.decider,
        correction: o.correction,
        threshold_pct: o.threshold_pct,
        tally: Vec::new(),
        tests: 0,
        config_diff: diff,
        above,
        warnings,
        left_out,
        missing,
        groups,
        scheduling: None,
        wide: false,
        emulated_ids: emulated.ids.clone(),
    })
}

/// The labels compared (`--label`s, else every label in order of first
/// run) and the baseline, each checked to have complete runs.
fn labels_and_baseline(runs: &[&RunRecord], o: &Options) -> Result<(Vec<String>, String)> {
    let mut labels = o.labels.clone();
    if labels.is_empty() {
        for r in runs {
            if !labels.contains(&r.label) {
                labels.push(r.label.clone());
            }
        }
    }
    for l in &labels {
        if !runs.iter().any(|r| &r.label == l) {
            return Err(crate::error::input(format!(
                "no complete runs for label '{l}' (see `kbench labels`)"
            )));
        }
    }
    if labels.is_empty() {
        return Err(crate::error::input("no complete runs to compare"));
    }
    let baseline = o.baseline.clone().unwrap_or_else(|| labels[0].clone());
    if !labels.contains(&baseline) {
        return Err(crate::error::input(format!(
            "--baseline {baseline} is not among the labels compared"
        )));
    }
    Ok((labels, baseline))
}

/// The warning that names the suspect runs, kept or left out.
fn suspect_note(suspect: &[i64], chosen: usize, o: &Options) -> String {
    let ids = crate::text::id_list(suspect);
    if o.exclude_suspect {
        format!(
            "{} suspect run(s) left out (--exclude-suspect): {ids}",
            suspect.len()
        )
    } else {
        format!(
            "{} of {chosen} runs are suspect (the machine disturbed them; `kbench runs show ID` says how): {ids}; --exclude-suspect leaves them out",
            suspect.len()
        )
    }
}

/// What became of the warm-up runs, if there were any.
fn warmup_note(warmup: &[i64], o: &Options) -> Option<String> {
    if warmup.is_empty() {
        return None;
    }
    let ids = crate::text::id_list(warmup);
    Some(if o.include_warmup {
        format!(
            "{} warm-up run(s) kept (--include-warmup): {ids}",
            warmup.len()
        )
    } else {
        format!(
            "{} warm-up run(s) left out (the first repetition differs for their benchmark; --include-warmup keeps them): {ids}",
            warmup.len()
        )
    })
}
