//! `kbench load NAME`: one load alone, for trying it or as a load
//! generator; live progress, then work done, rate and CPU%.

pub mod args;
pub mod metrics;
pub mod params;

use crate::benchmarks::load::metrics as declared;
use crate::error::Interrupted;
use crate::lifecycle::entry::{self, Entry};
use crate::lifecycle::{drive, Benchmark, Rep};
use crate::load::{self, LoadOptions, Running};
use crate::measure::Measurement;
use crate::session::Ctx;
use crate::store::RunRecord;
use anyhow::Result;
use args::{LoadArgs, LoadPlacementArgs};
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const ABOUT: &str = "Run one background load alone, with live progress (contest's loads)";

/// `load` in the registry.
pub const ENTRY: Entry = Entry {
    name: "load",
    about: ABOUT,
    metrics: metrics::ALL,
    parts: &[],
    headline: "work",
    command: || entry::command::<LoadArgs>("load", ABOUT),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate: |argv| entry::flag_seconds(argv, "--duration").or(Some(30.0)),
    canonical: entry::canonical_via::<params::Load>,
    warmup: false,
    many_labels: entry::one_label,
    spell,
};

/// The load's name first (the positional `name`, stored as `load`), then
/// the flags.
fn spell(s: entry::Spelling) -> entry::Spelling {
    s.arg("load", "name")
}

/// Typed load options from the flags.
pub fn options(p: &LoadPlacementArgs) -> Result<LoadOptions> {
    for (flag, dir) in [
        ("--dir", &p.dir),
        ("--io-other-dir", &p.io_other_dir),
        ("--tree", &p.tree),
    ] {
        if let Some(d) = dir.as_ref().filter(|d| !d.is_dir()) {
            return Err(crate::error::input(format!(
                "{flag} {}: not a directory",
                d.display()
            )));
        }
    }
    Ok(LoadOptions {
        size: p.size,
        dir: p.dir.clone(),
        io_other_dir: p.io_other_dir.clone(),
        tree: p.tree.clone(),
        procs: p.procs.map(|n| n as usize),
        cpus: p.cpus.as_ref().map(|l| l.0.clone()),
        nice: p.nice,
        policy: None,
    })
}

struct LoadRun {
    name: String,
    opts: LoadOptions,
    duration: Duration,
}

/// What a load did, and what cut it short.
struct Done {
    report: load::Report,
    description: String,
    stop: Option<anyhow::Error>,
}

impl Benchmark for LoadRun {
    fn complete_when_stopped(&self) -> bool {
        true
    }

    type Outcome = Done;

    fn entry(&self) -> &'static Entry {
        &ENTRY
    }

    fn params(&self) -> Result<serde_json::Value> {
        let o = &self.opts;
        Ok(crate::lifecycle::entry::to_value(&params::Load {
            v: 1,
            load: Some(self.name.clone()),
            duration_s: Some(self.duration.as_secs_f64()),
            size: o.size,
            cpus: o.cpus.clone(),
            nice: o.nice,
            procs: o.procs,
        }))
    }

    fn measure(&mut self, ctx: &Ctx, _rep: Rep) -> Result<Done> {
        let l = load::build(&self.name, &self.opts)?;
        let description = l.describe();
        ctx.info(&format!("{} load: {description}", l.name()));
        let mut running = Running::start(l, &self.opts)?;
        let start = Instant::now();
        let live = !ctx.global.quiet && !ctx.global.json && std::io::stderr().is_terminal();
        let mut stop = None;
        while start.elapsed() < self.duration {
            std::thread::sleep(
                Duration::from_millis(250).min(self.duration.saturating_sub(start.elapsed())),
            );
            if let Err(e) = running.check() {
                stop = Some(e);
                break;
            }
            if crate::sys::signals::stop_requested() {
                stop = Some(Interrupted.into());
                break;
            }
            if live {
                let t = running.elapsed_s();
                eprint!(
                    "\r{:>6.1} s  {:.0} {}  {:.1} {}/s  CPU {:.0}%\x1b[K",
                    t,
                    running.work(),
                    running.unit(),
                    running.work() / t.max(1e-9),
                    running.unit(),
                    running.cpu_s() / t.max(1e-9) * 100.0
                );
                let _ = std::io::stderr().flush();
            }
        }
        if live {
            eprint!("\r\x1b[K");
        }
        Ok(Done {
            report: running.stop(),
            description,
            stop,
        })
    }

    fn stopped(&self, out: &mut Done) -> Option<anyhow::Error> {
        out.stop.take()
    }

    fn record(&self, out: &Done, rec: &mut RunRecord) -> Result<()> {
        let r = &out.report;
        let mut m = Measurement::default();
        m.record_in(&declared::WORK, &r.unit, r.work);
        m.record_in(&declared::RATE, &format!("{}/s", r.unit), r.rate());
        m.record(&declared::CPU_PERCENT, r.cpu_percent());
        rec.absorb(&m)
    }

    fn text(&self, _ctx: &Ctx, out: &Done, _rep: Rep) -> String {
        let r = &out.report;
        format!(
            "{}: {:.0} {} in {:.1} s: {:.1} {}/s, CPU {:.0}%\n",
            r.load,
            r.work,
            r.unit,
            r.wall_s,
            r.rate(),
            r.unit,
            r.cpu_percent()
        )
    }

    fn json(&self, out: &Done) -> serde_json::Value {
        let r = &out.report;
        serde_json::json!({ "report": r, "rate": r.rate(),
                            "cpu_percent": r.cpu_percent(), "description": out.description })
    }

    fn json_top(&self, outs: &[Done]) -> serde_json::Value {
        outs.last()
            .map_or_else(|| serde_json::json!({}), |d| self.json(d))
    }
}

pub fn run(ctx: &Ctx, a: &LoadArgs) -> Result<()> {
    let duration = a.duration;
    let opts = options(&a.place)?;
    // Refuse an unknown load or one that cannot fit before the store opens.
    load::build(&a.name, &opts)?;
    let mut b = LoadRun {
        name: a.name.clone(),
        opts,
        duration,
    };
    drive(ctx, &mut b, crate::values::Runs::Fixed(1))
}
