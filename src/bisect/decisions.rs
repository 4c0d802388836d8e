//! The four kinds of decision a bisection makes, each measured with
//! [`State::measure`] and decided with [`super::call`]: the ends (which
//! metrics got worse), a candidate (like good, like bad, or cannot
//! tell), the confirmation (the culprit against its parent, afresh) and
//! the revert (the culprit undone on the bad end).

use super::call::{self, Call, Ends, Sides};
use super::search::{Change, Measure, Role, State};
use crate::stats::Better;
use anyhow::Result;

impl State {
    /// The ends: which metrics got worse.  `Some(why)` when none did.
    pub(super) fn decide_ends(
        &mut self,
        m: &mut dyn Measure,
        last: usize,
    ) -> Result<Option<String>> {
        let k = self.open_step("ends", last);
        let names: Vec<String> = self.metrics.iter().map(|x| x.0.clone()).collect();
        let (vals, _) = self.measure(m, k, &[(0, Role::Good), (last, Role::Bad)], |s, v| {
            let metrics: Vec<(&str, Better, &[f64], &[f64])> = s
                .metrics
                .iter()
                .enumerate()
                .map(|(j, (n, b))| (n.as_str(), *b, v.v[0][j].as_slice(), v.v[1][j].as_slice()))
                .collect();
            match call::ends(&s.rule(k), &metrics) {
                Ends::NotYet => None,
                e => Some(e),
            }
        })?;
        let Some(decided) = vals else {
            return Ok(Some("an end gave no value (it does not run)".into()));
        };
        match decided {
            Ends::Worse(w) => {
                self.close_step(k, &format!("worse: {}", w.join(", ")));
                let dropped: Vec<&String> = names.iter().filter(|n| !w.contains(n)).collect();
                if !dropped.is_empty() {
                    m.say(&format!(
                        "not bisected (the ends do not show them worse): {}",
                        dropped
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                self.bisected = w;
                m.save(self)?;
                Ok(None)
            }
            Ends::Nothing(why) => {
                self.close_step(k, "nothing got worse");
                Ok(Some(why))
            }
            Ends::NotYet => unreachable!(),
        }
    }

    pub(super) fn bisected_idx(&self) -> Vec<usize> {
        self.metrics
            .iter()
            .enumerate()
            .filter(|(_, (n, _))| self.bisected.contains(n))
            .map(|(j, _)| j)
            .collect()
    }

    /// A candidate's step: `None` when it gave no value.
    pub(super) fn decide_candidate(
        &mut self,
        m: &mut dyn Measure,
        c: usize,
        last: usize,
    ) -> Result<Option<Call>> {
        let k = self.open_step("candidate", c);
        let idx = self.bisected_idx();
        let (got, _) = self.measure_led(
            m,
            k,
            &[(0, Role::Good), (last, Role::Bad), (c, Role::Candidate)],
            Some(2),
            |s, v| {
                // The rounds completed.  An end measured in every one of
                // them is tested on as many units as the candidate has; an
                // end behind (rested) is not tested on at all, so that
                // every test compares units measured in the same rounds.
                let n = v.rounds();
                let tested =
                    |side: usize, j: usize| -> &[f64] { v.v[side][j].get(..n).unwrap_or(&[]) };
                let sides = step_sides(s, v, &idx, n, tested);
                // Each end's mean over every unit of it so far: the earlier
                // decisions' and this step's.
                let ends: Vec<(f64, f64)> = idx
                    .iter()
                    .map(|&j| {
                        let mean = |side: usize| {
                            let (n0, m0) = s
                                .ends_pool
                                .get(j)
                                .map_or((0, 0.0), |e| (e[side].0, e[side].1));
                            let here = &v.v[side][j];
                            let n = n0 + here.len();
                            (m0 * n0 as f64 + here.iter().sum::<f64>()) / n as f64
                        };
                        (mean(0), mean(1))
                    })
                    .collect();
                // An end rests only while the other one is measured in
                // every round; else the one behind is caught up first.
                let full = |side: usize| idx.iter().all(|&j| v.v[side][j].len() >= n);
                v.resting
                    .set(rest(&sides, &ends).filter(|&side| full(1 - side)));
                match call::candidate(&s.rule(k), &sides) {
                    Call::NotYet => None,
                    // Why, from every unit of the ends (a rested one too).
                    Call::CannotTell(_) => {
                        let all = step_sides(s, v, &idx, n, |side, j| &v.v[side][j]);
                        Some(Call::CannotTell(call::why_not(&s.rule(k), &all, n)))
                    }
                    d => Some(d),
                }
            },
        )?;
        if let Some(d) = &got {
            let said = match d {
                Call::LikeGood => "like good".to_string(),
                Call::LikeBad { partly: false } => "like bad".to_string(),
                Call::LikeBad { partly: true } => {
                    "like bad (and unlike the bad end too: the change may come in parts)"
                        .to_string()
                }
                Call::CannotTell(_) => "cannot tell".to_string(),
                Call::NotYet => String::new(),
            };
            self.close_step(k, &said);
            m.say(&format!(
                "{} {}: {said} after {} units a side",
                self.candidates[c].name, self.candidates[c].detail, self.steps[k].units
            ));
        }
        Ok(got)
    }

    /// The culprit against its parent, afresh: confirmed when worse in a
    /// bisected metric; the change and its 95 % interval per metric.
    pub(super) fn confirm(
        &mut self,
        m: &mut dyn Measure,
        parent: usize,
        culprit: usize,
    ) -> Result<(bool, Vec<Change>, Vec<String>)> {
        let k = self.open_step("confirm", culprit);
        let idx = self.bisected_idx();
        let (got, vals) = self.measure(
            m,
            k,
            &[(parent, Role::Parent), (culprit, Role::Culprit)],
            |s, v| at_look(s, v, k, &idx, Quantifier::Any, call::worse),
        )?;
        let confirmed = got == Some(true);
        let changes = idx
            .iter()
            .filter_map(|&j| {
                let (p, c) = (vals.v.first()?.get(j)?, vals.v.get(1)?.get(j)?);
                let lr = crate::stats::interval::LogRatio::of(p, c);
                let change = (crate::stats::describe::mean(c) / crate::stats::describe::mean(p)
                    - 1.0)
                    * 100.0;
                let ci = lr.map(|l| {
                    let (a, b) = l.ratio_ci(0.95);
                    ((a - 1.0) * 100.0, (b - 1.0) * 100.0)
                });
                Some((self.metrics[j].0.clone(), change, ci))
            })
            .collect();
        self.close_step(
            k,
            if confirmed {
                "confirmed: worse than its parent"
            } else {
                "not confirmed against its parent"
            },
        );
        let culprit: Vec<(usize, super::parts::Lr)> = idx
            .iter()
            .filter_map(|&j| Some((j, super::parts::of(&vals.v[0][j], &vals.v[1][j])?)))
            .collect();
        let parts = super::parts::lines(
            &self.metrics,
            &super::parts::ends(&self.ends_pool),
            &culprit,
            self.steps[k].alpha,
        );
        Ok((confirmed, changes, parts))
    }

    /// Reverting the culprit on the bad end, where it applies: better
    /// than the bad end, or not.
    pub(super) fn revert(&mut self, m: &mut dyn Measure, culprit: usize) -> Result<Option<String>> {
        // A resumed bisection has it already.
        if self.candidates.len() == self.bad_end + 1 {
            let Some(c) = m.revert(&self.candidates[culprit]) else {
                return Ok(None);
            };
            self.candidates.push(c);
            m.save(self)?;
        }
        let r = self.bad_end + 1;
        if let Err(why) = m.prepare(r) {
            return Ok(Some(format!("the revert could not be built: {why}")));
        }
        let last = self.bad_end;
        let k = self.open_step("revert", r);
        let idx = self.bisected_idx();
        let sides = [(last, Role::Bad), (r, Role::Revert)];
        let (got, _) = self.measure(m, k, &sides, |s, v| {
            at_look(s, v, k, &idx, Quantifier::All, call::better_than)
        })?;
        let said = match got {
            Some(true) => "reverting it on the bad end makes it better again",
            Some(false) => "reverting it on the bad end did not make it measurably better",
            None => "the revert gave no value",
        };
        self.close_step(k, said);
        Ok(Some(said.to_string()))
    }
}

/// A candidate step's sides per bisected metric `idx`: the candidate's
/// first `n` units, and of each end (0 the good, 1 the bad) what `end`
/// gives.
fn step_sides<'a>(
    s: &'a State,
    v: &'a super::search::Values,
    idx: &[usize],
    n: usize,
    end: impl Fn(usize, usize) -> &'a [f64],
) -> Vec<Sides<'a>> {
    idx.iter()
        .map(|&j| Sides {
            name: &s.metrics[j].0,
            better: s.metrics[j].1,
            good: end(0, j),
            bad: end(1, j),
            cand: &v.v[2][j][..n],
        })
        .collect()
}

/// The end a candidate's step can leave out of its next round: once the
/// candidate has its first look's units, the end it sits near in every
/// bisected metric (its mean in the nearer 40 % of the gap between the
/// ends' means, from every unit of theirs so far, `ends`) cannot be the one
/// it is told apart from, so only the far end and the candidate are
/// measured (two units a round, not three).  The far end's test is
/// unchanged: its units and the candidate's are still measured in the
/// same rounds, and which end rests depends on nothing that test's error
/// rests on.  Should the candidate leave that part of the gap, the rested
/// end is caught up (its missed units measured then) before it is tested
/// on, and measured every round again.
fn rest(sides: &[Sides], ends: &[(f64, f64)]) -> Option<usize> {
    use crate::stats::describe::mean;
    let mut near = None;
    for (m, &(g, b)) in sides.iter().zip(ends) {
        if m.cand.len() < crate::stats::sequential::MIN_RUNS || !(b - g).is_normal() {
            return None;
        }
        let q = (mean(m.cand) - g) / (b - g);
        let side = if q < 0.4 {
            0
        } else if q > 0.6 {
            1
        } else {
            return None;
        };
        if near.is_some_and(|n| n != side) {
            return None;
        }
        near = Some(side);
    }
    near
}

/// Whether a one-sided test must hold for any bisected metric or for all.
#[derive(Clone, Copy)]
enum Quantifier {
    Any,
    All,
}

/// One look of a two-sided decision (side 1 against side 0): at a planned
/// look, whether `holds` at the look's share of α for `q` of the bisected
/// metrics `idx`; `Some` once it does, or at the cap (then `Some(false)`).
fn at_look(
    s: &State,
    v: &super::search::Values,
    k: usize,
    idx: &[usize],
    q: Quantifier,
    holds: fn(&[f64], &[f64], Better, f64, f64) -> bool,
) -> Option<bool> {
    let n = v.rounds();
    let rule = s.rule(k);
    if !crate::stats::sequential::is_look(n, rule.cap) || n < crate::stats::sequential::MIN_RUNS {
        return None;
    }
    let a = crate::stats::sequential::alpha_even(rule.alpha / idx.len().max(1) as f64, n, rule.cap);
    let one = |&j: &usize| {
        holds(
            &v.v[1][j],
            &v.v[0][j],
            s.metrics[j].1,
            a,
            rule.threshold_pct,
        )
    };
    let yes = match q {
        Quantifier::Any => idx.iter().any(one),
        Quantifier::All => idx.iter().all(one),
    };
    (yes || n >= rule.cap).then_some(yes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side<'a>(cand: &'a [f64], better: Better) -> Sides<'a> {
        Sides {
            name: "t",
            better,
            good: &[],
            bad: &[],
            cand,
        }
    }

