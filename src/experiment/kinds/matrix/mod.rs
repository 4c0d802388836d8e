//! `kbench matrix`: one kbench command under every combination of runtime
//! knobs, interleaved in seeded random blocks within one boot.
//!
//! Before anything changes, every knob is read (a knob that cannot be read
//! or written is refused with the reason) and its original value goes into
//! a restore record ([`crate::experiment::restore`]); every value is then written once
//! and read back, so a value the kernel refuses stops the experiment before
//! the first run.  Each round visits every combination once in a fresh
//! order ([`crate::experiment::order`]); before each run the combination's values are
//! written and read back, and the values read back go into the run's
//! fingerprint.  The command runs as a child kbench process with the
//! combination's label, `<base label>/<knob>=<value>/…`.  At the end (and on
//! error or Ctrl-C) the originals are written back; the comparison across
//! combinations is printed with compare's verdicts (Holm across the
//! report).
//!
//! `--rounds auto` looks after rounds 3, 5, 8, 12, … and at the cap with
//! the sequential rule of `--runs auto` ([`crate::stats::sequential`]):
//! each look spends its share of α, split evenly (Bonferroni) over the combinations
//! compared with the first, and the matrix stops when every one of them is
//! decided (better, worse or equivalent).  A round contributes one value
//! per combination (the mean of its runs), so the rule sees independent
//! blocks.

mod check;
mod design;
mod report;
mod state;

pub use crate::experiment::setup::Options;

use crate::error::input;
use crate::experiment::combos::headline;
use crate::experiment::engine::{self, Ended, Plan};
use crate::experiment::event::Events;
use crate::experiment::restore::{Guard, Record};
use crate::experiment::runner::Here;
use crate::store::Kind;
use crate::values::Runs;
use anyhow::Result;
use std::collections::BTreeMap;

