//! A bisection from its plan to its result: the candidates listed
//! (a git range's commits, or the list given), the plan said, then the
//! search run with the real candidates ([`super::measure`]) and its
//! result said.

use super::budget::Budget;
use super::git;
use super::measure::{short_name, Real};
use super::search::{self, Candidate, Measure, State, Status};
use super::{Env, Plan, Runner, Source};
use crate::error::input;
use anyhow::Result;

/// Plan the candidates, say the plan, and (unless a dry run) bisect: the
/// search's state at its end (`None` for a dry run).
pub fn start(plan: &Plan, env: &Env, dry_run: bool) -> Result<Option<State>> {
    let metrics = super::directions(plan)?;
    let candidates = candidates(plan, env)?;
    if candidates.len() < 2 {
        return Err(input(
            "a bisection needs at least two candidates (a good and a bad end)",
        ));
    }
    let mut budget = Budget::new(plan.alpha, candidates.len());
    // Stored runs do not drift: nothing to search again for.
    budget.again = plan.runner != Runner::Stored;
    let mut state = State::new(
        candidates,
        metrics,
        budget,
        plan.cap,
        plan.threshold_pct,
        plan.seed,
    );
    state.fresh_ends = plan.fresh_ends;
    super::report::plan(plan, &state, env, dry_run);
    if dry_run {
        return Ok(None);
    }
    go_on(plan.clone(), state, env).map(Some)
}

/// The candidates, good end first.
fn candidates(plan: &Plan, env: &Env) -> Result<Vec<Candidate>> {
    let c = |name: String, detail: String| Candidate {
        name,
        detail,
        status: Status::Untested,
    };
    Ok(match &plan.source {
        Source::Git {
            repo, good, bad, ..
        } => git::range(repo, good, bad)?
            .into_iter()
            .map(|k| c(k.short, k.subject))
            .collect(),
        Source::List { items } => {
            if plan.runner == Runner::Stored {
                let store = env.front.read_store()?;
                let labels: Vec<String> = store.labels()?.into_iter().map(|l| l.label).collect();
                for i in items {
                    if !labels.contains(i) {
                        return Err(input(format!(
                            "--candidates: no label '{i}' in the store (see `kbench labels`)"
                        )));
                    }
                }
            }
            items.iter().map(|i| c(short_name(i), i.clone())).collect()
        }
    })
}

/// Bisect (or go on bisecting) to the end, and say the result; the
/// search's state at its end.
pub fn go_on(plan: Plan, mut state: State, env: &Env) -> Result<State> {
    // One driver: a `--resume` of a bisection still running is refused.
    let _driving = crate::experiment::lock::hold(
        &env.front,
        "bisect",
        &plan.id,
        &format!("bisection {}", plan.id),
        false,
    )?;
    let mut real = Real::new(&plan, env)?;
    real.same_range(&state.candidates[..=state.bad_end])?;
    if let Some(m) = &real.machine {
        if let (Some(why), false) = (&m.accel.emulated, plan.allow_emulated) {
            state.outcome = Some(search::Outcome::Nothing {
                why: format!(
                    "the candidates would boot emulated ({why}): kbench decides nothing on the emulator's figures; --allow-emulated bisects anyway, as a test of the bisection rather than of the kernels"
                ),
            });
            real.save(&state)?;
        }
    }
    if let Err(why) = real
        .stored_emulated()?
        .refuse("culprit", plan.allow_emulated)
    {
        state.outcome = Some(search::Outcome::Nothing { why });
        real.save(&state)?;
    }
    let outcome = state.run(&mut real);
    let store = real.finish();
    outcome?;
    super::report::result(&plan, &state, &*store, env)?;
    Ok(state)
}
