//! The experiment engine: the one loop every designed experiment runs.
//!
//! A designed experiment is a plan of units (a matrix's combination once,
//! a vm session's boot, …) run in a seeded order, each unit tagged,
//! stored and saved in the plan as it ends, so a kill loses at most the
//! unit that was running and every run can be traced to where in the
//! design it stood.  Each kind used to write that loop itself (tag, unit,
//! runner, interrupted?, save, progress), six copies that drifted apart
//! in what they saved and said.  Here it is written once: [`drive`] takes
//! a kind's [`Design`] (which answers what the next unit is, what to do
//! before it, and what its result means), a [`Runner`] chosen once for
//! the whole experiment, and a typed [`Plan`], and for each unit it does
//! before → run → after → save → event.  [`drive`] is the only caller of
//! [`super::plan::save`] for a kind on the engine and [`runs_of`] the one
//! reader of an experiment's runs.
//!
//! Invariants: a unit's result is saved in the plan before the next unit
//! starts; a stop asked by the user (Ctrl-C, SIGTERM) ends the loop after
//! the plan is saved, as [`crate::error::Interrupted`]; a design never
//! runs a unit itself.

use super::event::{Event, Events};
use super::runner::{Ran, Runner, Unit};
use crate::store::{Kind, RunFilter, RunRecord, Store, Tag};
use anyhow::Result;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// One experiment's plan, as stored: what every kind has (its id, kind,
/// seed, the seeded order of its units, how far it got) and the kind's
/// own `state`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan<S> {
    pub id: String,
    pub kind: String,
    pub seed: u64,
    /// The order, block by block (a round of a matrix, a boot's arms).
    pub order: Vec<Vec<usize>>,
    /// Units finished.
    pub done: usize,
    /// The 0-based number of the next unit, in the flattened order.
    pub next: usize,
    /// Why it stopped before its order ran out, once it did.
    #[serde(default)]
    pub stopped: Option<String>,
    pub state: S,
}

impl<S> Plan<S> {
    /// A fresh plan of `kind` with a fresh id.
    pub fn new(kind: Kind, seed: u64, order: Vec<Vec<usize>>, state: S) -> Plan<S> {
        Plan {
            id: super::plan::new_id(kind),
            kind: kind.as_str().to_string(),
            seed,
            order,
            done: 0,
            next: 0,
            stopped: None,
            state,
        }
    }

    /// Units in the whole order.
    pub fn units(&self) -> usize {
        self.order.iter().map(Vec::len).sum()
    }

    /// Where unit `n` (0-based, flattened) stands: (block, position in
    /// it, the item it runs), or `None` past the end.
    pub fn at(&self, n: usize) -> Option<(usize, usize, usize)> {
        let mut left = n;
        for (b, block) in self.order.iter().enumerate() {
            if left < block.len() {
                return Some((b, left, block[left]));
            }
            left -= block.len();
        }
        None
    }
}

/// The next unit, as a design names it.
#[derive(Clone, Debug)]
pub struct Step {
    /// The label its runs are stored under.
    pub label: String,
    /// The kbench command it runs.
    pub command: Vec<String>,
    /// Where in the design it stands.
    pub tag: Option<Tag>,
    /// More of a child's environment for this unit alone.
    pub env: Vec<(String, String)>,
    /// The progress line a person reads as it starts.
    pub text: String,
}

/// What a unit's result means.
#[derive(Clone, Debug, PartialEq)]
pub enum After {
    /// Go on with the next unit.
    Continue,
    /// Stop here, with the reason (decided, a cap reached).
    Stop(String),
}

/// What a design may use while it decides.
pub struct Ctx<'a> {
    pub store: &'a mut dyn Store,
    pub events: &'a Events,
}

/// A kind of experiment: the questions only it can answer.
pub trait Design {
    /// Its own part of the plan.
    type State: Serialize + DeserializeOwned;

    /// The unit at `plan.next`, or `None` when the plan is done.
    fn next(&mut self, plan: &Plan<Self::State>) -> Result<Option<Step>>;

