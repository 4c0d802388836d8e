//! `kbench decide`: for people with a bisect loop of their own (`git
//! bisect run kbench decide --good A --bad B -- COMMAND`).  The current
//! candidate is measured with COMMAND (or read from its stored label)
//! and set against the stored runs of the good and bad labels with one
//! bisection step's test ([`super::call`], at `--alpha`); the exit status
//! is what `git bisect run` reads: 0 like good, 1 like bad, 125 cannot
//! tell (git skips it).  Anything else that goes wrong exits 128, which
//! makes `git bisect run` stop rather than mark the commit bad.
//!
//! The ends were stored earlier, in another batch, and a machine drifts
//! between batches (15-30 % here): tested against the ends as they were,
//! a good candidate measured on a slower afternoon is "worse than good"
//! and called bad.  So the candidate is not tested against either end but
//! against the point halfway between them (the geometric mean of the
//! ends' means, for positive figures): like bad when it is significantly
//! past it towards the bad end, like good when significantly short of it.
//! A drift of the machine since the ends were stored leaves the error
//! within α as long as it is under half the gap between the ends; that
//! tolerance and the ends' age are said before the first run, and a
//! candidate outside both ends (visible drift) is warned of.  With
//! `--steps N`, α is split over the N calls of a whole `git bisect run`.

use super::call::{self, Call, Sides, StepRule};
use crate::error::input;
use crate::stats::Better;
use crate::store::{RunFilter, RunRecord};
use anyhow::Result;

/// What `git bisect run` reads.
pub const EXIT_GOOD: i32 = 0;
pub const EXIT_BAD: i32 = 1;
pub const EXIT_CANNOT_TELL: i32 = 125;
/// Anything else: `git bisect run` stops.
pub const EXIT_ABORT: i32 = 128;

#[derive(Clone, Debug)]
pub struct Options {
    pub good: String,
    pub bad: String,
    /// The candidate's stored label (instead of measuring it).
    pub candidate: Option<String>,
    /// Measure the candidate with this kbench command (instead).
    pub command: Vec<String>,
    pub metrics: Vec<super::MetricArg>,
    pub alpha: f64,
    /// Most runs of the candidate.
    pub cap: usize,
    pub threshold_pct: f64,
    /// The calls of `kbench decide` the whole bisection makes (α is split
    /// over them).
    pub steps: usize,
    /// Decide on emulated runs too.
    pub allow_emulated: bool,
    pub parse: crate::experiment::ParseCommand,
    pub env: super::Env,
}

/// How a metric's stored ends are brought to their midpoint: scaled (all
/// values positive) or shifted.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mid {
    /// Multiply the good end's values by `s`, divide the bad end's.
    Scale(f64),
    /// Add `d` to the good end's values, take it from the bad end's.
    Shift(f64),
}

impl Mid {
    fn of(good: &[f64], bad: &[f64]) -> Mid {
        use crate::stats::describe::mean;
        let (g, b) = (mean(good), mean(bad));
        if good.iter().chain(bad).all(|v| *v > 0.0) {
            Mid::Scale((b / g).sqrt())
        } else {
            Mid::Shift((b - g) / 2.0)
        }
    }

    fn good(self, v: &[f64]) -> Vec<f64> {
        match self {
            Mid::Scale(s) => v.iter().map(|x| x * s).collect(),
            Mid::Shift(d) => v.iter().map(|x| x + d).collect(),
        }
    }

    fn bad(self, v: &[f64]) -> Vec<f64> {
        match self {
            Mid::Scale(s) => v.iter().map(|x| x / s).collect(),
            Mid::Shift(d) => v.iter().map(|x| x - d).collect(),
        }
    }

    /// The drift tolerated, in % of the good end: half the gap.
    fn tolerance_pct(self, good_mean: f64) -> f64 {
        match self {
            Mid::Scale(s) => (s.max(1.0 / s) - 1.0) * 100.0,
            Mid::Shift(d) => (d / good_mean).abs() * 100.0,
        }
    }
}

