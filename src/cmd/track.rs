//! `kbench track`: flags to options, the report out, the gate.

use crate::cli::{OrderArg, TrackArgs, TrackFormat};
use crate::error::input;
use crate::session::Ctx;
use crate::track::{order::Order, Format, Options};
use anyhow::Result;

pub fn track(ctx: &Ctx, a: &TrackArgs) -> Result<()> {
    let since = a.since;
    if !ctx.global.label.is_empty() && a.label_glob.is_some() {
        return Err(input("give --label or --label-glob, not both"));
    }
    let order = match (a.order, ctx.global.label.is_empty()) {
        (Some(OrderArg::Time), _) => Order::Time,
        (Some(OrderArg::Version), _) => Order::Version,
        (Some(OrderArg::Given), _) | (None, false) => Order::Given,
        (None, true) => Order::Version,
    };
    if order == Order::Given && ctx.global.label.is_empty() {
        return Err(input(
            "--order given takes the order of the --label flags: give them",
        ));
    }
    if let Some(o) = &a.output {
        super::output::check(o)?;
    }
    let format = match (ctx.global.json, a.format) {
        (true, _) | (_, TrackFormat::Json) => Format::Json,
        (_, TrackFormat::Table) => Format::Table,
        (_, TrackFormat::Markdown) => Format::Markdown,
        (_, TrackFormat::Html) => Format::Html,
    };
    let options = Options {
        labels: ctx.global.label.clone(),
        glob: a.label_glob.clone(),
        since,
        order,
        metrics: a.metric.clone(),
        q: a.alpha.alpha,
        threshold_pct: ctx.global.threshold,
        format,
        fail_on_change: a.fail_on.is_some(),
        allow_emulated: a.allow_emulated,
    };
    if a.follow.follow {
        return follow(ctx, a, options);
    }
    if !a.follow.command.is_empty() {
        return Err(input(
            "a command after -- is what --follow measures each revision with: give --follow --repo DIR",
        ));
    }
    let out = crate::track::run(&options, ctx.store_for_reading()?.as_ref())?;
    super::output::emit(a.output.as_deref(), &out.text)?;
    match out.gate {
        Some(why) => Err(crate::error::GateFailed(why).into()),
        None => Ok(()),
    }
}

/// `track --follow`: the closed loop (`experiment::kinds::follow`).
fn follow(ctx: &Ctx, a: &TrackArgs, options: Options) -> Result<()> {
    use crate::experiment::kinds::follow;
    if a.fail_on.is_some() {
        return Err(input("--follow and --fail-on: give one"));
    }
    if let Some(k) = &a.follow.kcidb {
        super::output::check(k)?;
    }
    let format = options.format;
    let out = follow::run(&follow::Options {
        track: options,
        repo: a.follow.repo.clone().unwrap_or_default(),
        build: a.follow.build.clone(),
        revs: a.follow.revs.clone(),
        rounds: a.follow.again_units as usize,
        cap: a.follow.bisect_max_runs as usize,
        command: a.follow.command.clone(),
        parse: crate::cli::check,
        format,
        front: ctx.front(),
        resume: a.follow.resume.clone(),
    })?;
    if let Some(k) = &a.follow.kcidb {
        super::output::emit(Some(k), &out.kcidb)?;
    }
    super::output::emit(a.output.as_deref(), &out.text)
}