    /// What to do before the unit runs (a matrix writes its knobs); it
    /// may fill in the step (the knob values read back go in its tag).
    fn before(
        &mut self,
        _plan: &mut Plan<Self::State>,
        _step: &mut Step,
        _cx: &mut Ctx,
    ) -> Result<()> {
        Ok(())
    }

    /// What the unit's result means.  Called for every unit that ran,
    /// interrupted or not (so what `before` set up is undone).
    fn after(
        &mut self,
        plan: &mut Plan<Self::State>,
        step: &Step,
        ran: &Ran,
        cx: &mut Ctx,
    ) -> Result<After>;

    /// The line a person reads when a unit ends (empty: none).
    fn ended(&self, _plan: &Plan<Self::State>, _step: &Step, _ran: &Ran) -> String {
        String::new()
    }
}

/// How a drive ended, when it was not an error.
#[derive(Clone, Debug, PartialEq)]
pub enum Ended {
    /// Every unit of the order ran.
    Done,
    /// The design stopped it, with the reason.
    Stopped(String),
}

/// Save the plan: the one place a kind on the engine stores it.
pub fn save<S: Serialize>(store: &mut dyn Store, plan: &Plan<S>) -> Result<()> {
    let kind = kind_of(&plan.kind)?;
    super::plan::save(store, kind, &plan.id, plan)
}

fn kind_of(s: &str) -> Result<Kind> {
    [
        Kind::Matrix,
        Kind::Campaign,
        Kind::Vm,
        Kind::Bisect,
        Kind::Lava,
        Kind::Follow,
    ]
    .into_iter()
    .find(|k| k.as_str() == s)
    .ok_or_else(|| anyhow::anyhow!("a plan of an unknown kind '{s}'"))
}

/// Drive `design` from `plan.next` to the end of its order, or until it
/// stops: each unit through `runner`, the plan saved after each.
pub fn drive<D: Design>(
    design: &mut D,
    plan: &mut Plan<D::State>,
    runner: &mut dyn Runner,
    store: &mut dyn Store,
    events: &Events,
) -> Result<Ended> {
    save(store, plan)?;
    let of = plan.units();
    loop {
        let Some(mut step) = design.next(plan)? else {
            return Ok(Ended::Done);
        };
        let number = plan.next + 1;
        {
            let mut cx = Ctx {
                store: &mut *store,
                events,
            };
            design.before(plan, &mut step, &mut cx)?;
        }
        events.emit(&Event::UnitStarted {
            id: &plan.id,
            number,
            of,
            label: &step.label,
            text: &step.text,
        });
        let ran = run_unit(design, plan, runner, store, events, &step, (number, of))?;
        let text = design.ended(plan, &step, &ran);
        events.emit(&Event::UnitEnded {
            id: &plan.id,
            number,
            of,
            label: &step.label,
            runs: &ran.ids,
            failed: ran.failed.as_deref(),
            interrupted: ran.interrupted,
            wall_s: ran.wall_s,
            text: &text,
        });
        plan.next += 1;
        plan.done += 1;
        let after = {
            let mut cx = Ctx {
                store: &mut *store,
                events,
            };
            design.after(plan, &step, &ran, &mut cx)
        };
        if let Ok(After::Stop(why)) = &after {
            plan.stopped = Some(why.clone());
        }
        save(store, plan)?;
        if ran.interrupted {
            return Err(crate::error::Interrupted.into());
        }
        match after? {
            After::Continue => {}
            After::Stop(why) => {
                // The reason is in the event for a program; a person reads
                // it once, in the kind's closing line.
                let text = format!(
                    "stopped after {} unit{}",
                    plan.done,
                    if plan.done == 1 { "" } else { "s" }
                );
                events.emit(&Event::Stopped {
                    id: &plan.id,
                    reason: &why,
                    done: plan.done,
                    text: &text,
                });
                return Ok(Ended::Stopped(why));
            }
        }
    }
}

