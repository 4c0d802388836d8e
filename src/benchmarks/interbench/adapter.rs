//! interbench through the lifecycle: interbench's tables (one per task, a
//! row per load), then kbench's percentiles; the calibration it used.

use crate::benchmarks::interbench::engine::account::fmt_g;
use crate::benchmarks::interbench::engine::{
    self as interbench, Kind, Observer, Options, Outcome, Pair,
};
use crate::benchmarks::interbench::metrics as declared;
use crate::error::Interrupted;
use crate::lifecycle::entry::Entry;
use crate::lifecycle::{Benchmark, Rep};
use crate::measure::{Measurement, NamedHistogram};
use crate::session::Ctx;
use crate::store::RunRecord;
use anyhow::Result;

/// The store document kind of calibrations.
const CALIBRATION: &str = "interbench-loops-per-ms";

pub struct Interbench {
    pub o: Options,
    /// Measure loops_per_ms again (`-b`).
    pub recalibrate: bool,
    /// Given with `-l`.
    pub given_lpms: Option<u64>,
    pub comment: Option<String>,
    /// What `--trace` asked for.
    pub trace: Option<crate::trace::Options>,
    /// Where the calibration came from, for the banner and the record.
    calibration: String,
}

impl Interbench {
    pub fn new(o: Options, recalibrate: bool, given: Option<u64>, comment: Option<String>) -> Self {
        Interbench {
            o,
            recalibrate,
            given_lpms: given,
            comment,
            trace: None,
            calibration: String::new(),
        }
    }
}

/// The key a calibration is kept under: the system fingerprint and CPU.
fn calibration_key(ctx: &Ctx) -> String {
    use sha2::{Digest, Sha256};
    let fp = ctx.fingerprint();
    let cpu =
        serde_json::to_string(&(&fp.cpu.model, &fp.cpu.online, &fp.machine)).unwrap_or_default();
    // The loop's speed depends on the build too (debug builds are slower).
    let build = format!(
        "{}{}",
        env!("CARGO_PKG_VERSION"),
        if cfg!(debug_assertions) { "-debug" } else { "" }
    );
    let h = Sha256::digest(format!("{}\0{cpu}\0{build}", fp.id).as_bytes());
    format!("{}-{}", fp.id, &crate::fingerprint::hex(&h)[..8])
}

/// Table lines, as interbench prints them.
fn header(task: Kind, o: &Options) -> String {
    let mut t = format!("--- Benchmarking simulated cpu of {} ", task.label());
    if o.rt {
        t += "real time ";
    } else if o.bench_nice != 0 {
        t += &format!("nice {} ", o.bench_nice);
    }
    t += "in the presence of simulated ";
    if o.load_nice != 0 {
        t += &format!("nice {} ", o.load_nice);
    }
    t += "---\nLoad";
    t += if o.rt {
        "\tLatency +/- SD (us)"
    } else {
        "\tLatency +/- SD (ms)"
    };
    t += "  Max Latency   % Desired CPU";
    if task != Kind::Gaming {
        t += "  % Deadlines Met";
    }
    t + "\n"
}

fn row(p: &Pair, rt: bool) -> String {
    let a = &p.account;
    let div = if rt { 1_000.0 } else { 1_000_000.0 };
    let mut t = format!(
        "{}\t{:6.1} +/- {:<8.1}{:6.1}\t\t{}",
        p.load.label(),
        a.mean() / div,
        a.interbench_sd() / div,
        a.max_latency as f64 / div,
        fmt_g(a.desired_cpu_pct(), 4, 3)
    );
    if p.task != Kind::Gaming {
        t += &format!("\t{}", fmt_g(a.deadlines_met_pct(), 11, 3));
    }
    t + "\n"
}

/// Tables on stdout as pairs finish (text mode), as interbench does.
struct Live {
    show: bool,
    rt: bool,
    o: Options,
    last: Option<Kind>,
}

impl Observer for Live {
    fn table_start(&mut self, task: Kind) {
        if self.show {
            if self.last.is_some() {
                println!();
            }
            print!("{}", header(task, &self.o));
            self.last = Some(task);
        }
    }
    fn pair_done(&mut self, p: &Pair) {
        if self.show {
            print!("{}", row(p, self.rt));
        }
    }
}

fn snake(k: Kind) -> String {
    k.label().to_lowercase()
}

