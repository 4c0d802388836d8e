//! Bisections of simulated candidates, for `bench/bisect-runs.sh`: how
//! many runs kbench's search spends and how often it names the right
//! culprit, beside Chromium's Pinpoint's published rule
//! ([`super::sim_pinpoint`]) on the same candidates.
//!
//! Each trial has N candidates whose values are normal with a
//! coefficient of variation `cv`; from a seeded culprit (never an end)
//! on, their mean is `shift` higher (lower is better, so that is the
//! regression).  kbench's side is the real search ([`super::search`])
//! with a [`Measure`] that draws values instead of running anything.

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
    /// kbench with `--fresh-ends`.
    pub fresh: Figures,
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
fn kbench_trial(d: &mut Drawn, plan: &Plan, fresh_ends: bool, seed: u64) -> (Option<usize>, usize) {
    let mut s = state(plan.n, plan.alpha, plan.cap, seed);
    s.fresh_ends = fresh_ends;
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

/// What every cell of a table shares: candidates, trials, kbench's
/// alpha and units cap, the seed.
pub struct Plan {
    pub n: usize,
    pub trials: usize,
    pub alpha: f64,
    pub cap: usize,
    pub seed: u64,
}

/// Run a cell's trials (seeded) with both strategies.
pub fn cell(
    pinpoint: &mut super::sim_pinpoint::Thresholds,
    plan: &Plan,
    shift_pct: f64,
    cv_pct: f64,
) -> Cell {
    let Plan {
        n, trials, seed, ..
    } = *plan;
    let mut k_out = Vec::new();
    let mut f_out = Vec::new();
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
        let (named, runs) = kbench_trial(&mut mk(1), plan, false, s);
        k_out.push((named.into_iter().collect(), runs, culprit));
        let (named, runs) = kbench_trial(&mut mk(3), plan, true, s);
        f_out.push((named.into_iter().collect(), runs, culprit));
        let mut d = mk(2);
        let (named, runs) = super::sim_pinpoint::bisect(pinpoint, n, shift_pct, |i| d.value(i));
        p_out.push((named, runs, culprit));
    }
    Cell {
        candidates: n,
        shift_pct,
        cv_pct,
        trials,
        kbench: figures(&k_out),
        fresh: figures(&f_out),
        pinpoint: figures(&p_out),
    }
}

/// Figures of trials, each (culprits named, runs, the true culprit): right
/// when the true one alone is named.
fn figures(out: &[(Vec<usize>, usize, usize)]) -> Figures {
    let n = out.len().max(1) as f64;
    let mut runs: Vec<f64> = out.iter().map(|o| o.1 as f64).collect();
    runs.sort_by(f64::total_cmp);
    Figures {
        runs_mean: runs.iter().sum::<f64>() / n,
        runs_median: crate::stats::describe::median(&runs),
        right_pct: out.iter().filter(|o| o.0 == [o.2]).count() as f64 * 100.0 / n,
        wrong_pct: out.iter().filter(|o| o.0.iter().any(|&c| c != o.2)).count() as f64 * 100.0 / n,
        none_pct: out.iter().filter(|o| o.0.is_empty()).count() as f64 * 100.0 / n,
    }
}

/// A setting of the bench's own, from the environment, or `default`.
fn setting<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A list of the bench's own (comma-separated), from the environment, or
/// `default`.
fn list(key: &str, default: &[f64]) -> Vec<f64> {
    std::env::var(key).ok().map_or(default.to_vec(), |v| {
        v.split(',').filter_map(|x| x.trim().parse().ok()).collect()
    })
}

/// `bench/bisect-runs.sh`: the table, KBENCH_SIM_TRIALS trials a cell
/// (default 200), KBENCH_SIM_MAX_RUNS units a side a decision (80),
/// Pinpoint's low threshold KBENCH_SIM_PINPOINT_LOW (0.01),
/// KBENCH_SIM_PINPOINT_SIMS simulations a row of its high thresholds
/// (2000), and the rows: KBENCH_SIM_SHIFTS (5,10,30) and KBENCH_SIM_CVS
/// (5,20), in %.
#[test]
#[ignore]
fn bisect_runs_figures() {
    let (trials, cap, n, seed, alpha) = (
        setting("KBENCH_SIM_TRIALS", 200),
        setting("KBENCH_SIM_MAX_RUNS", 80),
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
        "--fresh-ends runs",
        "right",
        "wrong",
        "Pinpoint runs (mean/median)",
        "right",
        "wrong",
        "none",
    ]);
    let f = |x: f64| format!("{x:.1} %");
    let low = setting("KBENCH_SIM_PINPOINT_LOW", 0.01);
    let sims = setting("KBENCH_SIM_PINPOINT_SIMS", 2000);
    let mut pinpoint = super::sim_pinpoint::Thresholds::new(low, sims, seed);
    for shift in list("KBENCH_SIM_SHIFTS", &[5.0, 10.0, 30.0]) {
        for cv in list("KBENCH_SIM_CVS", &[5.0, 20.0]) {
            let plan = Plan {
                n,
                trials,
                alpha,
                cap,
                seed,
            };
            let c = cell(&mut pinpoint, &plan, shift, cv);
            t.add_row(vec![
                format!("{} %", c.shift_pct),
                format!("{} %", c.cv_pct),
                format!("{:.0} / {:.0}", c.kbench.runs_mean, c.kbench.runs_median),
                f(c.kbench.right_pct),
                f(c.kbench.wrong_pct),
                f(c.kbench.none_pct),
                format!("{:.0} / {:.0}", c.fresh.runs_mean, c.fresh.runs_median),
                f(c.fresh.right_pct),
                f(c.fresh.wrong_pct),
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
        "{n} candidates, a culprit seeded among them, {trials} trials a row (seed {seed}); kbench at --alpha {alpha} and at most {cap} units a side a decision, alone and with --fresh-ends; Pinpoint's published rule: 10 attempts a change, 10 more to the side with fewer while unknown, min(Mann-Whitney, KS) p <= {low} different, above the high threshold same (made by its published method from {sims} simulations a size), told the regression's true size, one midpoint at a time"
    );
    println!("{t}");
}
