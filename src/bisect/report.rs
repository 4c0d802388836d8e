//! What a bisection says: its plan (all of it with `--dry-run`: the
//! candidates, the worst case in decisions and units, the error it keeps),
//! its result (the culprit with its change and interval, confirmed or
//! not, the revert, the units and time it took, the error again), and
//! `--log`, every decision with its units.

use super::search::{Outcome, State, Status};
use super::{Env, Plan, Runner, Source};
use crate::error::input;
use crate::session::Front;
use crate::store::{Kind, RunRecord, Store, Tag};
use anyhow::Result;

fn out(env: &Env, dry_run: bool, text: &str) {
    if dry_run {
        env.front.line(text);
    } else {
        env.front.progress(text);
    }
}

/// A line wrapped at the terminal's width, its indent kept on every line.
fn wrap(s: &str) -> String {
    crate::text::wrap_indented(&crate::text::clean(s), crate::text::width())
}

/// The plan: to stdout with `--dry-run`, else to stderr.
pub fn plan(p: &Plan, s: &State, env: &Env, dry_run: bool) {
    let n = s.candidates.len();
    let sides = |kind: usize| kind * p.cap;
    // Worst case: every planned decision to its cap (ends and confirm 2
    // sides, steps 3, the revert 2).
    let steps = s.budget.planned;
    let git = matches!(p.source, Source::Git { .. });
    let decisions = 2 + steps + usize::from(git);
    let worst = sides(2) * 2 + steps * sides(3) + if git { sides(2) } else { 0 };
    let what = match (&p.source, &p.runner) {
        (Source::Git { repo, build, .. }, Runner::InPlace) => format!(
            "commits of {} built with `{build}`, the command run in each one's work tree",
            repo.display()
        ),
        (Source::Git { repo, build, .. }, _) => format!(
            "commits of {} built with `{build}`, each image booted under QEMU",
            repo.display()
        ),
        (Source::List { .. }, Runner::Stored) => {
            "stored labels (their runs, in order; nothing is measured)".into()
        }
        (Source::List { .. }, _) => "kernel images, each booted under QEMU".into(),
    };
    let mut lines = vec![
        format!("kbench bisect {} (seed {}): {n} candidates, {what}", p.id, p.seed),
        format!(
            "  metric{}: {}",
            if s.metrics.len() == 1 { "" } else { "s" },
            s.metrics.iter().map(|(m, b)| format!("{m} ({} is better)", b.as_str())).collect::<Vec<_>>().join(", ")
        ),
        format!("  each unit: kbench {}", p.command.join(" ")),
        format!(
            "  {decisions} decisions planned (the ends, {steps} steps, the confirmation{}), each to at most {} units a side: {worst} units in the worst case{}",
            if git { ", the revert" } else { "" },
            p.cap,
            if s.may_again() {
                format!(
                    "; should the machine drift and the search be made again with fresh ends, up to {} more",
                    steps * sides(3) + sides(2)
                )
            } else {
                String::new()
            }
        ),
        format!("  {}", s.describe_bound()),
        format!("  runs are labelled {}/<candidate>", p.label),
    ];
    let show = |i: usize| {
        format!(
            "    {i:>3} {} {}",
            s.candidates[i].name, s.candidates[i].detail
        )
    };
    if n <= 12 || dry_run {
        lines.extend((0..n).map(show));
    } else {
        lines.extend((0..3).map(show));
        lines.push(format!("    … {} more", n - 6));
        lines.extend((n - 3..n).map(show));
    }
    // The candidates' lines keep their columns; the rest is prose.
    let text: Vec<String> = lines
        .iter()
        .map(|l| {
            if l.starts_with("    ") {
                crate::text::clean(l).into_owned()
            } else {
                wrap(l)
            }
        })
        .collect();
    out(env, dry_run, &text.join("\n"));
}

/// The result, to stdout (JSON with `--json`).
pub fn result(p: &Plan, s: &State, store: &dyn Store, env: &Env) -> Result<()> {
    if env.front.json {
        let doc = serde_json::json!({ "plan": p, "state": s });
        env.front.line(&crate::session::json_doc("bisect", doc)?);
        return Ok(());
    }
    let took = crate::sys::time::unix_now() - p.started;
    let mut lines = outcome_lines(s);
    lines.push(format!(
        "{} decisions, {} units measured, {:.0} s since it started; {}",
        s.steps.len(),
        s.units,
        took,
        s.describe_bound()
    ));
    lines.push(format!("`kbench bisect --log {}` shows every step", p.id));
    env.front
        .line(&lines.iter().map(|l| wrap(l)).collect::<Vec<_>>().join("\n"));
    if let Some(Outcome::Culprit { index, .. }) = s.outcome.as_ref() {
        side_by_side(p, s, store, *index, &env.front)?;
    }
    Ok(())
}

