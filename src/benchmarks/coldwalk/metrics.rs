//! coldwalk's metrics, each declared once: its name, unit, direction and
//! meaning.  The registry entry lists them and the engine records its
//! values through them, so the two cannot drift apart.

use crate::measure::{metric, Better, MetricSpec};

pub const WALL: MetricSpec = metric(
    "wall",
    "s",
    Better::Lower,
    "time to list the tree with cold caches",
);
pub const ENTRIES_PER_S: MetricSpec = metric(
    "entries_per_s",
    "entries/s",
    Better::Higher,
    "entries listed per second with cold caches",
);
pub const ENTRIES: MetricSpec = metric("entries", "count", Better::Neither, "entries in the tree");
pub const DIRS: MetricSpec = metric("dirs", "count", Better::Neither, "directories in the tree");
pub const ERRORS: MetricSpec = metric(
    "errors",
    "count",
    Better::Neither,
    "entries that could not be read",
);

/// Every metric above, in the order reports list them.
pub const ALL: &[MetricSpec] = &[WALL, ENTRIES_PER_S, ENTRIES, DIRS, ERRORS];
