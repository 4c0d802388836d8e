//! `kbench contest`: run the suite (or `--show` it from the store) and
//! print contest's table.

pub mod args;
pub mod params;

use crate::bench::{Better, Metric};
use crate::benchmarks::job::args::JobArgs;
use crate::contest::table::{self, Row};
use crate::contest::{self, Observer, RunResult, CACHERUN, NOLOAD};
use crate::error::input;
use crate::job::{Job, JobOptions, Spec};
use crate::lifecycle::entry::{self, metric, Entry};
use crate::session::{print_json, save, Ctx};
use crate::store::{RunFilter, RunRecord, RunStatus, Store};
use anyhow::Result;
use args::ContestArgs;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

const ABOUT: &str = "Time a build under each background load, contest-style";

/// `contest` in the registry.
pub const ENTRY: Entry = Entry {
    name: "contest",
    about: ABOUT,
    metrics: &[
        metric(
            "time",
            "s",
            crate::bench::Better::Lower,
            "wall time of the build under the load (contest's Time)",
        ),
        metric(
            "cpu_percent",
            "%",
            crate::bench::Better::Neither,
            "CPU the build used (contest's CPU%)",
        ),
        metric(
            "loads",
            "work",
            crate::bench::Better::Neither,
            "work the load got done beside the build (contest's Loads)",
        ),
        metric(
            "lcpu_percent",
            "%",
            crate::bench::Better::Neither,
            "CPU the load used beside the build (contest's LCPU%)",
        ),
        metric(
            "user",
            "s",
            crate::bench::Better::Lower,
            "CPU time the build spent in user mode",
        ),
        metric(
            "sys",
            "s",
            crate::bench::Better::Lower,
            "CPU time the build spent in the kernel",
        ),
    ],
    headline: "time",
    command: || entry::command::<ContestArgs>("contest", ABOUT),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate: entry::no_estimate,
    canonical: entry::canonical_via::<params::Contest>,
    warmup: false,
    // `contest --show` prints the table of stored runs of every label named.
    many_labels: |m| m.get_flag("show"),
};

pub fn job_options(a: &JobArgs) -> JobOptions {
    JobOptions {
        kernel_tree: a.kernel_tree.clone(),
        kconfig: a.kconfig.clone(),
        target: a.target.clone(),
        jobs: a.jobs.map(|j| j as usize),
        cmd: a.job_cmd.clone(),
        dir: a.job_dir.clone(),
        prep: a.job_prep.clone(),
        clean: a.job_clean.clone(),
        size: a.job_size.clone(),
    }
}

/// What the table's footer says about a mem run on a machine without swap.
const NO_SWAP: &str = "mem_load: no swap here, so the mem load stays within free memory and cannot push pages out to swap as contest's did";

/// contest's table from stored runs of the `wanted` labels (all when
/// empty), Ratio against `reference` (default: the first label).
pub fn show(ctx: &Ctx, wanted: &[String], reference: Option<&str>) -> Result<()> {
    let store = ctx.store_for_reading()?;
    let wanted = wanted.to_vec();
    let runs = store.load_runs(
        &RunFilter {
            labels: wanted.clone(),
            benchmarks: vec!["contest".into()],
            only_complete: true,
            ..Default::default()
        },
        false,
    )?;
    if runs.is_empty() {
        return Err(input(format!(
            "no contest runs in {}{}",
            store.describe(),
            if wanted.is_empty() {
                String::new()
            } else {
                format!(" for {}", wanted.join(", "))
            }
        )));
    }
    let mut labels = wanted;
    if labels.is_empty() {
        for r in &runs {
            if !labels.contains(&r.label) {
                labels.push(r.label.clone());
            }
        }
    }
    let reference = reference.map_or_else(|| labels[0].clone(), str::to_string);
    let mut jobs: Vec<String> = Vec::new();
    for r in &runs {
        let j = r
            .params
            .get("job")
            .and_then(|j| j.as_str())
            .unwrap_or("?")
            .to_string();
        if !jobs.contains(&j) {
            jobs.push(j);
        }
    }
    let mut out = serde_json::Map::new();
    for j in &jobs {
        let rows: Vec<Row> = runs
            .iter()
            .filter(|r| r.params.get("job").and_then(|x| x.as_str()) == Some(j.as_str()))
            .filter_map(Row::from_run)
            .collect();
        if ctx.global.json {
            out.insert(j.clone(), rows_json(&rows));
        } else {
            if jobs.len() > 1 {
                println!("job: {j}\n");
            }
            println!(
                "{}",
                table::render(&rows, &labels, &contest::block_order(), &reference)
            );
        }
    }
    if ctx.global.json {
        let suspect = crate::health::suspect_ids(&runs);
        print_json(
            "contest",
            serde_json::json!({ "reference": reference, "labels": labels, "jobs": out, "suspect_runs": suspect }),
        )?;
    } else if let Some(line) = crate::health::suspect_line(&runs) {
        println!("{line}");
    }
    Ok(())
}

