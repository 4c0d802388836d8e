//! The search: which candidate to measure next, each decision made with
//! [`super::call`] at its share of α ([`super::budget`]), skips handled
//! as `git bisect skip` does, the culprit confirmed against its parent.
//!
//! The search knows nothing of git, builds or stores: a [`Measure`]
//! prepares a candidate and measures one unit of it (a run, or a boot)
//! and gives back its values; the state ([`State`]) is plain data, saved
//! after every unit, so a bisection stopped anywhere resumes where it was
//! (the units a step has already measured are read back, not redone).
//! The same search runs over simulated candidates in `sim` (a test; `bench/bisect-runs.sh`).

use super::budget::Budget;
use super::call::{Call, StepRule};
use crate::stats::bootstrap::SplitMix;
use crate::stats::Better;
use anyhow::Result;
use serde::{Deserialize, Serialize};

/// What a unit is measured as, within its step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Good,
    Bad,
    Candidate,
    Parent,
    Culprit,
    Revert,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Good => "good",
            Role::Bad => "bad",
            Role::Candidate => "candidate",
            Role::Parent => "parent",
            Role::Culprit => "culprit",
            Role::Revert => "revert",
        }
    }

    /// The role a stored unit names (as [`Role::as_str`] wrote it).
    pub fn named(s: &str) -> Role {
        match s {
            "good" => Role::Good,
            "bad" => Role::Bad,
            "candidate" => Role::Candidate,
            "parent" => Role::Parent,
            "culprit" => Role::Culprit,
            _ => Role::Revert,
        }
    }
}

/// One unit measured: its candidate, role and values (one per metric).
#[derive(Clone, Debug)]
pub struct Unit {
    pub candidate: usize,
    pub role: Role,
    pub values: Vec<f64>,
}

/// What the search needs measured.
pub trait Measure {
    /// Ready candidate `i` (build it): `Err` is why it cannot be, and it
    /// is skipped.
    fn prepare(&mut self, i: usize) -> std::result::Result<(), String>;
    /// One unit of candidate `i` as `role` in decision `step`: its value
    /// per metric, or `None` when it gave none (the candidate does not run).
    fn unit(&mut self, i: usize, step: usize, role: Role) -> Result<Option<Vec<f64>>>;
    /// The units decision `step` already has (a resumed bisection).
    fn units_of(&self, step: usize) -> Result<Vec<Unit>>;
    /// The candidate that reverts the culprit on the bad end, when there
    /// can be one (a git range whose revert applies cleanly); it is
    /// measured as the candidate after all the others.
    fn revert(&mut self, _culprit: &Candidate) -> Option<Candidate> {
        None
    }
    /// The state changed: keep it.
    fn save(&mut self, _s: &State) -> Result<()> {
        Ok(())
    }
    /// Say a line of progress.
    fn say(&mut self, _line: &str) {}
    /// Only the candidates in `keep` can be measured again (the ends and
    /// the bracket): free what readies the others (a built work tree).
    fn release(&mut self, _keep: &[usize]) {}
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "status", content = "why")]
pub enum Status {
    Untested,
    Good,
    Bad,
    Skipped(String),
}

/// A candidate as the search sees it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Candidate {
    /// Short name (a commit's short id, an image's file name, a label).
    pub name: String,
    /// What it is (a commit's subject, an image's path).
    pub detail: String,
    pub status: Status,
}

/// One decision, as the log shows it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Step {
    /// `ends`, `candidate`, `confirm`, `again` (the search made again
    /// with fresh ends) or `revert`.
    pub kind: String,
    /// The candidate decided (the culprit for confirm, the revert for revert).
    pub candidate: usize,
    pub alpha: f64,
    /// Units a side so far.
    pub units: usize,
    /// What it decided (empty while measuring).
    pub call: String,
}

/// A metric's change from parent to culprit (%, ratio of means) and
/// its 95 % interval.
pub type Change = (String, f64, Option<(f64, f64)>);

/// How the bisection ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Outcome {
    /// The first bad candidate, confirmed against its parent (or not).
    Culprit {
        index: usize,
        confirmed: bool,
        /// The change from parent to culprit (%, ratio of means) and its
        /// 95 % interval, per bisected metric.
        changes: Vec<Change>,
        /// What reverting it on the bad end did, when tried.
        revert: Option<String>,
        /// Metrics whose ends changed more than the culprit did: the
        /// change comes in parts or gradually ([`super::parts`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        parts: Vec<String>,
    },
    /// Skips left several: the first bad one is among these; `confirmed`
    /// when the last good candidate and the first bad one were compared
    /// afresh and the bad one found worse (a state from before that
    /// comparison was made reads as confirmed: its steps bounded it).
    Among {
        candidates: Vec<usize>,
        #[serde(default = "yes")]
        confirmed: bool,
    },
    /// A step could not tell, and why.
    CannotTell { candidate: usize, why: String },
    /// The ends do not differ (or the bad end cannot be measured).
    Nothing { why: String },
}

