//! `kbench job`: one timed job (prepared once, cleaned before every run),
//! with its wall time and the CPU of all its processes.

pub mod args;
pub mod engine;
pub mod metrics;
pub mod params;

use crate::benchmarks::job::engine::{Job, JobTimes, Spec};
use crate::benchmarks::job::metrics as declared;
use crate::error::Interrupted;
use crate::lifecycle::entry::{self, Entry};
use crate::lifecycle::{drive, Benchmark, Rep};
use crate::measure::Measurement;
use crate::session::Ctx;
use crate::store::RunRecord;
use anyhow::Result;
use args::JobCmdArgs;

const ABOUT: &str = "Time a job: the generated C project, a kernel build or any command";

/// `job` in the registry.
pub const ENTRY: Entry = Entry {
    name: "job",
    about: ABOUT,
    metrics: metrics::ALL,
    parts: &[],
    headline: "time",
    command: || entry::command::<JobCmdArgs>("job", ABOUT),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate,
    canonical: entry::canonical_via::<params::Job>,
    warmup: false,
    many_labels: entry::one_label,
    spell,
};

/// The job as its words (`generated-small -j2`).
fn spell(s: entry::Spelling) -> entry::Spelling {
    s.words("job")
}

struct TimedJob {
    job: Job,
    drop_caches: bool,
}

impl Benchmark for TimedJob {
    type Outcome = (JobTimes, bool);

    fn entry(&self) -> &'static Entry {
        &ENTRY
    }

    fn params(&self) -> Result<serde_json::Value> {
        Ok(crate::lifecycle::entry::to_value(&params::Job {
            v: 1,
            job: Some(self.job.identity()),
        }))
    }

    fn prepare(&mut self, ctx: &Ctx) -> Result<()> {
        ctx.info(&format!(
            "kbench job: {}; preparing (untimed)",
            self.job.identity()
        ));
        self.job.prepare()
    }

    fn measure(&mut self, _ctx: &Ctx, _rep: Rep) -> Result<Self::Outcome> {
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
        m.record(&declared::TIME, t.wall_s);
        m.record(&declared::USER, t.user_s);
        m.record(&declared::SYS, t.sys_s);
        m.record(&declared::CPU_PERCENT, t.cpu_percent());
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
    let spec = Spec::from_options(&a.job.options())?;
    let job = Job::new(spec, a.job.jobs.map(|j| j as usize))?;
    let mut b = TimedJob {
        job,
        drop_caches: a.drop_caches,
    };
    drive(ctx, &mut b, a.runs)
}

/// Seconds a generated-project job takes by its size (a guess for the
/// scenario plan); a kernel build or a command of the user's: unknown.
fn estimate(argv: &[String]) -> Option<f64> {
    let val = |flag: &str| entry::flag_value(argv, flag);
    if val("--kernel-tree").is_some() || val("--job-cmd").is_some() {
        return None;
    }
    Some(match val("--job-size") {
        Some("tiny") => 2.0,
        Some("medium") => 60.0,
        Some("large") => 240.0,
        _ => 10.0,
    })
}
