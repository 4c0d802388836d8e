//! testbench's one metric, declared once: the registry entry lists it and
//! the benchmark records through it.

use crate::measure::{metric, Better, MetricSpec};

pub const VALUE: MetricSpec = metric("value", "s", Better::Lower, "the value asked for (--value)");

/// Every metric above.
pub const ALL: &[MetricSpec] = &[VALUE];