/// How the bisection ended, in lines.
pub fn outcome_lines(s: &State) -> Vec<String> {
    let name = |i: usize| format!("{} {}", s.candidates[i].name, s.candidates[i].detail);
    let mut lines = Vec::new();
    match s.outcome.as_ref() {
        Some(Outcome::Culprit {
            index,
            confirmed,
            changes,
            revert,
            parts,
        }) => {
            lines.push(format!(
                "{}: {}",
                if *confirmed {
                    "culprit"
                } else {
                    "first bad candidate (not confirmed)"
                },
                name(*index)
            ));
            for (m, c, ci) in changes {
                lines.push(format!(
                    "  {m}: {c:+.1} % against its parent {}{}",
                    s.candidates[index - 1].name,
                    ci.map_or(String::new(), |(a, b)| format!(
                        " [95 % interval {a:+.1}, {b:+.1}]"
                    ))
                ));
            }
            if !confirmed {
                lines.push("  measured afresh against its parent, it was not shown worse: treat it as a lead, not a verdict".into());
            }
            lines.extend(drift_lines(s, *confirmed));
            lines.extend(again_line(s));
            if let Some(r) = revert {
                lines.push(format!("  {r}"));
            }
            lines.extend(parts.iter().map(|p| format!("  {p}")));
        }
        Some(Outcome::Among {
            candidates,
            confirmed,
        }) => {
            let skipped: Vec<String> = candidates
                .iter()
                .map(|&i| match &s.candidates[i].status {
                    Status::Skipped(why) => format!("{} (skipped: {why})", name(i)),
                    _ => name(i),
                })
                .collect();
            lines.push("the culprit lies among these (skipped candidates stand between the last good and the first bad):".into());
            lines.extend(skipped.into_iter().map(|l| format!("  {l}")));
            if !confirmed {
                lines.push("  measured afresh, the first bad one was not shown worse than the last good one: treat the span as a lead, not a verdict".into());
            }
            lines.extend(drift_lines(s, *confirmed));
            lines.extend(again_line(s));
        }
        Some(Outcome::CannotTell { candidate, why }) => {
            lines.push(format!("cannot tell at {}: {why}", name(*candidate)));
        }
        Some(Outcome::Nothing { why }) => lines.push(format!("nothing to bisect: {why}")),
        None => lines.push("the bisection has not ended".into()),
    }
    lines
}

/// When the search was made again with fresh ends, why.
fn again_line(s: &State) -> Option<String> {
    s.again.as_ref().map(|why| {
        format!("  (a first search ended not confirmed, and {why}: this is the second search, with both ends measured beside every candidate)")
    })
}

/// For a lead (not confirmed): why it may be one, when the confirmation
/// found it ([`super::stale`]), and what to do.
fn drift_lines(s: &State, confirmed: bool) -> Vec<String> {
    let mut lines = Vec::new();
    if confirmed {
        return lines;
    }
    if let Some(why) = &s.stale {
        lines.push(format!("  {why}"));
    }
    match (s.fresh_ends, s.stale.is_some()) {
        (false, true) => lines.push("  run it again with `--fresh-ends`, which measures both ends beside every candidate and decides each step on those units alone".into()),
        (false, false) => lines.push("  (a machine that drifts between steps can mislead a search that reuses earlier units: `--fresh-ends` measures both ends beside every candidate)".into()),
        (true, _) => {}
    }
    lines
}

/// The culprit's confirmation as a comparison: its parent's runs and its
/// own, with what their worst wake-ups waited behind when traced.
fn side_by_side(
    p: &Plan,
    s: &State,
    store: &dyn Store,
    culprit: usize,
    front: &Front,
) -> Result<()> {
    if p.runner == Runner::Stored {
        return Ok(());
    }
    // The last: a search made again has two.
    let Some(k) = s.steps.iter().rposition(|st| st.kind == "confirm") else {
        return Ok(());
    };
    let f = crate::store::RunFilter {
        since: Some(p.started - 1.0),
        only_complete: true,
        ..Default::default()
    };
    let runs: Vec<_> = store
        .load_runs(&f, false)?
        .into_iter()
        .filter_map(|r| match Tag::of(&r) {
            Some(Tag::Bisect { id, step, role, .. }) if id == p.id && step == k => Some((role, r)),
            _ => None,
        })
        .collect();
    let mut labels: Vec<String> = Vec::new();
    for role in ["parent", "culprit"] {
        if let Some((_, r)) = runs.iter().find(|(r, _)| r == role) {
            labels.push(r.label.clone());
        }
    }
    let runs: Vec<RunRecord> = runs.into_iter().map(|(_, r)| r).collect();
    if labels.len() < 2 {
        return Ok(());
    }
    let c = crate::compare::build(
        &runs,
        &crate::compare::Options {
            labels,
            allow_emulated: p.allow_emulated,
            ..Default::default()
        },
    )?;
    front.line(&format!(
        "\nThe culprit ({}) against its parent, the confirmation's runs:",
        s.candidates[culprit].name
    ));
    front.out(&crate::report::terminal::render(
        &c,
        crate::text::colour::stdout(),
        false,
    ));
    Ok(())
}

