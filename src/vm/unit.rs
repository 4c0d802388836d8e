//! A unit run as one boot of a kernel in a VM: a `kbench vm` session's
//! boot, a `bisect --vm` candidate's unit.  The guest's initramfs (its
//! label and command inside) is written before; each run boots it once,
//! with a spinner while it runs, and stores what it gave.

use super::machine::{Guest, Machine, Place};
use super::report::Bar;
use crate::experiment::runner::{Ran, Runner, Unit};
use crate::session::Front;
use crate::store::Store;
use anyhow::{bail, Result};
use std::path::Path;

/// One guest, booted on the session's machine.
pub struct Booter<'a> {
    pub machine: &'a Machine,
    pub front: &'a Front,
    pub guest: Guest<'a>,
    /// Its initramfs, written by `Machine::initramfs`.
    pub initrd: &'a Path,
    /// Where each boot's scratch goes (`boot-N`).
    pub scratch: &'a Path,
    /// The session or bisection the boots belong to.
    pub session: &'a str,
}

impl Runner for Booter<'_> {
    /// The unit's command and label are the guest's, in its initramfs:
    /// a unit naming another label, or with no tag, is a mistake, refused.
    fn run(&mut self, store: &mut dyn Store, unit: &Unit) -> Result<Ran> {
        let Some(tag) = unit.tag else {
            bail!("a boot of {} was asked to run an untagged unit", unit.label);
        };
        if unit.label != self.guest.label {
            bail!(
                "a boot of {} was asked to run a unit of {}",
                self.guest.label,
                unit.label
            );
        }
        let dir = self.scratch.join(format!("boot-{}", unit.number));
        std::fs::create_dir(&dir)?;
        let at = Place {
            session: self.session,
            number: unit.number,
            of: unit.of,
            experiment: tag.clone(),
            console: &|l| self.front.note(l),
        };
        let shown = match unit.of {
            0 => format!("boot {}", unit.number),
            of => format!("boot {}/{of}", unit.number),
        };
        let bar = Bar::new(self.front, self.machine.console, &shown, unit.label);
        let ran = self
            .machine
            .boot(store, &self.guest, self.initrd, &dir, &at, |t| bar.tick(t));
        bar.finish();
        ran
    }
}

/// Every arm's guest, each unit booted as the arm its tag names: the
/// runner a `kbench vm` session is driven with.
pub struct Arms<'a> {
    pub boots: Vec<Booter<'a>>,
}

impl Runner for Arms<'_> {
    fn run(&mut self, store: &mut dyn Store, unit: &Unit) -> Result<Ran> {
        let Some(crate::store::Tag::Vm { arm, .. }) = unit.tag else {
            bail!("a vm unit of {} has no boot's tag", unit.label);
        };
        match self.boots.get_mut(*arm) {
            Some(b) => b.run(store, unit),
            None => bail!("a vm unit names arm {arm}, of {}", self.boots.len()),
        }
    }
}
