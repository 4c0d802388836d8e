//! responsiveness through the lifecycle: the original's result lines, then
//! kbench's distribution of per-iteration response times.

use crate::benchmarks::responsiveness::engine::{
    self as responsiveness, nearest_rank, Iteration, Options, Outcome,
};
use crate::lifecycle::entry::Entry;
use crate::lifecycle::{Benchmark, Rep};
use crate::session::Ctx;
use crate::store::RunRecord;
use crate::sys::janitor::Scratch;
use anyhow::Result;

/// The original's result lines (Python's `print` separators included).
pub fn original_lines(out: &Outcome) -> String {
    let mut s = String::new();
    for (i, t) in out.prime_s.iter().enumerate() {
        s.push_str(&format!("{i} prime time:  {t}\n"));
    }
    for (i, its) in out.interactive.iter().enumerate() {
        let total: f64 = its.iter().map(|x| x.response_ns as f64 / 1e9).sum();
        let runs = its.len();
        let avg = if runs == 0 {
            f64::NAN
        } else {
            total / runs as f64
        };
        s.push_str(&format!(
            "{i} total response time:  {total}  runs:  {runs}  average:  {avg}\n"
        ));
    }
    s
}

fn dist_line(name: &str, its: &[&Iteration], f: fn(&Iteration) -> u64) -> String {
    let mut v: Vec<u64> = its.iter().map(|i| f(i)).collect();
    let mut q =
        |p: f64| nearest_rank(&mut v, p).map_or("-".into(), |x| format!("{:.4}", x as f64 / 1e9));
    format!(
        "{name} p50 {}  p90 {}  p99 {}  max {} s",
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0)
    )
}

pub struct Responsiveness {
    pub opts: Options,
    /// The private folder of the tasks' files, removed with this.
    pub _dir: Scratch,
    /// What `--trace` asked for.
    pub trace: Option<crate::trace::Options>,
}

impl Benchmark for Responsiveness {
    type Outcome = Outcome;

    fn entry(&self) -> &'static Entry {
        &super::ENTRY
    }

    fn params(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(&self.opts)?)
    }

    fn trace(&self) -> crate::lifecycle::Trace {
        crate::lifecycle::Trace::of(self.trace.as_ref())
    }

    fn measure(&mut self, ctx: &Ctx, _rep: Rep) -> Result<Outcome> {
        let out = responsiveness::run(&self.opts)?;
        if out.runs() == 0 {
            ctx.info(&format!("kbench: warning: {NO_ITERATION}"));
        }
        Ok(out)
    }

    fn record(&self, out: &Outcome, rec: &mut RunRecord) -> Result<()> {
        if out.runs() == 0 {
            rec.notes.push(NO_ITERATION.into());
        }
        rec.absorb(&out.measurement())
    }

    fn text(&self, ctx: &Ctx, out: &Outcome, _rep: Rep) -> String {
        let mut t = format!("\n\n{}", original_lines(out));
        if ctx.global.quiet {
            return t;
        }
        let its: Vec<&Iteration> = out.iterations().collect();
        t += &format!(
            "kbench: {}\n",
            dist_line("response", &its, |i| i.response_ns)
        );
        t += &format!(
            "kbench: {}\n",
            dist_line("wake-up overshoot", &its, |i| i.overshoot_ns)
        );
        t += &format!("kbench: {}\n", dist_line("task work", &its, |i| i.work_ns));
        t += &format!(
            "kbench: total response (the 2023 seed's \"os latency\") {:.6} s over {} iterations; compare kernels with one tool: the original's per-iteration work is CPython's\n",
            out.total_response_s(),
            out.runs()
        );
        if !out.prime_s.is_empty() {
            let min = out.prime_s.iter().cloned().fold(f64::INFINITY, f64::min);
            let max = out.prime_s.iter().cloned().fold(0.0, f64::max);
            let passes: u64 = out.prime_passes.iter().sum();
            t += &format!(
                "kbench: {} prime workers: first pass mean {:.3} s (min {min:.3}, max {max:.3}), {passes} passes in all; wall {:.3} s\n",
                out.prime_s.len(),
                out.prime_mean_s(),
                out.wall_s
            );
        }
        t
    }

    fn json(&self, out: &Outcome) -> serde_json::Value {
        let its: Vec<&Iteration> = out.iterations().collect();
        serde_json::json!({
            "prime_s": out.prime_s,
            "prime_passes": out.prime_passes,
            "avg_response_s": out.avg_response_s(),
            "total_response_s": out.total_response_s(),
            "runs": out.runs(),
            "wall_s": out.wall_s,
            "metrics": out.measurement().metrics,
            "iterations": its.iter().map(|i| serde_json::json!({
                "response_s": i.response_ns as f64 / 1e9, "overshoot_s": i.overshoot_ns as f64 / 1e9,
                "work_s": i.work_ns as f64 / 1e9})).collect::<Vec<_>>(),
        })
    }
}

const NO_ITERATION: &str = "no interactive iteration finished before the prime workers were done: give -t so the probe runs for a set time";