fn rows_json(rows: &[Row]) -> serde_json::Value {
    serde_json::Value::Array(
        rows.iter()
            .map(|r| {
                serde_json::json!({"label": r.label, "load": r.load, "time_s": r.time_s,
                "cpu_percent": r.cpu_percent, "loads": r.loads, "lcpu_percent": r.lcpu_percent})
            })
            .collect(),
    )
}

struct Recorder<'a> {
    ctx: &'a Ctx,
    store: Option<Box<dyn Store>>,
    job_identity: String,
    rows: Vec<Row>,
    bar: ProgressBar,
    failures: Vec<String>,
    started: f64,
    monitor: Option<Result<crate::health::Monitor, String>>,
}

impl Recorder<'_> {
    fn record(&mut self, load: &str, round: u32) -> RunRecord {
        let mut rec = self.ctx.new_run(
            "contest",
            crate::lifecycle::entry::to_value(&params::Contest {
                v: 1,
                load: Some(load.to_string()),
                job: Some(self.job_identity.clone()),
                round: Some(round),
            }),
        );
        rec.started = self.started;
        rec.ended = crate::sys::time::unix_now();
        let health = self
            .monitor
            .take()
            .unwrap_or_else(|| Err("no monitor was started".into()))
            .and_then(crate::health::Monitor::finish);
        if let Ok(Some(s)) = crate::lifecycle::record_health(health, &mut rec) {
            self.bar.suspend(|| self.ctx.info(&format!("kbench: {s}")));
        }
        rec
    }
}

impl Observer for Recorder<'_> {
    fn step(&mut self, load: &str, round: u32) {
        self.started = crate::sys::time::unix_now();
        self.monitor = Some(crate::health::Monitor::start(
            self.ctx.inherited.root_pid,
            false,
        ));
        self.bar.set_message(format!("round {} {load}", round + 1));
    }

    fn tick(&mut self) {
        self.bar.tick();
    }

    fn finished(&mut self, r: &RunResult) -> Result<()> {
        let mut rec = self.record(&r.load, r.round);
        let lr = r.load_report.as_ref();
        let loads = lr.map_or(0.0, |l| l.work);
        let lcpu = lr.map_or(0.0, |l| l.cpu_s / r.times.wall_s.max(1e-9) * 100.0);
        rec.metrics = vec![
            Metric::new("time", "s", r.times.wall_s, Better::Lower),
            Metric::new("cpu_percent", "%", r.times.cpu_percent(), Better::Neither),
            Metric::new(
                "loads",
                lr.map_or("", |l| l.unit.as_str()),
                loads,
                Better::Neither,
            ),
            Metric::new("lcpu_percent", "%", lcpu, Better::Neither),
            Metric::new("user", "s", r.times.user_s, Better::Lower),
            Metric::new("sys", "s", r.times.sys_s, Better::Lower),
        ];
        let note = (r.load == "mem" && crate::load::size::Memory::read().swap_free == 0)
            .then_some(NO_SWAP);
        rec.set_settings(serde_json::json!({
            "caches_dropped": r.caches_dropped, "load": r.load_description,
            "note": note, "settle_s": contest::SETTLE.as_secs_f64(),
        }));
        save(&mut self.store, &rec)?;
        self.rows.push(Row {
            label: rec.label.clone(),
            load: r.load.clone(),
            time_s: r.times.wall_s,
            cpu_percent: r.times.cpu_percent(),
            loads,
            lcpu_percent: lcpu,
            loads_unit: lr.map_or(String::new(), |l| l.unit.clone()),
            note: note.map(str::to_string),
        });
        self.bar.inc(1);
        Ok(())
    }

    fn failed(&mut self, load: &str, round: u32, err: &anyhow::Error, fatal: bool) -> Result<()> {
        let mut rec = self.record(load, round);
        rec.status = crate::lifecycle::status_of(err);
        rec.notes.push(format!("{err:#}"));
        save(&mut self.store, &rec)?;
        if rec.status == RunStatus::Failed && !fatal {
            self.bar
                .suspend(|| eprintln!("kbench: round {} {load} failed: {err:#}", round + 1));
            self.failures
                .push(format!("round {} {load}: {err:#}", round + 1));
        }
        self.bar.inc(1);
        Ok(())
    }
}