/// Unit `number` of `of` through `runner`; when the runner cannot run it
/// at all (it could not start a child, a store it could not read),
/// `after` still undoes what `before` set up, and the error is returned.
fn run_unit<D: Design>(
    design: &mut D,
    plan: &mut Plan<D::State>,
    runner: &mut dyn Runner,
    store: &mut dyn Store,
    events: &Events,
    step: &Step,
    (number, of): (usize, usize),
) -> Result<Ran> {
    let ran = runner.run(
        &mut *store,
        &Unit {
            label: &step.label,
            command: &step.command,
            tag: step.tag.as_ref(),
            number,
            of,
            env: &step.env,
        },
    );
    match ran {
        Ok(r) => Ok(r),
        Err(e) => {
            let failed = Ran {
                failed: Some(format!("{e:#}")),
                interrupted: crate::sys::signals::stop_requested(),
                runs: Vec::new(),
                ids: Vec::new(),
                wall_s: 0.0,
                code: None,
            };
            let mut cx = Ctx { store, events };
            let _ = design.after(plan, step, &failed, &mut cx);
            Err(e)
        }
    }
}

/// Say that the plan is made (or taken up again), with its headline.
pub fn planned<S>(events: &Events, plan: &Plan<S>, text: &str) {
    events.emit(&Event::Planned {
        kind: &plan.kind,
        id: &plan.id,
        seed: plan.seed,
        units: plan.units(),
        done: plan.done,
        text,
    });
}

/// Experiment `kind` `id`'s complete runs under `labels` (any label when
/// empty), stored since `since` (Unix seconds) when given, oldest first:
/// the one way an experiment's runs are read back.
pub fn runs_of(
    store: &dyn Store,
    kind: Kind,
    id: &str,
    labels: &[String],
    since: Option<f64>,
) -> Result<Vec<RunRecord>> {
    runs_where(store, labels, since, |r| {
        Tag::of(r).is_some_and(|t| t.is(kind, id))
    })
}

