//! `kbench interbench`: interbench's flags, tables and meanings; every run
//! stored with the calibration it used.

pub mod adapter;
pub mod args;
pub mod engine;
pub mod metrics;
pub mod params;

use crate::benchmarks::interbench::engine::{Kind, Options, ALL};
use crate::error::{input, privilege};
use crate::lifecycle::drive;
use crate::lifecycle::entry::{self, Entry};
use crate::session::Ctx;
use adapter::Interbench;
use anyhow::Result;
use args::InterbenchArgs;

const ABOUT: &str =
    "Simulated interactive tasks alone and under loads: latency, CPU obtained, deadlines met (interbench)";

/// `interbench` in the registry.
pub const ENTRY: Entry = Entry {
    name: "interbench",
    about: ABOUT,
    metrics: metrics::ALL,
    parts: metrics::PARTS,
    headline: "latency_avg_ms",
    command: || entry::command::<InterbenchArgs>("interbench", ABOUT),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate,
    canonical: entry::canonical_via::<params::Interbench>,
    warmup: false,
    many_labels: entry::one_label,
    spell,
};

/// Can `k` be a load, with the task real-time or not?
fn can_load(k: Kind, rt: bool) -> bool {
    k.loadable() && !(rt && k == Kind::Gaming)
}

/// interbench's spelling: `-W Audio -w Burn -t 60 -L 2`, the task and
/// load lists (stored as `tasks` and `loads`) left out when they are every
/// one these runs could have, then the flags.
fn spell(s: entry::Spelling) -> entry::Spelling {
    let p = s.params();
    let rt = p.get("rt") == Some(&serde_json::Value::Bool(true));
    let custom = p.get("custom_cpu_pct").is_some_and(|c| !c.is_null());
    let every = |ok: &dyn Fn(Kind) -> bool| -> Vec<&'static str> {
        ALL.iter()
            .copied()
            .filter(|k| ok(*k) && (*k != Kind::Custom || custom))
            .map(Kind::label)
            .collect()
    };
    let tasks = every(&|k| k.benchable(rt));
    let loads = every(&|k| can_load(k, rt));
    s.each("tasks", "-W", &tasks).each("loads", "-w", &loads)
}

/// Seconds a scenario task of interbench takes: pairs x (t + 1 s settle).
fn estimate(argv: &[String]) -> Option<f64> {
    let t = entry::flag_seconds(argv, "--time").unwrap_or(30.0);
    Some(32.0 * (t.max(10.0) + 2.0))
}

fn kinds(names: &[String], what: &str) -> Result<Vec<Kind>> {
    names
        .iter()
        .map(|n| {
            Kind::parse(n.trim()).ok_or_else(|| {
                input(format!(
                    "unknown {what} '{}' (known: {})",
                    n.escape_default(),
                    ALL.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")
                ))
            })
        })
        .collect()
}

pub fn options(a: &InterbenchArgs) -> Result<Options> {
    let custom = match (a.custom_cpu, a.custom_interval) {
        (Some(c), Some(i)) => Some((i * c / 100, i)),
        _ => None,
    };
    let select = |chosen: &[String],
                  excluded: &[String],
                  ok: fn(Kind, bool) -> bool,
                  what: &str|
     -> Result<Vec<Kind>> {
        let chosen = kinds(chosen, what)?;
        let excluded = kinds(excluded, what)?;
        for k in &chosen {
            if !ok(*k, a.rt) {
                return Err(input(format!(
                    "{} cannot be a{} {what}{}",
                    k.label(),
                    if a.rt { " real-time" } else { "" },
                    if *k == Kind::Custom {
                        " without -C and -I"
                    } else {
                        ""
                    }
                )));
            }
        }
        Ok(ALL
            .iter()
            .copied()
            .filter(|k| ok(*k, a.rt))
            .filter(|k| *k != Kind::Custom || custom.is_some())
            .filter(|k| chosen.is_empty() || chosen.contains(k))
            .filter(|k| !excluded.contains(k))
            .collect())
    };
    if custom.is_none()
        && a.bench
            .iter()
            .chain(&a.load)
            .any(|n| n.eq_ignore_ascii_case("custom"))
    {
        return Err(input("the Custom task and load need -C PCT and -I US"));
    }
    let tasks = select(&a.bench, &a.exclude_bench, Kind::benchable, "task")?;
    let loads = select(&a.load, &a.exclude_load, can_load, "load")?;
    if tasks.is_empty() {
        return Err(input("no task left to benchmark (-W/-X)"));
    }
    if loads.is_empty() {
        return Err(input("no load left to test against (-w/-x)"));
    }
    if a.rt && !crate::sys::proc::is_root() {
        return Err(privilege(
            "interbench -r runs the task at SCHED_FIFO 95: run as root (or give the user an rtprio limit)",
        ));
    }
    // As interbench: a multiple of 10 s, so X sweeps its whole range.
    let duration_s = if a.exact_duration || a.time.is_multiple_of(10) {
        a.time
    } else {
        a.time + 10 - a.time % 10
    };
    Ok(Options {
        tasks,
        loads,
        duration_s,
        loops_per_ms: a.loops_per_ms.unwrap_or(0),
        bench_nice: a.bench_nice,
        load_nice: a.load_nice,
        rt: a.rt,
        uniprocessor: a.uniprocessor,
        burn: a
            .burn
            .map(|b| b as usize)
            .unwrap_or_else(|| crate::sys::cpus::online_here().len().max(1)),
        custom,
        dir: a.dir.clone(),
    })
}

pub fn run(ctx: &Ctx, a: &InterbenchArgs) -> Result<()> {
    let o = options(a)?;
    let mut b = Interbench::new(o, a.recalibrate, a.loops_per_ms, a.comment.clone());
    b.trace = a.trace.options();
    drive(ctx, &mut b, a.runs)
}
