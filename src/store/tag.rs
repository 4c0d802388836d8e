//! The experiment a stored run belongs to: one typed tag, written and read
//! here alone.
//!
//! Every designed experiment (a matrix within a boot, a campaign across
//! reboots, a `vm` session, a bisection) marks each run it causes with
//! where in the design the run stood, so the runs can be found again,
//! grouped into units (a boot, a bisection's unit) and audited.  The tag
//! lives in the run's settings as `settings.experiment`, an object whose
//! `kind` names the experiment; it was built by hand as JSON in four
//! places and read back by string keys in eight, so a misspelt key read
//! as "no such run".  It is a serde enum now: a writer cannot leave out a
//! field, and a reader matches a variant.
//!
//! It sits beside the run record (not in `experiment/`) because the layer
//! that ties a child's runs to its parent (`session::inherited`) is below
//! the experiments and must read it too.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::RunRecord;

/// Where a run stood in a designed experiment.  Fields other than the
/// id default when absent, so runs stored by an older kbench still read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Tag {
    /// A run of a matrix's combination in this boot.
    Matrix {
        id: String,
        #[serde(default)]
        seed: u64,
        /// 1-based round (block) and position in it.
        #[serde(default)]
        round: usize,
        #[serde(default)]
        position: usize,
        /// The combination's index in the plan.
        #[serde(default)]
        combination: usize,
        /// The values of varied flags (`--vary`).
        #[serde(default)]
        point: BTreeMap<String, String>,
        /// The knob values the parent wrote and read back.  They travel to
        /// the child in the tag and are moved into its fingerprint, so a
        /// stored tag has none.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        knobs: BTreeMap<String, String>,
    },
    /// A block of a campaign across reboots.
    Campaign {
        id: String,
        #[serde(default)]
        round: usize,
        /// 1-based position in the campaign's whole order.
        #[serde(default)]
        position: usize,
        /// The boot's label, and the kernel's boot id it ran in.
        #[serde(default)]
        boot: String,
        #[serde(default)]
        boot_id: String,
    },
    /// A boot of a `kbench vm` session.
    Vm {
        id: String,
        /// 1-based boot number (the order's round is one boot).
        #[serde(default)]
        round: usize,
        /// 1-based arm.
        #[serde(default)]
        position: usize,
        /// The kernel's index among those given, and the arm's.
        #[serde(default)]
        kernel: usize,
        #[serde(default)]
        arm: usize,
    },
    /// A boot of a LAVA plan (`kbench lava`).
    Lava {
        id: String,
        /// 1-based boot number in the plan's order.
        #[serde(default)]
        boot: u32,
    },
    /// A unit of `track --follow`'s measuring again: one side of one
    /// change point, built from its revision.
    Follow {
        id: String,
        /// 1-based round and position in it.
        #[serde(default)]
        round: usize,
        #[serde(default)]
        position: usize,
        /// The change point (0-based, by size) and its side (0 before, 1
        /// after).
        #[serde(default)]
        point: usize,
        #[serde(default)]
        side: usize,
    },
    /// A unit of a bisection's decision.
    Bisect {
        id: String,
        /// The decision (0-based) and the side measured.
        #[serde(default)]
        step: usize,
        #[serde(default)]
        role: String,
        #[serde(default)]
        candidate: usize,
        /// A fresh random id per unit: a resumed bisection's units never
        /// meet an earlier one's.
        #[serde(default)]
        unit: String,
    },
}

/// The kinds of designed experiment: a run's tag and a plan document
/// (`Store::put_document`) are of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Matrix,
    Campaign,
    Vm,
    Bisect,
    Lava,
    /// `track --follow`: a change point measured again, bisected, explained.
    Follow,
    /// `decide`, a bisection's one step asked by `git bisect run`: it has
    /// ids but no plan document and no tag of its own.
    Decide,
}

impl Kind {
    /// As stored: a tag's `kind`, a plan document's kind.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Matrix => "matrix",
            Kind::Campaign => "campaign",
            Kind::Vm => "vm",
            Kind::Bisect => "bisect",
            Kind::Lava => "lava",
            Kind::Follow => "follow",
            Kind::Decide => "decide",
        }
    }
}

impl Tag {
    /// The run's tag, if it has one kbench reads.
    pub fn of(r: &RunRecord) -> Option<Tag> {
        Tag::from_value(r.settings.get("experiment")?)
    }