impl Interbench {
    fn measurement(&self, out: &Outcome) -> Measurement {
        let mut m = Measurement::default();
        let ms = |ns: f64| ns / 1_000_000.0;
        let mut means = Vec::new();
        let mut worst_met: Option<f64> = None;
        for p in &out.pairs {
            let a = &p.account;
            let k = format!("{}_{}", snake(p.task), snake(p.load));
            use declared::*;
            m.record_part(&k, &PAIR_LATENCY_AVG_MS, ms(a.mean()));
            m.record_part(&k, &PAIR_LATENCY_SD_MS, ms(a.sd()));
            m.record_part(&k, &PAIR_LATENCY_MAX_MS, ms(a.max_latency as f64));
            if !p.latency.is_empty() {
                let p99 = ms(p.latency.value_at_quantile(0.99) as f64);
                m.record_part(&k, &PAIR_LATENCY_P99_MS, p99);
            }
            m.record_part(&k, &PAIR_DESIRED_CPU_PCT, a.desired_cpu_pct());
            m.record_part(&k, &PAIR_CPU_SHARE_PCT, p.cpu_share_pct());
            if p.task == Kind::Gaming {
                m.record_part(&k, &PAIR_FPS, p.fps());
            } else {
                let met = a.deadlines_met_pct();
                m.record_part(&k, &PAIR_DEADLINES_MET_PCT, met);
                worst_met = Some(worst_met.map_or(met, |w: f64| w.min(met)));
            }
            means.push(ms(a.mean()));
            m.histograms.push(NamedHistogram {
                name: format!("{k}_latency"),
                unit: "ns".into(),
                hist: p.latency.clone(),
            });
        }
        if !means.is_empty() {
            m.record(
                &declared::LATENCY_AVG_MS,
                means.iter().sum::<f64>() / means.len() as f64,
            );
        }
        if let Some(w) = worst_met {
            m.record(&declared::WORST_DEADLINES_MET_PCT, w);
        }
        m.record(&declared::PAIRS, out.pairs.len() as f64);
        m.notes.extend(out.skipped.iter().cloned());
        if let Some(c) = &self.comment {
            m.notes.push(format!("comment: {c}"));
        }
        m
    }
}

impl Benchmark for Interbench {
    type Outcome = Outcome;

