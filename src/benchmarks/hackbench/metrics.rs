//! hackbench's metrics, each declared once: its name, unit, direction and
//! meaning.  The registry entry lists them and the engine records its
//! values through them, so the two cannot drift apart.

use crate::measure::{metric, Better, MetricSpec};

pub const TIME: MetricSpec = metric(
    "time",
    "s",
    Better::Lower,
    "time to pass every message between the tasks",
);
pub const MESSAGES_PER_S: MetricSpec = metric(
    "messages_per_s",
    "msg/s",
    Better::Higher,
    "messages passed per second",
);
pub const MB_PER_S: MetricSpec = metric(
    "mb_per_s",
    "MB/s",
    Better::Higher,
    "megabytes passed per second",
);

/// Every metric above, in the order reports list them.
pub const ALL: &[MetricSpec] = &[TIME, MESSAGES_PER_S, MB_PER_S];
