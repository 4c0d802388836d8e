//! hackbench through the lifecycle: rt-tests' banner and `Time:` line (so
//! scripts that grep them keep working), then kbench's own figures.

use crate::benchmarks::hackbench::engine::{self as hackbench, Options, Outcome};
use crate::benchmarks::hackbench::params::Params;
use crate::lifecycle::entry::Entry;
use crate::lifecycle::{Benchmark, Rep};
use crate::session::Ctx;
use crate::store::RunRecord;
use anyhow::Result;

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

pub struct Hackbench(pub Options, pub Option<crate::trace::Options>);

impl Benchmark for Hackbench {
    type Outcome = Outcome;

    fn trace(&self) -> crate::lifecycle::Trace {
        match &self.1 {
            Some(o) => crate::lifecycle::Trace::On(o.clone()),
            None => crate::lifecycle::Trace::NotAProbe,
        }
    }

    fn entry(&self) -> &'static Entry {
        &super::ENTRY
    }

    fn params(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(Params::of(&self.0))?)
    }

    fn probe_cpus(&self) -> Option<Vec<usize>> {
        self.0.cpus.clone()
    }

    fn banner(&self) -> Option<String> {
        Some(banner(&self.0))
    }

    fn settings(&self) -> serde_json::Value {
        let o = &self.0;
        serde_json::json!({
            "parent_policy": if o.fifo { "fifo" } else { "other" },
            "parent_priority": if o.fifo { 1 } else { 0 },
            "affinity": o.cpus.as_ref().map(|c| crate::sys::cpus::format_list(c)),
            "mode": o.mode_name(), "transport": o.transport_name(),
        })
    }

    fn measure(&mut self, _ctx: &Ctx, _rep: Rep) -> Result<Outcome> {
        hackbench::run(&self.0)
    }

    fn record(&self, out: &Outcome, rec: &mut RunRecord) -> Result<()> {
        rec.absorb(&out.measurement())
    }

    fn text(&self, ctx: &Ctx, out: &Outcome, rep: Rep) -> String {
        let mut t = format!("{}\n", time_line(out));
        if !ctx.global.quiet {
            t += &format!(
                "kbench: {} messages in {:.3} s: {:.0} messages/s, {:.1} MB/s{}\n",
                out.messages,
                out.seconds(),
                out.messages_per_s(),
                out.mb_per_s(),
                rep.suffix()
            );
        }
        t
    }

    fn json(&self, o: &Outcome) -> serde_json::Value {
        serde_json::json!({
            "time_ns": o.elapsed_ns, "time_s": o.seconds(),
            "messages_per_s": o.messages_per_s(), "mb_per_s": o.mb_per_s(),
        })
    }

    fn json_top(&self, outs: &[Outcome]) -> serde_json::Value {
        serde_json::json!({
            "tasks": self.0.tasks(), "messages": self.0.messages(),
            "time_s": outs.iter().map(Outcome::seconds).collect::<Vec<_>>(),
        })
    }

    fn json_parameters(&self) -> serde_json::Value {
        serde_json::to_value(&self.0).unwrap_or_default()
    }

    fn summary(&self, outs: &[Outcome]) -> Option<String> {
        if outs.len() < 2 {
            return None;
        }
        let t: Vec<f64> = outs.iter().map(Outcome::seconds).collect();
        let mean = t.iter().sum::<f64>() / t.len() as f64;
        let min = t.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = t.iter().cloned().fold(0.0, f64::max);
        Some(format!(
            "kbench: {} runs: mean {mean:.3} s, min {min:.3} s, max {max:.3} s",
            t.len()
        ))
    }
}
