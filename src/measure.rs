//! What a measurement is: named figures with their unit and direction,
//! full-resolution histograms and notes.  Every engine returns one (an
//! engine never prints and never touches the store: the lifecycle and the
//! reports decide what to show and keep); the store, the importers, the
//! health monitor and compare all read it.  The engines themselves live
//! with their benchmark, in `benchmarks/<name>/engine/`.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Which direction is an improvement (declared with the statistics that
/// decide it).
pub use crate::stats::Better;

/// One named figure with its unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    pub name: String,
    pub unit: String,
    pub value: f64,
    pub better: Better,
}

impl Metric {
    pub fn new(
        name: impl Into<String>,
        unit: impl Into<String>,
        value: f64,
        better: Better,
    ) -> Metric {
        Metric {
            name: name.into(),
            unit: unit.into(),
            value,
            better,
        }
    }
}

/// A latency (or other) distribution, recorded in `unit` (`ns` for latency).
#[derive(Clone, Debug)]
pub struct NamedHistogram {
    pub name: String,
    pub unit: String,
    pub hist: Histogram<u64>,
}

/// What one run of a benchmark produced.
#[derive(Clone, Debug, Default)]
pub struct Measurement {
    pub metrics: Vec<Metric>,
    pub histograms: Vec<NamedHistogram>,
    /// Things the reader should know (throttling, warm caches, …).
    pub notes: Vec<String>,
}

impl Measurement {
    pub fn push(&mut self, name: &str, unit: &str, value: f64, better: Better) {
        self.metrics.push(Metric::new(name, unit, value, better));
    }
}
