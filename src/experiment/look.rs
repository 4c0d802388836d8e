//! `--rounds auto`'s look, shared by `matrix` (within one boot) and
//! `campaign` (across reboots): after rounds 3, 5, 8, 12, … and at the
//! cap, every arm is decided against the first with the sequential rule
//! of `--runs auto` ([`crate::stats::sequential`]), α split over the
//! arms; the experiment stops when none is left to decide.  A unit is one
//! value per arm and round (the mean of that round's runs: a block's, a
//! boot's).

use crate::stats::sequential::{self, Decision, Rule};
use crate::stats::Better;

/// The rounds so far, per arm (the first is the baseline).
pub struct Rounds<'a> {
    pub labels: &'a [String],
    /// Per arm, one value a round.
    pub values: &'a [Vec<f64>],
    pub better: Better,
    pub alpha: f64,
    pub threshold_pct: f64,
    /// The most rounds.
    pub cap: usize,
}

/// After `round` rounds: `Some(why)` when every arm is decided (the
/// experiment stops), `None` to go on (not a look, or an arm undecided).
pub fn decided(r: &Rounds, round: usize, metric: &str) -> Option<String> {
    if !sequential::is_look(round, r.cap) || r.values.len() < 2 {
        return None;
    }
    let others = r.values.len() - 1;
    let mut verdicts = Vec::new();
    for (label, vals) in r.labels.iter().zip(r.values).skip(1) {
        let rule = Rule {
            alpha: r.alpha / others as f64,
            precision_pct: 0.0,
            threshold_pct: r.threshold_pct,
            better: r.better,
            baseline: Some(r.values[0].clone()),
            cap: r.cap,
            // The first arm's values grow with the rounds too, so the
            // fixed-baseline futility bound does not apply.
            futility: false,
        };
        match sequential::decide(&rule, vals) {
            Decision::Continue => return None,
            d => verdicts.push(format!("{label}: {}", d.describe())),
        }
    }
    Some(format!(
        "decided after {round} rounds on {metric}: {}",
        verdicts.join("; ")
    ))
}
