//! One step of a bisection decided: is this candidate like the good end,
//! like the bad end, or not yet known, from its units against those of
//! the good level and the bad level (a value per unit: a run's figure,
//! or a boot's mean).
//!
//! The model is git bisect's: every candidate before the culprit behaves
//! as the good end, every one from it on as the bad end.  A step asks two
//! questions of its candidate c, each at the looks of `--runs auto`
//! (after 3, 5, 8, 12, … units and at the cap) with the step's level
//! split evenly over them ([`crate::stats::sequential::alpha_even`]: a
//! step's change is the ends', already seen to be at least the
//! threshold, so most steps end at early looks), each a one-sided test
//! of Welch's t referred to its permutation distribution
//! ([`crate::stats::permutation`]):
//!
//! - is c worse than the good level, by at least the threshold?  Then the
//!   change is in c already: **like bad**.
//! - is c better than the bad level, by at least the threshold?  Then c
//!   does not have the change: **like good**.
//!
//! With several metrics, each test runs at the level / metrics
//! (Bonferroni): c is like bad when any metric says so, like good when
//! every one does.  Neither by the cap: the step cannot tell, and says
//! why (how much the units vary against the change sought); it never
//! guesses.  The levels hold units that earlier steps stopped on, so a
//! step's error is not bounded by its level; it only steers the search.
//! The bisection's error rests on the confirmation, which the same
//! [`worse`] decides on fresh units of the culprit and its parent alone
//! ([`super::budget`]).

use crate::stats::describe::{mean, variance};
use crate::stats::permutation::Tail;
use crate::stats::sequential::{alpha_even, is_look, MIN_RUNS};
use crate::stats::Better;

/// A metric's values on the three sides of a step.
pub struct Sides<'a> {
    pub name: &'a str,
    pub better: Better,
    pub good: &'a [f64],
    pub bad: &'a [f64],
    pub cand: &'a [f64],
}

/// What a step decided.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    LikeGood,
    /// Like bad; `partly` when c also differs from the bad end (the change
    /// may come in parts).
    LikeBad {
        partly: bool,
    },
    NotYet,
    CannotTell(String),
}

/// The step's share of α, its cap on units a side, and the threshold.
#[derive(Clone, Copy, Debug)]
pub struct StepRule {
    pub alpha: f64,
    pub cap: usize,
    pub threshold_pct: f64,
}

/// Is `x` worse (by `better`) than `base` at level `a`, by at least the
/// threshold?  A one-sided test at `a`: the step asks each question in
/// one direction only, and under the model only one of its two questions
/// can be wrongly answered yes (see the module's doc).
pub fn worse(x: &[f64], base: &[f64], better: Better, a: f64, threshold_pct: f64) -> bool {
    match better {
        Better::Lower => shifted(x, base, Tail::Greater, a, threshold_pct),
        Better::Higher => shifted(x, base, Tail::Less, a, threshold_pct),
        Better::Neither => false,
    }
}

/// Is `x` better than `base` (as [`worse`], the other way)?
pub fn better_than(x: &[f64], base: &[f64], better: Better, a: f64, threshold_pct: f64) -> bool {
    match better {
        Better::Lower => shifted(x, base, Tail::Less, a, threshold_pct),
        Better::Higher => shifted(x, base, Tail::Greater, a, threshold_pct),
        Better::Neither => false,
    }
}

/// Whether the permutation test of Welch's t finds `x` beyond `base` in
/// the direction of `tail` at `a`, with the ratio of means at least the
/// threshold away from 1.  `x` is the smaller sample where `base` is a
/// level (a split costs its length).
fn shifted(x: &[f64], base: &[f64], tail: Tail, a: f64, threshold_pct: f64) -> bool {
    let resamples = ((20.0 / a).ceil() as usize).clamp(1000, 200_000) - 1;
    let Some(w) = crate::stats::permutation::tailed(x, base, tail, resamples, Some(a)) else {
        return false;
    };
    let (mx, mb) = (mean(x), mean(base));
    if w.p >= a || mb == 0.0 {
        return false;
    }
    (mx / mb - 1.0).abs() * 100.0 >= threshold_pct
}

/// The α each test of a look gets: the step's, over the metrics, spent at
/// this look; `None` when `n` units are not a look.
fn look_alpha(rule: &StepRule, metrics: usize, n: usize) -> Option<f64> {
    (n >= MIN_RUNS && is_look(n, rule.cap))
        .then(|| alpha_even(rule.alpha / metrics.max(1) as f64, n, rule.cap))
}