pub fn run(ctx: &Ctx, a: &ContestArgs) -> Result<()> {
    if a.show {
        // `--labels A,B` is the old spelling of `--label A --label B`.
        let mut wanted = ctx.global.label.clone();
        if let Some(l) = &a.labels {
            wanted.extend(l.split(',').map(|s| s.trim().to_string()));
        }
        return show(ctx, &wanted, a.reference.as_deref());
    }
    let load_opts = super::load::options(&a.place)?;
    let loads: Vec<String> = match a.loads.as_ref().and_then(|l| l.0.clone()) {
        Some(v) => {
            for l in &v {
                if l != NOLOAD && l != CACHERUN {
                    crate::load::build(l, &load_opts)?;
                }
            }
            v
        }
        None => {
            let (ok, skipped) = contest::available(&load_opts);
            for (name, why) in &skipped {
                ctx.info(&format!("kbench: skipping the {name} load: {why}"));
            }
            ok
        }
    };
    let jobs = a
        .job
        .jobs
        .map_or_else(contest::default_jobs, |j| j as usize);
    let mut jopts = job_options(&a.job);
    jopts.jobs = Some(jobs);
    let spec = Spec::from_options(&jopts)?;
    let mut job = Job::new(spec, Some(jobs))?;
    let store = ctx.store_for_writing()?;
    ctx.info(&format!(
        "kbench contest: job {}{}; each load runs {} s before the job starts, as contest's did; preparing (untimed)",
        job.identity(),
        if a.job.jobs.is_none() {
            " (contest's make -j 4 x CPUs)"
        } else {
            ""
        },
        contest::SETTLE.as_secs()
    ));
    job.prepare()?;
    let per_round = 2 + loads
        .iter()
        .filter(|l| *l != NOLOAD && *l != CACHERUN)
        .count() as u64;
    let bar = if ctx.global.quiet || ctx.global.json {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(
            Some(per_round * a.runs as u64),
            ProgressDrawTarget::stderr(),
        );
        b.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} runs, {elapsed} elapsed, ETA {eta}  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    };
    let mut rec = Recorder {
        ctx,
        store,
        job_identity: job.identity(),
        rows: Vec::new(),
        bar,
        failures: Vec::new(),
        started: crate::sys::time::unix_now(),
        monitor: None,
    };
    let result = contest::run(&job, &loads, a.runs, &load_opts, &mut rec);
    rec.bar.finish_and_clear();
    let label = ctx.label();
    let reference = a.reference.clone().unwrap_or_else(|| label.clone());
    let mut rows = rec.rows.clone();
    if reference != label {
        // The reference's noload comes from the store.
        if let Some(s) = &rec.store {
            let prior = s.load_runs(
                &RunFilter {
                    labels: vec![reference.clone()],
                    benchmarks: vec!["contest".into()],
                    only_complete: true,
                    ..Default::default()
                },
                false,
            )?;
            rows.extend(
                prior
                    .iter()
                    .filter(|r| {
                        r.params.get("job").and_then(|j| j.as_str())
                            == Some(job.identity().as_str())
                    })
                    .filter_map(Row::from_run),
            );
        }
    }
    let labels = if reference == label {
        vec![label.clone()]
    } else {
        vec![reference.clone(), label.clone()]
    };
    if ctx.global.json {
        print_json(
            "contest",
            serde_json::json!({ "label": label, "reference": reference, "job": job.identity(),
                                "rows": rows_json(&rec.rows), "failures": rec.failures }),
        )?;
    } else if !rows.is_empty() {
        print!(
            "{}",
            table::render(&rows, &labels, &contest::block_order(), &reference)
        );
    }
    result?;
    if !rec.failures.is_empty() {
        return Err(anyhow::anyhow!(
            "{} of the suite's runs failed (see above)",
            rec.failures.len()
        ));
    }
    Ok(())
}
