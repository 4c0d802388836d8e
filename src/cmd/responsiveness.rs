//! `kbench responsiveness`: the original's flags and result lines, then
//! kbench's distribution of per-iteration response times.

use super::Ctx;
use crate::bench::responsiveness::{self, nearest_rank, Iteration, Options, Outcome};
use crate::cli::values::SleepPattern;
use crate::cli::ResponsivenessArgs;
use crate::error::input;
use crate::lifecycle::{drive, Benchmark, Rep};
use crate::registry::{self, metric, Entry};
use crate::store::RunRecord;
use crate::sys::tempdir::PrivateDir;
use anyhow::Result;

const ABOUT: &str =
    "Interactive response time while CPU hogs run (os-scheduler-responsiveness-test)";

/// `responsiveness` in the registry.
pub const ENTRY: Entry = Entry {
    name: "responsiveness",
    about: ABOUT,
    metrics: &[
        metric("total_response", "s", crate::bench::Better::Lower),
        metric("avg_response", "s", crate::bench::Better::Lower),
        metric("p99_response", "s", crate::bench::Better::Lower),
        metric("p50_response", "s", crate::bench::Better::Lower),
        metric("max_response", "s", crate::bench::Better::Lower),
        metric("p50_overshoot", "s", crate::bench::Better::Lower),
        metric("p99_overshoot", "s", crate::bench::Better::Lower),
        metric("p50_work", "s", crate::bench::Better::Lower),
        metric("runs", "count", crate::bench::Better::Neither),
        metric("prime_time_mean", "s", crate::bench::Better::Lower),
    ],
    headline: "avg_response",
    command: || registry::command::<ResponsivenessArgs>("responsiveness", ABOUT),
    run: |ctx, m| run(ctx, &registry::args(m)?),
    estimate: |argv| registry::flag_seconds(argv, "--time-limit"),
    canonical: registry::canonical_via::<Options>,
};

fn scaled(p: &SleepPattern, scale: f64) -> Result<Vec<f64>> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(input(format!(
            "--sleep-scale {scale} must be greater than zero"
        )));
    }
    Ok(p.0.iter().map(|x| x * scale).collect())
}

pub fn options(a: &ResponsivenessArgs, workdir: &std::path::Path) -> Result<Options> {
    let time_limit_s = a.time_limit.map(|t| t.as_secs_f64());
    let print_to = if a.print_to == "stdout" {
        "/dev/stdout".into()
    } else {
        std::path::PathBuf::from(&a.print_to)
    };
    let prime = a
        .prime
        .unwrap_or(crate::sys::cpus::online_here().len() as u32);
    if a.interactive == 0 && prime == 0 {
        return Err(input("nothing to run: give -i or -p more than 0"));
    }
    Ok(Options {
        interactive: a.interactive,
        prime,
        np: a.np,
        time_limit_s,
        sleeps_s: scaled(&a.sleep_pattern, a.sleep_scale)?,
        print_to,
        workdir: workdir.to_path_buf(),
    })
}

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

struct Responsiveness {
    opts: Options,
    _dir: PrivateDir,
}

impl Benchmark for Responsiveness {
    type Outcome = Outcome;

    fn name(&self) -> &'static str {
        "responsiveness"
    }

    fn params(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(&self.opts)?)
    }

    fn run_once(&mut self, ctx: &Ctx, _rep: Rep) -> Result<Outcome> {
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

pub fn run(ctx: &Ctx, a: &ResponsivenessArgs) -> Result<()> {
    let dir = PrivateDir::in_tmp("responsiveness")?;
    let opts = options(a, dir.path())?;
    if let Some(parent) = opts.print_to.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(input(format!(
                "--print-to {}: folder does not exist",
                opts.print_to.display()
            )));
        }
    }
    drive(ctx, &mut Responsiveness { opts, _dir: dir }, a.runs)
}