    #[test]
    fn the_end_the_candidate_sits_near_rests() {
        let ends = [(100.0, 110.0)];
        let low = side(&[101.0, 100.0, 102.0], Better::Lower);
        assert_eq!(rest(&[low], &ends), Some(0), "near the good end");
        let high = side(&[109.0, 110.0, 111.0], Better::Lower);
        assert_eq!(rest(&[high], &ends), Some(1), "near the bad end");
        let mid = side(&[105.0, 104.0, 106.0], Better::Lower);
        assert_eq!(rest(&[mid], &ends), None, "halfway: both ends are measured");
        let few = side(&[100.0, 100.0], Better::Lower);
        assert_eq!(rest(&[few], &ends), None, "before the first look");
        // Higher is better: the same position in the gap, whichever way.
        let up = side(&[109.0, 110.0, 111.0], Better::Higher);
        assert_eq!(rest(&[up], &[(110.0, 100.0)]), Some(0));
        // Metrics that disagree rest nothing; ends with no gap neither.
        let a = side(&[101.0, 100.0, 102.0], Better::Lower);
        let b = side(&[109.0, 110.0, 111.0], Better::Lower);
        assert_eq!(rest(&[a, b], &[(100.0, 110.0), (100.0, 110.0)]), None);
        let c = side(&[101.0, 100.0, 102.0], Better::Lower);
        assert_eq!(rest(&[c], &[(100.0, 100.0)]), None);
    }
}
