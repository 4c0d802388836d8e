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
    let out = crate::track::run(
        &Options {
            labels: ctx.global.label.clone(),
            glob: a.label_glob.clone(),
            since,
            order,
            metrics: a.metric.clone(),
            q: a.alpha.alpha,
            threshold_pct: ctx.global.threshold,
            format,
            fail_on_change: a.fail_on.is_some(),
        },
        ctx.store_for_reading()?.as_ref(),
    )?;
    super::output::emit(a.output.as_deref(), &out.text)?;
    match out.gate {
        Some(why) => Err(crate::error::GateFailed(why).into()),
        None => Ok(()),
    }
}
