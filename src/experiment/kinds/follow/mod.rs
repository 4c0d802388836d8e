//! `kbench track … --follow`: the closed loop, from a change point in a
//! series to its culprit, in one command.
//!
//! `track` finds where a series of nightly labels changed; a change point
//! is only a lead, since a busy or drifting machine moves a series as
//! surely as a commit does.  So each change point of the followed metric,
//! largest first, is (1) **measured again**: the revisions of the labels
//! either side of it (a label git reads in `--repo`, or `--rev
//! LABEL=REV`) built fresh in work trees and measured side by side,
//! interleaved in seeded blocks in this boot ([`design`], driven by the
//! engine); it **held** only if it shows again, the same way, beyond the
//! threshold; (2) **bisected**, only when it held, between those two
//! revisions with kbench's bisection and its confirmation against the
//! parent (`bisect::answer`); (3) **explained**: every metric the culprit's
//! runs and its parent's share, decided as `compare` decides them.
//!
//! The error of the chain: the change points come from `track` at
//! `--alpha` (its false discovery rate), the re-measure is tested at
//! α/2 and the bisection's confirmation at α/2, so the chance that the
//! loop names a confirmed culprit for a change that is not there is at
//! most α/2 (the confirmation alone bounds it), and that a change that is
//! not there is bisected at all at most α/2.

mod design;
mod kcidb;
mod report;
mod state;
mod steps;

use crate::error::input;
use crate::experiment::engine::{self, Plan};
use crate::experiment::event::Events;
use crate::experiment::runner::Here;
use crate::store::Kind;
use anyhow::Result;
use state::{Point, State};
use std::path::PathBuf;

pub use report::Format;

/// What to follow, as asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// The series, as `track` reads it.
    pub track: crate::track::Options,
    pub repo: PathBuf,
    pub build: Option<String>,
    pub revs: Vec<(String, String)>,
    /// Units of each side when measured again.
    pub rounds: usize,
    /// Most units a side of one decision of the bisection.
    pub cap: usize,
    pub command: Vec<String>,
    pub parse: crate::experiment::ParseCommand,
    pub format: Format,
    pub front: crate::session::Front,
    /// Take up the follow with this id where it stopped (its revisions,
    /// build and command are the plan's).
    pub resume: Option<String>,
}

/// What the loop leaves: its report, and its KCIDB document.
pub struct Output {
    pub text: String,
    pub kcidb: String,
}

/// Follow every change point of the command's metric.
pub fn run(o: &Options) -> Result<Output> {
    if o.command.is_empty() {
        return Err(input(
            "--follow measures each revision with a kbench command: give it after -- (e.g. -- job --job-cmd ./prog)",
        ));
    }
    crate::experiment::command::check_command(&o.command, o.parse)?;
    let benchmark = o.command[0].clone();
    let metric = match (o.track.metrics.first(), crate::registry::find(&benchmark)) {
        (Some(m), _) => m.clone(),
        (None, Some(e)) => e.headline.to_string(),
        (None, None) => return Err(input("--follow with a scenario needs --metric NAME")),
    };
    if !o.repo.join(".git").exists() && !o.repo.join("HEAD").exists() {
        return Err(input(format!(
            "--repo {}: not a git repository",
            o.repo.display()
        )));
    }
    let (tracked, _) = crate::track::build(&o.track, o.front.read_store()?.as_ref())?;
    let mut plan = match &o.resume {
        Some(id) => resumed(o, id)?,
        None => planned_anew(o, &tracked, &benchmark, &metric)?,
    };
    let events = Events::new(&o.front);
    let _lock = crate::experiment::lock::hold(&o.front, "follow", &plan.id, "follow", false)?;
    let repo = PathBuf::from(&plan.state.repo);
    if plan.order.is_empty() || plan.next < plan.units() {
        let scratch = crate::sys::janitor::Scratch::in_tmp("bisect")?;
        let fresh = plan.order.is_empty();
        let trees = steps::prepare(
            &repo,
            plan.state.build.as_deref(),
            &mut plan.state.points,
            scratch.path(),
            &|l| events.note(l),
        )?;
        if fresh {
            plan.order = order(&plan.state.points, o.rounds, plan.seed);
        }
        engine::planned(&events, &plan, &report::headline(&tracked, &plan));
        let driven = measure_again(o, &mut plan, &trees, &events);
        for t in trees.iter().flatten() {
            crate::bisect::git::remove_worktree(&repo, t);
        }
        driven?;
    }
    follow_held(o, &mut plan, (&benchmark, &metric), &events)?;
    Ok(Output {
        text: report::render(o.format, &tracked, &plan),
        kcidb: kcidb::document(&plan, o.front.read_store()?.as_ref(), &benchmark)?,
    })
}