    /// A tag from its JSON (the settings' object, or a child's variable).
    pub fn from_value(v: &serde_json::Value) -> Option<Tag> {
        Tag::deserialize(v).ok()
    }

    /// The experiment's kind, as stored (`matrix`, `campaign`, `vm`,
    /// `bisect`): also the kind of its plan document.
    pub fn kind(&self) -> Kind {
        match self {
            Tag::Matrix { .. } => Kind::Matrix,
            Tag::Campaign { .. } => Kind::Campaign,
            Tag::Vm { .. } => Kind::Vm,
            Tag::Bisect { .. } => Kind::Bisect,
            Tag::Lava { .. } => Kind::Lava,
            Tag::Follow { .. } => Kind::Follow,
        }
    }

    /// The experiment's id (a campaign's name).
    pub fn id(&self) -> &str {
        match self {
            Tag::Matrix { id, .. }
            | Tag::Campaign { id, .. }
            | Tag::Vm { id, .. }
            | Tag::Bisect { id, .. }
            | Tag::Follow { id, .. }
            | Tag::Lava { id, .. } => id,
        }
    }

    /// Is this a run of experiment `kind` `id`?
    pub fn is(&self, kind: Kind, id: &str) -> bool {
        self.kind() == kind && self.id() == id
    }

    /// The 1-based position in the experiment's order, where it has one.
    pub fn position(&self) -> Option<usize> {
        match self {
            Tag::Matrix { position, .. }
            | Tag::Campaign { position, .. }
            | Tag::Vm { position, .. }
            | Tag::Follow { position, .. } => Some(*position),
            Tag::Lava { boot, .. } => Some(*boot as usize),
            Tag::Bisect { .. } => None,
        }
    }

    /// The tag as its runs carry it: a matrix's knob values travel to
    /// the child in the tag and are moved into its fingerprint, so a
    /// stored tag has none.
    pub fn as_stored(&self) -> Tag {
        let mut t = self.clone();
        if let Tag::Matrix { knobs, .. } = &mut t {
            knobs.clear();
        }
        t
    }

    /// As JSON, for a run's settings.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a tag is plain data")
    }

    /// As text, for a child's environment.
    pub fn to_env(&self) -> String {
        self.to_value().to_string()
    }

    /// Put the tag on a run.
    pub fn set_on(&self, r: &mut RunRecord) {
        r.set_settings(serde_json::json!({ "experiment": self.to_value() }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_and_reads_as_it_was_stored() {
        let tags = [
            Tag::Matrix {
                id: "m1".into(),
                seed: 7,
                round: 2,
                position: 1,
                combination: 3,
                point: [("groups".to_string(), "4".to_string())].into(),
                knobs: BTreeMap::new(),
            },
            Tag::Campaign {
                id: "c".into(),
                round: 1,
                position: 2,
                boot: "rt".into(),
                boot_id: "abc".into(),
            },
            Tag::Vm {
                id: "vm1".into(),
                round: 3,
                position: 2,
                kernel: 1,
                arm: 1,
            },
            Tag::Bisect {
                id: "b1".into(),
                step: 0,
                role: "good".into(),
                candidate: 4,
                unit: "u".into(),
            },
        ];
        for t in tags {
            let back = Tag::from_value(&serde_json::from_str(&t.to_env()).unwrap());
            assert_eq!(back.as_ref(), Some(&t));
        }
        // The shape older kbench wrote, read by key, still reads.
        let old: serde_json::Value = serde_json::from_str(
            r#"{"kind":"campaign","id":"k","round":1,"position":3,"boot":"a","boot_id":"x"}"#,
        )
        .unwrap();
        let t = Tag::from_value(&old).unwrap();
        assert!(t.is(Kind::Campaign, "k") && t.position() == Some(3));
        // A matrix's knobs are not written once moved out.
        assert!(!Tag::Matrix {
            id: "m".into(),
            seed: 0,
            round: 1,
            position: 1,
            combination: 0,
            point: BTreeMap::new(),
            knobs: BTreeMap::new()
        }
        .to_env()
        .contains("knobs"));
        // Anything else is no tag.
        for v in [r#"{"kind":"lab","id":"x"}"#, r#"{"id":"x"}"#, r#"[1]"#] {
            assert_eq!(Tag::from_value(&serde_json::from_str(v).unwrap()), None);
        }
    }
}
