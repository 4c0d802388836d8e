//! `kbench job`: one timed job (prepared once, cleaned before every run),
//! with its wall time and the CPU of all its processes.

use super::{print_json, save, Ctx};
use crate::bench::{Better, Measurement};
use crate::cli::JobCmdArgs;
use crate::error::Interrupted;
use crate::job::{Job, Spec};
use crate::store::RunStatus;
use anyhow::Result;

pub fn run(ctx: &Ctx, a: &JobCmdArgs) -> Result<()> {
    let spec = Spec::from_options(&super::contest::job_options(&a.job))?;
    let mut job = Job::new(spec, a.job.jobs.map(|j| j as usize))?;
    let mut store = ctx.store_for_writing()?;
    ctx.info(&format!(
        "kbench job: {}; preparing (untimed)",
        job.identity()
    ));
    job.prepare()?;
    let mut out = Vec::new();
    for i in 0..a.runs {
        job.clean()?;
        let dropped = a.drop_caches && crate::sys::proc::drop_caches().is_ok();
        let mut rec = ctx.new_run("job", serde_json::json!({ "job": job.identity() }));
        rec.set_settings(serde_json::json!({ "caches_dropped": dropped }));
        let mut child = job.start()?;
        let times = loop {
            if crate::sys::signals::stop_requested() {
                child.kill();
                rec.status = RunStatus::Interrupted;
                rec.ended = crate::sys::time::unix_now();
                save(&mut store, &rec)?;
                return Err(Interrupted.into());
            }
            match child.wait(200) {
                Ok(Some(t)) => break t,
                Ok(None) => {}
                Err(e) => {
                    rec.status = RunStatus::Failed;
                    rec.notes.push(format!("{e:#}"));
                    rec.ended = crate::sys::time::unix_now();
                    save(&mut store, &rec)?;
                    return Err(e);
                }
            }
        };
        rec.ended = crate::sys::time::unix_now();
        let mut m = Measurement::default();
        m.push("time", "s", times.wall_s, Better::Lower);
        m.push("user", "s", times.user_s, Better::Lower);
        m.push("sys", "s", times.sys_s, Better::Lower);
        m.push("cpu_percent", "%", times.cpu_percent(), Better::Neither);
        rec.absorb(&m)?;
        save(&mut store, &rec)?;
        if !ctx.global.json {
            println!(
                "real {:.3}s  user {:.3}s  sys {:.3}s  CPU {:.0}%{}",
                times.wall_s,
                times.user_s,
                times.sys_s,
                times.cpu_percent(),
                if a.runs > 1 {
                    format!("  [run {}/{}]", i + 1, a.runs)
                } else {
                    String::new()
                }
            );
        }
        out.push(times);
    }
    if ctx.global.json {
        print_json(
            "job",
            serde_json::json!({ "label": ctx.label(), "job": job.identity(), "runs": out }),
        )?;
    }
    Ok(())
}
