//! cyclictest through the lifecycle: its per-thread lines (live while
//! running, final at the end), rt-tests' `-h` histogram, kbench's
//! percentiles, and the JSON of one run.

use crate::benchmarks::cyclictest::engine::{
    self as cyclictest, LineStats, Live, Options, Outcome, Summary,
};
use crate::error::Interrupted;
use crate::lifecycle::entry::Entry;
use crate::lifecycle::{Benchmark, Rep};
use crate::session::Ctx;
use crate::store::RunRecord;
use anyhow::Result;
use std::io::{IsTerminal, Write};
use std::sync::Arc;

/// cyclictest's per-thread line (times in µs, truncated like cyclictest).
pub fn thread_line(index: usize, prio: i32, interval_us: u64, l: &LineStats) -> String {
    format!(
        "T:{index:2} ({:5}) P:{prio:2} I:{interval_us} C:{:7} Min:{:7} Act:{:5} Avg:{:5} Max:{:8}",
        l.tid,
        l.cycles,
        l.min_ns / 1000,
        l.act_ns / 1000,
        l.avg_ns / 1000,
        l.max_ns / 1000
    )
}

/// kbench's percentile line for one thread or all.
pub fn summary_line(name: &str, s: &Summary) -> String {
    format!(
        "{name:>6}: avg {:.1}  p50 {:.1}  p90 {:.1}  p99 {:.1}  p99.9 {:.1}  p99.99 {:.1}  max {:.1} us  samples {}  >100us {}  >1ms {}",
        s.avg_us, s.p50_us, s.p90_us, s.p99_us, s.p999_us, s.p9999_us, s.max_us, s.samples, s.over_100us, s.over_1ms
    )
}

/// cyclictest's `-h` histogram output.
pub fn histogram_text(out: &Outcome) -> String {
    let mut s = String::from("# Histogram\n");
    let n = out
        .threads
        .first()
        .map_or(0, |t| t.buckets.len().saturating_sub(1));
    for b in 0..n {
        s.push_str(&format!("{b:06}"));
        for (i, t) in out.threads.iter().enumerate() {
            let sep = if i == 0 { ' ' } else { '\t' };
            s.push_str(&format!("{sep}{:06}", t.buckets[b]));
        }
        s.push('\n');
    }
    let row = |label: &str, f: &dyn Fn(&cyclictest::ThreadResult) -> String| {
        let mut line = format!("# {label}:");
        for t in &out.threads {
            line.push(' ');
            line.push_str(&f(t));
        }
        line.push('\n');
        line
    };
    // cyclictest's Total counts the samples inside the histogram only.
    let overflow = |t: &cyclictest::ThreadResult| t.buckets.last().copied().unwrap_or(0);
    s.push_str(&row("Total", &|t| {
        format!("{:09}", t.samples - overflow(t))
    }));
    s.push_str(&row("Min Latencies", &|t| {
        format!("{:05}", t.min_ns / 1000)
    }));
    s.push_str(&row("Avg Latencies", &|t| {
        format!("{:05}", t.avg_ns() as u64 / 1000)
    }));
    s.push_str(&row("Max Latencies", &|t| {
        format!("{:05}", t.max_ns / 1000)
    }));
    s.push_str(&row("Histogram Overflows", &|t| {
        format!("{:05}", overflow(t))
    }));
    s
}

pub fn rt_throttling_note() -> Option<String> {
    let runtime = crate::sys::procfs::sysctl("kernel.sched_rt_runtime_us")?;
    let period = crate::sys::procfs::sysctl("kernel.sched_rt_period_us")?;
    let (runtime, period) = (runtime.as_str(), period.as_str());
    Some(if runtime == "-1" {
        "RT throttling is off (sched_rt_runtime_us = -1): a runaway RT task could lock a CPU; cyclictest itself only sleeps".into()
    } else {
        format!("RT throttling is on: RT tasks may use {runtime} of every {period} us")
    })
}

pub struct Cyclictest {
    pub opts: Options,
    pub params: serde_json::Value,
    pub throttling: Option<String>,
    pub trace: Option<crate::trace::Options>,
}

impl Benchmark for Cyclictest {
    type Outcome = Outcome;

    fn entry(&self) -> &'static Entry {
        &super::ENTRY
    }

    fn threads_only(&self) -> bool {
        true
    }

    fn trace(&self) -> crate::lifecycle::Trace {
        crate::lifecycle::Trace::of(self.trace.as_ref())
    }

    fn params(&self) -> Result<serde_json::Value> {
        Ok(self.params.clone())
    }

    fn probe_cpus(&self) -> Option<Vec<usize>> {
        let mut c: Vec<usize> = self.opts.threads.iter().filter_map(|t| t.cpu).collect();
        c.sort_unstable();
        c.dedup();
        (!c.is_empty()).then_some(c)
    }

    fn settings(&self) -> serde_json::Value {
        let o = &self.opts;
        serde_json::json!({
            "policy": o.policy, "priority": o.priority, "mlockall": o.mlockall,
            "affinity": o.threads.iter().map(|t| t.cpu).collect::<Vec<_>>(),
            "rt_throttling": self.throttling,
        })
    }

    fn measure(&mut self, ctx: &Ctx, _rep: Rep) -> Result<Outcome> {
        let live = Arc::new(Live::new(self.opts.threads.len()));
        let display = (!ctx.global.json && !ctx.global.quiet && std::io::stderr().is_terminal())
            .then(|| spawn_display(live.clone(), self.opts.clone()));
        let result = cyclictest::run(&self.opts, &live);
        if let Some((stop, h)) = display {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            let _ = h.join();
        }
        result
    }

    fn stopped(&self, out: &mut Outcome) -> Option<anyhow::Error> {
        out.interrupted.then(|| Interrupted.into())
    }

    fn record(&self, out: &Outcome, rec: &mut RunRecord) -> Result<()> {
        rec.set_settings(serde_json::json!({ "cpu_dma_latency_held": out.dma_latency_held }));
        rec.absorb(&out.measurement())?;
        if let Some(t) = &self.throttling {
            rec.notes.push(t.clone());
        }
        Ok(())
    }

    fn text(&self, ctx: &Ctx, out: &Outcome, rep: Rep) -> String {
        print_text(ctx, &self.opts, out, self.throttling.as_deref(), rep)
    }

    fn json(&self, out: &Outcome) -> serde_json::Value {
        run_json(&self.opts, out)
    }

    fn json_parameters(&self) -> serde_json::Value {
        serde_json::to_value(&self.opts).unwrap_or_default()
    }
}