/// The complete runs under `labels` (any when empty) stored since
/// `since` that `keep` keeps, oldest first: for a kind whose units' runs
/// are known by more than their tag (a vm guest's own matrix tags its
/// runs as its own; the session is in `settings.vm`).
pub fn runs_where(
    store: &dyn Store,
    labels: &[String],
    since: Option<f64>,
    keep: impl Fn(&RunRecord) -> bool,
) -> Result<Vec<RunRecord>> {
    let filter = RunFilter {
        labels: labels.to_vec(),
        since: since.map(|s| s - 1.0),
        only_complete: true,
        ..Default::default()
    };
    let mut runs: Vec<RunRecord> = store
        .load_runs(&filter, false)?
        .into_iter()
        .filter(|r| keep(r))
        .collect();
    runs.sort_by(|a, b| a.started.total_cmp(&b.started).then(a.id.cmp(&b.id)));
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::runner::Simulated;
    use crate::session::front::Captured;
    use crate::session::Front;
    use std::sync::Arc;

    /// A design of two labels in seeded blocks that stops when told: the
    /// smallest kind, to drive the engine in tests.
    struct Two {
        stop_after: Option<usize>,
        befores: usize,
        afters: usize,
    }

    impl Design for Two {
        type State = Vec<String>;
        fn next(&mut self, plan: &Plan<Vec<String>>) -> Result<Option<Step>> {
            let Some((round, position, item)) = plan.at(plan.next) else {
                return Ok(None);
            };
            Ok(Some(Step {
                label: plan.state[item].clone(),
                command: vec!["x".into()],
                tag: Some(Tag::Vm {
                    id: plan.id.clone(),
                    round: round + 1,
                    position: position + 1,
                    kernel: item,
                    arm: item,
                }),
                env: Vec::new(),
                text: format!("unit {}", plan.next + 1),
            }))
        }
        fn before(&mut self, _: &mut Plan<Vec<String>>, _: &mut Step, _: &mut Ctx) -> Result<()> {
            self.befores += 1;
            Ok(())
        }
        fn after(
            &mut self,
            plan: &mut Plan<Vec<String>>,
            _: &Step,
            ran: &Ran,
            _: &mut Ctx,
        ) -> Result<After> {
            self.afters += 1;
            assert!(ran.failed.is_none());
            Ok(match self.stop_after {
                Some(n) if plan.done >= n => After::Stop("enough".into()),
                _ => After::Continue,
            })
        }
    }

    fn store(d: &tempfile::TempDir) -> crate::store::SqliteStore {
        crate::store::SqliteStore::open(&d.path().join("e.db"), crate::store::Access::ReadWrite)
            .unwrap()
    }

    /// The simulated runner drives a design through the engine: every
    /// unit in order, tagged, stored, the plan saved after each, and the
    /// runs read back by the experiment's id alone.
    #[test]
    fn the_engine_runs_every_unit_in_order_and_saves_the_plan() {
        let d = tempfile::tempdir().unwrap();
        let mut s = store(&d);
        let c = Arc::new(Captured::default());
        let ev = Events::new(&Front::new(None, false, false).with_say(c.clone()));
        let order = crate::experiment::order::blocks(2, 3, 5);
        let mut plan = Plan::new(
            Kind::Vm,
            5,
            order.clone(),
            vec!["a".to_string(), "b".into()],
        );
        let mut design = Two {
            stop_after: None,
            befores: 0,
            afters: 0,
        };
        let mut sim = Simulated::new(1, &[("t", 1.0, 0.1)]);
        let end = drive(&mut design, &mut plan, &mut sim, &mut s, &ev).unwrap();
        assert_eq!(end, Ended::Done);
        assert_eq!((design.befores, design.afters, plan.done), (6, 6, 6));
        let saved: Plan<Vec<String>> = crate::experiment::plan::load(&s, Kind::Vm, &plan.id)
            .unwrap()
            .unwrap();
        assert_eq!((saved.done, saved.next), (6, 6));
        let runs = runs_of(&s, Kind::Vm, &plan.id, &[], None).unwrap();
        let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
        let want: Vec<&str> = order.iter().flatten().map(|&i| ["a", "b"][i]).collect();
        assert_eq!(labels, want, "the runs follow the seeded order");
        assert!(runs_of(&s, Kind::Vm, "other", &[], None)
            .unwrap()
            .is_empty());
        let notes = c.notes.lock().unwrap();
        assert_eq!(notes.first().map(String::as_str), Some("unit 1"));
        assert_eq!(notes.len(), 6);
    }

    /// A design's stop ends the loop, is saved, and a resumed plan starts
    /// at the unit after the last one done.
    #[test]
    fn a_stop_is_saved_and_a_resumed_plan_goes_on_where_it_was() {
        let d = tempfile::tempdir().unwrap();
        let mut s = store(&d);
        let ev =
            Events::new(&Front::new(None, true, false).with_say(Arc::new(Captured::default())));
        let order = crate::experiment::order::blocks(2, 4, 9);
        let mut plan = Plan::new(Kind::Vm, 9, order, vec!["a".to_string(), "b".into()]);
        let mut sim = Simulated::new(2, &[("t", 1.0, 0.1)]);
        let mut first = Two {
            stop_after: Some(3),
            befores: 0,
            afters: 0,
        };
        let end = drive(&mut first, &mut plan, &mut sim, &mut s, &ev).unwrap();
        assert_eq!(end, Ended::Stopped("enough".into()));
        let mut again: Plan<Vec<String>> = crate::experiment::plan::load(&s, Kind::Vm, &plan.id)
            .unwrap()
            .unwrap();
        assert_eq!((again.next, again.stopped.as_deref()), (3, Some("enough")));
        let mut rest = Two {
            stop_after: None,
            befores: 0,
            afters: 0,
        };
        drive(&mut rest, &mut again, &mut sim, &mut s, &ev).unwrap();
        assert_eq!(rest.afters, 5, "only the units not yet done");
        assert_eq!(runs_of(&s, Kind::Vm, &plan.id, &[], None).unwrap().len(), 8);
    }

    #[test]
    fn a_plan_says_where_each_unit_stands() {
        let p = Plan::new(Kind::Matrix, 1, vec![vec![1, 0], vec![0, 1, 2]], ());
        assert_eq!(p.units(), 5);
        assert_eq!(p.at(0), Some((0, 0, 1)));
        assert_eq!(p.at(2), Some((1, 0, 0)));
        assert_eq!(p.at(4), Some((1, 2, 2)));
        assert_eq!(p.at(5), None);
        assert!(p.id.starts_with('m'));
    }
}
