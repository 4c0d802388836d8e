//! `--rounds auto`'s look, shared by `matrix` (within one boot) and
//! `campaign` (across reboots): after rounds 3, 5, 8, 12, … and at the
//! cap, every arm is decided against the first with the sequential rule
//! of `--runs auto` ([`crate::stats::sequential`]), α split over the
//! arms; the experiment stops when none is left to decide.  A unit is one
//! value per arm and round (the mean of that round's runs: a block's, a
//! boot's).

use crate::stats::sequential::{self, Decision, Rule};
use crate::stats::Better;
use crate::store::RunRecord;

/// Why a look decides nothing on these runs: some come from emulated
/// guests ([`mod@crate::health::emulated`]), whose figures are the
/// emulator's as much as the kernel's; the experiment then runs to its
/// cap and its closing report says the same.
pub fn withheld(runs: &[RunRecord]) -> Option<String> {
    crate::health::emulated::among(runs)
        .refuse("--rounds auto decision", false)
        .err()
}

/// Each arm's values, one a round (rounds 1..=`rounds`): the mean of
/// `metric` over the runs `of(arm, round)` picks; and the metric's
/// direction, `None` when no run has it.
pub fn round_means(
    runs: &[RunRecord],
    arms: usize,
    rounds: usize,
    metric: &str,
    of: impl Fn(&RunRecord, usize, usize) -> bool,
) -> (Vec<Vec<f64>>, Option<Better>) {
    let mut better = None;
    let values = (0..arms)
        .map(|arm| {
            (1..=rounds)
                .filter_map(|r| {
                    let v: Vec<f64> = runs
                        .iter()
                        .filter(|x| of(x, arm, r))
                        .filter_map(|x| x.metrics.iter().find(|m| m.name == metric))
                        .map(|m| {
                            better = Some(m.better);
                            m.value
                        })
                        .collect();
                    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
                })
                .collect()
        })
        .collect();
    (values, better)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A look on runs of which one is emulated decides nothing, and says
    /// so in the words every deciding command uses.
    #[test]
    fn a_look_on_emulated_runs_is_withheld() {
        let mut runs: Vec<RunRecord> = (0..4)
            .map(|i| {
                let mut r = RunRecord::new("a", "b", serde_json::json!({}), None);
                r.id = i;
                r
            })
            .collect();
        assert_eq!(withheld(&runs), None);
        crate::store::foreign::mark_emulated(&mut runs[2], "TCG");
        let why = withheld(&runs).unwrap();
        assert!(
            why.starts_with("emulated: 1 of 4 runs come from emulated guests (TCG); no --rounds auto decision is given on them"),
            "{why}"
        );
    }
}
