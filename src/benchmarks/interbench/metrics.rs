//! interbench's metrics, each declared once: its name, unit, direction and
//! meaning.  The registry entry lists them and the engine records its
//! values through them, so the two cannot drift apart.

use crate::measure::{metric, Better, MetricSpec};

pub const LATENCY_AVG_MS: MetricSpec = metric(
    "latency_avg_ms",
    "ms",
    Better::Lower,
    "simulated interactive tasks' mean wake-up latency, over every task and load",
);
pub const WORST_DEADLINES_MET_PCT: MetricSpec = metric(
    "worst_deadlines_met_pct",
    "%",
    Better::Higher,
    "deadlines met by the simulated task under its worst load",
);
pub const PAIRS: MetricSpec = metric(
    "pairs",
    "count",
    Better::Neither,
    "task and load pairs measured",
);

/// Every metric above, in the order reports list them.
pub const ALL: &[MetricSpec] = &[LATENCY_AVG_MS, WORST_DEADLINES_MET_PCT, PAIRS];

// Each task and load pair's own metrics, named `<task>_<load>_<name>`
// (`audio_video_latency_avg_ms`).
pub const PAIR_LATENCY_AVG_MS: MetricSpec = metric(
    "latency_avg_ms",
    "ms",
    Better::Lower,
    "the task's mean wake-up latency under the load",
);
pub const PAIR_LATENCY_SD_MS: MetricSpec = metric(
    "latency_sd_ms",
    "ms",
    Better::Lower,
    "the spread (SD) of the task's wake-up latency under the load",
);
pub const PAIR_LATENCY_MAX_MS: MetricSpec = metric(
    "latency_max_ms",
    "ms",
    Better::Lower,
    "the task's worst wake-up latency under the load",
);
pub const PAIR_LATENCY_P99_MS: MetricSpec = metric(
    "latency_p99_ms",
    "ms",
    Better::Lower,
    "the wake-up latency 99 % of the task's wake-ups beat under the load",
);
pub const PAIR_DESIRED_CPU_PCT: MetricSpec = metric(
    "desired_cpu_pct",
    "%",
    Better::Higher,
    "of the CPU the task wanted, the share it got",
);
pub const PAIR_CPU_SHARE_PCT: MetricSpec = metric(
    "cpu_share_pct",
    "%",
    Better::Neither,
    "the CPU the task used",
);
pub const PAIR_FPS: MetricSpec = metric(
    "fps",
    "frames/s",
    Better::Higher,
    "frames the gaming task drew per second under the load",
);
pub const PAIR_DEADLINES_MET_PCT: MetricSpec = metric(
    "deadlines_met_pct",
    "%",
    Better::Higher,
    "deadlines the task met under the load",
);

/// Every per-pair metric above.
pub const PARTS: &[MetricSpec] = &[
    PAIR_LATENCY_AVG_MS,
    PAIR_LATENCY_SD_MS,
    PAIR_LATENCY_MAX_MS,
    PAIR_LATENCY_P99_MS,
    PAIR_DESIRED_CPU_PCT,
    PAIR_CPU_SHARE_PCT,
    PAIR_FPS,
    PAIR_DEADLINES_MET_PCT,
];
