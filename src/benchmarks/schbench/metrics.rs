//! schbench's metrics, each declared once: its name, unit, direction and
//! meaning.  The registry entry lists them and the engine records its
//! values through them, so the two cannot drift apart.

use crate::measure::{metric, Better, MetricSpec};

pub const WAKEUP_P50_US: MetricSpec = metric(
    "wakeup_p50_us",
    "us",
    Better::Lower,
    "median fair-class thread wake-up delay",
);
pub const WAKEUP_P90_US: MetricSpec = metric(
    "wakeup_p90_us",
    "us",
    Better::Lower,
    "fair-class thread wake-up delay 90 % of wake-ups beat",
);
pub const WAKEUP_P99_US: MetricSpec = metric(
    "wakeup_p99_us",
    "us",
    Better::Lower,
    "fair-class thread wake-up delay 99 % of wake-ups beat",
);
pub const WAKEUP_P999_US: MetricSpec = metric(
    "wakeup_p999_us",
    "us",
    Better::Lower,
    "fair-class thread wake-up delay 99.9 % of wake-ups beat",
);
pub const WAKEUP_MAX_US: MetricSpec = metric(
    "wakeup_max_us",
    "us",
    Better::Lower,
    "worst fair-class thread wake-up delay seen",
);
pub const REQUEST_P50_US: MetricSpec = metric(
    "request_p50_us",
    "us",
    Better::Lower,
    "median request time (the worker's wake-up to its request done)",
);
pub const REQUEST_P90_US: MetricSpec = metric(
    "request_p90_us",
    "us",
    Better::Lower,
    "request time 90 % of requests beat",
);
pub const REQUEST_P99_US: MetricSpec = metric(
    "request_p99_us",
    "us",
    Better::Lower,
    "request time 99 % of requests beat",
);
pub const REQUEST_P999_US: MetricSpec = metric(
    "request_p999_us",
    "us",
    Better::Lower,
    "request time 99.9 % of requests beat",
);
pub const REQUEST_MAX_US: MetricSpec = metric(
    "request_max_us",
    "us",
    Better::Lower,
    "longest request seen",
);
pub const AVG_RPS: MetricSpec = metric(
    "avg_rps",
    "req/s",
    Better::Higher,
    "requests completed per second",
);
pub const RPS_P50: MetricSpec = metric(
    "rps_p50",
    "req/s",
    Better::Higher,
    "median of the per-second request counts",
);
pub const MSG_SCHED_DELAY_US: MetricSpec = metric(
    "msg_sched_delay_us",
    "us",
    Better::Lower,
    "message threads' mean wait on the run queue per time slice (schedstat)",
);
pub const WORKER_SCHED_DELAY_US: MetricSpec = metric(
    "worker_sched_delay_us",
    "us",
    Better::Lower,
    "workers' mean wait on the run queue per time slice (schedstat)",
);
pub const REQUESTS: MetricSpec = metric(
    "requests",
    "count",
    Better::Neither,
    "requests completed in the run",
);
pub const WAKEUP_SAMPLES: MetricSpec = metric(
    "wakeup_samples",
    "count",
    Better::Neither,
    "wake-ups measured",
);

/// Every metric above, in the order reports list them.
pub const ALL: &[MetricSpec] = &[
    WAKEUP_P50_US,
    WAKEUP_P90_US,
    WAKEUP_P99_US,
    WAKEUP_P999_US,
    WAKEUP_MAX_US,
    REQUEST_P50_US,
    REQUEST_P90_US,
    REQUEST_P99_US,
    REQUEST_P999_US,
    REQUEST_MAX_US,
    AVG_RPS,
    RPS_P50,
    MSG_SCHED_DELAY_US,
    WORKER_SCHED_DELAY_US,
    REQUESTS,
    WAKEUP_SAMPLES,
];
