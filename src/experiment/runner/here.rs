//! A unit run as a child kbench in this boot: a matrix's combination, a
//! campaign's block, a bisection's unit in its work tree, `decide`'s
//! measurement.

use super::{tagged, Ran, Runner, Unit};
use crate::experiment::launch::{self, Child};
use crate::store::Store;
use anyhow::Result;
use std::path::PathBuf;

/// How the child is run.  Its fields are its own: a `Here` is made here
/// alone ([`Here::for_front`], [`Here::on`]) and set with its builders.
#[derive(Clone, Debug, Default)]
pub struct Here {
    /// The store it writes to (`--db`), as the parent was given it.
    db: Option<String>,
    /// It says nothing on stderr (`-q`).
    quiet: bool,
    /// Its report is thrown away (the parent prints its own).
    quiet_stdout: bool,
    /// Where it runs (a bisection's work tree); here, if `None`.
    dir: Option<PathBuf>,
    /// Its standard-error lines relayed as events (`--json`), not passed
    /// through.
    relay: Option<crate::experiment::event::Events>,
}

impl Here {
    /// A child on the command's store, as quiet as the command, its
    /// report thrown away and its lines relayed under `--json`.
    pub fn for_front(front: &crate::session::Front) -> Here {
        Here {
            db: front.db().map(str::to_string),
            quiet: front.quiet,
            quiet_stdout: front.json,
            relay: front
                .json
                .then(|| crate::experiment::event::Events::new(front)),
            ..Default::default()
        }
    }

    /// A child on store `db` (`--db` as given; the default store if
    /// `None`), saying what it says and printing its report.
    pub fn on(db: Option<&str>) -> Here {
        Here {
            db: db.map(str::to_string),
            ..Default::default()
        }
    }

    /// The same child, quiet on stderr (`-q`) or not.
    pub fn quiet(self, quiet: bool) -> Here {
        Here { quiet, ..self }
    }

    /// The same child, its report thrown away or not.
    pub fn quiet_stdout(self, quiet_stdout: bool) -> Here {
        Here {
            quiet_stdout,
            ..self
        }
    }

    /// The same child, run in `dir` (a revision's work tree).
    pub fn in_dir(self, dir: &std::path::Path) -> Here {
        Here {
            dir: Some(dir.to_path_buf()),
            ..self
        }
    }
}

impl Runner for Here {
    fn run(&mut self, store: &mut dyn Store, unit: &Unit) -> Result<Ran> {
        let started = crate::sys::time::unix_now();
        let mut child = Child::new(self.db.as_deref(), Some(unit.label), self.quiet)?
            .args(unit.command)
            .quiet_stdout(self.quiet_stdout);
        if let Some(t) = unit.tag {
            child = child.tagged(t);
        }
        if let Some(d) = &self.dir {
            child = child.in_dir(d);
        }
        for (k, v) in unit.env {
            child = child.env(k, v);
        }
        let status = match &self.relay {
            Some(ev) => child.run_relaying(&|l| ev.child(unit.number, l))?,
            None => child.run()?,
        };
        let failed = match status {
            Some(0) => None,
            Some(s) => Some(format!("exit {s}")),
            None => Some("killed by a signal".into()),
        };
        let runs = tagged(&*store, unit.label, unit.tag, started)?;
        Ok(Ran {
            failed,
            interrupted: launch::interrupted(status),
            ids: runs.iter().map(|r| r.id).collect(),
            runs,
            wall_s: crate::sys::time::unix_now() - started,
            code: status,
        })
    }
}
