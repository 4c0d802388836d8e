//! cyclictest's metrics, each declared once: its name, unit, direction and
//! meaning.  The registry entry lists them and the engine records its
//! values through them, so the two cannot drift apart.

use crate::measure::{metric, Better, MetricSpec};

pub const MAX_US: MetricSpec = metric(
    "max_us",
    "us",
    Better::Lower,
    "worst timer wake-up delay seen",
);
pub const P99_US: MetricSpec = metric(
    "p99_us",
    "us",
    Better::Lower,
    "wake-up delay 99 % of wake-ups beat",
);
pub const P999_US: MetricSpec = metric(
    "p999_us",
    "us",
    Better::Lower,
    "wake-up delay 99.9 % of wake-ups beat",
);
pub const P50_US: MetricSpec = metric("p50_us", "us", Better::Lower, "median timer wake-up delay");
pub const AVG_US: MetricSpec = metric("avg_us", "us", Better::Lower, "mean timer wake-up delay");
pub const SAMPLES: MetricSpec = metric(
    "samples",
    "count",
    Better::Neither,
    "timer wake-ups measured",
);
pub const MIN_US: MetricSpec = metric(
    "min_us",
    "us",
    Better::Lower,
    "shortest timer wake-up delay",
);
pub const P9999_US: MetricSpec = metric(
    "p9999_us",
    "us",
    Better::Lower,
    "wake-up delay 99.99 % of wake-ups beat",
);
pub const OVER_100US: MetricSpec = metric(
    "over_100us",
    "count",
    Better::Lower,
    "wake-ups later than 100 us",
);
pub const OVER_1MS: MetricSpec = metric(
    "over_1ms",
    "count",
    Better::Lower,
    "wake-ups later than 1 ms",
);

/// Every metric above, in the order reports list them.
pub const ALL: &[MetricSpec] = &[
    MAX_US, P99_US, P999_US, P50_US, AVG_US, SAMPLES, MIN_US, P9999_US, OVER_100US, OVER_1MS,
];
