//! `kbench push --to URL` and `kbench pull --from URL`: copy runs between
//! the local store and a shared PostgreSQL store.  Runs carry a globally
//! unique id, so copying twice stores once, and each batch is one
//! transaction, so an interrupted copy completes on retry.

use crate::error::input;
use crate::session::{print_json, Ctx};
use crate::store::{self, Access, RunFilter, Store};
use anyhow::Result;

/// Runs per transaction.
const BATCH: usize = 200;

fn filter(ctx: &Ctx, since: Option<f64>) -> Result<RunFilter> {
    Ok(RunFilter {
        labels: ctx.global.label.clone(),
        since,
        ..Default::default()
    })
}

fn copy(ctx: &Ctx, from: &dyn Store, to: &mut dyn Store, f: &RunFilter, verb: &str) -> Result<()> {
    // Read ids first, then copy in batches, so memory stays bounded.
    let ids: Vec<i64> = from.list_runs(f)?.into_iter().map(|r| r.id).collect();
    let mut copied = 0;
    for chunk in ids.chunks(BATCH) {
        if crate::sys::signals::stop_requested() {
            return Err(crate::error::Interrupted.into());
        }
        let mut runs = Vec::with_capacity(chunk.len());
        for id in chunk {
            if let Some(r) = from.load_run(*id)? {
                runs.push(r);
            }
        }
        to.save_runs(&runs).map_err(|e| {
            input(format!(
                "{verb} stopped after {copied} of {} runs: {e:#}; run it again to finish (nothing is doubled)",
                ids.len()
            ))
        })?;
        copied += runs.len();
    }
    if ctx.global.json {
        return print_json(
            verb,
            serde_json::json!({ "runs": copied, "from": from.describe(), "to": to.describe() }),
        );
    }
    ctx.info(&format!(
        "{verb}: {copied} run(s) from {} to {}",
        from.describe(),
        to.describe()
    ));
    Ok(())
}

fn need_pg(url: &str, flag: &str) -> Result<()> {
    if !store::is_postgres(url) {
        return Err(input(format!(
            "{flag} takes a postgres:// URL, not '{url}'"
        )));
    }
    Ok(())
}

pub fn push(ctx: &Ctx, a: &crate::cli::PushArgs) -> Result<()> {
    need_pg(&a.to, "--to")?;
    let local = ctx.store_for_reading()?;
    let mut remote = store::open(Some(&a.to), Access::ReadWrite)?;
    copy(ctx, &*local, &mut *remote, &filter(ctx, a.since)?, "push")
}

pub fn pull(ctx: &Ctx, a: &crate::cli::PullArgs) -> Result<()> {
    need_pg(&a.from, "--from")?;
    let remote = store::open(Some(&a.from), Access::ReadOnly)?;
    let mut local = ctx.store_for_update()?;
    copy(ctx, &*remote, &mut *local, &filter(ctx, a.since)?, "pull")
}
