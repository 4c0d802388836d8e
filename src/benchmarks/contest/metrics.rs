//! contest's metrics, each declared once: its name, unit, direction and
//! meaning.  The registry entry lists them and the engine records its
//! values through them, so the two cannot drift apart.

use crate::measure::{metric, Better, MetricSpec};

pub const TIME: MetricSpec = metric(
    "time",
    "s",
    Better::Lower,
    "wall time of the build under the load (contest's Time)",
);
pub const CPU_PERCENT: MetricSpec = metric(
    "cpu_percent",
    "%",
    Better::Neither,
    "CPU the build used (contest's CPU%)",
);
pub const LOADS: MetricSpec = metric(
    "loads",
    "work",
    Better::Neither,
    "work the load got done beside the build (contest's Loads)",
);
pub const LCPU_PERCENT: MetricSpec = metric(
    "lcpu_percent",
    "%",
    Better::Neither,
    "CPU the load used beside the build (contest's LCPU%)",
);
pub const USER: MetricSpec = metric(
    "user",
    "s",
    Better::Lower,
    "CPU time the build spent in user mode",
);
pub const SYS: MetricSpec = metric(
    "sys",
    "s",
    Better::Lower,
    "CPU time the build spent in the kernel",
);

/// Every metric above, in the order reports list them.
pub const ALL: &[MetricSpec] = &[TIME, CPU_PERCENT, LOADS, LCPU_PERCENT, USER, SYS];
