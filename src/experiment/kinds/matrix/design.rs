//! A matrix as a [`Design`]: its next unit is the next combination of the
//! seeded order; before it, the combination's knobs are written and read
//! back (the values read back go in the unit's tag, and from there into
//! the run's fingerprint) and its scheduler attached; after it, the
//! scheduler is detached, a failed run stops the matrix (unless the
//! scheduler was ejected, which fails that run alone), and at the end of
//! each round `--rounds auto` looks.

use super::report::decided;
use super::state::State;
use super::Options;
use crate::experiment::combos::Combination;
use crate::experiment::engine::{After, Ctx, Design, Plan, Step};
use crate::experiment::event::Event;
use crate::experiment::knob;
use crate::experiment::runner::Ran;
use crate::experiment::sched::{self, Attached};
use crate::store::Tag;

use crate::values::Runs;
use anyhow::Result;
use std::collections::BTreeMap;

/// The matrix being driven.
pub struct Matrix<'a> {
    pub o: &'a Options,
    pub combos: &'a [Combination],
    /// The scheduler attached for the running unit.
    attached: Option<Attached>,
}

impl<'a> Matrix<'a> {
    pub fn new(o: &'a Options, combos: &'a [Combination]) -> Matrix<'a> {
        Matrix {
            o,
            combos,
            attached: None,
        }
    }
}

impl Design for Matrix<'_> {
    type State = State;

    fn next(&mut self, plan: &Plan<State>) -> Result<Option<Step>> {
        let Some((r, p, ci)) = plan.at(plan.next) else {
            return Ok(None);
        };
        let c = &self.combos[ci];
        let tag = Tag::Matrix {
            id: plan.id.clone(),
            seed: plan.seed,
            round: r + 1,
            position: p + 1,
            combination: ci,
            point: c.point.iter().cloned().collect(),
            knobs: BTreeMap::new(),
        };
        Ok(Some(Step {
            label: c.label.clone(),
            command: self.o.command.iter().chain(&c.args).cloned().collect(),
            tag: Some(tag),
            env: Vec::new(),
            text: format!(
                "[round {}/{} · {} of {}] {}",
                r + 1,
                plan.order.len(),
                plan.next + 1,
                plan.units(),
                c.shown()
            ),
        }))
    }

    fn before(&mut self, plan: &mut Plan<State>, step: &mut Step, _cx: &mut Ctx) -> Result<()> {
        let Some((_, _, ci)) = plan.at(plan.next) else {
            return Ok(());
        };
        let c = &self.combos[ci];
        let mut read_back = BTreeMap::new();
        for (k, v) in self.o.knobs.iter().zip(&c.values) {
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
            read_back.insert(k.name.clone(), back);
        }
        if let Some(Tag::Matrix { knobs, .. }) = step.tag.as_mut() {
            *knobs = read_back;
        }
        if let Some(i) = c.sched {
            let v = &self.o.scheds[i];
            if v.command.is_some() {
                self.attached = Some(sched::attach(v)?);
            }
            let mut doc = plan.state.schedulers[i].clone();
            doc["attach_s"] = self.attached.as_ref().map(|a| a.attach_s).into();
            step.env.push((
                crate::session::inherited::ENV_SCHED_EXT.into(),
                doc.to_string(),
            ));
        }
        Ok(())
    }

    fn after(
        &mut self,
        plan: &mut Plan<State>,
        step: &Step,
        ran: &Ran,
        cx: &mut Ctx,
    ) -> Result<After> {
        let ejected = self.attached.as_ref().is_some_and(|a| !a.still_attached());
        if let Some(a) = self.attached.take() {
            let attach_s = a.attach_s;
            let detach_s = a.detach()?;
            cx.events.note(&format!(
                "  sched {}: attached in {attach_s:.2} s, detached in {detach_s:.2} s{}",
                step.label,
                if ejected {
                    " (it was ejected during the run: that run is failed)"
                } else {
                    ""
                }
            ));
        }
        // The engine counts the unit done before asking: it is the one
        // before `next`.
        let Some((r, _, ci)) = plan.at(plan.next.saturating_sub(1)) else {
            return Ok(After::Continue);
        };
        let round = r + 1;
        match &ran.failed {
            // The run is stored as failed with the reason; the other
            // variants still run.
            Some(_) if ejected => {}
            Some(why) => anyhow::bail!(
                "round {round}, {}: `kbench {}` failed ({why}); the runs before it are stored",
                self.combos[ci].shown(),
                self.o.command.join(" "),
            ),
            None => {}
        }
        let end_of_round = plan.at(plan.next).is_none_or(|(r, _, _)| r + 1 != round);
        match (&plan.state.metric, self.o.rounds) {
            (Some(m), Runs::Auto { .. }) if end_of_round => {
                let why = decided(self.o, self.combos, plan, &*cx.store, m, round, cx.events)?;
                if let Some(why) = &why {
                    cx.events.emit(&Event::Looked {
                        id: &plan.id,
                        after: round,
                        decided: Some(why),
                        text: "",
                    });
                    return Ok(After::Stop(why.clone()));
                }
                Ok(After::Continue)
            }
            _ => Ok(After::Continue),
        }
    }
}
