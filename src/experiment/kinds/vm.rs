//! `kbench vm` as a kind: each unit one boot of a kernel under QEMU, the
//! arms in the mirrored seeded order `vm::plan` made, every boot's result
//! kept in the plan as it ends.  The QEMU machine, the images, the
//! initramfs and the words of the report are `vm/`'s; this file only
//! says what the next boot is and what it meant.

use crate::experiment::engine::{self, After, Ctx, Design, Plan, Step};
use crate::experiment::event::Events;
use crate::experiment::runner::Ran;
use crate::store::{Kind, Tag};
use crate::vm::{report, Options, Session};
use anyhow::Result;

/// The whole session: planned, said, and (unless `--dry-run`) every
/// boot driven by the engine, then the closing comparisons.
pub fn run(o: &Options) -> Result<()> {
    let mut session = crate::vm::session(o)?;
    report::plan(o, &session);
    if o.dry_run {
        return Ok(());
    }
    let scratch = crate::sys::janitor::Scratch::in_tmp("vm")?;
    let (command, files) = crate::vm::guest_command(&o.command)?;
    let initrds = session.initrds(&command, &files, scratch.path())?;
    let mut isolation = crate::vm::isolate(o.isolate, &mut session.machine, |m| report::say(o, m));
    let mut plan = Plan {
        id: session.id.clone(),
        ..Plan::new(
            Kind::Vm,
            session.seed,
            session.order.clone(),
            report::State::new(&session),
        )
    };
    let outcome = (|| {
        let _lock = crate::experiment::lock::hold(&o.front, "vm", &plan.id, "vm", false)?;
        let mut store = o.front.write_store()?;
        let mut runner = session.runner(&o.front, &initrds, (&command, &files), scratch.path());
        let mut design = Boots {
            session: &session,
            command: &command,
        };
        let events = Events::new(&o.front);
        engine::drive(&mut design, &mut plan, &mut runner, store.as_mut(), &events)?;
        Ok::<_, anyhow::Error>(store)
    })();
    if let Some(i) = isolation.as_mut() {
        i.undo();
    }
    let store = outcome?;
    report::closing(o, &session, &*store, &plan)?;
    if plan.state.ok_boots() == 0 {
        // Every boot failed: the report says why; the exit says so too.
        return Err(crate::error::resource(format!(
            "none of the {} boots completed (see the boots above, and `kbench runs list`)",
            plan.units()
        )));
    }
    Ok(())
}

/// A session as a design: each unit a boot of the arm the order names.
pub struct Boots<'a> {
    pub session: &'a Session,
    pub command: &'a [String],
}

impl Design for Boots<'_> {
    type State = report::State;

    fn next(&mut self, plan: &Plan<report::State>) -> Result<Option<Step>> {
        let Some((_, _, arm)) = plan.at(plan.next) else {
            return Ok(None);
        };
        let a = &self.session.arms[arm];
        Ok(Some(Step {
            label: a.label.clone(),
            command: self.command.to_vec(),
            tag: Some(Tag::Vm {
                id: plan.id.clone(),
                round: plan.next + 1,
                position: arm + 1,
                kernel: a.kernel,
                arm,
            }),
            env: Vec::new(),
            // The boot's own bar says it started.
            text: String::new(),
        }))
    }

    fn after(
        &mut self,
        plan: &mut Plan<report::State>,
        step: &Step,
        ran: &Ran,
        _cx: &mut Ctx,
    ) -> Result<After> {
        if let Some(Tag::Vm { round, arm, .. }) = &step.tag {
            plan.state.boot(*round, *arm, ran);
        }
        Ok(After::Continue)
    }

    fn ended(&self, plan: &Plan<report::State>, step: &Step, ran: &Ran) -> String {
        report::done_line(
            &format!("boot {}/{} {}", plan.next + 1, plan.units(), step.label),
            ran,
        )
    }
}