    fn entry(&self) -> &'static Entry {
        &super::ENTRY
    }

    fn params(&self) -> Result<serde_json::Value> {
        let o = &self.o;
        let names = |v: &[Kind]| v.iter().map(|k| k.label().to_string()).collect::<Vec<_>>();
        Ok(crate::lifecycle::entry::to_value(
            &super::params::Interbench {
                v: 1,
                duration_s: Some(o.duration_s),
                tasks: Some(names(&o.tasks)),
                loads: Some(names(&o.loads)),
                bench_nice: Some(o.bench_nice),
                load_nice: Some(o.load_nice),
                rt: Some(o.rt),
                uniprocessor: Some(o.uniprocessor),
                burn: Some(o.burn),
                custom_cpu_pct: o.custom.map(|(run, int)| run * 100 / int.max(1)),
                custom_interval_us: o.custom.map(|c| c.1),
            },
        ))
    }

    fn prepare(&mut self, ctx: &Ctx) -> Result<()> {
        let key = calibration_key(ctx);
        if let Some(l) = self.given_lpms {
            self.o.loops_per_ms = l;
            self.calibration = "given with -l".into();
            return Ok(());
        }
        if !self.recalibrate {
            if let Ok(store) = ctx.store_for_reading() {
                if let Ok(Some(v)) = store.get_document(CALIBRATION, &key) {
                    if let Some(l) = serde_json::from_str::<serde_json::Value>(&v)
                        .ok()
                        .and_then(|v| v["loops_per_ms"].as_u64())
                        .filter(|l| *l > 0)
                    {
                        self.o.loops_per_ms = l;
                        self.calibration = format!("read from the store (system {key})");
                        return Ok(());
                    }
                }
            }
        }
        ctx.info("kbench interbench: loops_per_ms unknown for this system; calibrating (a few seconds, pinned to CPU 0)...");
        let uni = true;
        let l = std::thread::Builder::new()
            .name("kbench-ib-cal".into())
            .spawn(move || {
                let tid = crate::sys::sched::gettid();
                if uni {
                    let _ = crate::sys::sched::set_affinity(tid, &[0]);
                }
                if crate::sys::proc::is_root() {
                    let _ = crate::sys::sched::set_policy(tid, crate::sys::sched::Policy::Fifo, 99);
                }
                interbench::calibrate::calibrate(&crate::sys::signals::stop_requested)
            })?
            .join()
            .map_err(|_| anyhow::anyhow!("calibration panicked"))?;
        let Some(l) = l else {
            if crate::sys::signals::stop_requested() {
                return Err(Interrupted.into());
            }
            anyhow::bail!("could not calibrate loops_per_ms to within 5 % (a very noisy machine?): give one with -l");
        };
        self.o.loops_per_ms = l;
        self.calibration = format!("measured now (system {key})");
        if let Ok(Some(mut store)) = ctx.store_for_writing() {
            let doc = serde_json::json!({
                "loops_per_ms": l, "measured": crate::sys::time::unix_now(),
                "fingerprint": ctx.fingerprint().id,
            });
            store.put_document(CALIBRATION, &key, &doc.to_string())?;
            self.calibration += ", stored";
        }
        Ok(())
    }

    fn banner(&self) -> Option<String> {
        None
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "loops_per_ms": self.o.loops_per_ms, "calibration": self.calibration,
        })
    }

    fn trace(&self) -> crate::lifecycle::Trace {
        crate::lifecycle::Trace::of(self.trace.as_ref())
    }

    fn measure(&mut self, ctx: &Ctx, rep: Rep) -> Result<Outcome> {
        let show = !ctx.global.json;
        if show {
            if rep.of > 1 {
                println!("# run {}", rep.index + 1);
            }
            println!("Load set to {} processors\n", self.o.burn);
            println!(
                "Using {} loops per ms ({}), running every load for {} seconds",
                self.o.loops_per_ms, self.calibration, self.o.duration_s
            );
            println!(
                "Benchmarking kernel {} at datestamp {}\n",
                ctx.fingerprint().release.as_deref().unwrap_or("unknown"),
                crate::sys::time::rfc3339(crate::sys::time::unix_now())
            );
        }
        let mut live = Live {
            show,
            rt: self.o.rt,
            o: self.o.clone(),
            last: None,
        };
        interbench::run(&self.o, &mut live)
    }

    fn stopped(&self, out: &mut Outcome) -> Option<anyhow::Error> {
        out.interrupted.then(|| Interrupted.into())
    }

    fn record(&self, out: &Outcome, rec: &mut RunRecord) -> Result<()> {
        rec.absorb(&self.measurement(out))
    }

    fn text(&self, _ctx: &Ctx, out: &Outcome, _rep: Rep) -> String {
        // interbench's tables were printed live; kbench's lines follow.
        let mut t = String::from("\n");
        for s in &out.skipped {
            t += &format!("kbench: {s}\n");
        }
        for p in &out.pairs {
            let h = &p.latency;
            let ms = |v: u64| format!("{:.3}", v as f64 / 1_000_000.0);
            t += &format!(
                "kbench: {} under {}: latency p50 {} p90 {} p99 {} max {} ms, mean {:.3} sd {:.3} ms ({} periods, {:.1}% of a CPU){}\n",
                p.task.label(),
                p.load.label(),
                ms(h.value_at_quantile(0.5)),
                ms(h.value_at_quantile(0.9)),
                ms(h.value_at_quantile(0.99)),
                ms(h.max()),
                p.account.mean() / 1e6,
                p.account.sd() / 1e6,
                p.account.samples,
                p.cpu_share_pct(),
                if p.task == Kind::Gaming {
                    format!(", {:.1} frames/s", p.fps())
                } else {
                    String::new()
                }
            );
        }
        t += "kbench: interbench's \"+/- SD\" column is its own formula (close to the root mean square); kbench's sd above is the standard deviation\n";
        t
    }

    fn json(&self, out: &Outcome) -> serde_json::Value {
        let pairs: Vec<serde_json::Value> = out
            .pairs
            .iter()
            .map(|p| {
                let a = &p.account;
                serde_json::json!({
                    "task": p.task.label(), "load": p.load.label(),
                    "latency_avg_ms": a.mean() / 1e6, "latency_sd_ms": a.sd() / 1e6,
                    "interbench_sd_ms": a.interbench_sd() / 1e6,
                    "latency_max_ms": a.max_latency as f64 / 1e6,
                    "desired_cpu_pct": a.desired_cpu_pct(),
                    "deadlines_met_pct": (p.task != Kind::Gaming).then(|| a.deadlines_met_pct()),
                    "fps": (p.task == Kind::Gaming).then(|| p.fps()),
                    "periods": a.samples, "seconds": p.seconds, "cpu_share_pct": p.cpu_share_pct(),
                    "load_report": p.load_report,
                })
            })
            .collect();
        serde_json::json!({
            "loops_per_ms": self.o.loops_per_ms, "calibration": self.calibration,
            "pairs": pairs, "skipped": out.skipped, "interrupted": out.interrupted,
            "metrics": self.measurement(out).metrics,
        })
    }
}
