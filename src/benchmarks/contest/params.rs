//! What a `kbench contest` run stores as its parameters: typed and versioned,
//! read back through their canonical form (`entry::canonical_via`), so a
//! field added later with a default does not split old runs from new.
//! Every field is optional: `None` is "unknown" (an import that does not
//! state it), and such runs group only with runs that also lack it.

use crate::lifecycle::entry::one;
use serde::{Deserialize, Serialize};

/// A contest round: the load and the job (the round number is not a
/// parameter: compare leaves it out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Contest {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub load: Option<String>,
    #[serde(default)]
    pub job: Option<String>,
    #[serde(default)]
    pub round: Option<u32>,
}
