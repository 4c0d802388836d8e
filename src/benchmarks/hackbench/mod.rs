//! `kbench hackbench`: flags in rt-tests' spelling, its banner and `Time:`
//! line (so scripts that grep it keep working), then kbench's own figures.

pub mod adapter;
pub mod args;
pub mod engine;
pub mod import;
pub mod metrics;
pub mod params;

use crate::benchmarks::hackbench::engine::Options;
use crate::lifecycle::drive;
use crate::lifecycle::entry::{self, Entry};
use crate::session::Ctx;
use adapter::Hackbench;
use anyhow::Result;
use args::HackbenchArgs;

const ABOUT: &str = "Scheduler messaging benchmark, drop-in for rt-tests hackbench";

/// `hackbench` in the registry.
pub const ENTRY: Entry = Entry {
    name: "hackbench",
    about: ABOUT,
    metrics: metrics::ALL,
    parts: &[],
    headline: "time",
    command: || entry::command::<HackbenchArgs>("hackbench", ABOUT),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate: entry::no_estimate,
    canonical: crate::benchmarks::hackbench::params::canonical,
    warmup: false,
    many_labels: entry::one_label,
    spell,
};

/// rt-tests' spelling: `-T`, `-p`, then the flags (`-g 4 -f 4 -l 2000`);
/// process mode and sockets are its defaults, stored as `mode` and
/// `transport`, which no flag has as its id.
fn spell(s: entry::Spelling) -> entry::Spelling {
    s.when("mode", "threaded", "-T")
        .when("transport", "pipe", "-p")
}

pub fn options(a: &HackbenchArgs) -> Result<Options> {
    let cpus = a.cpus.as_ref().map(|l| l.0.clone());
    let o = Options {
        groups: a.groups,
        fds: a.fds,
        loops: a.loops,
        datasize: a.datasize as usize,
        pipe: a.pipe,
        threads: a.threads,
        fifo: a.fifo,
        cpus,
        verify: crate::sys::hooks::hackbench_verify(),
    };
    // Refused before the banner: the count of messages must be a count.
    if o.checked_messages().is_none() {
        return Err(crate::error::input(format!(
            "hackbench with {} groups of {} senders and receivers and {} loops would send more than 2^53 messages: use fewer loops (-l)",
            o.groups, o.fds, o.loops
        )));
    }
    Ok(o)
}

pub fn run(ctx: &Ctx, a: &HackbenchArgs) -> Result<()> {
    drive(ctx, &mut Hackbench(options(a)?, a.trace.options()), a.runs)
}
