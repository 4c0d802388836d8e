//! `kbench load NAME`: one load alone, for trying it or as a load
//! generator; live progress, then work done, rate and CPU%.

use super::{print_json, save, Ctx};
use crate::bench::Better;
use crate::cli::{LoadArgs, LoadPlacementArgs};
use crate::error::{input, Interrupted};
use crate::load::{self, LoadOptions, Running};
use crate::store::RunStatus;
use anyhow::Result;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Typed load options from the flags.
pub fn options(p: &LoadPlacementArgs) -> Result<LoadOptions> {
    Ok(LoadOptions {
        size: p
            .size
            .as_deref()
            .map(crate::sys::size::parse)
            .transpose()
            .map_err(|e| input(format!("--size: {e}")))?,
        dir: p.dir.clone(),
        io_other_dir: p.io_other_dir.clone(),
        tree: p.tree.clone(),
        procs: p.procs.map(|n| n as usize),
        cpus: p
            .cpus
            .as_deref()
            .map(crate::sys::cpus::parse_online)
            .transpose()
            .map_err(input)?,
        nice: p.nice,
        policy: None,
    })
}

pub fn run(ctx: &Ctx, a: &LoadArgs) -> Result<()> {
    let duration = crate::sys::time::parse_duration(&a.duration)
        .map_err(|e| input(format!("--duration: {e}")))?;
    let opts = options(&a.place)?;
    let mut store = ctx.store_for_writing()?;
    let l = load::build(&a.name, &opts)?;
    let description = l.describe();
    ctx.info(&format!("{} load: {description}", l.name()));
    let mut rec = ctx.new_run(
        "load",
        serde_json::json!({
            "load": l.name(), "duration_s": duration.as_secs_f64(), "size": opts.size,
            "cpus": opts.cpus, "nice": opts.nice, "procs": opts.procs,
        }),
    );
    let mut running = Running::start(l, &opts)?;
    let start = Instant::now();
    let live = !ctx.global.quiet && !ctx.global.json && std::io::stderr().is_terminal();
    let mut result = Ok(());
    while start.elapsed() < duration {
        std::thread::sleep(
            Duration::from_millis(250).min(duration.saturating_sub(start.elapsed())),
        );
        if let Err(e) = running.check() {
            result = Err(e);
            break;
        }
        if crate::sys::signals::stop_requested() {
            result = Err(Interrupted.into());
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
    let report = running.stop();
    rec.ended = crate::sys::time::unix_now();
    rec.metrics.push(crate::bench::Metric::new(
        "work",
        &report.unit,
        report.work,
        Better::Higher,
    ));
    rec.metrics.push(crate::bench::Metric::new(
        "rate",
        format!("{}/s", report.unit),
        report.rate(),
        Better::Higher,
    ));
    rec.metrics.push(crate::bench::Metric::new(
        "cpu_percent",
        "%",
        report.cpu_percent(),
        Better::Neither,
    ));
    if let Err(e) = &result {
        rec.status = if e.downcast_ref::<Interrupted>().is_some() {
            RunStatus::Interrupted
        } else {
            RunStatus::Failed
        };
        rec.notes.push(format!("{e:#}"));
    }
    save(&mut store, &rec)?;
    if ctx.global.json {
        print_json(
            "load",
            serde_json::json!({ "label": ctx.label(), "report": report, "rate": report.rate(),
                                "cpu_percent": report.cpu_percent(), "description": description }),
        )?;
    } else {
        println!(
            "{}: {:.0} {} in {:.1} s: {:.1} {}/s, CPU {:.0}%",
            report.load,
            report.work,
            report.unit,
            report.wall_s,
            report.rate(),
            report.unit,
            report.cpu_percent()
        );
    }
    result
}
