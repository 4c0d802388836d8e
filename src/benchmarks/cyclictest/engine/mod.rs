//! cyclictest: timer wake-up latency, per thread and CPU, full distribution.
//!
//! Each measurement thread runs at the requested policy and priority,
//! optionally pinned, and loops: sleep with
//! `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)` to an absolute `next`,
//! read the clock, record `now − next`, advance `next` by the interval.
//! Inside the loop there is no allocation, lock, log or print: samples go
//! into the thread's own pre-faulted HdrHistogram (1 ns to 60 s at three
//! significant digits, so nothing overflows), plus exact min/max/sum and,
//! when asked, cyclictest's 1 µs bucket array.  The live view reads relaxed
//! atomics.  Histograms are merged after the threads are joined.

mod live;
mod plan;
mod worker;

pub use live::{LineStats, Live, LiveStat};
pub use plan::{plan_threads, ThreadPlan};

use crate::benchmarks::cyclictest::metrics as declared;
use crate::measure::{Better, Measurement, NamedHistogram};
use crate::sys::sched::Policy;
use anyhow::Result;
use hdrhistogram::Histogram;
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;

/// Largest latency the histograms hold exactly; larger values are clamped
/// to it (and still counted in max and the over-1 ms count).
pub const HIST_MAX_NS: u64 = 60_000_000_000;

/// What to run.
#[derive(Clone, Debug, Serialize)]
pub struct Options {
    pub threads: Vec<ThreadPlan>,
    #[serde(skip)]
    pub duration: Option<Duration>,
    pub duration_s: Option<f64>,
    pub loops: Option<u64>,
    pub policy: Policy,
    pub priority: i32,
    pub mlockall: bool,
    /// Hold `/dev/cpu_dma_latency` at 0 during the run.
    pub hold_dma_latency: bool,
    /// Keep cyclictest's exact 1 µs bucket counts up to this many µs.
    pub histogram_us: Option<u64>,
}

/// One thread's results.
#[derive(Clone, Debug)]
pub struct ThreadResult {
    pub plan: ThreadPlan,
    pub tid: i32,
    pub samples: u64,
    /// The last sample (cyclictest's `Act`).
    pub act_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub sum_ns: u128,
    pub over_100us: u64,
    pub over_1ms: u64,
    /// Wake-ups that came after the following deadline had passed too.
    pub overruns: u64,
    pub hist: Histogram<u64>,
    /// Exact counts per 1 µs bucket (cyclictest `-h`), last is overflow.
    pub buckets: Vec<u64>,
}

impl ThreadResult {
    pub fn avg_ns(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.samples as f64
        }
    }

    /// Name used for this thread's metrics and histogram.
    pub fn key(&self) -> String {
        match self.plan.cpu {
            Some(c) => format!("cpu{c}"),
            None => format!("t{}", self.plan.index),
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub threads: Vec<ThreadResult>,
    pub merged: Histogram<u64>,
    pub interrupted: bool,
    pub dma_latency_held: bool,
    pub elapsed_s: f64,
}

/// Summary statistics of a distribution, in µs.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub samples: u64,
    pub min_us: f64,
    pub avg_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub p9999_us: f64,
    pub max_us: f64,
    pub over_100us: u64,
    pub over_1ms: u64,
}

impl Summary {
    /// From a histogram plus the exact min/max/sum kept beside it.
    pub fn of(
        h: &Histogram<u64>,
        min_ns: u64,
        max_ns: u64,
        sum_ns: u128,
        over_100us: u64,
        over_1ms: u64,
    ) -> Summary {
        let n = h.len();
        // A bucket's upper edge can pass the exact extremes: clamp to them.
        let q = |p: f64| {
            if n == 0 {
                0.0
            } else {
                quantile_ns(h, p).clamp(min_ns.min(max_ns), max_ns) as f64 / 1000.0
            }
        };
        Summary {
            samples: n,
            min_us: if n == 0 { 0.0 } else { min_ns as f64 / 1000.0 },
            avg_us: if n == 0 {
                0.0
            } else {
                sum_ns as f64 / n as f64 / 1000.0
            },
            p50_us: q(0.5),
            p90_us: q(0.9),
            p99_us: q(0.99),
            p999_us: q(0.999),
            p9999_us: q(0.9999),
            max_us: max_ns as f64 / 1000.0,
            over_100us,
            over_1ms,
        }
    }
}

/// The value at quantile `p`: the smallest recorded value such that at
/// least `p` of the samples are at or below it (nearest-rank definition,
/// Hyndman & Fan 1996 type 1), reported as the highest value equivalent
/// to its HdrHistogram bucket, so a percentile never understates latency.
pub fn quantile_ns(h: &Histogram<u64>, p: f64) -> u64 {
    h.value_at_quantile(p)
}

impl Outcome {
    pub fn thread_summary(t: &ThreadResult) -> Summary {
        Summary::of(
            &t.hist,
            t.min_ns,
            t.max_ns,
            t.sum_ns,
            t.over_100us,
            t.over_1ms,
        )
    }

