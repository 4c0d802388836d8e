//! Bisections of simulated candidates, for `bench/bisect-runs.sh`: how
//! many runs kbench's search spends and how often it names the right
//! culprit, beside a model of Chromium's Pinpoint on the same candidates.
//!
//! Each trial has N candidates whose values are normal with a
//! coefficient of variation `cv`; from a seeded culprit (never an end)
//! on, their mean is `shift` higher (lower is better, so that is the
//! regression).  kbench's side is the real search ([`super::search`])
//! with a [`Measure`] that draws values instead of running anything.
//! Pinpoint's model follows its published schedule: each commit measured
//! 10, then 20, 40, 80 and 160 times (the runs kept between
//! comparisons), two commits "different" when the smaller of the
//! Mann–Whitney and Kolmogorov–Smirnov p-values is below 0.01
//! (uncorrected), "same" when 160 runs never gave that; the ends compared
//! first, then the midpoint against the last good commit.

use super::budget::Budget;
use super::search::{Candidate, Measure, Outcome, Role, State, Status, Unit};
use crate::stats::bootstrap::SplitMix;
use crate::stats::Better;
use anyhow::Result;
use serde::Serialize;

/// One cell of the table: its trials' figures.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub candidates: usize,
    pub shift_pct: f64,
    pub cv_pct: f64,
    pub trials: usize,
    pub kbench: Figures,
    pub pinpoint: Figures,
}

/// How one strategy did over a cell's trials.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Figures {
    /// Runs per bisection: mean and median.
    pub runs_mean: f64,
    pub runs_median: f64,
    /// Shares of the trials (%): the culprit right, a wrong one named,
    /// none named ("cannot tell", or "no change" for Pinpoint).
    pub right_pct: f64,
    pub wrong_pct: f64,
    pub none_pct: f64,
}

struct Drawn {
    culprit: usize,
    shift: f64,
    cv: f64,
    rng: SplitMix,
}

impl Drawn {
    fn value(&mut self, i: usize) -> f64 {
        let m = if i >= self.culprit {
            100.0 * (1.0 + self.shift)
        } else {
            100.0
        };
        (m * (1.0 + self.cv * self.rng.normal())).max(1e-9)
    }
}

impl Measure for Drawn {
    fn prepare(&mut self, _i: usize) -> std::result::Result<(), String> {
        Ok(())
    }

    fn unit(&mut self, i: usize, _step: usize, _role: Role) -> Result<Option<Vec<f64>>> {
        Ok(Some(vec![self.value(i)]))
    }

    fn units_of(&self, _step: usize) -> Result<Vec<Unit>> {
        Ok(Vec::new())
    }
}

/// A fresh search over `n` candidates `c0…` of one metric, `time`
/// (lower is better): the state a simulated bisection starts from.
pub fn state(n: usize, alpha: f64, cap: usize, seed: u64) -> State {
    let candidates = (0..n)
        .map(|i| Candidate {
            name: format!("c{i}"),
            detail: String::new(),
            status: Status::Untested,
        })
        .collect();
    State::new(
        candidates,
        vec![("time".into(), Better::Lower)],
        Budget::new(alpha, n),
        cap,
        crate::stats::DEFAULT_THRESHOLD_PCT,
        seed,
    )
}

/// kbench's search on one trial: the culprit it named (if any) and runs.
fn kbench_trial(
    d: &mut Drawn,
    n: usize,
    alpha: f64,
    cap: usize,
    seed: u64,
) -> (Option<usize>, usize) {
    let mut s = state(n, alpha, cap, seed);
    let named = match s.run(d) {
        Ok(Outcome::Culprit {
            index,
            confirmed: true,
            ..
        }) => Some(index),
        _ => None,
    };
    (named, s.units)
}

