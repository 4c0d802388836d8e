//! Reading other tools' outputs into runs, so years of old logs (and the
//! seeds' own tables) can be compared.  Every parser names the line it
//! could not read.

pub mod checked;
pub mod csv;

use crate::measure::{Metric, NamedHistogram};

/// One run read from a file.
#[derive(Clone, Debug)]
pub struct Imported {
    /// From the file (CSV), else the caller's `--label`.
    pub label: Option<String>,
    pub benchmark: String,
    pub params: serde_json::Value,
    pub metrics: Vec<Metric>,
    pub histograms: Vec<NamedHistogram>,
}

/// p50/p99/p99.9 (µs) of a rebuilt latency histogram as metrics, and the
/// histogram itself, so imported runs compare like kbench's own.
pub fn add_latency(m: &mut crate::measure::Measurement, hist: hdrhistogram::Histogram<u64>) {
    for (name, q) in [("p50_us", 0.5), ("p99_us", 0.99), ("p999_us", 0.999)] {
        m.push(
            name,
            "us",
            (hist.value_at_quantile(q) / 1000) as f64,
            crate::measure::Better::Lower,
        );
    }
    m.histograms.push(NamedHistogram {
        name: "latency".into(),
        unit: "ns".into(),
        hist,
    });
}

/// A parse error at a line (1-based).
pub fn at(line: usize, msg: impl std::fmt::Display) -> anyhow::Error {
    crate::error::input(format!("line {line}: {msg}"))
}
