//! job's metrics, each declared once: its name, unit, direction and
//! meaning.  The registry entry lists them and the engine records its
//! values through them, so the two cannot drift apart.

use crate::measure::{metric, Better, MetricSpec};

pub const TIME: MetricSpec = metric("time", "s", Better::Lower, "wall time of the build");
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
pub const CPU_PERCENT: MetricSpec = metric(
    "cpu_percent",
    "%",
    Better::Neither,
    "CPU the build used, as time's CPU% (user + sys over wall)",
);

/// Every metric above, in the order reports list them.
pub const ALL: &[MetricSpec] = &[TIME, USER, SYS, CPU_PERCENT];