    pub fn overall(&self) -> Summary {
        let min = self
            .threads
            .iter()
            .filter(|t| t.samples > 0)
            .map(|t| t.min_ns)
            .min()
            .unwrap_or(0);
        let max = self.threads.iter().map(|t| t.max_ns).max().unwrap_or(0);
        let sum = self.threads.iter().map(|t| t.sum_ns).sum();
        let o100 = self.threads.iter().map(|t| t.over_100us).sum();
        let o1ms = self.threads.iter().map(|t| t.over_1ms).sum();
        Summary::of(&self.merged, min, max, sum, o100, o1ms)
    }

    /// Metrics and histograms to store.
    pub fn measurement(&self) -> Measurement {
        let mut m = Measurement::default();
        let mut push_summary = |prefix: &str, s: &Summary| {
            let p = |name: &str| {
                if prefix.is_empty() {
                    name.to_string()
                } else {
                    format!("{prefix}.{name}")
                }
            };
            for (name, v) in [
                ("max_us", s.max_us),
                ("p99_us", s.p99_us),
                ("p999_us", s.p999_us),
                ("p50_us", s.p50_us),
                ("avg_us", s.avg_us),
            ] {
                m.push(&p(name), "us", v, Better::Lower);
            }
            m.push(&p("samples"), "count", s.samples as f64, Better::Neither);
            if prefix.is_empty() {
                m.record(&declared::MIN_US, s.min_us);
                m.record(&declared::P9999_US, s.p9999_us);
                m.record(&declared::OVER_100US, s.over_100us as f64);
                m.record(&declared::OVER_1MS, s.over_1ms as f64);
            }
        };
        push_summary("", &self.overall());
        for t in &self.threads {
            push_summary(&t.key(), &Self::thread_summary(t));
        }
        m.histograms.push(NamedHistogram {
            name: "latency".into(),
            unit: "ns".into(),
            hist: self.merged.clone(),
        });
        for t in &self.threads {
            m.histograms.push(NamedHistogram {
                name: format!("latency.{}", t.key()),
                unit: "ns".into(),
                hist: t.hist.clone(),
            });
        }
        if self.interrupted {
            m.notes.push("interrupted before the planned end".into());
        }
        m
    }
}

/// A fresh histogram with kbench's bounds.
pub fn new_histogram() -> Histogram<u64> {
    let mut h =
        Histogram::<u64>::new_with_bounds(1, HIST_MAX_NS, 3).expect("valid histogram bounds");
    h.auto(false);
    h
}

/// Run the measurement.  Setup failures (no permission for the policy,
/// a CPU that vanished) are reported before any sample is taken.
pub fn run(opts: &Options, live: &Arc<Live>) -> Result<Outcome> {
    worker::run(opts, live)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: &[u64]) -> Histogram<u64> {
        let mut h = new_histogram();
        for &v in values {
            h.record(v).unwrap();
        }
        h
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        // 1..=100 µs: p50 is the 50th value, p99 the 99th, p99.9 the 100th.
        let values: Vec<u64> = (1..=100).map(|us| us * 1000).collect();
        let h = hist(&values);
        let s = Summary::of(
            &h,
            1000,
            100_000,
            values.iter().map(|&v| v as u128).sum(),
            0,
            0,
        );
        assert_eq!(s.samples, 100);
        assert!((s.p50_us - 50.0).abs() < 0.05, "{}", s.p50_us);
        assert!((s.p90_us - 90.0).abs() < 0.1, "{}", s.p90_us);
        assert!((s.p99_us - 99.0).abs() < 0.1, "{}", s.p99_us);
        assert!((s.p999_us - 100.0).abs() < 0.1, "{}", s.p999_us);
        assert_eq!(s.avg_us, 50.5);
        assert_eq!(s.min_us, 1.0);
        assert_eq!(s.max_us, 100.0);
    }

    #[test]
    fn merge_keeps_every_sample() {
        let mut a = hist(&[3_000, 4_000, 5_000]);
        let b = hist(&[35_000, 2_000_000]);
        a.add(&b).unwrap();
        assert_eq!(a.len(), 5);
        assert!(a.max() >= 2_000_000);
        // p60 is the third of five values (5 µs); p80 the fourth (35 µs).
        assert_eq!(a.value_at_quantile(0.6) / 1000, 5);
        assert_eq!(a.value_at_quantile(0.8) / 1000, 35);
    }

    #[test]
    fn huge_values_do_not_overflow() {
        let mut h = new_histogram();
        assert!(h.record(HIST_MAX_NS).is_ok());
        // No auto-resize (it would allocate in the loop): far-out values are
        // refused, so callers clamp to HIST_MAX_NS.
        assert!(h.record(HIST_MAX_NS * 4).is_err());
        assert!(h.high() >= HIST_MAX_NS);
    }

    #[test]
    fn empty_summary_is_zero() {
        let s = Summary::of(&new_histogram(), u64::MAX, 0, 0, 0, 0);
        assert_eq!(s.samples, 0);
        assert_eq!(s.min_us, 0.0);
    }
}
