//! `kbench testbench`: a benchmark for kbench's own tests, in debug
//! builds only (hidden from help).  It is declared exactly as a real one
//! is, by its folder (its [`ENTRY`], flags, parameters and metrics) and one
//! line in the registry, and the tests use it
//! to show that this is all a benchmark needs to run as a command and as a
//! scenario task, stored through the one lifecycle.

pub mod args;
pub mod metrics;
pub mod params;

use crate::error::Interrupted;
use crate::lifecycle::entry::{self, Entry};
use crate::lifecycle::{drive, Benchmark, Rep};
use crate::measure::Measurement;
use crate::session::Ctx;
use crate::store::RunRecord;
use anyhow::Result;
use args::TestbenchArgs;
use std::time::{Duration, Instant};

pub const ENTRY: Entry = Entry {
    name: "testbench",
    about: "A benchmark for kbench's tests (debug builds only)",
    metrics: metrics::ALL,
    parts: &[],
    headline: "value",
    command: || entry::command::<TestbenchArgs>("testbench", ENTRY.about).hide(true),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate: |argv| entry::flag_seconds(argv, "--seconds"),
    canonical: entry::canonical_via::<params::Testbench>,
    warmup: false,
    many_labels: entry::one_label,
    spell: entry::by_flags,
};

struct Testbench(TestbenchArgs);

/// The figure, and whether Ctrl-C cut the wait short.
struct Waited {
    value: f64,
    interrupted: bool,
}

impl Benchmark for Testbench {
    type Outcome = Waited;

    fn entry(&self) -> &'static Entry {
        &ENTRY
    }

    fn params(&self) -> Result<serde_json::Value> {
        Ok(crate::lifecycle::entry::to_value(&params::Testbench {
            v: 1,
            seconds: Some(self.0.seconds),
        }))
    }

    fn measure(&mut self, _ctx: &Ctx, rep: Rep) -> Result<Waited> {
        if self.0.fail_at == Some(rep.index + 1) {
            anyhow::bail!("failed as asked (--fail-at {})", rep.index + 1);
        }
        let end = Instant::now() + Duration::from_secs_f64(self.0.seconds);
        let half = Instant::now() + Duration::from_secs_f64(self.0.seconds / 2.0);
        let mut eject = self.0.eject_sched_ext.then_some(half);
        let mut kill = (self.0.kill_parent_under_sched_ext
            && crate::sys::sched_ext::read().is_some_and(|s| s.state == "enabled"))
        .then_some(half);
        while Instant::now() < end {
            if eject.is_some_and(|at| Instant::now() >= at) {
                eject = None;
                crate::sys::sched_ext::eject()
                    .map_err(|e| anyhow::anyhow!("--eject-sched-ext: /proc/sysrq-trigger: {e}"))?;
            }
            if kill.is_some_and(|at| Instant::now() >= at) {
                kill = None;
                crate::sys::proc::kill_parent();
            }
            if crate::sys::signals::stop_requested() {
                return Ok(Waited {
                    value: self.0.value,
                    interrupted: true,
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(Waited {
            value: self.0.value,
            interrupted: false,
        })
    }

    fn stopped(&self, out: &mut Waited) -> Option<anyhow::Error> {
        out.interrupted.then(|| Interrupted.into())
    }

    fn record(&self, out: &Waited, rec: &mut RunRecord) -> Result<()> {
        let mut m = Measurement::default();
        m.record(&metrics::VALUE, out.value);
        rec.absorb(&m)
    }

    fn text(&self, _ctx: &Ctx, out: &Waited, rep: Rep) -> String {
        format!("value {}{}\n", out.value, rep.suffix())
    }

    fn json(&self, out: &Waited) -> serde_json::Value {
        serde_json::json!({ "value": out.value })
    }
}

pub fn run(ctx: &Ctx, a: &TestbenchArgs) -> Result<()> {
    drive(ctx, &mut Testbench(a.clone()), a.runs)
}
