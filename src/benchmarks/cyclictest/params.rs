//! What a `kbench cyclictest` run stores as its parameters: typed and versioned,
//! read back through their canonical form (`entry::canonical_via`), so a
//! field added later with a default does not split old runs from new.
//! Every field is optional: `None` is "unknown" (an import that does not
//! state it), and such runs group only with runs that also lack it.

use crate::lifecycle::entry::one;
use serde::{Deserialize, Serialize};

/// `kbench cyclictest` and rt-tests cyclictest imports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cyclictest {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub interval_us: Option<u64>,
    #[serde(default)]
    pub distance_us: Option<u64>,
    #[serde(default)]
    pub duration_s: Option<f64>,
    #[serde(default)]
    pub loops: Option<u64>,
    #[serde(default)]
    pub threads: Option<u64>,
    #[serde(default)]
    pub smp: Option<bool>,
    #[serde(default)]
    pub affinity: Option<String>,
    #[serde(default)]
    pub priority: Option<i32>,
    #[serde(default)]
    pub policy: Option<String>,
    #[serde(default)]
    pub mlockall: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::entry::{canonical_via, to_value};

    /// Runs stored before `v` and `smp` existed read the same as new runs
    /// with their defaults; an import that does not state a field stays
    /// apart.
    #[test]
    fn defaulted_fields_do_not_split_groups() {
        let old = serde_json::json!({"interval_us": 1000, "threads": 2});
        let new = to_value(&Cyclictest {
            v: 1,
            interval_us: Some(1000),
            threads: Some(2),
            ..Default::default()
        });
        assert_eq!(
            canonical_via::<Cyclictest>(&old),
            canonical_via::<Cyclictest>(&new)
        );
        let imported = serde_json::json!({"threads": 2, "imported_from": "rt-tests cyclictest"});
        assert_ne!(
            canonical_via::<Cyclictest>(&imported),
            canonical_via::<Cyclictest>(&new)
        );
    }
}