fn yes() -> bool {
    true
}

/// Everything the search knows; saved after every unit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct State {
    /// Good end first, bad end at `bad_end`; a revert after it.
    pub candidates: Vec<Candidate>,
    pub bad_end: usize,
    /// Metric names and directions (the ends' first run says them).
    pub metrics: Vec<(String, Better)>,
    /// The metrics the ends showed worse: the ones bisected.
    pub bisected: Vec<String>,
    /// Every unit of the good and the bad end, over all decisions, per
    /// metric, as running moments (see [`super::parts`]).
    #[serde(default)]
    pub ends_pool: Vec<[super::parts::Moments; 2]>,
    /// Every unit of the candidates decided so far, per metric: those of
    /// the good level (the good end and the candidates like it), then
    /// those of the bad level.
    #[serde(default)]
    pub levels: Vec<[Vec<f64>; 2]>,
    /// Every unit of each candidate measured so far in this search, per
    /// metric: what the confirmation's fresh units of a candidate are
    /// checked against for drift ([`super::stale`]).
    #[serde(default)]
    pub own: std::collections::BTreeMap<usize, Vec<Vec<f64>>>,
    /// Steps measure both ends every round and test on those units alone
    /// (`--fresh-ends`), not on the levels.
    #[serde(default)]
    pub fresh_ends: bool,
    /// Why a lead (a confirmation that failed) may be one, from its fresh
    /// units against earlier ones ([`super::stale`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
    /// Why the search was made again with fresh ends (the first
    /// confirmation found the machine drifted), when it was
    /// ([`State::again`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub again: Option<String>,
    pub steps: Vec<Step>,
    pub budget: Budget,
    /// Most units a side one decision may take.
    pub cap: usize,
    pub threshold_pct: f64,
    pub seed: u64,
    /// Units measured in all, and seconds spent measuring.
    pub units: usize,
    pub outcome: Option<Outcome>,
}

/// Values of one decision: per side, per metric.
pub(super) struct Values {
    sides: Vec<(usize, Role)>,
    pub(super) v: Vec<Vec<Vec<f64>>>,
    /// The side whose units count the rounds (a candidate's step: the
    /// candidate); `None`, the side with the fewest.
    lead: Option<usize>,
    /// The sides left out of the next round, as the decision says (a bit
    /// a side): a candidate's step measures an end only while its level
    /// has fewer units than the step needs.
    pub(super) resting: std::cell::Cell<u32>,
}

impl Values {
    fn new(sides: &[(usize, Role)], metrics: usize) -> Values {
        Values {
            sides: sides.to_vec(),
            v: vec![vec![Vec::new(); metrics]; sides.len()],
            lead: None,
            resting: std::cell::Cell::new(0),
        }
    }

    fn push(&mut self, side: usize, values: &[f64]) {
        for (m, x) in values.iter().enumerate() {
            if let Some(col) = self.v[side].get_mut(m) {
                col.push(*x);
            }
        }
    }

    fn len(&self, side: usize) -> usize {
        self.v[side].first().map_or(0, Vec::len)
    }

    /// Rounds completed: the lead side's units when there is one (the
    /// others are measured in a round only when the decision wants them),
    /// else the fewest of any side (one behind is caught up first).
    pub(super) fn rounds(&self) -> usize {
        if let Some(l) = self.lead {
            return self.len(l);
        }
        (0..self.sides.len())
            .map(|s| self.len(s))
            .min()
            .unwrap_or(0)
    }
}

impl State {
    pub fn new(
        candidates: Vec<Candidate>,
        metrics: Vec<(String, Better)>,
        budget: Budget,
        cap: usize,
        threshold_pct: f64,
        seed: u64,
    ) -> State {
        State {
            bad_end: candidates.len().saturating_sub(1),
            candidates,
            metrics,
            bisected: Vec::new(),
            ends_pool: Vec::new(),
            levels: Vec::new(),
            own: Default::default(),
            fresh_ends: false,
            stale: None,
            again: None,
            steps: Vec::new(),
            budget,
            cap,
            threshold_pct,
            seed,
            units: 0,
            outcome: None,
        }
    }

    pub(super) fn rule(&self, k: usize) -> StepRule {
        StepRule {
            alpha: self.steps[k].alpha,
            cap: self.cap,
            threshold_pct: self.threshold_pct,
        }
    }

