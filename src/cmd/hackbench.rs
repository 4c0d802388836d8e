//! `kbench hackbench`: flags in rt-tests' spelling, its banner and `Time:`
//! line (so scripts that grep it keep working), then kbench's own figures.

use super::{print_json, save, Ctx};
use crate::bench::hackbench::{self, Options, Outcome};
use crate::cli::HackbenchArgs;
use crate::error::{input, Interrupted};
use crate::store::RunStatus;
use anyhow::Result;

pub fn options(a: &HackbenchArgs) -> Result<Options> {
    let cpus = match &a.cpus {
        Some(s) => Some(crate::sys::cpus::parse_online(s).map_err(input)?),
        None => None,
    };
    Ok(Options {
        groups: a.groups,
        fds: a.fds,
        loops: a.loops,
        datasize: a.datasize as usize,
        pipe: a.pipe,
        threads: a.threads,
        fifo: a.fifo,
        cpus,
        verify: std::env::var_os("KBENCH_HACKBENCH_VERIFY").is_some(),
    })
}

/// rt-tests' banner.
pub fn banner(o: &Options) -> String {
    format!(
        "Running in {} mode with {} groups using {} file descriptors each (== {} tasks)\n\
         Each sender will pass {} messages of {} bytes",
        o.mode_name(),
        o.groups,
        2 * o.fds,
        o.tasks(),
        o.loops,
        o.datasize
    )
}

/// rt-tests' result line: seconds with millisecond precision.
pub fn time_line(out: &Outcome) -> String {
    let ms = out.elapsed_ns / 1_000_000;
    format!("Time: {}.{:03}", ms / 1000, ms % 1000)
}

pub fn run(ctx: &Ctx, a: &HackbenchArgs) -> Result<()> {
    let opts = options(a)?;
    let mut store = ctx.store_for_writing()?;
    // With --no-store no record is built, so the fingerprint is not read
    // and the parent stays as small as rt-tests' (see `Cli::parse_process_args`).
    let params = match store {
        Some(_) => Some(serde_json::to_value(&opts)?),
        None => None,
    };
    let json = ctx.global.json;
    if !json {
        println!("{}", banner(&opts));
    }
    let mut outcomes = Vec::new();
    let mut ids = Vec::new();
    for i in 0..a.runs {
        let mut rec = params.as_ref().map(|p| {
            let mut rec = ctx.new_run("hackbench", p.clone());
            rec.set_settings(serde_json::json!({
                "parent_policy": if opts.fifo { "fifo" } else { "other" },
                "parent_priority": if opts.fifo { 1 } else { 0 },
                "affinity": opts.cpus.as_ref().map(|c| crate::sys::cpus::format_list(c)),
                "mode": opts.mode_name(), "transport": opts.transport_name(),
            }));
            rec
        });
        let result = hackbench::run(&opts);
        if let Some(rec) = rec.as_mut() {
            rec.ended = crate::sys::time::unix_now();
        }
        match result {
            Ok(out) => {
                if let Some(rec) = rec.as_mut() {
                    rec.absorb(&out.measurement())?;
                    if let Some(id) = save(&mut store, rec)? {
                        ids.push(id);
                    }
                }
                if !json {
                    println!("{}", time_line(&out));
                    if !ctx.global.quiet {
                        println!(
                            "kbench: {} messages in {:.3} s: {:.0} messages/s, {:.1} MB/s{}",
                            out.messages,
                            out.seconds(),
                            out.messages_per_s(),
                            out.mb_per_s(),
                            if a.runs > 1 {
                                format!(" (run {}/{})", i + 1, a.runs)
                            } else {
                                String::new()
                            }
                        );
                    }
                }
                outcomes.push(out);
            }
            Err(e) => {
                // The failure is stored, marked, so it is visible later; no
                // metrics are kept for it.
                if let Some(mut rec) = rec {
                    rec.status = if e.downcast_ref::<Interrupted>().is_some() {
                        RunStatus::Interrupted
                    } else {
                        RunStatus::Failed
                    };
                    rec.notes.push(format!("{e:#}"));
                    let _ = save(&mut store, &rec);
                }
                return Err(e);
            }
        }
    }
    if json {
        let times: Vec<f64> = outcomes.iter().map(Outcome::seconds).collect();
        return print_json(
            "hackbench",
            serde_json::json!({
                "label": ctx.label(),
                "parameters": opts,
                "tasks": opts.tasks(),
                "messages": opts.messages(),
                "runs": outcomes.iter().map(|o| serde_json::json!({
                    "time_ns": o.elapsed_ns, "time_s": o.seconds(),
                    "messages_per_s": o.messages_per_s(), "mb_per_s": o.mb_per_s(),
                })).collect::<Vec<_>>(),
                "time_s": times,
                "stored_ids": ids,
            }),
        );
    }
    if a.runs > 1 && !ctx.global.quiet {
        let t: Vec<f64> = outcomes.iter().map(Outcome::seconds).collect();
        let mean = t.iter().sum::<f64>() / t.len() as f64;
        let min = t.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = t.iter().cloned().fold(0.0, f64::max);
        println!(
            "kbench: {} runs: mean {mean:.3} s, min {min:.3} s, max {max:.3} s",
            t.len()
        );
    }
    super::say_stored(ctx, &store, &ids);
    Ok(())
}