/// A new plan: each change point of `metric`, largest first, with its
/// labels' revisions (or why it cannot be followed).
fn planned_anew(
    o: &Options,
    tracked: &crate::track::Tracked,
    benchmark: &str,
    metric: &str,
) -> Result<Plan<State>> {
    let mut state = State {
        command: o.command.clone(),
        repo: o.repo.display().to_string(),
        build: o.build.clone(),
        metric: metric.to_string(),
        alpha: o.track.q,
        threshold_pct: o.track.threshold_pct,
        points: Vec::new(),
        started: crate::sys::time::unix_now(),
    };
    for (a, b, change, p) in steps::points_of(tracked, benchmark, metric) {
        let revs = (
            steps::rev_of(&o.repo, &a, &o.revs),
            steps::rev_of(&o.repo, &b, &o.revs),
        );
        let cannot = match &revs {
            (Err(w), _) | (_, Err(w)) => Some(w.clone()),
            _ => None,
        };
        state.points.push(Point {
            between: [a, b],
            revs: [revs.0.unwrap_or_default(), revs.1.unwrap_or_default()],
            track_change_pct: change,
            track_p_adjusted: p,
            cannot,
            ..Default::default()
        });
    }
    let seed = crate::experiment::order::fresh_seed();
    Ok(Plan::new(Kind::Follow, seed, Vec::new(), state))
}

/// The plan of follow `id`, to take up again: only from a store no one
/// else could have planted its build and command in.
fn resumed(o: &Options, id: &str) -> Result<Plan<State>> {
    if let Err(why) = crate::store::trusted_for_commands(o.front.db()) {
        return Err(input(format!(
            "--follow --resume: kbench runs no command from this store: {why}; keep the store where only you (and root) can write, or start the follow again"
        )));
    }
    let plan: Option<Plan<State>> =
        crate::experiment::plan::load(o.front.read_store()?.as_ref(), Kind::Follow, id)?;
    let plan =
        plan.ok_or_else(|| input(format!("--resume {id}: no follow of that id in the store")))?;
    if plan.state.command != o.command {
        return Err(input(format!(
            "--resume {id}: that follow measured `kbench {}`; give the same command after --",
            plan.state.command.join(" ")
        )));
    }
    Ok(plan)
}

/// The re-measure's order: per point that can be followed, `rounds`
/// seeded blocks of its two sides.
fn order(points: &[Point], rounds: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for (i, p) in points.iter().enumerate() {
        if p.cannot.is_none() {
            let blocks = crate::experiment::order::blocks(2, rounds, seed.wrapping_add(i as u64));
            out.extend(
                blocks
                    .into_iter()
                    .map(|b| b.into_iter().map(|s| i * 2 + s).collect()),
            );
        }
    }
    out
}

/// Every point's two revisions, measured again through the engine.
fn measure_again(
    o: &Options,
    plan: &mut Plan<State>,
    trees: &[Option<PathBuf>],
    events: &Events,
) -> Result<()> {
    let mut store = o.front.write_store()?;
    let mut runner = design::Trees {
        heres: trees
            .iter()
            .map(|t| t.as_ref().map(|d| Here::for_front(&o.front).in_dir(d)))
            .collect(),
    };
    engine::drive(
        &mut design::Again,
        plan,
        &mut runner,
        store.as_mut(),
        events,
    )?;
    Ok(())
}

/// Which points held; each that did bisected and its culprit explained,
/// the plan saved after each step.
fn follow_held(
    o: &Options,
    plan: &mut Plan<State>,
    (benchmark, metric): (&str, &str),
    events: &Events,
) -> Result<()> {
    let half = plan.state.alpha / 2.0;
    let threshold = plan.state.threshold_pct;
    let mut store = o.front.write_store()?;
    let runs = engine::runs_of(store.as_ref(), Kind::Follow, &plan.id, &[], None)?;
    for i in 0..plan.state.points.len() {
        let p = &plan.state.points[i];
        if p.cannot.is_some() || p.bisection.is_some() {
            continue;
        }
        if p.again.is_none() {
            let again = steps::held(&runs, &plan.id, p, (benchmark, metric), half, threshold)?;
            events.note(&report::again_line(p, &again));
            plan.state.points[i].again = Some(again);
            engine::save(store.as_mut(), plan)?;
        }
        if !plan.state.points[i].held() {
            continue;
        }
        let p = &plan.state.points[i];
        let answer = crate::bisect::answer(&crate::bisect::Options {
            source: crate::bisect::Source::Git {
                repo: PathBuf::from(&plan.state.repo),
                good: p.revs[0].clone(),
                bad: p.revs[1].clone(),
                build: plan.state.build.clone().unwrap_or_else(|| "true".into()),
                image: None,
            },
            runner: crate::bisect::Runner::InPlace,
            command: o.command.clone(),
            metrics: vec![crate::bisect::MetricArg {
                name: metric.to_string(),
                better: None,
            }],
            alpha: half,
            cap: o.cap,
            threshold_pct: threshold,
            seed: Some(plan.seed.wrapping_add(1000 + i as u64)),
            label: Some(format!("{}/bisect-{}", plan.id, i + 1)),
            allow_emulated: false,
            fresh_ends: false,
            dry_run: false,
            parse: o.parse,
            env: crate::bisect::Env {
                front: o.front.muted(),
                machine: None,
            },
        })?;
        let labels: Vec<String> = answer
            .culprit
            .iter()
            .flat_map(|c| [&c.parent, &c.rev])
            .map(|r| format!("{}/{r}", answer.label))
            .collect();
        let runs = engine::runs_where(store.as_ref(), &labels, None, |_| true)?;
        let explained = if labels.is_empty() {
            Vec::new()
        } else {
            steps::explain(&runs, &answer, half, threshold)?
        };
        events.note(&report::culprit_line(&answer));
        plan.state.points[i].bisection = Some(answer);
        plan.state.points[i].explanation = explained;
        engine::save(store.as_mut(), plan)?;
    }
    Ok(())
}