    /// Run (or resume) the search to its end.
    pub fn run(&mut self, m: &mut dyn Measure) -> Result<Outcome> {
        if let Some(o) = &self.outcome {
            return Ok(o.clone());
        }
        let last = self.bad_end;
        // Every decision measures the ends: ready them first (again, when
        // resumed).
        for i in [0, last] {
            if let Err(why) = m.prepare(i) {
                let which = if i == 0 { "good" } else { "bad" };
                let why = format!("the {which} end cannot be measured: {why}");
                return self.finish(m, Outcome::Nothing { why });
            }
        }
        if self.bisected.is_empty() {
            if let Some(why) = self.decide_ends(m, last)? {
                return self.finish(m, Outcome::Nothing { why });
            }
        }
        loop {
            let (lo, hi) = self.bounds();
            m.release(&[0, last, lo, hi]);
            let Some(c) = self.next(lo, hi) else {
                match self.settle(m, lo, hi)? {
                    Some(o) => return Ok(o),
                    None => continue,
                }
            };
            if let Err(why) = m.prepare(c) {
                m.say(&format!("{}: skipped ({why})", self.candidates[c].name));
                self.candidates[c].status = Status::Skipped(why);
                m.save(self)?;
                continue;
            }
            match self.decide_candidate(m, c, last)? {
                Some(Call::LikeGood) => self.candidates[c].status = Status::Good,
                Some(Call::LikeBad { .. }) => self.candidates[c].status = Status::Bad,
                Some(Call::CannotTell(why)) => {
                    return self.finish(m, Outcome::CannotTell { candidate: c, why })
                }
                Some(Call::NotYet) => unreachable!("a decision ends decided"),
                None => {
                    let why = "it gave no value (it does not run)".to_string();
                    m.say(&format!("{}: skipped ({why})", self.candidates[c].name));
                    self.candidates[c].status = Status::Skipped(why);
                }
            }
            m.save(self)?;
        }
    }

    fn finish(&mut self, m: &mut dyn Measure, o: Outcome) -> Result<Outcome> {
        self.outcome = Some(o.clone());
        m.save(self)?;
        Ok(o)
    }

    /// The last good candidate and the first bad one.
    fn bounds(&self) -> (usize, usize) {
        let last = self.bad_end;
        let lo = (0..=last)
            .filter(|&i| i == 0 || self.candidates[i].status == Status::Good)
            .max()
            .unwrap_or(0);
        let hi = (lo + 1..=last)
            .find(|&i| i == last || self.candidates[i].status == Status::Bad)
            .unwrap_or(last);
        (lo, hi)
    }

