//! schbench through the lifecycle: schbench's interval and closing blocks,
//! then kbench's percentiles and scheduling delay, and the JSON of one run.

use crate::benchmarks::schbench::engine::{
    self as schbench, latency_and_rps_blocks, percentile_block, Observer, Options, Outcome,
    Snapshot, LAT_PERCENTILES,
};
use crate::error::Interrupted;
use crate::lifecycle::entry::Entry;
use crate::lifecycle::{Benchmark, Rep};
use crate::session::Ctx;
use crate::store::RunRecord;
use crate::sys::cpus;
use anyhow::Result;

/// Interval blocks on stderr, as schbench prints them.
struct Printer {
    quiet: bool,
}

impl Observer for Printer {
    fn warmup_done(&mut self) {
        if !self.quiet {
            eprintln!("warmup done, zeroing stats");
        }
    }

    fn interval(&mut self, s: &Snapshot) {
        if self.quiet {
            return;
        }
        let mut t = latency_and_rps_blocks(s.elapsed_s, &s.wakeup, &s.request, &s.rps);
        t += &format!(
            "sched delay: message {} (usec) worker {} (usec)\ncurrent rps: {:.2}\n",
            s.msg_delay_ns / 1000,
            s.worker_delay_ns / 1000,
            s.current_rps
        );
        eprint!("{t}");
    }
}

/// schbench's closing blocks, then kbench's lines.
fn text(o: &Options, out: &Outcome) -> String {
    let runtime = if out.interrupted {
        out.elapsed_s.round() as u64
    } else {
        o.runtime_s
    };
    let mut t = String::new();
    if o.pipe_bytes > 0 {
        let pct: Vec<f64> = [20.0].iter().chain(LAT_PERCENTILES).copied().collect();
        t += &percentile_block(
            "Wakeup Latencies",
            "usec",
            runtime,
            &out.wakeup,
            &pct,
            99.0,
            1000,
        );
        // As schbench: hand-offs over the workers' summed running time.
        let per_worker_ops = out.requests as f64 / out.worker_time_s.max(1e-9);
        let bytes = per_worker_ops * o.pipe_bytes as f64;
        let (v, unit) = pretty(bytes);
        t += &format!("avg worker transfer: {per_worker_ops:.2} ops/sec {v:.2}{unit}/s\n");
    } else {
        t += &latency_and_rps_blocks(runtime, &out.wakeup, &out.request, &out.rps);
        match out.final_rps_goal {
            Some(g) => t += &format!("final rps goal was {g}\n"),
            None => t += &format!("average rps: {:.2}\n", out.average_rps(runtime as f64)),
        }
        t += &format!(
            "sched delay: message {} (usec) worker {} (usec)\n",
            out.msg_delay_ns() / 1000,
            out.worker_delay_ns() / 1000
        );
    }
    let q = |h: &hdrhistogram::Histogram<u64>| {
        if h.is_empty() {
            "no samples".to_string()
        } else {
            let us = |v: u64| format!("{:.1}", v as f64 / 1000.0);
            format!(
                "p50 {} p90 {} p99 {} p99.9 {} max {} us",
                us(h.value_at_quantile(0.5)),
                us(h.value_at_quantile(0.9)),
                us(h.value_at_quantile(0.99)),
                us(h.value_at_quantile(0.999)),
                us(h.max())
            )
        }
    };
    t += &format!(
        "kbench: wakeup {} ({} samples)\n",
        q(&out.wakeup),
        out.wakeup.len()
    );
    if o.pipe_bytes == 0 {
        t += &format!(
            "kbench: request {} ({} samples)\n",
            q(&out.request),
            out.request.len()
        );
    }
    t += &format!(
        "kbench: {} requests, average {:.2} rps; scheduling delay per time slice: message threads {:.1} us, workers {:.1} us\n",
        out.requests,
        out.average_rps(runtime as f64),
        out.msg_delay_ns() as f64 / 1000.0,
        out.worker_delay_ns() as f64 / 1000.0
    );
    t
}

/// Bytes per second in schbench's units (B, KB, MB, … of 1024).
fn pretty(mut v: f64) -> (f64, &'static str) {
    const UNITS: [&str; 7] = ["B", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    (v, UNITS[i])
}

pub struct Schbench(pub Options, pub Option<crate::trace::Options>);

impl Benchmark for Schbench {
    type Outcome = Outcome;

    fn entry(&self) -> &'static Entry {
        &super::ENTRY
    }

    fn threads_only(&self) -> bool {
        true
    }

    fn trace(&self) -> crate::lifecycle::Trace {
        crate::lifecycle::Trace::of(self.1.as_ref())
    }

    fn params(&self) -> Result<serde_json::Value> {
        let o = &self.0;
        Ok(crate::lifecycle::entry::to_value(
            &super::params::Schbench {
                v: 1,
                message_threads: Some(o.message_threads as u64),
                workers: Some(o.workers as u64),
                runtime_s: Some(o.runtime_s),
                warmup_s: Some(o.warmup_s),
                footprint_kb: Some(o.footprint_kb),
                operations: Some(o.operations),
                sleep_us: Some(o.sleep_us),
                rps: Some(o.rps),
                auto_rps: o.auto_rps.map(u64::from),
                pipe: Some(o.pipe_bytes as u64),
                calibrate: Some(o.calibrate),
                no_locking: Some(o.no_locking),
                split: o.split,
                message_cpus: o.message_cpus.as_ref().map(|c| cpus::format_list(c)),
                worker_cpus: o.worker_cpus.as_ref().map(|c| cpus::format_list(c)),
            },
        ))
    }

    fn measure(&mut self, ctx: &Ctx, _rep: Rep) -> Result<Outcome> {
        let mut printer = Printer {
            quiet: ctx.global.json || ctx.global.quiet,
        };
        schbench::run(&self.0, &mut printer)
    }

    fn stopped(&self, out: &mut Outcome) -> Option<anyhow::Error> {
        out.interrupted.then(|| Interrupted.into())
    }

    fn record(&self, out: &Outcome, rec: &mut RunRecord) -> Result<()> {
        rec.absorb(&out.measurement(&self.0))?;
        rec.set_settings(serde_json::json!({
            "message_threads": out.messages, "workers": out.workers,
        }));
        Ok(())
    }

    fn text(&self, _ctx: &Ctx, out: &Outcome, rep: Rep) -> String {
        let head = if rep.of > 1 {
            format!("# run {}\n", rep.index + 1)
        } else {
            String::new()
        };
        head + &text(&self.0, out)
    }

    fn json(&self, out: &Outcome) -> serde_json::Value {
        let o = &self.0;
        serde_json::json!({
            "requests": out.requests, "queued": out.queued,
            "request_samples": out.request.len(), "wakeup_samples": out.wakeup.len(), "elapsed_s": out.elapsed_s,
            "average_rps": out.average_rps(if out.interrupted { out.elapsed_s } else { o.runtime_s as f64 }),
            "interrupted": out.interrupted, "final_rps_goal": out.final_rps_goal,
            "message_threads": out.messages, "workers": out.workers,
            "metrics": out.measurement(o).metrics,
        })
    }

    fn json_parameters(&self) -> serde_json::Value {
        serde_json::to_value(&self.0).unwrap_or_default()
    }
}
