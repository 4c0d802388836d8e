//! `kbench run FILE|PRESET` and `kbench presets`.

use crate::cli::{PresetsCommand, RunArgs};
use crate::error::{input, Interrupted};
use crate::scenario::runner::{self, Progress, Target};
use crate::scenario::{presets, report, schema, Phase, Role, Scenario};
use crate::session::{print_json, Ctx};
use crate::store::RunFilter;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;

pub fn presets(ctx: &Ctx, cmd: Option<PresetsCommand>) -> Result<()> {
    match cmd.unwrap_or(PresetsCommand::List) {
        PresetsCommand::List => {
            if ctx.global.json {
                let list: Vec<_> = presets::PRESETS
                    .iter()
                    .map(|(n, t)| serde_json::json!({ "name": n, "description": presets::description(t) }))
                    .collect();
                return print_json("presets", serde_json::json!({ "presets": list }));
            }
            for (n, t) in presets::PRESETS {
                println!("{n:18}  {}", presets::description(t));
            }
            Ok(())
        }
        PresetsCommand::Show { name } => {
            let t = presets::get(&name).ok_or_else(|| {
                input(format!(
                    "no preset '{name}' (presets: {})",
                    presets::PRESETS
                        .iter()
                        .map(|p| p.0)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
            print!("{t}");
            Ok(())
        }
    }
}

/// The scenario's text and a name for messages.
fn source(s: &str) -> Result<(String, String)> {
    if let Some(t) = presets::get(s) {
        return Ok((format!("preset {s}"), t.to_string()));
    }
    let p = PathBuf::from(s);
    if p.is_file() {
        let text =
            std::fs::read_to_string(&p).map_err(|e| input(format!("cannot read {s}: {e}")))?;
        return Ok((s.to_string(), text));
    }
    Err(input(format!(
        "'{s}' is neither a scenario file nor a preset (presets: {})",
        presets::PRESETS
            .iter()
            .map(|p| p.0)
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

fn plan_text(sc: &Scenario) -> String {
    let reps = match sc.auto_precision {
        Some(p) => format!(
            "up to {} repetitions (runs = \"auto\": until every probe is within ±{p}%)",
            sc.runs
        ),
        None => format!("{} repetition(s)", sc.runs),
    };
    let mut s = format!(
        "scenario {}: {}\n{reps}, scale {}\n",
        sc.name, sc.description, sc.scale
    );
    let (mut known, mut unknown) = (0.0, false);
    for (i, ph) in sc.phases.iter().enumerate() {
        let est = ph.estimate_s();
        match est {
            Some(e) => known += e,
            None => unknown = true,
        }
        s.push_str(&format!(
            "\nphase {} {}{}{}  (about {})\n",
            i + 1,
            ph.name,
            if ph.drop_caches {
                ", caches dropped first"
            } else {
                ""
            },
            if ph.settle.is_zero() {
                String::new()
            } else {
                format!(", settle {:.1} s", ph.settle.as_secs_f64())
            },
            est.map_or(
                "? s: a probe's length is not known in advance".into(),
                |e| format!("{e:.0} s")
            )
        ));
        for t in &ph.tasks {
            let role = match t.role {
                Role::Probe => "probe",
                Role::Background => "background",
            };
            let mut place = Vec::new();
            if let Some(c) = &t.cpus {
                place.push(format!("cpus {}", crate::sys::cpus::format_list(c)));
            }
            if let Some((p, prio)) = t.policy {
                place.push(format!("{} {prio}", p.name()));
            }
            if let Some(n) = t.nice {
                place.push(format!("nice {n}"));
            }
            if !t.own_session {
                place.push("kbench's session".into());
            }
            s.push_str(&format!(
                "  {:10} {:18} kbench {} {}{}\n",
                role,
                t.name,
                t.kind,
                t.argv.join(" "),
                if place.is_empty() {
                    String::new()
                } else {
                    format!("  [{}]", place.join(", "))
                }
            ));
        }
    }
    let total = known * sc.runs as f64;
    s.push_str(&format!(
        "\nestimated time: {}\n",
        if unknown {
            format!("at least {total:.0} s (some probes have no fixed length)")
        } else {
            format!("about {total:.0} s")
        }
    ));
    s
}

struct Bar {
    bar: ProgressBar,
    quiet: bool,
}

impl Progress for Bar {
    fn phase(&mut self, rep: u32, phase: &Phase) {
        self.bar
            .set_message(format!("repetition {} phase {}", rep + 1, phase.name));
    }
    fn tick(&mut self) {
        self.bar.tick();
    }
    fn done(&mut self, rep: u32, phase: &Phase, failure: Option<&str>) {
        if let Some(f) = failure {
            if !self.quiet && f != "interrupted" {
                self.bar.suspend(|| {
                    eprintln!(
                        "kbench: repetition {} phase {} failed: {f}",
                        rep + 1,
                        phase.name
                    )
                });
            }
        }
        self.bar.inc(1);
    }
}

/// The progress bar over a scenario's `steps` phases (hidden when quiet
/// or printing JSON).
fn phase_bar(ctx: &Ctx, steps: u64) -> ProgressBar {
    if ctx.global.quiet || ctx.global.json {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} phases, {elapsed} elapsed, ETA {eta}  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    }
}

/// The scenario's report (text or JSON) from the runs it stored.
fn report_run(
    ctx: &Ctx,
    store: &dyn crate::store::Store,
    sc: &crate::scenario::Scenario,
    target: &Target,
    db: &std::path::Path,
    failures: Option<&Vec<String>>,
) -> Result<()> {
    let runs = store.load_runs(
        &RunFilter {
            scenario: Some(target.id.clone()),
            ..Default::default()
        },
        false,
    )?;
    let complete: Vec<_> = runs
        .iter()
        .filter(|r| r.status == crate::store::RunStatus::Complete)
        .cloned()
        .collect();
    if ctx.global.json {
        let rows: Vec<_> = report::rows(sc, &complete)
            .into_iter()
            .map(|(t, cells, what)| serde_json::json!({ "row": t, "repetitions": cells, "meaning": what }))
            .collect();
        print_json(
            "run",
            serde_json::json!({ "scenario": sc.name, "scenario_run": target.id, "label": target.label, "rows": rows,
                                "runs_stored": runs.len(), "failures": failures }),
        )?;
    } else {
        print!("{}", report::render(&target.label, sc, &complete));
        if !ctx.global.no_store {
            ctx.info(&format!(
                "\n{} runs stored in {} as scenario run {}",
                runs.len(),
                crate::store::postgres::redact(&db.display().to_string()),
                target.id
            ));
            ctx.info(&next_step(store, sc, &target.label));
        }
    }
    Ok(())
}

/// What to do next, with the label this run used: compare it with the
/// label stored last that ran the same benchmarks, or measure the other
/// side first.
fn next_step(
    store: &dyn crate::store::Store,
    sc: &crate::scenario::Scenario,
    label: &str,
) -> String {
    let q = |s: &str| shlex::try_quote(s).map_or_else(|_| s.to_string(), |c| c.into_owned());
    let labels = store.labels().unwrap_or_default();
    let mine: Vec<&String> = labels
        .iter()
        .find(|l| l.label == label)
        .map(|l| l.benchmarks.iter().collect())
        .unwrap_or_default();
    let other = labels
        .iter()
        .filter(|l| l.label != label && l.benchmarks.iter().any(|b| mine.contains(&b)))
        .max_by(|a, b| a.last.total_cmp(&b.last));
    match other {
        Some(o) => format!(
            "next: kbench compare --label {} --label {}",
            q(&o.label),
            q(label)
        ),
        None => format!(
            "next: boot the other kernel (or change the setting), then\n  kbench run {} --label B && kbench compare --label {} --label B",
            q(&sc.name),
            q(label)
        ),
    }
}

pub fn run(ctx: &Ctx, a: &RunArgs) -> Result<()> {
    let (name, text) = source(&a.scenario)?;
    let vars: Vec<(String, String)> = a
        .vars
        .iter()
        .map(|v| {
            v.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.to_string()))
        })
        .collect::<Option<_>>()
        .ok_or_else(|| input("--var takes NAME=VALUE"))?;
    let mut sc = schema::parse(&name, &text, a.scale, &vars)?;
    if !sc.sweep.is_empty() {
        return sweep(ctx, a, &sc);
    }
    if let Some(r) = a.runs {
        sc.runs = r;
        sc.auto_precision = None;
    }
    if a.dry_run.dry_run {
        if ctx.global.json {
            return print_json("plan", serde_json::to_value(&sc)?);
        }
        print!("{}", plan_text(&sc));
        return Ok(());
    }
    // The runs go to the store (a temporary one with --no-store, for the report).
    let scratch = crate::sys::janitor::Scratch::in_tmp("run")?;
    let (db, store) = ctx.tasks_store(scratch.path())?;
    let id = format!("{}/{}", sc.name, &crate::sys::proc::random_hex128()[..12]);
    let target = Target {
        db: db.clone(),
        label: ctx.label(),
        id: id.clone(),
        root_pid: ctx.inherited.root_pid,
        vars: vars.clone(),
    };
    let bar = phase_bar(ctx, sc.runs as u64 * sc.phases.len() as u64);
    ctx.info(&format!(
        "kbench run {}: {} phase(s) × {} repetition(s), label {}",
        sc.name,
        sc.phases.len(),
        sc.runs,
        target.label
    ));
    let mut progress = Bar {
        bar,
        quiet: ctx.global.quiet,
    };
    let result = runner::run(&sc, &target, a.fail_fast, &mut progress, store.as_ref());
    progress.bar.finish_and_clear();
    if let Ok(o) = &result {
        // The report's columns are the repetitions that ran.
        sc.runs = o.reps;
        if let Some(why) = &o.stopped {
            ctx.info(&format!("kbench run {}: {why}", sc.name));
        } else if let Some(p) = sc.auto_precision {
            ctx.info(&format!(
                "kbench run {}: runs = \"auto\" reached its cap of {} repetitions before every probe was within ±{p}%",
                sc.name, o.reps
            ));
        }
    }
    let result = result.map(|o| o.failures);
    report_run(ctx, store.as_ref(), &sc, &target, &db, result.as_ref().ok())?;
    match result {
        Err(e) if e.downcast_ref::<Interrupted>().is_some() => Err(e),
        Err(e) => Err(e),
        Ok(f) if f.is_empty() => Ok(()),
        Ok(f) => Err(anyhow::anyhow!(
            "{} failure(s):\n  {}",
            f.len(),
            f.join("\n  ")
        )),
    }
}

/// A scenario with a `[sweep]`: a matrix over its variables, each point a
/// run of the scenario with `--var NAME=VALUE`, `runs` rounds.
fn sweep(ctx: &Ctx, a: &RunArgs, sc: &crate::scenario::Scenario) -> Result<()> {
    let vary = sc
        .sweep
        .iter()
        .map(|(k, v)| crate::experiment::vary::parse(&format!("{k}={v}")))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| input(format!("{}: sweep: {e}", a.scenario)))?;
    let mut command = vec![
        "run".to_string(),
        a.scenario.clone(),
        "--runs".into(),
        "1".into(),
    ];
    if let Some(s) = a.scale {
        command.extend(["--scale".into(), s.to_string()]);
    }
    for v in &a.vars {
        command.extend(["--var".into(), v.clone()]);
    }
    if a.fail_fast {
        command.push("--fail-fast".into());
    }
    if ctx.global.no_store {
        return Err(input(
            "a sweep compares its stored runs: --no-store does not fit",
        ));
    }
    crate::experiment::kinds::matrix::run(&crate::experiment::kinds::matrix::Options {
        knobs: Vec::new(),
        vary,
        scheds: Vec::new(),
        rounds: crate::values::Runs::Fixed(a.runs.unwrap_or(sc.runs)),
        seed: None,
        command,
        parse: crate::cli::check,
        metric: None,
        alpha: 0.05,
        threshold_pct: ctx.global.threshold,
        dry_run: a.dry_run.dry_run,
        wide: false,
        base_label: ctx.label(),
        front: ctx.front(),
    })
}
