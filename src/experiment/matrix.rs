//! `kbench matrix`: one kbench command under every combination of runtime
//! knobs, interleaved in seeded random blocks within one boot.
//!
//! Before anything changes, every knob is read (a knob that cannot be read
//! or written is refused with the reason) and its original value goes into
//! a restore record ([`super::restore`]); every value is then written once
//! and read back, so a value the kernel refuses stops the experiment before
//! the first run.  Each round visits every combination once in a fresh
//! order ([`super::order`]); before each run the combination's values are
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

use super::combos::{check_points, combinations, headline, with_scheds, Combination};
use super::command::check_command;
use super::knob;
use super::restore::{Guard, Record, Saved};
pub use super::setup::Options;
use super::unit::{Here, Ran, Runner, Unit};
use crate::compare;
use crate::error::input;
use crate::stats::sequential;
use crate::store::{Kind, RunFilter, RunRecord, Store, Tag};
use crate::values::Runs;
use anyhow::Result;
use std::collections::BTreeMap;

/// Run the matrix.
pub fn run(o: &Options) -> Result<()> {
    let combos = check(o)?;
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
    let saved = read_knobs(o)?;
    let (rounds_planned, max_rounds) = match o.rounds {
        Runs::Fixed(n) => (n as usize, n as usize),
        Runs::Auto { max } => (max as usize, max as usize),
    };
    let seed = o.seed.unwrap_or_else(super::order::fresh_seed);
    let order = super::order::blocks(combos.len(), max_rounds, seed);
    let id = super::plan::new_id(Kind::Matrix);
    let say = |m: &str| {
        o.front
            .progress(&crate::text::wrap(m, crate::text::width()))
    };
    say(&headline(o, &combos, &id, seed, rounds_planned));
    for s in &saved {
        say(&format!(
            "  {} is {} now (restored at the end)",
            s.name, s.original
        ));
    }
    if o.dry_run {
        for (r, block) in order.iter().enumerate() {
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
    let schedulers = super::sched::check(&o.scheds)?;
    let started = crate::sys::time::unix_now();
    let mut guard = Guard::new(Record {
        knobs: saved.clone(),
    })?;
    try_every_value(o, &saved)?;
    let plan = serde_json::json!({
        "id": id, "seed": seed, "command": o.command,
        "knobs": o.knobs.iter().map(|k| serde_json::json!({"name": k.name, "where": k.location.shown(), "values": k.values})).collect::<Vec<_>>(),
        "originals": saved.iter().map(|s| (s.name.clone(), s.original.clone())).collect::<BTreeMap<_, _>>(),
        "vary": o.vary.iter().map(|v| serde_json::json!({"flag": v.flag, "values": v.values})).collect::<Vec<_>>(),
        "schedulers": schedulers,
        "order": order.iter().map(|b| b.iter().map(|&i| combos[i].shown()).collect::<Vec<_>>()).collect::<Vec<_>>(),
    });
    {
        let mut store = o.front.write_store()?;
        super::plan::save(store.as_mut(), Kind::Matrix, &id, &plan)?;
    }
    let outcome = rounds(
        o,
        &combos,
        &order,
        (&id, seed),
        &schedulers,
        metric.as_deref(),
        started,
    );
    let restored = guard.restore();
    if saved.is_empty() {
        // No knob was changed.
    } else {
        say(&match &restored {
            Ok(()) => format!(
                "knobs restored: {}",
                saved
                    .iter()
                    .map(|s| format!("{}={}", s.name, s.original))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(e) => format!("kbench: {e:#}"),
        });
    }
    let (done, stop) = outcome?;
    restored?;
    report(o, &combos, &id, seed, started, done, &stop, &plan)
}

/// The matrix's knobs, command and combinations checked; its combinations.
fn check(o: &Options) -> Result<Vec<Combination>> {
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
fn read_knobs(o: &Options) -> Result<Vec<Saved>> {
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
fn try_every_value(o: &Options, saved: &[Saved]) -> Result<()> {
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

/// Run the rounds; how many finished and why they stopped.
#[allow(clippy::too_many_arguments)]
fn rounds(
    o: &Options,
    combos: &[Combination],
    order: &[Vec<usize>],
    (id, seed): (&str, u64),
    schedulers: &[serde_json::Value],
    metric: Option<&str>,
    started: f64,
) -> Result<(usize, String)> {
    let total = order.len() * combos.len();
    let mut store = o.front.write_store()?;
    for (r, block) in order.iter().enumerate() {
        for (p, &ci) in block.iter().enumerate() {
            let c = &combos[ci];
            let mut knobs = BTreeMap::new();
            for (k, v) in o.knobs.iter().zip(&c.values) {
                let back = k
                    .location
                    .write(v)
                    .map_err(|e| knob::refusal(k, &format!("writing {v} to"), &e))?;
                if &back != v {
                    anyhow::bail!(
                        "--knob {}: wrote {v} but the kernel shows {back}; stopped",
                        k.name
                    );
                }
                knobs.insert(k.name.clone(), back);
            }
            let line = format!(
                "[round {}/{} · {} of {total}] {}",
                r + 1,
                order.len(),
                r * combos.len() + p + 1,
                c.shown()
            );
            o.front
                .progress(&crate::text::wrap(&line, crate::text::width()));
            let tag = Tag::Matrix {
                id: id.to_string(),
                seed,
                round: r + 1,
                position: p + 1,
                combination: ci,
                point: c.point.iter().cloned().collect(),
                knobs,
            };
            let unit = (&tag, r * combos.len() + p + 1, total);
            let (ran, ejected) = run_one(o, &mut *store, c, unit, schedulers)?;
            if ran.interrupted {
                return Err(crate::error::Interrupted.into());
            }
            match &ran.failed {
                // The run is stored as failed with the reason; the other
                // variants still run.
                Some(_) if ejected => {}
                Some(why) => anyhow::bail!(
                    "round {}, {}: `kbench {}` failed ({why}); the runs before it are stored",
                    r + 1,
                    c.shown(),
                    o.command.join(" "),
                ),
                None => {}
            }
        }
        if let (Some(m), Runs::Auto { .. }) = (metric, o.rounds) {
            if let Some(why) = decided(o, combos, id, started, m, r + 1)? {
                return Ok((r + 1, why));
            }
        }
    }
    Ok((
        order.len(),
        if matches!(o.rounds, Runs::Auto { .. }) {
            format!("undecided at the cap of {} rounds", order.len())
        } else {
            format!(
                "{} round{} as asked",
                order.len(),
                if order.len() == 1 { "" } else { "s" }
            )
        },
    ))
}

/// One run of combination `c` (its tag, its number of how many): under
/// its scheduler variant, attached before and detached after; what it
/// left, and whether the scheduler was ejected during it.
fn run_one(
    o: &Options,
    store: &mut dyn Store,
    c: &Combination,
    (tag, number, of): (&Tag, usize, usize),
    schedulers: &[serde_json::Value],
) -> Result<(Ran, bool)> {
    let variant = c.sched.map(|i| (&o.scheds[i], &schedulers[i]));
    let attached = match variant {
        Some((v, _)) if v.command.is_some() => Some(super::sched::attach(v)?),
        _ => None,
    };
    let mut here = Here {
        db: o.front.db().map(str::to_string),
        quiet: o.front.quiet,
        quiet_stdout: o.front.json,
        ..Default::default()
    };
    if let Some((_, doc)) = variant {
        let mut doc = doc.clone();
        doc["attach_s"] = attached.as_ref().map(|a| a.attach_s).into();
        here.env.push((
            crate::session::inherited::ENV_SCHED_EXT.into(),
            doc.to_string(),
        ));
    }
    let command: Vec<String> = o.command.iter().chain(&c.args).cloned().collect();
    let unit = Unit {
        label: &c.label,
        command: &command,
        tag: Some(tag),
        number,
        of,
    };
    let ran = here.run(store, &unit);
    let ejected = attached.as_ref().is_some_and(|a| !a.still_attached());
    if let Some(a) = attached {
        let attach_s = a.attach_s;
        let detach_s = a.detach()?;
        let line = format!(
            "  sched {}: attached in {attach_s:.2} s, detached in {detach_s:.2} s{}",
            c.label,
            if ejected {
                " (it was ejected during the run: that run is failed)"
            } else {
                ""
            }
        );
        o.front
            .progress(&crate::text::wrap(&line, crate::text::width()));
    }
    Ok((ran?, ejected))
}

/// This experiment's complete runs.
fn runs_of(o: &Options, combos: &[Combination], id: &str, started: f64) -> Result<Vec<RunRecord>> {
    let store = o.front.read_store()?;
    let filter = RunFilter {
        labels: combos.iter().map(|c| c.label.clone()).collect(),
        since: Some(started - 1.0),
        only_complete: true,
        ..Default::default()
    };
    Ok(store
        .load_runs(&filter, false)?
        .into_iter()
        .filter(|r| Tag::of(r).is_some_and(|t| t.is(Kind::Matrix, id)))
        .collect())
}

/// The `--rounds auto` look after `round` rounds: `Some(reason)` to stop.
fn decided(
    o: &Options,
    combos: &[Combination],
    id: &str,
    started: f64,
    metric: &str,
    round: usize,
) -> Result<Option<String>> {
    let cap = match o.rounds {
        Runs::Auto { max } => max as usize,
        Runs::Fixed(n) => n as usize,
    };
    if !sequential::is_look(round, cap) {
        return Ok(None);
    }
    let runs = runs_of(o, combos, id, started)?;
    // One value per combination and round: the mean of that round's runs.
    let (per_combo, better) =
        super::look::round_means(&runs, combos.len(), round, metric, |x, ci, r| {
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
    Ok(super::look::decided(
        &super::look::Rounds {
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

/// The closing report: the comparison across combinations.
#[allow(clippy::too_many_arguments)]
fn report(
    o: &Options,
    combos: &[Combination],
    id: &str,
    seed: u64,
    started: f64,
    done: usize,
    stop: &str,
    plan: &serde_json::Value,
) -> Result<()> {
    let runs = runs_of(o, combos, id, started)?;
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
            "experiment": plan, "rounds_done": done, "stopped": stop, "comparison": c,
            "curves": curves,
        });
        o.front.line(&crate::session::json_doc("matrix", doc)?);
        return Ok(());
    }
    let head = format!(
        "matrix {id} (seed {seed}): {done} round{} of {} combinations, {stop}; runs {} (`kbench runs list --label …`)",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::knob::Knob;

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
        let v = super::super::vary::parse("groups=1,4").unwrap();
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