/// Run the matrix.
pub fn run(o: &Options) -> Result<()> {
    let combos = check::check(o)?;
    if !o.vary.is_empty() && matches!(o.rounds, Runs::Auto { .. }) {
        return Err(input(
            "--rounds auto decides knob combinations against the first; with --vary give a number of rounds",
        ));
    }
    let metric = match (&o.rounds, &o.metric) {
        (_, Some(m)) => Some(m.clone()),
        (Runs::Auto { .. }, None) => match crate::registry::find(&o.command[0]) {
            Some(e) => Some(e.headline.to_string()),
            None => {
                return Err(input(
                    "--rounds auto with a scenario needs --metric NAME to decide on",
                ))
            }
        },
        _ => None,
    };
    let saved = check::read_knobs(o)?;
    let (rounds_planned, max_rounds) = match o.rounds {
        Runs::Fixed(n) => (n as usize, n as usize),
        Runs::Auto { max } => (max as usize, max as usize),
    };
    let seed = o.seed.unwrap_or_else(crate::experiment::order::fresh_seed);
    let order = crate::experiment::order::blocks(combos.len(), max_rounds, seed);
    let state = state_of(o, &combos, &saved, metric);
    let mut plan = Plan::new(Kind::Matrix, seed, order, state);
    let events = Events::new(&o.front);
    engine::planned(
        &events,
        &plan,
        &headline(o, &combos, &plan.id, seed, rounds_planned),
    );
    for s in &saved {
        events.note(&format!(
            "  {} is {} now (restored at the end)",
            s.name, s.original
        ));
    }
    if o.dry_run {
        for (r, block) in plan.order.iter().enumerate() {
            let names: Vec<String> = block.iter().map(|&i| combos[i].shown()).collect();
            o.front
                .line(&format!("round {}: {}", r + 1, names.join(", ")));
        }
        return Ok(());
    }
    if !o.knobs.is_empty() && !crate::sys::proc::is_root() {
        return Err(crate::error::privilege(
            "kbench matrix writes kernel knobs: run it as root (sudo)",
        ));
    }
    plan.state.schedulers = crate::experiment::sched::check(&o.scheds)?;
    let _lock = crate::experiment::lock::hold(&o.front, "matrix", &plan.id, "matrix", false)?;
    let mut guard = Guard::new(Record {
        knobs: saved.clone(),
    })?;
    check::try_every_value(o, &saved)?;
    let outcome = {
        let mut store = o.front.write_store()?;
        let mut runner = Here::for_front(&o.front);
        let mut design = design::Matrix::new(o, &combos);
        engine::drive(&mut design, &mut plan, &mut runner, store.as_mut(), &events)
    };
    let restored = guard.restore();
    if !saved.is_empty() {
        match &restored {
            Ok(()) => events.note(&format!(
                "knobs restored: {}",
                saved
                    .iter()
                    .map(|s| format!("{}={}", s.name, s.original))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Err(e) => events.warn(&format!("kbench: {e:#}")),
        }
    }
    let (done, stop) = match outcome? {
        Ended::Stopped(why) => (plan.done / combos.len().max(1), why),
        Ended::Done => (
            plan.order.len(),
            if matches!(o.rounds, Runs::Auto { .. }) {
                format!("undecided at the cap of {} rounds", plan.order.len())
            } else {
                format!(
                    "{} round{} as asked",
                    plan.order.len(),
                    if plan.order.len() == 1 { "" } else { "s" }
                )
            },
        ),
    };
    restored?;
    report::closing(o, &combos, &plan, done, &stop)
}

/// What the plan keeps of the matrix, before its schedulers are checked.
fn state_of(
    o: &Options,
    combos: &[crate::experiment::combos::Combination],
    saved: &[crate::experiment::restore::Saved],
    metric: Option<String>,
) -> state::State {
    state::State {
        command: o.command.clone(),
        knobs: o
            .knobs
            .iter()
            .map(|k| serde_json::json!({"name": k.name, "where": k.location.shown(), "values": k.values}))
            .collect(),
        originals: saved
            .iter()
            .map(|s| (s.name.clone(), s.original.clone()))
            .collect::<BTreeMap<_, _>>(),
        vary: o
            .vary
            .iter()
            .map(|v| serde_json::json!({"flag": v.flag, "values": v.values}))
            .collect(),
        schedulers: Vec::new(),
        combinations: combos.iter().map(|c| c.shown()).collect(),
        metric,
        started: crate::sys::time::unix_now(),
    }
}

#[cfg(test)]
mod tests {
    use crate::experiment::combos::combinations;
    use crate::experiment::knob::{self, Knob};

    #[test]
    fn combinations_and_labels() {
        let k = |n: &str, v: &[&str]| Knob {
            name: n.into(),
            location: knob::Location::File(n.into()),
            values: v.iter().map(|s| s.to_string()).collect(),
        };
        let c = combinations(
            &[k("autogroup", &["0", "1"]), k("thp", &["always", "never"])],
            &[],
            false,
            "b",
        );
        let labels: Vec<&str> = c.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "b/autogroup=0/thp=always",
                "b/autogroup=0/thp=never",
                "b/autogroup=1/thp=always",
                "b/autogroup=1/thp=never"
            ]
        );
        // A varied flag: points within each knob value, on the command
        // line and not in the label.
        let v = crate::experiment::vary::parse("groups=1,4").unwrap();
        let c = combinations(
            &[k("autogroup", &["0", "1"])],
            std::slice::from_ref(&v),
            false,
            "b",
        );
        let shown: Vec<(String, Vec<String>)> =
            c.iter().map(|c| (c.shown(), c.args.clone())).collect();
        let a = |x: &str| vec!["--groups".to_string(), x.to_string()];
        assert_eq!(
            shown,
            vec![
                ("b/autogroup=0 groups=1".into(), a("1")),
                ("b/autogroup=0 groups=4".into(), a("4")),
                ("b/autogroup=1 groups=1".into(), a("1")),
                ("b/autogroup=1 groups=4".into(), a("4")),
            ]
        );
        let c = combinations(&[], &[v], true, "b");
        assert_eq!(c[1].label, "b");
        assert_eq!(c[1].args, ["--var", "groups=4"]);
    }
}
