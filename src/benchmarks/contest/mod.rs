//! `kbench contest`: run the suite (or `--show` it from the store) and
//! print contest's table.

pub mod args;
pub mod engine;
pub mod metrics;
pub mod params;

use crate::benchmarks::contest::engine::table::{self, Row};
use crate::benchmarks::contest::engine::{self as contest, RunResult, CACHERUN, NOLOAD};
use crate::benchmarks::contest::metrics as declared;
use crate::benchmarks::job::engine::{Job, Spec};
use crate::error::input;
use crate::lifecycle::entry::{self, Entry};
use crate::lifecycle::{drive, Benchmark, Rep};
use crate::load::LoadOptions;
use crate::session::{print_json, Ctx};
use crate::store::{RunFilter, RunRecord};
use anyhow::Result;
use args::ContestArgs;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

const ABOUT: &str = "Time a build under each background load, contest-style";

/// `contest` in the registry.
pub const ENTRY: Entry = Entry {
    name: "contest",
    about: ABOUT,
    metrics: metrics::ALL,
    parts: &[],
    headline: "time",
    command: || entry::command::<ContestArgs>("contest", ABOUT),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate: entry::no_estimate,
    canonical: entry::canonical_via::<params::Contest>,
    warmup: false,
    // `contest --show` prints the table of stored runs of every label named.
    many_labels: |m| m.get_flag("show"),
    spell,
};

