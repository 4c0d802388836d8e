//! load's metrics, each declared once: its name, unit, direction and
//! meaning.  The registry entry lists them and the engine records its
//! values through them, so the two cannot drift apart.

use crate::measure::{metric, Better, MetricSpec};

pub const WORK: MetricSpec = metric(
    "work",
    "work",
    Better::Higher,
    "work the background load got done",
);
pub const RATE: MetricSpec = metric(
    "rate",
    "work/s",
    Better::Higher,
    "work the background load got done per second",
);
pub const CPU_PERCENT: MetricSpec = metric(
    "cpu_percent",
    "%",
    Better::Neither,
    "CPU the load's processes used",
);

/// Every metric above, in the order reports list them.
pub const ALL: &[MetricSpec] = &[WORK, RATE, CPU_PERCENT];
