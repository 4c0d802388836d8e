//! Statistics for comparing kernels: descriptive summaries, confidence
//! intervals that respect positive metrics, Welch's t-test, the exact
//! Mann–Whitney U test, effect sizes with intervals, equivalence (TOST),
//! multiple-comparison adjustment, power, and a seeded bootstrap-t.
//!
//! Every formula cites its source, and the tests pin results to values
//! computed once with an independent implementation (SciPy 1.17:
//! `scipy.stats.t`, `ttest_ind(equal_var=False)`, `mannwhitneyu`,
//! `permutation_test`), so a change in numbers is a test failure.

pub mod bootstrap;
pub mod changepoint;
pub mod describe;
pub mod effect;
pub mod interval;
/// The exact two-sample Kolmogorov-Smirnov test of the bisection
/// simulator's model of Pinpoint (tests and benches only).
#[cfg(test)]
pub mod ks;
pub mod maxt;

pub mod mann_whitney;
pub mod multiple;
pub mod pairwise;
pub mod permutation;
pub mod power;
pub mod sequential;
mod special;
pub mod student_t;
pub mod welch;

use serde::{Deserialize, Serialize};

/// Which direction is an improvement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Lower,
    Higher,
    /// Informational (counts, sizes): no direction.
    Neither,
}

impl Better {
    pub fn as_str(self) -> &'static str {
        match self {
            Better::Lower => "lower",
            Better::Higher => "higher",
            Better::Neither => "neither",
        }
    }

    pub fn parse(s: &str) -> Better {
        match s {
            "lower" => Better::Lower,
            "higher" => Better::Higher,
            _ => Better::Neither,
        }
    }
}

/// Below this many runs on either side no verdict is given.
pub const MIN_RUNS: usize = 3;

/// The default `--threshold`: changes under 2 % are below the run-to-run
/// noise of most kernel benchmarks on real machines and are rarely worth a
/// kernel choice.
pub const DEFAULT_THRESHOLD_PCT: f64 = 2.0;

/// Relative closeness for reference-value tests.
#[cfg(test)]
pub fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300) || (a - b).abs() < 1e-15
}
