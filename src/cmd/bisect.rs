//! `kbench bisect` and `kbench decide`: flags to options.

use crate::bisect::{self, Runner, Source};
use crate::cli::{BisectArgs, DecideArgs};
use crate::error::input;
use crate::session::Ctx;
use anyhow::Result;

fn env(ctx: &Ctx, machine: Option<crate::vm::MachineOptions>) -> bisect::Env {
    bisect::Env {
        front: ctx.front(),
        machine,
    }
}

pub fn bisect(ctx: &Ctx, a: &BisectArgs) -> Result<()> {
    if ctx.global.no_store {
        return Err(input(
            "a bisection keeps its runs and state in the store: --no-store does not fit",
        ));
    }
    if ctx.global.label.len() > 1 {
        return Err(input(
            "give one --label: the bisection's runs are labelled <label>/<candidate>",
        ));
    }
    let machine = a.vm.then(|| super::vm::machine(&a.machine));
    let e = env(ctx, machine);
    if let Some(id) = &a.log {
        return bisect::log(&e, Some(id.as_str()).filter(|s| !s.is_empty()));
    }
    if let Some(id) = &a.resume {
        return bisect::resume(&e, Some(id.as_str()).filter(|s| !s.is_empty()));
    }
    let source = match (&a.repo, a.candidates.is_empty()) {
        (Some(repo), true) => Source::Git {
            repo: repo.clone(),
            good: a.good.clone().unwrap_or_default(),
            bad: a.bad.clone().unwrap_or_default(),
            build: a.build.clone().unwrap_or_default(),
            image: a.image.clone(),
        },
        (None, false) => Source::List { items: a.candidates.clone() },
        _ => {
            return Err(input(
                "say what to bisect: --repo DIR --good REV --bad REV --build CMD, or --candidates A B …",
            ))
        }
    };
    let stored = matches!(&source, Source::List { items } if !a.vm && items.iter().all(|i| !std::path::Path::new(i).is_file()));
    let runner = if a.vm {
        Runner::Vm {
            append: a.append.clone(),
        }
    } else if stored {
        Runner::Stored
    } else if matches!(source, Source::List { .. }) {
        return Err(input(
            "--candidates that are files are kernel images: measure them with --vm",
        ));
    } else {
        Runner::InPlace
    };
    if runner != Runner::Stored && a.command.is_empty() {
        return Err(input("give the kbench command that measures a candidate after --, e.g. -- job --job-cmd ./prog"));
    }
    bisect::run(&bisect::Options {
        source,
        runner,
        command: a.command.clone(),
        metrics: a.metric.clone(),
        alpha: a.alpha.alpha,
        cap: a.max_runs.max_runs,
        threshold_pct: ctx.global.threshold,
        seed: a.seed.seed,
        label: ctx.global.label.first().cloned(),
        allow_emulated: a.allow_emulated,
        fresh_ends: a.fresh_ends,
        dry_run: a.dry_run.dry_run,
        parse: crate::cli::check,
        env: e,
    })
}

/// `kbench decide`: its exit status is the verdict (0, 1, 125); every
/// other failure exits 128, so `git bisect run` stops instead.
pub fn decide(ctx: &Ctx, a: &DecideArgs) -> Result<()> {
    let o = bisect::decide::Options {
        good: a.good.clone(),
        bad: a.bad.clone(),
        candidate: a.candidate.clone(),
        command: a.command.clone(),
        metrics: a.metric.clone(),
        alpha: a.alpha.alpha,
        cap: a.max_runs.max_runs,
        threshold_pct: ctx.global.threshold,
        steps: usize::from(a.steps),
        allow_emulated: a.allow_emulated,
        parse: crate::cli::check,
        env: env(ctx, None),
    };
    match bisect::decide::run(&o) {
        Ok(0) => Ok(()),
        Ok(code) => Err(crate::error::Exit {
            code,
            message: None,
        }
        .into()),
        Err(e) if e.downcast_ref::<crate::error::Interrupted>().is_some() => Err(e),
        Err(e) => Err(crate::error::Exit {
            code: bisect::decide::EXIT_ABORT,
            message: Some(format!("{e:#}")),
        }
        .into()),
    }
}
