//! responsiveness's metrics, each declared once: its name, unit, direction and
//! meaning.  The registry entry lists them and the engine records its
//! values through them, so the two cannot drift apart.

use crate::measure::{metric, Better, MetricSpec};

pub const TOTAL_RESPONSE: MetricSpec = metric(
    "total_response",
    "s",
    Better::Lower,
    "interactive delay summed over the run (the seed's figure)",
);
pub const AVG_RESPONSE: MetricSpec = metric(
    "avg_response",
    "s",
    Better::Lower,
    "mean delay of an interactive task's iteration beyond its sleep",
);
pub const P99_RESPONSE: MetricSpec = metric(
    "p99_response",
    "s",
    Better::Lower,
    "interactive delay 99 % of iterations beat",
);
pub const P50_RESPONSE: MetricSpec = metric(
    "p50_response",
    "s",
    Better::Lower,
    "median interactive delay of an iteration beyond its sleep",
);
pub const MAX_RESPONSE: MetricSpec = metric(
    "max_response",
    "s",
    Better::Lower,
    "worst interactive delay of an iteration",
);
pub const P50_OVERSHOOT: MetricSpec = metric(
    "p50_overshoot",
    "s",
    Better::Lower,
    "median lateness of the interactive task's sleep",
);
pub const P99_OVERSHOOT: MetricSpec = metric(
    "p99_overshoot",
    "s",
    Better::Lower,
    "sleep lateness 99 % of iterations beat",
);
pub const P50_WORK: MetricSpec = metric(
    "p50_work",
    "s",
    Better::Lower,
    "median time of an iteration's own work",
);
pub const RUNS: MetricSpec = metric(
    "runs",
    "count",
    Better::Neither,
    "interactive iterations measured",
);
pub const PRIME_TIME_MEAN: MetricSpec = metric(
    "prime_time_mean",
    "s",
    Better::Lower,
    "mean time of the CPU hogs' first pass over their primes",
);

/// Every metric above, in the order reports list them.
pub const ALL: &[MetricSpec] = &[
    TOTAL_RESPONSE,
    AVG_RESPONSE,
    P99_RESPONSE,
    P50_RESPONSE,
    MAX_RESPONSE,
    P50_OVERSHOOT,
    P99_OVERSHOOT,
    P50_WORK,
    RUNS,
    PRIME_TIME_MEAN,
];
