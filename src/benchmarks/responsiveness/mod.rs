//! `kbench responsiveness`: the original's flags and result lines, then
//! kbench's distribution of per-iteration response times.

pub mod adapter;
pub mod args;
pub mod engine;
pub mod metrics;

use crate::benchmarks::responsiveness::engine::Options;
use crate::error::input;
use crate::lifecycle::drive;
use crate::lifecycle::entry::{self, Entry};
use crate::session::Ctx;
use crate::values::SleepPattern;
use adapter::Responsiveness;
use anyhow::Result;
use args::ResponsivenessArgs;

const ABOUT: &str =
    "Interactive response time while CPU hogs run (os-scheduler-responsiveness-test)";

/// `responsiveness` in the registry.
pub const ENTRY: Entry = Entry {
    name: "responsiveness",
    about: ABOUT,
    metrics: metrics::ALL,
    parts: &[],
    headline: "avg_response",
    command: || entry::command::<ResponsivenessArgs>("responsiveness", ABOUT),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate: |argv| entry::flag_seconds(argv, "--time-limit"),
    canonical: entry::canonical_via::<Options>,
    warmup: false,
    many_labels: entry::one_label,
    spell,
};

/// The sleeps as the pattern (stored scaled by `--sleep-scale`), and
/// where output went left unsaid.
fn spell(s: entry::Spelling) -> entry::Spelling {
    s.arg("sleeps_s", "sleep_pattern").unsaid("print_to")
}

fn scaled(p: &SleepPattern, scale: f64) -> Result<Vec<f64>> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(input(format!(
            "--sleep-scale {scale} must be greater than zero"
        )));
    }
    Ok(p.0.iter().map(|x| x * scale).collect())
}

pub fn options(a: &ResponsivenessArgs, workdir: &std::path::Path) -> Result<Options> {
    let time_limit_s = a.time_limit.map(|t| t.as_secs_f64());
    let print_to = if a.print_to == "stdout" {
        "/dev/stdout".into()
    } else {
        std::path::PathBuf::from(&a.print_to)
    };
    let prime = a
        .prime
        .unwrap_or(crate::sys::cpus::online_here().len() as u32);
    if a.interactive == 0 && prime == 0 {
        return Err(input("nothing to run: give -i or -p more than 0"));
    }
    let cpus = crate::sys::cpus::online_here().len().max(1);
    // Prime and interactive workers together, as the cpu load's hogs (4096
    // on 2 CPUs took longer to start than any time limit).
    let limit = crate::load::max_hogs(cpus);
    let n = prime as usize + a.interactive as usize;
    if n > limit {
        return Err(input(format!(
            "-p {prime} and -i {} make {n} worker processes: at most {limit} on {cpus} CPUs \
             (more only divide the same CPUs, and each fork waits behind the hogs already started)",
            a.interactive
        )));
    }
    Ok(Options {
        interactive: a.interactive,
        prime,
        np: a.np,
        time_limit_s,
        sleeps_s: scaled(&a.sleep_pattern, a.sleep_scale)?,
        print_to,
        workdir: workdir.to_path_buf(),
    })
}

pub fn run(ctx: &Ctx, a: &ResponsivenessArgs) -> Result<()> {
    let dir = crate::sys::janitor::Scratch::in_tmp("responsiveness")?;
    let opts = options(a, dir.path())?;
    if let Some(parent) = opts.print_to.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(input(format!(
                "--print-to {}: folder does not exist",
                opts.print_to.display()
            )));
        }
    }
    let trace = a.trace.options();
    drive(
        ctx,
        &mut Responsiveness {
            opts,
            _dir: dir,
            trace,
        },
        a.runs,
    )
}