    /// The untested candidate nearest the middle of (lo, hi).
    fn next(&self, lo: usize, hi: usize) -> Option<usize> {
        let mid = (lo + hi) as f64 / 2.0;
        (lo + 1..hi)
            .filter(|&i| self.candidates[i].status == Status::Untested)
            .min_by(|a, b| {
                ((*a as f64 - mid).abs(), *a)
                    .partial_cmp(&((*b as f64 - mid).abs(), *b))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
    }

    /// Nothing left untested between lo and hi: the culprit is hi (then
    /// confirmed), or skips leave several; `None` when the confirmation
    /// failed on stale levels and the search begins again ([`State::again`]).
    fn settle(&mut self, m: &mut dyn Measure, lo: usize, hi: usize) -> Result<Option<Outcome>> {
        if hi > lo + 1 {
            let candidates: Vec<usize> = (lo + 1..=hi).collect();
            let (confirmed, _, _, stale) = self.confirm(m, lo, hi)?;
            if self.again(m, confirmed, stale)? {
                return Ok(None);
            }
            let o = Outcome::Among {
                candidates,
                confirmed,
            };
            return self.finish(m, o).map(Some);
        }
        let (confirmed, changes, parts, stale) = self.confirm(m, lo, hi)?;
        if self.again(m, confirmed, stale)? {
            return Ok(None);
        }
        let revert = if confirmed { self.revert(m, hi)? } else { None };
        let o = Outcome::Culprit {
            index: hi,
            confirmed,
            changes,
            revert,
            parts,
        };
        self.finish(m, o).map(Some)
    }

    /// Whether this search may yet be made again with fresh ends.
    pub(super) fn may_again(&self) -> bool {
        self.budget.again && !self.fresh_ends && self.again.is_none()
    }

    /// The bound, as the bisection states it.
    pub fn describe_bound(&self) -> String {
        self.budget.describe(self.may_again(), self.again.is_some())
    }

    /// After a confirmation that failed and found the machine drifted (a
    /// candidate unlike its own earlier units, [`super::stale`]): make the
    /// search again, once, with both ends measured beside every candidate
    /// (as `--fresh-ends`), from the whole range (the first search's calls
    /// rested on stale units).  Its confirmation runs at its own share of
    /// α ([`super::budget`]).  Skips stand.  Otherwise what the check
    /// found is kept for the result, and `false`.
    fn again(
        &mut self,
        m: &mut dyn Measure,
        confirmed: bool,
        stale: Option<super::stale::Stale>,
    ) -> Result<bool> {
        let why = match stale {
            Some(s) if !confirmed && s.drift && self.may_again() => s.line,
            other => {
                self.stale = other.map(|s| s.line);
                return Ok(false);
            }
        };
        m.say(&format!(
            "not confirmed, and {why}: searching again with both ends measured beside every candidate"
        ));
        let k = self.open_step("again", self.bad_end);
        self.close_step(
            k,
            "the machine drifted: the search made again with fresh ends",
        );
        for c in &mut self.candidates {
            if matches!(c.status, Status::Good | Status::Bad) {
                c.status = Status::Untested;
            }
        }
        self.levels.clear();
        self.own.clear();
        self.fresh_ends = true;
        self.again = Some(why);
        m.save(self)?;
        Ok(true)
    }

    /// The steps of the search now under way (after it was made again,
    /// the second's).
    pub(super) fn this_search(&self) -> &[Step] {
        let from = self
            .steps
            .iter()
            .rposition(|s| s.kind == "again")
            .map_or(0, |k| k + 1);
        &self.steps[from..]
    }

    /// Measure decision `k` over `sides` in seeded random rounds (one
    /// unit of each side a round) until `decide` says; the units the
    /// decision already had are read back first.  `None` when a side gave
    /// no value; the values either way.
    pub(super) fn measure<T>(
        &mut self,
        m: &mut dyn Measure,
        k: usize,
        sides: &[(usize, Role)],
        decide: impl Fn(&State, &Values) -> Option<T>,
    ) -> Result<(Option<T>, Values)> {
        self.measure_led(m, k, sides, None, decide)
    }

    /// [`State::measure`] where the decision may rest sides
    /// ([`Values::resting`]): the rounds are counted by side `lead`'s
    /// units, and a side resting is not measured in the next round.
    pub(super) fn measure_led<T>(
        &mut self,
        m: &mut dyn Measure,
        k: usize,
        sides: &[(usize, Role)],
        lead: Option<usize>,
        decide: impl Fn(&State, &Values) -> Option<T>,
    ) -> Result<(Option<T>, Values)> {
        let mut vals = Values::new(sides, self.metrics.len());
        vals.lead = lead;
        // Ready (again, after a resume) every side measured here.
        for &(c, _) in sides {
            if m.prepare(c).is_err() {
                return Ok((None, vals));
            }
        }
        for u in m.units_of(k)? {
            if let Some(side) = sides
                .iter()
                .position(|&(c, r)| c == u.candidate && r == u.role)
            {
                vals.push(side, &u.values);
            }
        }
        loop {
            if let Some(d) = decide(self, &vals) {
                let ends: Vec<(usize, usize)> = sides
                    .iter()
                    .enumerate()
                    .filter_map(|(i, &(_, r))| match r {
                        Role::Good => Some((i, 0)),
                        Role::Bad => Some((i, 1)),
                        _ => None,
                    })
                    .collect();
                super::parts::pool(&mut self.ends_pool, &ends, &vals.v);
                return Ok((Some(d), vals));
            }
            let r = vals.rounds();
            if r > self.cap {
                anyhow::bail!("decision {k} went past its cap of {} units", self.cap);
            }
            let mut rng = SplitMix(self.seed ^ ((k as u64) << 32) ^ r as u64);
            for side in crate::experiment::order::permutation(&mut rng, sides.len()) {
                if vals.len(side) > r || vals.resting.get() & (1 << side) != 0 {
                    continue; // measured before a resume, or resting
                }
                let (c, role) = sides[side];
                match m.unit(c, k, role)? {
                    Some(v) => vals.push(side, &v),
                    None => return Ok((None, vals)),
                }
                self.units += 1;
                self.steps[k].units = vals.rounds();
                m.save(self)?;
            }
        }
    }

    pub(super) fn open_step(&mut self, kind: &str, candidate: usize) -> usize {
        // A resumed bisection reopens the decision it stopped in.
        if let Some(k) = self.steps.iter().position(|s| s.call.is_empty()) {
            return k;
        }
        let k = self.steps.len();
        // Steps share the bisection's α; the ends and the revert each have
        // all of it, a confirmation all or its share (see `budget`).
        let alpha = match kind {
            "candidate" => self.budget.step(
                self.this_search()
                    .iter()
                    .filter(|s| s.kind == "candidate")
                    .count(),
            ),
            "confirm" => self.budget.confirm(self.may_again(), self.again.is_some()),
            // Not a test.
            "again" => 0.0,
            _ => self.budget.whole(),
        };
        self.steps.push(Step {
            kind: kind.into(),
            candidate,
            alpha,
            units: 0,
            call: String::new(),
        });
        k
    }

    pub(super) fn close_step(&mut self, k: usize, call: &str) {
        self.steps[k].call = call.to_string();
    }
}
