//! A matrix's own part of its plan, on its own so the design and the
//! report both read it without reading each other.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A matrix's own part of its plan: what a reader of the plan needs to
/// know what was run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct State {
    pub command: Vec<String>,
    pub knobs: Vec<serde_json::Value>,
    pub originals: BTreeMap<String, String>,
    pub vary: Vec<serde_json::Value>,
    pub schedulers: Vec<serde_json::Value>,
    /// Each combination as shown, by index.
    pub combinations: Vec<String>,
    /// The metric `--rounds auto` decides on.
    pub metric: Option<String>,
    /// When its first unit started (Unix seconds).
    pub started: f64,
}
