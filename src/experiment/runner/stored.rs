//! A unit that is the next stored run of a label: `bisect --candidates`
//! measures nothing, it takes each label's complete runs in the order
//! they were stored.

use super::{Ran, Runner, Unit};
use crate::store::{RunFilter, RunRecord, Store};
use anyhow::Result;

/// A label's complete runs, and how many were handed out.
pub struct Stored {
    label: String,
    runs: Vec<RunRecord>,
    used: usize,
}

impl Stored {
    /// `label`'s complete runs, oldest first.
    pub fn of(store: &dyn Store, label: &str) -> Result<Stored> {
        let f = RunFilter {
            labels: vec![label.to_string()],
            only_complete: true,
            ..Default::default()
        };
        let mut runs = store.load_runs(&f, false)?;
        runs.sort_by(|a, b| a.started.total_cmp(&b.started).then(a.id.cmp(&b.id)));
        Ok(Stored {
            label: label.to_string(),
            runs,
            used: 0,
        })
    }

    /// Only the runs `keep` keeps (a bisection's: those with its metrics).
    pub fn only(mut self, keep: impl Fn(&RunRecord) -> bool) -> Stored {
        self.runs.retain(|r| keep(r));
        self
    }

    /// The runs it holds, oldest first.
    pub fn runs(&self) -> &[RunRecord] {
        &self.runs
    }
}

impl Runner for Stored {
    /// The next run, whatever the unit's tag and command: it was stored
    /// before.
    fn run(&mut self, _store: &mut dyn Store, _unit: &Unit) -> Result<Ran> {
        let Some(r) = self.runs.get(self.used).cloned() else {
            return Ok(Ran {
                failed: Some(format!(
                    "label {} has no more stored runs ({} used)",
                    self.label, self.used
                )),
                interrupted: false,
                runs: Vec::new(),
                ids: Vec::new(),
                wall_s: 0.0,
                code: None,
            });
        };
        self.used += 1;
        Ok(Ran {
            failed: None,
            interrupted: false,
            ids: vec![r.id],
            wall_s: r.ended - r.started,
            code: None,
            runs: vec![r],
        })
    }
}