/// Pinpoint's model on one trial: the culprit it named (if any) and the
/// runs it spent.
fn pinpoint_trial(d: &mut Drawn, n: usize) -> (Option<usize>, usize) {
    let mut runs: Vec<Vec<f64>> = vec![Vec::new(); n];
    let named = if pinpoint_differ(d, &mut runs, 0, n - 1) {
        let (mut lo, mut hi) = (0, n - 1);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if pinpoint_differ(d, &mut runs, lo, mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    } else {
        None
    };
    (named, runs.iter().map(Vec::len).sum())
}

/// Pinpoint's comparison of commits `a` and `b`: runs added to both on
/// its schedule until the smaller of the two p-values is below 0.01.
fn pinpoint_differ(d: &mut Drawn, runs: &mut [Vec<f64>], a: usize, b: usize) -> bool {
    const SCHEDULE: [usize; 5] = [10, 20, 40, 80, 160];
    for &k in &SCHEDULE {
        for i in [a, b] {
            while runs[i].len() < k {
                let v = d.value(i);
                runs[i].push(v);
            }
        }
        let (x, y) = (&runs[a], &runs[b]);
        let mw = crate::stats::mann_whitney::test(x, y).map_or(1.0, |t| t.p);
        let ks = crate::stats::ks::p_value(x, y).unwrap_or(1.0);
        if mw.min(ks) < 0.01 {
            return true;
        }
    }
    false
}

/// Run `trials` of a cell (seeded) with both strategies.
pub fn cell(
    n: usize,
    shift_pct: f64,
    cv_pct: f64,
    trials: usize,
    alpha: f64,
    cap: usize,
    seed: u64,
) -> Cell {
    let mut k_out = Vec::new();
    let mut p_out = Vec::new();
    let mut seeds = SplitMix(seed);
    for _ in 0..trials {
        let s = seeds.next_u64();
        let culprit = 1 + (s % (n as u64 - 1)) as usize;
        let mk = |salt: u64| Drawn {
            culprit,
            shift: shift_pct / 100.0,
            cv: cv_pct / 100.0,
            rng: SplitMix(s ^ salt),
        };
        let (named, runs) = kbench_trial(&mut mk(1), n, alpha, cap, s);
        k_out.push((named, runs, culprit));
        let (named, runs) = pinpoint_trial(&mut mk(2), n);
        p_out.push((named, runs, culprit));
    }
    Cell {
        candidates: n,
        shift_pct,
        cv_pct,
        trials,
        kbench: figures(&k_out),
        pinpoint: figures(&p_out),
    }
}

fn figures(out: &[(Option<usize>, usize, usize)]) -> Figures {
    let n = out.len().max(1) as f64;
    let mut runs: Vec<f64> = out.iter().map(|o| o.1 as f64).collect();
    runs.sort_by(f64::total_cmp);
    Figures {
        runs_mean: runs.iter().sum::<f64>() / n,
        runs_median: crate::stats::describe::median(&runs),
        right_pct: out.iter().filter(|o| o.0 == Some(o.2)).count() as f64 * 100.0 / n,
        wrong_pct: out.iter().filter(|o| o.0.is_some_and(|c| c != o.2)).count() as f64 * 100.0 / n,
        none_pct: out.iter().filter(|o| o.0.is_none()).count() as f64 * 100.0 / n,
    }
}

/// `bench/bisect-runs.sh`: the table, KBENCH_SIM_TRIALS trials a cell
/// (default 200) and KBENCH_SIM_MAX_RUNS units a side a decision (80).
#[test]
#[ignore]
fn bisect_runs_figures() {
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let (trials, cap, n, seed, alpha) = (
        env("KBENCH_SIM_TRIALS", 200),
        env("KBENCH_SIM_MAX_RUNS", 80),
        64,
        2026,
        0.05,
    );
    let mut t = crate::text::table::new(&[
        "shift",
        "CV",
        "kbench runs (mean/median)",
        "right",
        "wrong",
        "none",
        "Pinpoint runs (mean/median)",
        "right",
        "wrong",
        "none",
    ]);
    let f = |x: f64| format!("{x:.1} %");
    for shift in [5.0, 10.0, 30.0] {
        for cv in [5.0, 20.0] {
            let c = cell(n, shift, cv, trials, alpha, cap, seed);
            t.add_row(vec![
                format!("{} %", c.shift_pct),
                format!("{} %", c.cv_pct),
                format!("{:.0} / {:.0}", c.kbench.runs_mean, c.kbench.runs_median),
                f(c.kbench.right_pct),
                f(c.kbench.wrong_pct),
                f(c.kbench.none_pct),
                format!(
                    "{:.0} / {:.0}",
                    c.pinpoint.runs_mean, c.pinpoint.runs_median
                ),
                f(c.pinpoint.right_pct),
                f(c.pinpoint.wrong_pct),
                f(c.pinpoint.none_pct),
            ]);
        }
    }
    println!(
        "{n} candidates, a culprit seeded among them, {trials} trials a row (seed {seed}); kbench at --alpha {alpha} and at most {cap} units a side a decision; Pinpoint: 10, 20, 40, 80, 160 runs a commit, min(Mann-Whitney, KS) p < 0.01"
    );
    println!("{t}");
}