/// Decide; `Ok(code)` is the exit status.
pub fn run(o: &Options) -> Result<i32> {
    if o.candidate.is_none() == o.command.is_empty() {
        return Err(input(
            "say what the candidate is: a kbench command after --, or --candidate LABEL of stored runs",
        ));
    }
    if !o.command.is_empty() {
        crate::experiment::command::check_command(&o.command, o.parse)?;
    }
    let good = runs_of_label(o, &o.good, true)?;
    let bad = runs_of_label(o, &o.bad, true)?;
    not_emulated(o, good.iter().chain(&bad))?;
    let metrics = directions(o, &good)?;
    let ends: Vec<(Vec<f64>, Vec<f64>)> = metrics
        .iter()
        .map(|(m, _)| (values(&good, m), values(&bad, m)))
        .collect();
    let alpha = o.alpha / o.steps.max(1) as f64;
    let cap = cap(o, &metrics, &ends)?;
    let mids = ends_apart(o, alpha, &metrics, &ends)?;
    // Its verdict is its exit code: a stderr that cannot take a line
    // (a closed pipe, a full disk) must not change it.
    let say = |m: &str| {
        o.env
            .front
            .progress(&format!("kbench decide: {}", crate::text::clean(m)));
    };
    say(&age_line(o, &good, &bad, &metrics, &ends, &mids, alpha));
    // The candidate is tested against the midpoint: no threshold beyond it.
    let rule = StepRule {
        alpha,
        cap,
        threshold_pct: 0.0,
    };
    let at_mid: Vec<(Vec<f64>, Vec<f64>)> = ends
        .iter()
        .zip(&mids)
        .map(|((g, b), m)| (m.good(g), m.bad(b)))
        .collect();
    let label = o
        .candidate
        .clone()
        .unwrap_or_else(|| crate::experiment::plan::new_id(crate::store::Kind::Decide));
    let mut cand: Vec<Vec<f64>> = vec![Vec::new(); metrics.len()];
    let mut stored = match &o.candidate {
        Some(l) => Some(runs_of_label(o, l, false)?),
        None => None,
    };
    if let Some(runs) = &stored {
        not_emulated(o, runs)?;
    }
    loop {
        let n = cand[0].len();
        if let Some(code) = verdict(o, &rule, &metrics, &at_mid, &cand, say) {
            if let Some(w) = drift_seen(&metrics, &ends, &cand) {
                say(&w);
            }
            return Ok(code);
        }
        let next = match stored.as_mut() {
            Some(runs) if !runs.is_empty() => Some(runs.remove(0)),
            Some(_) => {
                say(&format!(
                    "cannot tell: {label} has only {n} stored runs, and more would be needed"
                ));
                return Ok(EXIT_CANNOT_TELL);
            }
            None => measure_one(o, &label)?,
        };
        let Some(r) = next else {
            say("the candidate's command stored no complete run: cannot tell");
            return Ok(EXIT_CANNOT_TELL);
        };
        not_emulated(o, std::slice::from_ref(&r))?;
        for (k, (m, _)) in metrics.iter().enumerate() {
            match values(std::slice::from_ref(&r), m).first() {
                Some(v) => cand[k].push(*v),
                None => return Err(input(format!("the candidate's run has no metric {m}"))),
            }
        }
    }
}

/// The ends must differ, the bad one worse, by at least the threshold
/// (all their stored runs, at `alpha`): else there is nothing to decide.
/// Each metric's midpoint.
fn ends_apart(
    o: &Options,
    alpha: f64,
    metrics: &[(String, Better)],
    ends: &[(Vec<f64>, Vec<f64>)],
) -> Result<Vec<Mid>> {
    let a = alpha / metrics.len().max(1) as f64;
    let t = o.threshold_pct;
    let mut mids = Vec::new();
    for ((m, better), (g, b)) in metrics.iter().zip(ends) {
        if call::better_than(b, g, *better, a, t) {
            return Err(input(format!(
                "--bad {} is better than --good {} in {m}: are the ends swapped?",
                o.bad, o.good
            )));
        }
        if !call::worse(b, g, *better, a, t) {
            return Err(input(format!(
                "--bad {} is not worse than --good {} in {m} by at least {t} % (their {} and {} runs): nothing to decide",
                o.bad,
                o.good,
                b.len(),
                g.len()
            )));
        }
        mids.push(Mid::of(g, b));
    }
    Ok(mids)
}

