//! Measuring a change point again as a [`Design`]: for each point, its two
//! revisions (built in work trees of their own) in seeded blocks of two,
//! interleaved in this boot, so the machine's drift falls on both alike.
//! A unit that fails stops the follow: a revision that does not run is
//! not a measurement.

use super::state::State;
use crate::experiment::engine::{After, Ctx, Design, Plan, Step};
use crate::experiment::runner::{Here, Ran, Runner, Unit};
use crate::store::{Store, Tag};
use anyhow::{bail, Result};

/// The label a side's runs are stored under: the follow's id, then the
/// nightly's label.
pub fn label_of(id: &str, label: &str) -> String {
    format!("{id}/{label}")
}

/// The re-measure of every point.
pub struct Again;

impl Design for Again {
    type State = State;

    fn next(&mut self, plan: &Plan<State>) -> Result<Option<Step>> {
        let Some((round, position, item)) = plan.at(plan.next) else {
            return Ok(None);
        };
        let (point, side) = (item / 2, item % 2);
        let p = &plan.state.points[point];
        let per_point = plan.order.len() / plan.state.points.len().max(1);
        Ok(Some(Step {
            label: label_of(&plan.id, &p.between[side]),
            command: plan.state.command.clone(),
            tag: Some(Tag::Follow {
                id: plan.id.clone(),
                round: round + 1,
                position: position + 1,
                point,
                side,
            }),
            env: Vec::new(),
            text: format!(
                "[{} → {}, round {}/{per_point}] {} at {}",
                p.between[0],
                p.between[1],
                round % per_point.max(1) + 1,
                p.between[side],
                &p.revs[side][..p.revs[side].len().min(12)]
            ),
        }))
    }

    fn after(&mut self, _: &mut Plan<State>, step: &Step, ran: &Ran, _: &mut Ctx) -> Result<After> {
        if let Some(why) = &ran.failed {
            bail!(
                "{}: `kbench {}` failed in its work tree ({why}); the runs before it are stored",
                step.label,
                step.command.join(" ")
            );
        }
        Ok(After::Continue)
    }
}

/// Each side's child runs in its own work tree: the runner of a follow,
/// chosen once.
pub struct Trees {
    /// By item (point × 2 + side); `None` for a point not followed.
    pub heres: Vec<Option<Here>>,
}

impl Runner for Trees {
    fn run(&mut self, store: &mut dyn Store, unit: &Unit) -> Result<Ran> {
        let Some(Tag::Follow { point, side, .. }) = unit.tag else {
            bail!("a follow's unit of {} has no tag of its own", unit.label);
        };
        match self.heres.get_mut(point * 2 + side) {
            Some(Some(h)) => h.run(store, unit),
            _ => bail!("no work tree for {}", unit.label),
        }
    }
}
