//! What a `kbench schbench` run stores as its parameters: typed and versioned,
//! read back through their canonical form (`entry::canonical_via`), so a
//! field added later with a default does not split old runs from new.
//! Every field is optional: `None` is "unknown" (an import that does not
//! state it), and such runs group only with runs that also lack it.

use crate::lifecycle::entry::one;
use serde::{Deserialize, Serialize};

/// `kbench schbench`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Schbench {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub message_threads: Option<u64>,
    #[serde(default)]
    pub workers: Option<u64>,
    #[serde(default)]
    pub runtime_s: Option<u64>,
    #[serde(default)]
    pub warmup_s: Option<u64>,
    #[serde(default)]
    pub footprint_kb: Option<u64>,
    #[serde(default)]
    pub operations: Option<u64>,
    #[serde(default)]
    pub sleep_us: Option<u64>,
    #[serde(default)]
    pub rps: Option<u64>,
    #[serde(default)]
    pub auto_rps: Option<u64>,
    #[serde(default)]
    pub pipe: Option<u64>,
    #[serde(default)]
    pub calibrate: Option<bool>,
    #[serde(default)]
    pub no_locking: Option<bool>,
    #[serde(default)]
    pub split: Option<u32>,
    #[serde(default)]
    pub message_cpus: Option<String>,
    #[serde(default)]
    pub worker_cpus: Option<String>,
}
