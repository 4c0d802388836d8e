//! What a `kbench load` run stores as its parameters: typed and versioned,
//! read back through their canonical form (`entry::canonical_via`), so a
//! field added later with a default does not split old runs from new.
//! Every field is optional: `None` is "unknown" (an import that does not
//! state it), and such runs group only with runs that also lack it.

use crate::lifecycle::entry::one;
use serde::{Deserialize, Serialize};

/// `kbench load`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Load {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub load: Option<String>,
    #[serde(default)]
    pub duration_s: Option<f64>,
    #[serde(default)]
    pub size: Option<u64>,
    #[serde(default)]
    pub cpus: Option<Vec<usize>>,
    #[serde(default)]
    pub nice: Option<i32>,
    #[serde(default)]
    pub procs: Option<usize>,
}
