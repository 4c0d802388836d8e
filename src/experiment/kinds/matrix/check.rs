//! A matrix's knobs, command and combinations checked before anything
//! changes: every knob read and its values tried, so a value the kernel
//! refuses stops the matrix before its first run.

use super::Options;
use crate::error::input;
use crate::experiment::combos::{check_points, combinations, with_scheds, Combination};
use crate::experiment::command::check_command;
use crate::experiment::knob;
use crate::experiment::restore::Saved;
use anyhow::Result;

/// The matrix's knobs, command and combinations checked; its combinations.
pub fn check(o: &Options) -> Result<Vec<Combination>> {
    if o.knobs.is_empty() && o.vary.is_empty() && o.scheds.is_empty() {
        return Err(input(
            "give at least one --knob NAME=VALUE,VALUE, --vary FLAG=VALUES or --sched",
        ));
    }
    for (i, v) in o.vary.iter().enumerate() {
        if o.vary[..i].iter().any(|w| w.flag == v.flag) {
            return Err(input(format!("--vary {} is given twice", v.flag)));
        }
    }
    for (i, k) in o.knobs.iter().enumerate() {
        if let Some(other) = o.knobs[..i].iter().find(|j| j.location == k.location) {
            return Err(input(format!(
                "--knob {} and --knob {} are the same knob",
                other.name, k.name
            )));
        }
    }
    check_command(&o.command, o.parse)?;
    // Counted before any is built or checked: three 64-value --vary are
    // 262,144 combinations, each checked by running kbench.
    let counts = o.knobs.iter().map(|k| k.values.len());
    let mut counts = counts
        .chain(o.vary.iter().map(|v| v.values.len()))
        .chain((!o.scheds.is_empty()).then_some(o.scheds.len()));
    let n = counts.try_fold(1usize, |n, c| n.checked_mul(c));
    match n {
        Some(n) if n < 2 => {
            return Err(input(
                "a matrix needs at least two combinations: give some knob two values",
            ))
        }
        Some(n) if n <= knob::MAX_COMBINATIONS => {}
        _ => {
            return Err(input(format!(
                "{} combinations: at most {} (fewer knobs or values)",
                n.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string()),
                knob::MAX_COMBINATIONS
            )))
        }
    }
    let scenario = o.command[0] == "run";
    let combos = combinations(&o.knobs, &o.vary, scenario, &o.base_label);
    let mut combos = with_scheds(combos, &o.scheds);
    check_points(o, &mut combos, scenario)?;
    Ok(combos)
}

/// Every knob read (its value kept for the restore record) and its values
/// checked against what it accepts, before anything changes; as root, the
/// value in effect written back, which shows whether the kernel lets us.
pub fn read_knobs(o: &Options) -> Result<Vec<Saved>> {
    let mut saved = Vec::new();
    for k in &o.knobs {
        let original = k
            .location
            .read()
            .map_err(|e| knob::refusal(k, "reading", &e))?;
        if let Some(choices) = k.location.choices() {
            if let Some(bad) = k.values.iter().find(|v| !choices.contains(v)) {
                return Err(input(format!(
                    "--knob {}: '{bad}' is not one of {} ({})",
                    k.name,
                    choices.join(", "),
                    k.location.shown()
                )));
            }
        }
        if crate::sys::proc::is_root() && !o.dry_run {
            // Writing back the value in effect changes nothing, and shows
            // whether the kernel lets us write at all.
            k.location
                .write(&original)
                .map_err(|e| knob::refusal(k, "writing", &e))?;
        }
        saved.push(Saved {
            name: k.name.clone(),
            location: k.location.clone(),
            original,
        });
    }
    Ok(saved)
}

/// Every value of every knob written once and read back, then the
/// original again, before the first run: a value the kernel takes
/// otherwise is found before any run is spent on it.
pub fn try_every_value(o: &Options, saved: &[Saved]) -> Result<()> {
    for (k, s) in o.knobs.iter().zip(saved) {
        for v in k.values.iter().chain(std::iter::once(&s.original)) {
            let back = k
                .location
                .write(v)
                .map_err(|e| knob::refusal(k, &format!("writing {v} to"), &e))?;
            if &back != v {
                return Err(input(format!(
                    "--knob {}: wrote {v} to {} but it reads back {back}",
                    k.name,
                    k.location.shown()
                )));
            }
        }
    }
    Ok(())
}
