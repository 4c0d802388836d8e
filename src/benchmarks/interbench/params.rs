//! What a `kbench interbench` run stores as its parameters: typed and versioned,
//! read back through their canonical form (`entry::canonical_via`), so a
//! field added later with a default does not split old runs from new.
//! Every field is optional: `None` is "unknown" (an import that does not
//! state it), and such runs group only with runs that also lack it.

use crate::lifecycle::entry::one;
use serde::{Deserialize, Serialize};

/// `kbench interbench`.  `loops_per_ms` is not a parameter: it is the
/// machine's calibration, stored in the run's settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Interbench {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub duration_s: Option<u64>,
    #[serde(default)]
    pub tasks: Option<Vec<String>>,
    #[serde(default)]
    pub loads: Option<Vec<String>>,
    #[serde(default)]
    pub bench_nice: Option<i32>,
    #[serde(default)]
    pub load_nice: Option<i32>,
    #[serde(default)]
    pub rt: Option<bool>,
    #[serde(default)]
    pub uniprocessor: Option<bool>,
    #[serde(default)]
    pub burn: Option<usize>,
    #[serde(default)]
    pub custom_cpu_pct: Option<u64>,
    #[serde(default)]
    pub custom_interval_us: Option<u64>,
}