fn print_text(
    ctx: &Ctx,
    opts: &Options,
    out: &Outcome,
    throttling: Option<&str>,
    rep: Rep,
) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    if rep.of > 1 {
        let _ = writeln!(s, "# run {}", rep.index + 1);
    }
    if opts.histogram_us.is_some() {
        s += &histogram_text(out);
    }
    for t in &out.threads {
        let line = LineStats {
            tid: t.tid,
            cycles: t.samples,
            min_ns: t.min_ns,
            act_ns: t.act_ns,
            avg_ns: t.avg_ns() as u64,
            max_ns: t.max_ns,
        };
        let _ = writeln!(
            s,
            "{}",
            thread_line(
                t.plan.index,
                opts.priority,
                t.plan.interval_ns / 1000,
                &line
            )
        );
    }
    if ctx.global.quiet {
        return s;
    }
    for t in &out.threads {
        let _ = writeln!(s, "{}", summary_line(&t.key(), &Outcome::thread_summary(t)));
    }
    if out.threads.len() > 1 {
        let _ = writeln!(s, "{}", summary_line("all", &out.overall()));
    }
    let overruns: u64 = out.threads.iter().map(|t| t.overruns).sum();
    let _ = writeln!(
        s,
        "kbench: {} policy {} prio {}, mlockall {}, cpu_dma_latency {}, {:.3} s{}{}",
        out.threads.len().to_string()
            + if out.threads.len() == 1 {
                " thread"
            } else {
                " threads"
            },
        opts.policy.name(),
        opts.priority,
        if opts.mlockall { "on" } else { "off" },
        if out.dma_latency_held {
            "held at 0"
        } else {
            "untouched"
        },
        out.elapsed_s,
        if overruns > 0 {
            format!(", {overruns} missed periods")
        } else {
            String::new()
        },
        if out.interrupted { ", interrupted" } else { "" }
    );
    if let Some(t) = throttling {
        let _ = writeln!(s, "kbench: {t}");
    }
    s
}

fn run_json(opts: &Options, out: &Outcome) -> serde_json::Value {
    let per: Vec<serde_json::Value> = out
        .threads
        .iter()
        .map(|t| {
            serde_json::json!({
                "thread": t.plan.index, "tid": t.tid, "cpu": t.plan.cpu,
                "interval_us": t.plan.interval_ns / 1000,
                "stats": Outcome::thread_summary(t),
                "overruns": t.overruns,
                "histogram_ns": buckets(&t.hist),
            })
        })
        .collect();
    serde_json::json!({
        "interrupted": out.interrupted,
        "elapsed_s": out.elapsed_s,
        "settings": {
            "policy": opts.policy, "priority": opts.priority, "mlockall": opts.mlockall,
            "cpu_dma_latency_held": out.dma_latency_held,
        },
        "overall": out.overall(),
        "threads": per,
        "histogram_ns": buckets(&out.merged),
    })
}

/// Recorded histogram buckets as `[value_ns, count]` pairs (the highest
/// value equivalent to each bucket).
fn buckets(h: &hdrhistogram::Histogram<u64>) -> Vec<[u64; 2]> {
    h.iter_recorded()
        .map(|v| {
            [
                h.highest_equivalent(v.value_iterated_to()),
                v.count_at_value(),
            ]
        })
        .collect()
}

/// A thread that redraws cyclictest's live lines on stderr every 100 ms.
fn spawn_display(
    live: Arc<Live>,
    opts: Options,
) -> (
    Arc<std::sync::atomic::AtomicBool>,
    std::thread::JoinHandle<()>,
) {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let s2 = stop.clone();
    let h = std::thread::spawn(move || {
        crate::sys::sched_account::thread_started();
        let n = opts.threads.len();
        let mut drawn = false;
        let mut err = std::io::stderr();
        while !s2.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let mut text = String::new();
            if drawn {
                text.push_str(&format!("\x1b[{n}A"));
            }
            for (i, st) in live.stats.iter().enumerate() {
                let l = st.snapshot();
                let iv = opts.threads[i].interval_ns / 1000;
                text.push_str(&thread_line(i, opts.priority, iv, &l));
                text.push_str("\x1b[K\n");
            }
            let _ = err.write_all(text.as_bytes());
            drawn = true;
        }
        if drawn {
            let _ = err.write_all(format!("\x1b[{n}A\x1b[J").as_bytes());
        }
    });
    (stop, h)
}