/// A bisection's plan and state from the store: `id`, or the newest
/// (unfinished, when `unfinished`).
pub fn load(env: &Env, id: Option<&str>, unfinished: bool) -> Result<(Plan, State)> {
    let store = env.front.read_store()?;
    let docs = crate::experiment::plan::list::<serde_json::Value>(store.as_ref(), Kind::Bisect)?;
    let parse =
        |v: &std::result::Result<serde_json::Value, serde_json::Error>| -> Result<(Plan, State)> {
            let v = v.as_ref().map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok((
                serde_json::from_value(v["plan"].clone())?,
                serde_json::from_value(v["state"].clone())?,
            ))
        };
    match id {
        Some(id) => {
            let (_, body) = docs
                .iter()
                .find(|(n, _)| n == id)
                .ok_or_else(|| input(format!("no bisection {id} in {}", store.describe())))?;
            parse(body).map_err(|e| input(format!("bisection {id}: its record is damaged ({e:#})")))
        }
        None => {
            let mut all: Vec<(Plan, State)> =
                docs.iter().filter_map(|(_, b)| parse(b).ok()).collect();
            all.sort_by(|a, b| a.0.started.total_cmp(&b.0.started));
            all.into_iter()
                .rev()
                .find(|(_, s)| !unfinished || s.outcome.is_none())
                .ok_or_else(|| {
                    input(if unfinished {
                        "no unfinished bisection to resume (kbench bisect --log lists the last one)"
                    } else {
                        "no bisection in the store yet"
                    })
                })
        }
    }
}

/// Every decision of a bisection, and where each candidate stands.
pub fn log(p: &Plan, s: &State, front: &Front) -> Result<()> {
    if front.json {
        let doc = serde_json::json!({ "plan": p, "state": s });
        front.line(&crate::session::json_doc("bisect", doc)?);
        return Ok(());
    }
    front.line(&format!(
        "bisection {} (seed {}), {} candidates; {}",
        p.id,
        p.seed,
        s.candidates.len(),
        s.describe_bound()
    ));
    let mut t = crate::text::table::new(&[
        "#",
        "decision",
        "candidate",
        "level",
        "units (its side)",
        "decided",
    ]);
    for (i, st) in s.steps.iter().enumerate() {
        let c = s
            .candidates
            .get(st.candidate)
            .map_or("?".to_string(), |c| c.name.clone());
        t.add_row(vec![
            (i + 1).to_string(),
            st.kind.clone(),
            c,
            if st.kind == "again" {
                "-".to_string()
            } else {
                format!("{:.4}", st.alpha)
            },
            st.units.to_string(),
            if st.call.is_empty() {
                "(measuring)".into()
            } else {
                st.call.clone()
            },
        ]);
    }
    t.paint_verdicts(5);
    t.set_colour(crate::text::colour::stdout());
    front.line(&t.to_string());
    let mut c = crate::text::table::new(&["candidate", "what", "status"]);
    for (i, x) in s.candidates.iter().enumerate() {
        let end = match i {
            0 => Some("the good end"),
            i if i == s.bad_end => Some("the bad end"),
            _ => None,
        };
        c.add_row(vec![
            x.name.clone(),
            x.detail.clone(),
            match (&x.status, end) {
                (_, Some(e)) => e.into(),
                (Status::Untested, _) => "-".into(),
                (Status::Good, _) => "good".into(),
                (Status::Bad, _) => "bad".into(),
                (Status::Skipped(why), _) => format!("skipped: {why}"),
            },
        ]);
    }
    c.paint_verdicts(2);
    c.set_colour(crate::text::colour::stdout());
    front.line(&c.to_string());
    match &s.outcome {
        Some(_) => {
            for l in outcome_lines(s) {
                front.line(&wrap(&l));
            }
        }
        None => front.line(&format!(
            "unfinished: `kbench bisect --resume {}` goes on",
            p.id
        )),
    }
    Ok(())
}
