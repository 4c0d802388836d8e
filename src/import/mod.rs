//! Reading other tools' outputs into runs, so years of old logs (and the
//! seeds' own tables) can be compared.  Every parser names the line it
//! could not read.

pub mod csv;
pub mod cyclictest;
pub mod cyclictest_json;
pub mod hackbench;

use crate::bench::{Metric, NamedHistogram};

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

/// A parse error at a line (1-based).
pub fn at(line: usize, msg: impl std::fmt::Display) -> anyhow::Error {
    crate::error::input(format!("line {line}: {msg}"))
}
