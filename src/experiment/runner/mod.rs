//! The one seam every designed experiment runs a unit through.
//!
//! A unit is the smallest thing an experiment orders: a matrix's
//! combination once, a campaign's block, a vm session's boot, one
//! measurement of a bisection's candidate.  Where it runs differs: a
//! child kbench in this boot ([`Here`]: matrix, campaign, bisect in a
//! work tree, decide), a boot of a kernel in a VM (`vm::Booter`: vm,
//! `bisect --vm`), the next stored run of a label ([`Stored`]: `bisect
//! --candidates`), or a simulated one (`Simulated`, for tests).  What an
//! experiment does with a unit does not: it names the unit (its label,
//! command and [`Tag`]), runs it, and reads back what it stored, through
//! [`Runner`].  So an experiment's order, plan document and report never
//! know where its units ran, and a bisection's candidates (a git range or
//! a list) are separate from how each is measured.
//!
//! A campaign's reboot is not a runner: each block is run [`Here`] in the
//! boot it planned, and the reboot is the campaign's move between units.

mod here;
#[cfg(test)]
mod simulated;
mod stored;

pub use here::Here;
#[cfg(test)]
pub use simulated::Simulated;
pub use stored::Stored;

use crate::store::{RunRecord, RunStatus, Store, Tag};
use anyhow::Result;

/// One unit to run.
pub struct Unit<'a> {
    /// The label its runs are stored under.
    pub label: &'a str,
    /// The kbench command it runs (a runner that was handed its command
    /// when it was made, a boot's initramfs, ignores it).
    pub command: &'a [String],
    /// The experiment its runs belong to (`decide`'s have none).
    pub tag: Option<&'a Tag>,
    /// Its 1-based number in the experiment, of how many (0: open-ended).
    pub number: usize,
    pub of: usize,
    /// More of a child's environment for this unit alone (a matrix's
    /// sched_ext variant); a runner with no child ignores it.
    pub env: &'a [(String, String)],
}

/// What a unit left.
pub struct Ran {
    /// Why it failed, when it did (`exit 3`, a boot that gave no result).
    pub failed: Option<String>,
    /// The user asked the experiment to stop while it ran (it may still
    /// have finished).
    pub interrupted: bool,
    /// The runs it stored (in order, whatever their status) and their ids.
    pub runs: Vec<RunRecord>,
    pub ids: Vec<i64>,
    /// From its start to its end, in seconds.
    pub wall_s: f64,
    /// A child's exit code, where the unit was a child (`None` when it
    /// was killed, or was a boot or a stored run).
    pub code: Option<i32>,
}

impl Ran {
    /// Its complete runs.
    pub fn complete(&self) -> impl Iterator<Item = &RunRecord> {
        self.runs.iter().filter(|r| r.status == RunStatus::Complete)
    }
}

/// Runs units somewhere.  `store` is the experiment's open store: the
/// runner stores the unit's runs there (or its child does) and reads
/// them back from it.
pub trait Runner {
    fn run(&mut self, store: &mut dyn Store, unit: &Unit) -> Result<Ran>;
}

/// The runs carrying `tag` (as stored; any, if `None`), stored under
/// `label` since `since` (Unix seconds), oldest first.
pub fn tagged(
    store: &dyn Store,
    label: &str,
    tag: Option<&Tag>,
    since: f64,
) -> Result<Vec<RunRecord>> {
    let f = crate::store::RunFilter {
        labels: vec![label.to_string()],
        since: Some(since - 1.0),
        ..Default::default()
    };
    let want = tag.map(Tag::as_stored);
    let mut runs: Vec<RunRecord> = store
        .load_runs(&f, false)?
        .into_iter()
        .filter(|r| want.is_none() || Tag::of(r) == want)
        .collect();
    runs.sort_by(|a, b| a.started.total_cmp(&b.started).then(a.id.cmp(&b.id)));
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Kind;

    fn test_store(d: &tempfile::TempDir) -> crate::store::SqliteStore {
        crate::store::SqliteStore::open(&d.path().join("u.db"), crate::store::Access::ReadWrite)
            .unwrap()
    }

    fn tag(n: usize) -> Tag {
        Tag::Vm {
            id: "t".into(),
            round: n,
            position: 1,
            kernel: 0,
            arm: 0,
        }
    }

    /// What a simulated unit stores, `Stored` hands back, unit by unit and
    /// in order, and `tagged` finds each unit's runs by its tag alone.
    #[test]
    fn stored_units_come_back_in_order_and_by_tag() {
        let d = tempfile::tempdir().unwrap();
        let mut store = test_store(&d);
        let mut sim = Simulated::new(7, &[("wall_s", 10.0, 0.5)]);
        let command = vec!["hackbench".to_string()];
        let mut made = Vec::new();
        for n in 1..=3 {
            let t = tag(n);
            let u = Unit {
                label: "a",
                command: &command,
                tag: Some(&t),
                number: n,
                of: 3,
                env: &[],
            };
            let ran = sim.run(&mut store, &u).unwrap();
            assert!(ran.failed.is_none() && !ran.interrupted);
            assert_eq!(ran.ids.len(), 1);
            let found = tagged(&store, "a", Some(&t), 0.0).unwrap();
            assert_eq!(found.len(), 1, "unit {n}'s runs by its tag");
            assert_eq!(found[0].id, ran.ids[0]);
            assert!(Tag::of(&found[0]).unwrap().is(Kind::Vm, "t"));
            made.push(ran.runs[0].metrics[0].value);
        }
        let mut stored = Stored::of(&store, "a").unwrap();
        let t = tag(9);
        let u = Unit {
            label: "a",
            command: &command,
            tag: Some(&t),
            number: 1,
            of: 0,
            env: &[],
        };
        for want in &made {
            let ran = stored.run(&mut store, &u).unwrap();
            assert!(ran.failed.is_none() && !ran.interrupted);
            assert_eq!(ran.complete().next().unwrap().metrics[0].value, *want);
        }
        let past = stored.run(&mut store, &u).unwrap();
        assert!(past.failed.unwrap().contains("no more"));
        assert!(past.runs.is_empty());
    }

    /// A matrix's tag carries its knob values to the child, which stores
    /// them in its fingerprint: the unit's runs are still found.
    #[test]
    fn a_matrix_units_runs_are_found_without_its_knobs() {
        let d = tempfile::tempdir().unwrap();
        let mut store = test_store(&d);
        let t = Tag::Matrix {
            id: "m".into(),
            seed: 1,
            round: 1,
            position: 2,
            combination: 0,
            point: Default::default(),
            knobs: [("k".to_string(), "1".to_string())].into(),
        };
        let mut sim = Simulated::new(1, &[("x", 1.0, 0.1)]);
        let u = Unit {
            label: "m/a",
            command: &[],
            tag: Some(&t),
            number: 1,
            of: 1,
            env: &[],
        };
        sim.run(&mut store, &u).unwrap();
        assert_eq!(tagged(&store, "m/a", Some(&t), 0.0).unwrap().len(), 1);
        assert!(tagged(&store, "m/b", Some(&t), 0.0).unwrap().is_empty());
    }
}