/// What the ends rest on: their age, and the drift since then that
/// leaves the error within alpha.
fn age_line(
    o: &Options,
    good: &[RunRecord],
    bad: &[RunRecord],
    metrics: &[(String, Better)],
    ends: &[(Vec<f64>, Vec<f64>)],
    mids: &[Mid],
    alpha: f64,
) -> String {
    let now = crate::sys::time::unix_now();
    let age = |runs: &[RunRecord]| {
        let newest = runs.iter().map(|r| r.started).fold(f64::MIN, f64::max);
        age_of(now - newest)
    };
    let tol: Vec<String> = metrics
        .iter()
        .zip(ends)
        .zip(mids)
        .map(|(((m, _), (g, _)), mid)| {
            format!(
                "{m} ±{:.0} %",
                mid.tolerance_pct(crate::stats::describe::mean(g))
            )
        })
        .collect();
    format!(
        "the ends were stored {} ago ({}) and {} ago ({}); the candidate is tested against the midpoint between them, so a drift of this machine since then of up to {} (half their gap) keeps a wrong call within alpha {alpha:.4}{}",
        age(good),
        o.good,
        age(bad),
        o.bad,
        tol.join(", "),
        if o.steps > 1 {
            format!(" (--alpha {} over --steps {})", o.alpha, o.steps)
        } else {
            String::new()
        }
    )
}

/// A warning when the candidate lies outside both ends by more than the
/// tolerance: the machine has drifted since the ends were stored.
fn drift_seen(
    metrics: &[(String, Better)],
    ends: &[(Vec<f64>, Vec<f64>)],
    cand: &[Vec<f64>],
) -> Option<String> {
    use crate::stats::describe::mean;
    for ((m, _), ((g, b), c)) in metrics.iter().zip(ends.iter().zip(cand)) {
        if c.is_empty() {
            continue;
        }
        let (gm, bm) = (mean(g), mean(b));
        let (lo, hi) = (gm.min(bm), gm.max(bm));
        let half = (hi - lo) / 2.0;
        let cm = mean(c);
        if cm < lo - half || cm > hi + half {
            return Some(format!(
                "warning: the candidate's {m} ({}) lies outside both ends ({} and {}) by more than half their gap: this machine may have drifted since they were stored; store the ends again beside the candidate",
                crate::text::table::num(cm),
                crate::text::table::num(gm),
                crate::text::table::num(bm)
            ));
        }
    }
    None
}

/// An age in words: `40 s`, `12 min`, `3.5 h`, `2 days`.
fn age_of(secs: f64) -> String {
    let s = secs.max(0.0);
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else if s < 172_800.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.0} days", s / 86_400.0)
    }
}

/// A metric's finite values in `runs`.
fn values(runs: &[RunRecord], m: &str) -> Vec<f64> {
    runs.iter()
        .filter_map(|r| r.metrics.iter().find(|x| x.name == m).map(|x| x.value))
        .filter(|v| v.is_finite())
        .collect()
}

