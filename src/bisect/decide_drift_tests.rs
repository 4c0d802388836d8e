//! `decide` against ends stored in another batch, by simulation (seeded):
//! the machine drifts by `drift` between the ends' batch and the
//! candidate's, runs vary by `cv`, the ends differ by `gap`.  A wrong
//! exit is 0 for a bad candidate or 1 for a good one.  The old rule
//! (the candidate against each end as stored) against the midpoint rule.
//! `bench/decide-drift.sh` runs it in a release build (a permutation
//! test of up to 200,000 resamples a look is minutes a cell in a debug
//! build, so it is a bench, not a unit test; `tests/bisect`'s decide test
//! is the real program against ends stored minutes earlier).

use super::Mid;
use crate::bisect::call::{self, Call, Sides, StepRule};
use crate::stats::bootstrap::SplitMix;
use crate::stats::Better;

/// One call of decide: 0, 1 or 125.
fn one(rng: &mut SplitMix, gap: f64, cv: f64, drift: f64, bad: bool, midpoint: bool) -> i32 {
    let draw = |level: f64, rng: &mut SplitMix| (level * (1.0 + cv * rng.normal())).max(0.01);
    let g: Vec<f64> = (0..24).map(|_| draw(1.0, rng)).collect();
    let b: Vec<f64> = (0..24).map(|_| draw(1.0 + gap, rng)).collect();
    let level = if bad { 1.0 + gap } else { 1.0 } * (1.0 + drift);
    let rule = StepRule {
        alpha: 0.05,
        cap: 24,
        threshold_pct: if midpoint { 0.0 } else { 2.0 },
    };
    let (g, b) = if midpoint {
        let m = Mid::of(&g, &b);
        (m.good(&g), m.bad(&b))
    } else {
        (g, b)
    };
    let mut c = Vec::new();
    loop {
        c.push(draw(level, rng));
        let s = Sides {
            name: "t",
            better: Better::Lower,
            good: &g[..c.len().min(24)],
            bad: &b[..c.len().min(24)],
            cand: &c,
        };
        match call::candidate(&rule, &[s]) {
            Call::LikeGood => return 0,
            Call::LikeBad { .. } => return 1,
            Call::CannotTell(_) => return 125,
            Call::NotYet => {}
        }
    }
}

/// The share of wrong exits in `trials` calls of each kind of candidate
/// (good, bad): the worse of the two.
pub fn wrong(seed: u64, trials: usize, gap: f64, cv: f64, drift: f64, midpoint: bool) -> f64 {
    let mut rng = SplitMix(seed);
    let mut worst: f64 = 0.0;
    for bad in [false, true] {
        let wrong_exit = if bad { 0 } else { 1 };
        let n = (0..trials)
            .filter(|_| one(&mut rng, gap, cv, drift, bad, midpoint) == wrong_exit)
            .count();
        worst = worst.max(n as f64 / trials as f64);
    }
    worst
}

/// The cells: a gap of 50 % and 30 % between the ends, runs varying by
/// 10 % and 20 %, the machine 10 % slower or faster since the ends.
pub const CELLS: &[(f64, f64, f64)] = &[
    (0.5, 0.2, 0.1),
    (0.5, 0.2, -0.1),
    (0.3, 0.1, 0.1),
    (0.3, 0.1, -0.1),
    (0.3, 0.2, 0.1),
    (0.3, 0.2, -0.1),
];

/// `bench/decide-drift.sh`: every cell, both rules, KBENCH_SIM_CALLS calls
/// of each kind (default 400).
#[test]
#[ignore]
fn decide_drift_figures() {
    let trials: usize = std::env::var("KBENCH_SIM_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    println!("decide against stored ends, {trials} calls of a good and of a bad candidate a cell (seed 11); the worse kind's wrong exits:");
    println!("gap   CV    drift   stored ends as they were   midpoint rule");
    for &(gap, cv, drift) in CELLS {
        let old = wrong(11, trials, gap, cv, drift, false);
        let new = wrong(11, trials, gap, cv, drift, true);
        println!(
            "{:>3.0} %  {:>2.0} %  {:>+4.0} %   {:>6.1} %                    {:>6.1} %",
            gap * 100.0,
            cv * 100.0,
            drift * 100.0,
            old * 100.0,
            new * 100.0
        );
    }
}