/// Decide a candidate's step at the look its units make, against the
/// ends' values as given (the caller cuts them to the rounds completed,
/// and gives none of an end that was not measured in all of them).
pub fn candidate(rule: &StepRule, metrics: &[Sides]) -> Call {
    let n = metrics.iter().map(|m| m.cand.len()).min().unwrap_or(0);
    let Some(a) = look_alpha(rule, metrics.len(), n) else {
        return Call::NotYet;
    };
    let t = rule.threshold_pct;
    let mut all_good = true;
    let mut bad = false;
    let mut partly = false;
    for m in metrics {
        let (g, b, c) = (m.good, m.bad, &m.cand[..n]);
        let like_bad = worse(c, g, m.better, a, t);
        let like_good = better_than(c, b, m.better, a, t);
        bad |= like_bad;
        partly |= like_bad && like_good;
        all_good &= like_good;
    }
    if bad {
        return Call::LikeBad { partly };
    }
    if all_good {
        return Call::LikeGood;
    }
    if n >= rule.cap {
        return Call::CannotTell(why_not(rule, metrics, n));
    }
    Call::NotYet
}

/// Why the cap came without a decision: the units' spread against the
/// change between the ends, and about how many units would decide it.
pub fn why_not(rule: &StepRule, metrics: &[Sides], n: usize) -> String {
    let parts: Vec<String> = metrics
        .iter()
        .map(|m| {
            let cv = |v: &[f64]| {
                if v.len() < 2 {
                    return f64::NAN;
                }
                variance(v).sqrt() / mean(v).abs().max(f64::MIN_POSITIVE) * 100.0
            };
            let gap = (mean(m.bad) / mean(m.good) - 1.0) * 100.0;
            let need = crate::stats::power::runs_needed(
                m.good,
                m.bad,
                gap.abs().max(rule.threshold_pct),
                alpha_even(rule.alpha / metrics.len().max(1) as f64, rule.cap, rule.cap),
            );
            format!(
                "{}: the candidate's {n} units vary by {:.0} % (the ends' by {:.0} % and {:.0} %) against a change of {gap:+.1} % between the ends{}",
                m.name,
                cv(m.cand),
                cv(m.good),
                cv(m.bad),
                need.map_or(String::new(), |k| format!("; about {k} units a side would tell"))
            )
        })
        .collect();
    format!(
        "after {n} units a side (the cap) the candidate is neither like the good end nor like the bad one: {}",
        parts.join("; ")
    )
}

/// The ends before the first step: which metrics got worse from good to
/// bad (only those are bisected), or why there is nothing to bisect.
#[derive(Clone, Debug, PartialEq)]
pub enum Ends {
    /// Every metric decided: these got worse (the rest did not).
    Worse(Vec<String>),
    NotYet,
    /// Nothing got worse: why.
    Nothing(String),
}

