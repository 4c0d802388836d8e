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
pub mod describe;
pub mod effect;
pub mod interval;
pub mod mann_whitney;
pub mod multiple;
pub mod permutation;
pub mod power;
mod special;
pub mod student_t;
pub mod welch;

/// Relative closeness for reference-value tests.
#[cfg(test)]
pub fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300) || (a - b).abs() < 1e-15
}