/// Each run's one load, stored as `load` (of the list `--loads` gives),
/// and its job as its words; the round is no flag (compare leaves it out).
fn spell(s: entry::Spelling) -> entry::Spelling {
    s.arg("load", "loads").words("job").unsaid("round")
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

/// contest through the one lifecycle: each (round, load) step is one
/// repetition, stored with its load and round as parameters, with the
/// health monitor beside it; a load that fails is stored as failed and
/// the suite goes on, as contest did (a failing job, noload or cacherun
/// ends it).  The table of every step is its result.
struct Contest {
    job: Job,
    /// Every load of a round (noload and cacherun included), as asked.
    loads: Vec<String>,
    rounds: u32,
    load_opts: LoadOptions,
    /// Steps in a round: noload, cacherun and each load.
    per_round: u32,
    /// Said after the job's identity when its parallelism is contest's.
    jobs_note: &'static str,
    /// The label whose noload Time is the Ratio's denominator.
    reference: String,
    /// The reference's stored rows of this job, when it is another label.
    prior: Vec<Row>,
    bar: ProgressBar,
    /// Steps that failed while the suite went on.
    failures: Vec<String>,
}

/// One step: the job's times beside the load, and its row of the table.
struct Step {
    result: RunResult,
    row: Row,
}

impl Contest {
    /// Round and load of repetition `rep`: rounds in order, each in its
    /// rotated load order (`contest::round_order`).
    fn step_of(&self, rep: Rep) -> (u32, String) {
        let round = rep.index / self.per_round;
        let order = contest::round_order(&self.loads, round);
        let k = (rep.index % self.per_round) as usize;
        (round, order.get(k).cloned().unwrap_or_default())
    }

    fn labels(&self, ctx: &Ctx) -> Vec<String> {
        let label = ctx.label();
        if self.reference == label {
            vec![label]
        } else {
            vec![self.reference.clone(), label]
        }
    }
}

impl Benchmark for Contest {
    type Outcome = Step;

    fn entry(&self) -> &'static Entry {
        &ENTRY
    }

    fn params(&self) -> Result<serde_json::Value> {
        Ok(crate::lifecycle::entry::to_value(&params::Contest {
            v: 1,
            load: None,
            job: Some(self.job.identity()),
            round: None,
        }))
    }

    fn params_of(&self, rep: Rep, _all: &serde_json::Value) -> serde_json::Value {
        let (round, load) = self.step_of(rep);
        crate::lifecycle::entry::to_value(&params::Contest {
            v: 1,
            load: Some(load),
            job: Some(self.job.identity()),
            round: Some(round),
        })
    }

    fn prepare(&mut self, ctx: &Ctx) -> Result<()> {
        ctx.info(&format!(
            "kbench contest: job {}{}; each load runs {} s before the job starts, as contest's did; preparing (untimed)",
            self.job.identity(),
            self.jobs_note,
            contest::SETTLE.as_secs()
        ));
        self.job.prepare()?;
        if self.reference != ctx.label() {
            // The reference's noload comes from the store.
            let identity = self.job.identity();
            self.prior = ctx
                .store_for_reading()?
                .load_runs(
                    &RunFilter {
                        labels: vec![self.reference.clone()],
                        benchmarks: vec!["contest".into()],
                        only_complete: true,
                        ..Default::default()
                    },
                    false,
                )?
                .iter()
                .filter(|r| r.params.get("job").and_then(|j| j.as_str()) == Some(identity.as_str()))
                .filter_map(Row::from_run)
                .collect();
        }
        if !ctx.global.quiet && !ctx.global.json {
            self.bar = ProgressBar::with_draw_target(
                Some(u64::from(self.per_round) * u64::from(self.rounds)),
                ProgressDrawTarget::stderr(),
            );
            self.bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} runs, {elapsed} elapsed, ETA {eta}  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
        }
        Ok(())
    }

    fn measure(&mut self, ctx: &Ctx, rep: Rep) -> Result<Step> {
        let (round, load) = self.step_of(rep);
        self.bar.set_message(format!("round {} {load}", round + 1));
        let bar = self.bar.clone();
        let result = contest::step(&self.job, &load, &self.load_opts, &mut || bar.tick());
        self.bar.inc(1);
        let r = result?;
        let lr = r.load_report.as_ref();
        let note = (r.load == "mem" && crate::load::size::Memory::read().swap_free == 0)
            .then_some(NO_SWAP);
        let row = Row {
            label: ctx.label(),
            load: r.load.clone(),
            time_s: r.times.wall_s,
            cpu_percent: r.times.cpu_percent(),
            loads: lr.map_or(0.0, |l| l.work),
            lcpu_percent: lr.map_or(0.0, |l| l.cpu_s / r.times.wall_s.max(1e-9) * 100.0),
            loads_unit: lr.map_or(String::new(), |l| l.unit.clone()),
            note: note.map(str::to_string),
        };
        Ok(Step { result: r, row })
    }

    fn goes_on_after(&mut self, rep: Rep, err: &anyhow::Error) -> bool {
        let (round, load) = self.step_of(rep);
        let fatal = err.to_string().starts_with("job `") || load == NOLOAD || load == CACHERUN;
        if !fatal {
            self.bar
                .suspend(|| eprintln!("kbench: round {} {load} failed: {err:#}", round + 1));
            self.failures
                .push(format!("round {} {load}: {err:#}", round + 1));
        }
        !fatal
    }

    fn record(&self, s: &Step, rec: &mut RunRecord) -> Result<()> {
        let (r, row) = (&s.result, &s.row);
        rec.metrics = vec![
            declared::TIME.value(row.time_s),
            declared::CPU_PERCENT.value(row.cpu_percent),
            declared::LOADS.value_in(&row.loads_unit, row.loads),
            declared::LCPU_PERCENT.value(row.lcpu_percent),
            declared::USER.value(r.times.user_s),
            declared::SYS.value(r.times.sys_s),
        ];
        rec.set_settings(serde_json::json!({
            "caches_dropped": r.caches_dropped, "load": r.load_description,
            "note": row.note, "settle_s": contest::SETTLE.as_secs_f64(),
        }));
        Ok(())
    }

    fn text(&self, _ctx: &Ctx, _s: &Step, _rep: Rep) -> String {
        // The progress bar follows the steps; the table is the result.
        String::new()
    }

    fn json(&self, s: &Step) -> serde_json::Value {
        rows_json(std::slice::from_ref(&s.row))[0].clone()
    }

    fn json_top(&self, steps: &[Step]) -> serde_json::Value {
        let rows: Vec<Row> = steps.iter().map(|s| s.row.clone()).collect();
        serde_json::json!({
            "reference": self.reference, "job": self.job.identity(), "rows": rows_json(&rows),
            "failures": self.failures,
        })
    }

    fn result_text(&self, ctx: &Ctx, steps: &[Step]) -> Option<String> {
        self.bar.finish_and_clear();
        let rows: Vec<Row> = steps
            .iter()
            .map(|s| s.row.clone())
            .chain(self.prior.iter().cloned())
            .collect();
        (!rows.is_empty()).then(|| {
            table::render(
                &rows,
                &self.labels(ctx),
                &contest::block_order(),
                &self.reference,
            )
        })
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
    let mut jopts = a.job.options();
    jopts.jobs = Some(jobs);
    let spec = Spec::from_options(&jopts)?;
    let job = Job::new(spec, Some(jobs))?;
    let per_round = 2 + loads
        .iter()
        .filter(|l| *l != NOLOAD && *l != CACHERUN)
        .count() as u32;
    let steps = per_round
        .checked_mul(a.runs)
        .ok_or_else(|| input("contest: too many rounds of loads"))?;
    let mut c = Contest {
        job,
        loads,
        rounds: a.runs,
        load_opts,
        per_round,
        jobs_note: if a.job.jobs.is_none() {
            " (contest's make -j 4 x CPUs)"
        } else {
            ""
        },
        reference: a.reference.clone().unwrap_or_else(|| ctx.label()),
        prior: Vec::new(),
        bar: ProgressBar::hidden(),
        failures: Vec::new(),
    };
    drive(ctx, &mut c, crate::values::Runs::Fixed(steps))
}
