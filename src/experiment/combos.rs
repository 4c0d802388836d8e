//! A matrix's combinations (knob values and the points of varied flags)
//! and what is checked and estimated of them before anything runs.

use super::command::check_command;
use super::knob::Knob;
use super::setup::Options;
use crate::error::input;
use crate::values::Runs;
use anyhow::Result;

/// One combination: a value per knob (in its label) and a point per
/// varied flag (on its command line, in its runs' parameters).
#[derive(Clone, Debug)]
pub(super) struct Combination {
    pub(super) values: Vec<String>,
    pub(super) label: String,
    /// The varied flags' values, and the words they add to the command.
    pub(super) point: Vec<(String, String)>,
    pub(super) args: Vec<String>,
    /// The scheduler variant it runs under (`--sched`), by index.
    pub(super) sched: Option<usize>,
    /// Seconds a run of it takes, and whether that is all of it (false:
    /// a lower bound), as [`check_points`] found; `None`: unknown.
    pub(super) estimate: Option<(f64, bool)>,
}

impl Combination {
    /// The label and the point: `…/autogroup=1 groups=4`.
    pub(super) fn shown(&self) -> String {
        let mut s = self.label.clone();
        for (f, v) in &self.point {
            s.push_str(&format!(" {f}={v}"));
        }
        s
    }
}

/// Every combination of knob values and points, the first knob varying
/// slowest and the points fastest.
pub(super) fn combinations(
    knobs: &[Knob],
    vary: &[super::vary::Vary],
    scenario: bool,
    base: &str,
) -> Vec<Combination> {
    let mut points: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for v in vary {
        points = points
            .into_iter()
            .flat_map(|prefix| {
                v.values.iter().map(move |x| {
                    let mut p = prefix.clone();
                    p.push((v.flag.clone(), x.clone()));
                    p
                })
            })
            .collect();
    }
    knob_combinations(knobs, base)
        .into_iter()
        .flat_map(|c| {
            points.iter().map(move |p| {
                let args = p
                    .iter()
                    .flat_map(|(f, x)| {
                        let v = vary.iter().find(|v| &v.flag == f).expect("a varied flag");
                        super::vary::words(v, x, scenario)
                    })
                    .collect();
                Combination {
                    point: p.clone(),
                    args,
                    ..c.clone()
                }
            })
        })
        .collect()
}

/// Each combination under each scheduler variant (`…/sched=NAME`), the
/// variants varying fastest; none given, the combinations as they are.
pub(super) fn with_scheds(
    combos: Vec<Combination>,
    scheds: &[super::sched::Variant],
) -> Vec<Combination> {
    if scheds.is_empty() {
        return combos;
    }
    combos
        .into_iter()
        .flat_map(|c| {
            scheds.iter().enumerate().map(move |(i, v)| Combination {
                label: format!("{}/sched={}", c.label, v.name),
                sched: Some(i),
                ..c.clone()
            })
        })
        .collect()
}

/// Every combination of knob values, the first knob varying slowest.
fn knob_combinations(knobs: &[Knob], base: &str) -> Vec<Combination> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for k in knobs {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                k.values.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect();
    }
    out.into_iter()
        .map(|values| {
            let suffix: Vec<String> = knobs
                .iter()
                .zip(&values)
                .map(|(k, v)| format!("{}={v}", k.name))
                .collect();
            Combination {
                label: if suffix.is_empty() {
                    base.to_string()
                } else {
                    format!("{base}/{}", suffix.join("/"))
                },
                values,
                point: Vec::new(),
                args: Vec::new(),
                sched: None,
                estimate: None,
            }
        })
        .collect()
}

/// Each combination's command checked as kbench would parse it (a
/// varied flag the benchmark lacks, or one the command gives already, is
/// refused at once), and its length estimated: a benchmark's from the
/// registry, a scenario's by a dry run of it, which also checks that the
/// scenario has the varied variables.  One dry run per combination serves
/// both.
pub(super) fn check_points(o: &Options, combos: &mut [Combination], scenario: bool) -> Result<()> {
    let what = |c: &Combination| {
        if c.point.is_empty() {
            "the command after --".to_string()
        } else {
            format!(
                "--vary {}",
                c.point
                    .iter()
                    .map(|(f, v)| format!("{f}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        }
    };
    if !scenario {
        for c in combos.iter_mut() {
            let mut cmd = o.command.clone();
            cmd.extend(c.args.iter().cloned());
            check_command(&cmd, o.parse).map_err(|e| input(format!("{}: {e}", what(c))))?;
            c.estimate = crate::registry::find(&o.command[0])
                .and_then(|e| (e.estimate)(&cmd[1..]))
                .map(|s| (s, true));
        }
        return Ok(());
    }
    for c in combos.iter_mut() {
        let out = super::launch::Child::new(None, None, false)?
            .args(&o.command)
            .args(&c.args)
            .args(["--dry-run"])
            .output()?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let first = err
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("kbench: ");
            return Err(input(format!("{}: {first}", what(c))));
        }
        c.estimate = dry_run_estimate(&String::from_utf8_lossy(&out.stdout));
    }
    Ok(())
}

/// A scenario dry run's "estimated time: about N s" (all of it) or "at
/// least N s" (a lower bound).
fn dry_run_estimate(text: &str) -> Option<(f64, bool)> {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("estimated time: "))?;
    let (all, rest) = match line.strip_prefix("about ") {
        Some(r) => (true, r),
        None => (false, line.strip_prefix("at least ")?),
    };
    Some((rest.split_whitespace().next()?.parse().ok()?, all))
}

/// About how long one pass over every combination takes (s), and whether
/// that is all (false: some combination has no fixed length or no
/// estimate, so it is a lower bound).
pub(super) fn estimate_s(combos: &[Combination]) -> (f64, bool) {
    combos
        .iter()
        .fold((0.0, true), |(total, exact), c| match c.estimate {
            Some((s, all)) => (total + s, exact && all),
            None => (total, false),
        })
}

/// The line a matrix starts with: what runs, how often, about how long.
pub(super) fn headline(
    o: &Options,
    combos: &[Combination],
    id: &str,
    seed: u64,
    rounds_planned: usize,
) -> String {
    let took = {
        let (s, exact) = estimate_s(combos);
        let all = s * rounds_planned as f64;
        let how = if exact { "about" } else { "at least" };
        match all {
            a if a <= 0.0 && !exact => ", its length unknown (no estimate for this command)".into(),
            a if a >= 120.0 => format!(", {how} {:.0} min in all", a / 60.0),
            a => format!(", {how} {a:.0} s in all"),
        }
    };
    format!(
        "kbench matrix {id}: {} combinations x {} rounds{} of `kbench {}`, seed {seed}{took}",
        combos.len(),
        rounds_planned,
        if matches!(o.rounds, Runs::Auto { .. }) {
            " at most (stops when decided)"
        } else {
            ""
        },
        o.command.join(" ")
    )
}