/// Decide the ends from units so far: each metric worse, or equivalent
/// (two one-sided tests within ±threshold), or better; at the cap the
/// undecided ones are left out.
pub fn ends(rule: &StepRule, metrics: &[(&str, Better, &[f64], &[f64])]) -> Ends {
    let n = metrics
        .iter()
        .map(|m| m.2.len().min(m.3.len()))
        .min()
        .unwrap_or(0);
    let Some(a) = look_alpha(rule, metrics.len(), n) else {
        return Ends::NotYet;
    };
    let t = rule.threshold_pct;
    let mut worse_ones = Vec::new();
    let mut undecided = 0;
    let mut said = Vec::new();
    for (name, better, good, bad) in metrics {
        let (g, b) = (&good[..n], &bad[..n]);
        if worse(b, g, *better, a, t) {
            worse_ones.push(name.to_string());
        } else if better_than(b, g, *better, a, t) {
            said.push(format!("{name} got better"));
        } else if crate::stats::interval::LogRatio::of(g, b)
            .is_some_and(|lr| lr.tost_p(t / 100.0) < a)
        {
            said.push(format!("{name} is the same within ±{t} %"));
        } else {
            undecided += 1;
            said.push(format!(
                "{name} undecided ({:+.1} %)",
                (mean(b) / mean(g) - 1.0) * 100.0
            ));
        }
    }
    if undecided > 0 && n < rule.cap {
        return Ends::NotYet;
    }
    if worse_ones.is_empty() {
        return Ends::Nothing(format!(
            "after {n} units a side the bad end is not worse than the good one: {}",
            said.join("; ")
        ));
    }
    Ends::Worse(worse_ones)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap::SplitMix;

    fn sample(rng: &mut SplitMix, n: usize, m: f64, cv: f64) -> Vec<f64> {
        (0..n).map(|_| m * (1.0 + cv * rng.normal())).collect()
    }

    #[test]
    fn a_clear_candidate_is_called_at_its_side() {
        let mut rng = SplitMix(3);
        let rule = StepRule {
            alpha: 0.01,
            cap: 30,
            threshold_pct: 2.0,
        };
        let (g, b) = (
            sample(&mut rng, 12, 100.0, 0.02),
            sample(&mut rng, 12, 130.0, 0.02),
        );
        let like_g = sample(&mut rng, 12, 100.0, 0.02);
        let like_b = sample(&mut rng, 12, 130.0, 0.02);
        let side = |c: &[f64]| {
            candidate(
                &rule,
                &[Sides {
                    name: "t",
                    better: Better::Lower,
                    good: &g,
                    bad: &b,
                    cand: c,
                }],
            )
        };
        assert_eq!(side(&like_g), Call::LikeGood);
        assert_eq!(side(&like_b), Call::LikeBad { partly: false });
        // Halfway: worse than good and better than bad.
        let half = sample(&mut rng, 12, 115.0, 0.02);
        assert_eq!(side(&half), Call::LikeBad { partly: true });
        // 11 units is not a look: nothing is decided between looks.
        assert_eq!(side(&like_b[..11]), Call::NotYet);
        // Higher is better: the same values read the other way round.
        let up = candidate(
            &rule,
            &[Sides {
                name: "rps",
                better: Better::Higher,
                good: &b,
                bad: &g,
                cand: &like_g,
            }],
        );
        assert_eq!(up, Call::LikeBad { partly: false });
    }

    #[test]
    fn noise_at_the_cap_cannot_tell_and_says_why() {
        let mut rng = SplitMix(4);
        let rule = StepRule {
            alpha: 0.01,
            cap: 8,
            threshold_pct: 2.0,
        };
        let g = sample(&mut rng, 8, 100.0, 0.3);
        let b = sample(&mut rng, 8, 103.0, 0.3);
        let c = sample(&mut rng, 8, 101.0, 0.3);
        match candidate(
            &rule,
            &[Sides {
                name: "t",
                better: Better::Lower,
                good: &g,
                bad: &b,
                cand: &c,
            }],
        ) {
            Call::CannotTell(why) => {
                assert!(why.contains("after 8 units a side (the cap)"), "{why}");
                assert!(why.contains("vary by"), "{why}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ends_name_what_got_worse() {
        let mut rng = SplitMix(5);
        let rule = StepRule {
            alpha: 0.01,
            cap: 20,
            threshold_pct: 2.0,
        };
        let g = sample(&mut rng, 12, 100.0, 0.01);
        let b = sample(&mut rng, 12, 125.0, 0.01);
        let same = sample(&mut rng, 12, 100.0, 0.001);
        let same2 = sample(&mut rng, 12, 100.0, 0.001);
        let e = ends(
            &rule,
            &[
                ("time", Better::Lower, &g, &b),
                ("other", Better::Lower, &same, &same2),
            ],
        );
        assert_eq!(e, Ends::Worse(vec!["time".into()]));
        let e = ends(&rule, &[("other", Better::Lower, &same, &same2)]);
        assert!(
            matches!(e, Ends::Nothing(ref w) if w.contains("the same within ±2 %")),
            "{e:?}"
        );
    }

    /// The step's error rate: a candidate that behaves as the good end is
    /// called like bad at most α of the time (here α 0.05, 400 seeded
    /// null steps to the cap).
    #[test]
    fn a_step_keeps_its_error_rate() {
        let mut rng = SplitMix(11);
        let rule = StepRule {
            alpha: 0.05,
            cap: 12,
            threshold_pct: 0.5,
        };
        let mut wrong = 0;
        for _ in 0..400 {
            let g = sample(&mut rng, 12, 100.0, 0.05);
            let b = sample(&mut rng, 12, 110.0, 0.05);
            let c = sample(&mut rng, 12, 100.0, 0.05);
            for n in [3, 5, 8, 12] {
                let call = candidate(
                    &rule,
                    &[Sides {
                        name: "t",
                        better: Better::Lower,
                        good: &g[..n],
                        bad: &b[..n],
                        cand: &c[..n],
                    }],
                );
                if matches!(call, Call::LikeBad { .. }) {
                    wrong += 1;
                }
                if call != Call::NotYet {
                    break;
                }
            }
        }
        assert!(
            wrong <= 30,
            "{wrong} of 400 good candidates called bad at alpha 0.05"
        );
    }
}