/// The most candidate runs: `--max-runs`, and no more than the ends have.
fn cap(o: &Options, metrics: &[(String, Better)], ends: &[(Vec<f64>, Vec<f64>)]) -> Result<usize> {
    let shortest = ends
        .iter()
        .map(|(g, b)| g.len().min(b.len()))
        .min()
        .unwrap_or(0);
    if shortest < crate::stats::sequential::MIN_RUNS {
        return Err(input(format!(
            "--good {} and --bad {} need at least {} runs each with {} (they have {shortest})",
            o.good,
            o.bad,
            crate::stats::sequential::MIN_RUNS,
            metrics
                .iter()
                .map(|m| m.0.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(o.cap.min(shortest))
}

/// The step's test on the candidate's runs so far: the exit status when
/// it is decided.
fn verdict(
    o: &Options,
    rule: &StepRule,
    metrics: &[(String, Better)],
    ends: &[(Vec<f64>, Vec<f64>)],
    cand: &[Vec<f64>],
    say: impl Fn(&str),
) -> Option<i32> {
    let n = cand[0].len();
    let sides: Vec<Sides> = metrics
        .iter()
        .zip(ends)
        .zip(cand)
        .map(|(((name, better), (g, b)), c)| Sides {
            name,
            better: *better,
            good: &g[..n.min(g.len())],
            bad: &b[..n.min(b.len())],
            cand: c,
        })
        .collect();
    match call::candidate(rule, &sides) {
        Call::LikeGood => {
            say(&format!("like good ({} after {n} runs)", o.good));
            Some(EXIT_GOOD)
        }
        Call::LikeBad { .. } => {
            say(&format!("like bad ({} after {n} runs)", o.bad));
            Some(EXIT_BAD)
        }
        Call::CannotTell(_) => {
            let parts: Vec<String> = metrics
                .iter()
                .zip(ends)
                .zip(cand)
                .map(|(((name, _), (g, b)), c)| {
                    use crate::stats::describe::{mean, variance};
                    let cv = variance(c).sqrt() / mean(c).abs().max(f64::MIN_POSITIVE) * 100.0;
                    format!(
                        "{name}: the candidate's mean {} against the midpoint {} (its {n} units vary by {cv:.0} %)",
                        crate::text::table::num(mean(c)),
                        crate::text::table::num((mean(g) + mean(b)) / 2.0)
                    )
                })
                .collect();
            say(&format!(
                "cannot tell: after {n} units (the cap) the candidate is neither past the midpoint between the ends nor short of it: {}",
                parts.join("; ")
            ));
            Some(EXIT_CANNOT_TELL)
        }
        Call::NotYet => None,
    }
}

/// The ends' and the candidate's runs must not be emulated guests'
/// (unless allowed): an error, so the exit is 128 and `git bisect run`
/// stops, saying why, rather than skipping or deciding.
fn not_emulated<'a>(o: &Options, runs: impl IntoIterator<Item = &'a RunRecord>) -> Result<()> {
    crate::health::emulated::among(runs)
        .refuse("verdict", o.allow_emulated)
        .map_err(input)
}

/// The complete runs of `label`, oldest first (`needed`: none is an error).
fn runs_of_label(o: &Options, label: &str, needed: bool) -> Result<Vec<RunRecord>> {
    let store = o.env.front.read_store()?;
    let f = RunFilter {
        labels: vec![label.to_string()],
        only_complete: true,
        ..Default::default()
    };
    let runs = store.load_runs(&f, false)?;
    if needed && runs.is_empty() {
        return Err(input(format!(
            "no complete runs under label '{label}' (see `kbench labels`)"
        )));
    }
    Ok(runs)
}

/// One run of the candidate's command (a child kbench), as stored.
fn measure_one(o: &Options, label: &str) -> Result<Option<RunRecord>> {
    use crate::experiment::runner::{Here, Runner, Unit};
    let mut store = o.env.front.write_store()?;
    let mut here = Here::on(o.env.front.db()).quiet(true).quiet_stdout(true);
    let unit = Unit {
        label,
        command: &o.command,
        tag: None,
        number: 0,
        of: 0,
        env: &[],
    };
    let ran = here.run(&mut *store, &unit)?;
    if ran.interrupted {
        return Err(crate::error::Interrupted.into());
    }
    Ok(ran.complete().last().cloned())
}

/// The metrics and their directions: given, else the good runs'
/// benchmark's headline; directions from the stored runs.
fn directions(o: &Options, good: &[RunRecord]) -> Result<Vec<(String, Better)>> {
    let names: Vec<String> = if o.metrics.is_empty() {
        let b = &good[0].benchmark;
        let e = crate::registry::find(b).ok_or_else(|| {
            input(format!(
                "say which metric: --metric NAME ({b} has no headline metric kbench knows)"
            ))
        })?;
        vec![e.headline.to_string()]
    } else {
        o.metrics.iter().map(|m| m.name.clone()).collect()
    };
    names
        .iter()
        .map(|n| {
            let given = o
                .metrics
                .iter()
                .find(|m| &m.name == n)
                .and_then(|m| m.better);
            let stored = good
                .iter()
                .flat_map(|r| &r.metrics)
                .find(|m| &m.name == n)
                .map(|m| m.better);
            match given.or(stored) {
                Some(b) if b != Better::Neither => Ok((n.clone(), b)),
                None => Err(input(format!(
                    "the runs of --good {} have no metric {n}",
                    o.good
                ))),
                _ => Err(input(format!(
                    "--metric {n} has no direction: give {n}:lower or {n}:higher"
                ))),
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "decide_drift_tests.rs"]
mod drift_tests;
