//! The four kinds of decision a bisection makes, each measured with
//! [`State::measure`] and decided with [`super::call`]: the ends (which
//! metrics got worse), a candidate (like good, like bad, or cannot
//! tell), the confirmation (the culprit against its parent, afresh) and
//! the revert (the culprit undone on the bad end).

use super::call::{self, Call, Ends, Sides};
use super::search::{Change, Measure, Role, State};
use crate::stats::Better;
use anyhow::Result;

/// What a confirmation found: whether it confirmed; per bisected metric
/// the change and its interval; the lines that say the change comes in
/// parts ([`super::parts`]); and, when not confirmed, why it may have
/// failed ([`super::stale`]).
type Confirmation = (bool, Vec<Change>, Vec<String>, Option<super::stale::Stale>);

impl State {
    /// The ends: which metrics got worse.  `Some(why)` when none did.
    pub(super) fn decide_ends(
        &mut self,
        m: &mut dyn Measure,
        last: usize,
    ) -> Result<Option<String>> {
        let k = self.open_step("ends", last);
        let names: Vec<String> = self.metrics.iter().map(|x| x.0.clone()).collect();
        let (vals, units) = self.measure(m, k, &[(0, Role::Good), (last, Role::Bad)], |s, v| {
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
                self.join(0, &units.v[0]);
                self.join(1, &units.v[1]);
                self.keep_own(0, &units.v[0]);
                self.keep_own(last, &units.v[1]);
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

    /// A candidate's step: `None` when it gave no value.  The candidate
    /// is tested against every unit of the good level and of the bad level
    /// so far ([`State::levels`]); an end is measured in a round only
    /// while its level has fewer units than the candidate will have, so
    /// after the first steps only the candidate is.  The units a step
    /// stopped on join the level it decided (those of a candidate unlike
    /// both join neither).  With `--fresh-ends` both ends are measured
    /// every round and the levels are not used: about 2.5 times the units, and
    /// a machine drifting between steps cannot mislead the step.
    pub(super) fn decide_candidate(
        &mut self,
        m: &mut dyn Measure,
        c: usize,
        last: usize,
    ) -> Result<Option<Call>> {
        let k = self.open_step("candidate", c);
        let idx = self.bisected_idx();
        let sides = [(0, Role::Good), (last, Role::Bad), (c, Role::Candidate)];
        let (got, vals) = self.measure_led(m, k, &sides, Some(2), |s, v| {
            let n = v.rounds();
            // Each level: its units from earlier decisions (unless the ends
            // are measured afresh in every round) and this step's units of
            // its end.
            let level = |e: usize, j: usize| -> Vec<f64> {
                let mut x = match s.levels.get(j) {
                    Some(l) if !s.fresh_ends => l[e].clone(),
                    _ => Vec::new(),
                };
                x.extend_from_slice(&v.v[e][j]);
                x
            };
            let pools: Vec<[Vec<f64>; 2]> =
                idx.iter().map(|&j| [level(0, j), level(1, j)]).collect();
            let sides = level_sides(s, v, &idx, n, &pools);
            let want = if s.fresh_ends { usize::MAX } else { n + 1 };
            let rest = (0..2)
                .filter(|&e| pools.iter().all(|p| p[e].len() >= want))
                .fold(0u32, |m, e| m | 1 << e);
            v.resting.set(rest);
            match call::candidate(&s.rule(k), &sides) {
                Call::NotYet => None,
                Call::CannotTell(_) => Some(Call::CannotTell(call::why_not(&s.rule(k), &sides, n))),
                d => Some(d),
            }
        })?;
        if let Some(d) = &got {
            let said = match d {
                Call::LikeGood => "like good".to_string(),
                Call::LikeBad { partly: false } => "like bad".to_string(),
                Call::LikeBad { partly: true } => {
                    format!("{PARTLY}: the change may come in parts)")
                }
                Call::CannotTell(_) => "cannot tell".to_string(),
                Call::NotYet => String::new(),
            };
            let level = match d {
                Call::LikeGood => Some(0),
                Call::LikeBad { partly: false } => Some(1),
                _ => None,
            };
            self.join(0, &vals.v[0]);
            self.join(1, &vals.v[1]);
            if let Some(l) = level {
                self.join(l, &vals.v[2]);
            }
            self.keep_own(0, &vals.v[0]);
            self.keep_own(last, &vals.v[1]);
            self.keep_own(c, &vals.v[2]);
            self.close_step(k, &said);
            m.say(&format!(
                "{} {}: {said} after {} units of it",
                self.candidates[c].name, self.candidates[c].detail, self.steps[k].units
            ));
        }
        Ok(got)
    }

    /// Add a candidate's values (per metric) to its own ([`State::own`]).
    fn keep_own(&mut self, c: usize, v: &[Vec<f64>]) {
        let own = self.own.entry(c).or_default();
        if own.len() < v.len() {
            own.resize(v.len(), Vec::new());
        }
        for (j, x) in v.iter().enumerate() {
            own[j].extend_from_slice(x);
        }
    }

    /// Add a decided side's values to a level (0 good, 1 bad), per metric.
    pub(super) fn join(&mut self, level: usize, v: &[Vec<f64>]) {
        if self.levels.len() < v.len() {
            self.levels.resize(v.len(), [Vec::new(), Vec::new()]);
        }
        for (j, x) in v.iter().enumerate() {
            self.levels[j][level].extend_from_slice(x);
        }
    }

    /// The culprit against its parent, afresh: confirmed when worse in a
    /// bisected metric; the change and its 95 % interval per metric.
    pub(super) fn confirm(
        &mut self,
        m: &mut dyn Measure,
        parent: usize,
        culprit: usize,
    ) -> Result<Confirmation> {
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
        let against = if culprit == parent + 1 {
            "its parent"
        } else {
            "the last good candidate"
        };
        let said = if confirmed {
            format!("confirmed: worse than {against}")
        } else {
            format!("not confirmed against {against}")
        };
        self.close_step(k, &said);
        // Only a lead needs explaining; a culprit confirmed afresh stands
        // whatever the levels did.
        let stale = (!confirmed)
            .then(|| self.stale_check(&idx, &vals, [parent, culprit]))
            .flatten();
        let culprit: Vec<(usize, super::parts::Lr)> = idx
            .iter()
            .filter_map(|&j| Some((j, super::parts::of(&vals.v[0][j], &vals.v[1][j])?)))
            .collect();
        let mut parts = super::parts::lines(
            &self.metrics,
            &super::parts::ends(&self.ends_pool),
            &culprit,
            self.steps[k].alpha,
        );
        let partly = self
            .this_search()
            .iter()
            .find(|s| s.call.starts_with(PARTLY));
        if let (true, Some(s)) = (parts.is_empty(), partly) {
            parts.push(format!(
                "{} was worse than the good candidates and better than the bad ones: the change comes in parts or gradually, and the rest lies elsewhere in the range",
                self.candidates[s.candidate].name
            ));
        }
        Ok((confirmed, changes, parts, stale))
    }

    /// The confirmation's fresh units of `members` (a good candidate, a
    /// bad one) against their own earlier units and their levels': a line
    /// when either is off, and whether the machine drifted
    /// ([`super::stale`]).
    fn stale_check(
        &self,
        idx: &[usize],
        vals: &super::search::Values,
        members: [usize; 2],
    ) -> Option<super::stale::Stale> {
        let side = |e: usize, own: bool| super::stale::Side {
            against: match (own, e) {
                (true, _) => "its own",
                (false, 0) => "the good level's",
                (false, _) => "the bad level's",
            },
            member: &self.candidates[members[e]].name,
            metrics: idx
                .iter()
                .filter_map(|&j| {
                    let earlier = if own {
                        self.own.get(&members[e])?.get(j)?
                    } else {
                        &self.levels.get(j)?[e]
                    };
                    Some((
                        self.metrics[j].0.as_str(),
                        earlier.as_slice(),
                        vals.v.get(e)?.get(j)?.as_slice(),
                    ))
                })
                .collect(),
        };
        super::stale::check(
            &[side(0, true), side(1, true)],
            &[side(0, false), side(1, false)],
        )
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
/// first `n` units against the good and the bad level.
fn level_sides<'a>(
    s: &'a State,
    v: &'a super::search::Values,
    idx: &[usize],
    n: usize,
    pools: &'a [[Vec<f64>; 2]],
) -> Vec<Sides<'a>> {
    idx.iter()
        .zip(pools)
        .map(|(&j, p)| Sides {
            name: &s.metrics[j].0,
            better: s.metrics[j].1,
            good: &p[0],
            bad: &p[1],
            cand: &v.v[2][j][..n],
        })
        .collect()
}

/// How a candidate's step that found it unlike both levels begins.
const PARTLY: &str = "like bad (and unlike the bad end too";

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
#[path = "decisions_tests.rs"]
mod tests;
