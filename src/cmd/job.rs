//! `kbench job`: one timed job (prepared once, cleaned before every run),
//! with its wall time and the CPU of all its processes.

use super::Ctx;
use crate::bench::{Better, Measurement};
use crate::cli::JobCmdArgs;
use crate::error::Interrupted;
use crate::job::{Job, JobTimes, Spec};
use crate::lifecycle::{drive, Benchmark, Rep};
use crate::store::RunRecord;
use anyhow::Result;

struct TimedJob {
    job: Job,
    drop_caches: bool,
}

impl Benchmark for TimedJob {
    type Outcome = (JobTimes, bool);

    fn name(&self) -> &'static str {
        "job"
    }

    fn params(&self) -> Result<serde_json::Value> {
        Ok(serde_json::json!({ "job": self.job.identity() }))
    }

    fn prepare(&mut self, ctx: &Ctx) -> Result<()> {
        ctx.info(&format!(
            "kbench job: {}; preparing (untimed)",
            self.job.identity()
        ));
        self.job.prepare()
    }

    fn run_once(&mut self, _ctx: &Ctx, _rep: Rep) -> Result<Self::Outcome> {
        self.job.clean()?;
        let dropped = self.drop_caches && crate::sys::proc::drop_caches().is_ok();
        let mut child = self.job.start()?;
        loop {
            if crate::sys::signals::stop_requested() {
                child.kill();
                return Err(Interrupted.into());
            }
            if let Some(t) = child.wait(200)? {
                return Ok((t, dropped));
            }
        }
    }

    fn record(&self, (t, dropped): &Self::Outcome, rec: &mut RunRecord) -> Result<()> {
        rec.set_settings(serde_json::json!({ "caches_dropped": dropped }));
        let mut m = Measurement::default();
        m.push("time", "s", t.wall_s, Better::Lower);
        m.push("user", "s", t.user_s, Better::Lower);
        m.push("sys", "s", t.sys_s, Better::Lower);
        m.push("cpu_percent", "%", t.cpu_percent(), Better::Neither);
        rec.absorb(&m)
    }

    fn text(&self, _ctx: &Ctx, (t, _): &Self::Outcome, rep: Rep) -> String {
        format!(
            "real {:.3}s  user {:.3}s  sys {:.3}s  CPU {:.0}%{}\n",
            t.wall_s,
            t.user_s,
            t.sys_s,
            t.cpu_percent(),
            rep.suffix()
        )
    }

    fn json(&self, (t, dropped): &Self::Outcome) -> serde_json::Value {
        let mut v = serde_json::to_value(t).unwrap_or_default();
        v["caches_dropped"] = (*dropped).into();
        v
    }
}

pub fn run(ctx: &Ctx, a: &JobCmdArgs) -> Result<()> {
    let spec = Spec::from_options(&super::contest::job_options(&a.job))?;
    let job = Job::new(spec, a.job.jobs.map(|j| j as usize))?;
    let mut b = TimedJob {
        job,
        drop_caches: a.drop_caches,
    };
    drive(ctx, &mut b, a.runs)
}
