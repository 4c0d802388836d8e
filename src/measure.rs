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

/// A metric a benchmark stores: its name, unit, direction and what it
/// measures (a few words, shown beside it in reports).
#[derive(Clone, Copy, Debug)]
pub struct MetricSpec {
    pub name: &'static str,
    pub unit: &'static str,
    pub better: Better,
    pub meaning: &'static str,
}

/// Shorthand for a [`MetricSpec`] in an entry.
pub const fn metric(
    name: &'static str,
    unit: &'static str,
    better: Better,
    meaning: &'static str,
) -> MetricSpec {
    MetricSpec {
        name,
        unit,
        better,
        meaning,
    }
}

/// The unit a metric declares when each run names its own (a load's work
/// is MB, files or loops; its rate that per second): such a metric is
/// recorded with [`MetricSpec::value_in`] or [`Measurement::record_in`].
pub const RUN_UNIT: &str = "work";

impl MetricSpec {
    /// This metric with a value.
    pub fn value(&self, value: f64) -> Metric {
        Metric::new(self.name, self.unit, value, self.better)
    }

    /// This metric with a value in the unit the run names (the declared
    /// unit is [`RUN_UNIT`], or it per second).
    pub fn value_in(&self, unit: &str, value: f64) -> Metric {
        debug_assert!(
            self.unit.starts_with(RUN_UNIT),
            "{} declares {}: record it with value()",
            self.name,
            self.unit
        );
        Metric::new(self.name, unit, value, self.better)
    }

    /// Whether `m` is this metric as declared (name, direction, and unit
    /// unless the run names its own): how the lifecycle checks, in debug
    /// builds, that a benchmark stores what its entry declares.
    #[cfg(debug_assertions)]
    pub fn declares(&self, m: &Metric) -> bool {
        m.name == self.name
            && m.better == self.better
            && (m.unit == self.unit || self.unit.starts_with(RUN_UNIT))
    }

    /// Whether `m` is this per-part metric (`<part>_<name>`, a task and
    /// load pair's) as declared.
    #[cfg(debug_assertions)]
    pub fn declares_part(&self, m: &Metric) -> bool {
        m.name
            .strip_suffix(self.name)
            .is_some_and(|p| p.ends_with('_') && p.len() > 1)
            && m.better == self.better
            && m.unit == self.unit
    }
}

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
    /// The value of a metric as its benchmark declares it (name, unit and
    /// direction written once, in the benchmark's `metrics.rs`).
    pub fn record(&mut self, spec: &MetricSpec, value: f64) {
        self.push(spec.name, spec.unit, value, spec.better);
    }

    /// The value of a metric declared in [`RUN_UNIT`], in the unit the
    /// run names.
    pub fn record_in(&mut self, spec: &MetricSpec, unit: &str, value: f64) {
        self.metrics.push(spec.value_in(unit, value));
    }

    /// The value of a per-part metric (a task and load pair's), named
    /// `<part>_<name>`.
    pub fn record_part(&mut self, part: &str, spec: &MetricSpec, value: f64) {
        self.push(
            &format!("{part}_{}", spec.name),
            spec.unit,
            value,
            spec.better,
        );
    }

    pub fn push(&mut self, name: &str, unit: &str, value: f64, better: Better) {
        self.metrics.push(Metric::new(name, unit, value, better));
    }
}
