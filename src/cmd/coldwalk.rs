//! `kbench coldwalk PATH`: drop caches, walk, time; `--runs N`.

use super::{print_json, save, Ctx};
use crate::bench::coldwalk::{self, Options, Outcome};
use crate::cli::ColdwalkArgs;
use crate::error::{input, privilege, Interrupted};
use anyhow::Result;

pub fn run(ctx: &Ctx, a: &ColdwalkArgs) -> Result<()> {
    coldwalk::check_root(&a.path).map_err(input)?;
    let opts = Options {
        path: a.path.canonicalize().unwrap_or_else(|_| a.path.clone()),
        one_filesystem: a.one_file_system,
        stat_every_entry: a.stat,
    };
    let mut store = ctx.store_for_writing()?;
    let params = serde_json::json!({
        "path": opts.path, "one_filesystem": opts.one_filesystem, "stat_every_entry": opts.stat_every_entry,
    });
    let mut outs: Vec<Outcome> = Vec::new();
    let mut ids = Vec::new();
    for i in 0..a.runs {
        if crate::sys::signals::stop_requested() {
            return Err(Interrupted.into());
        }
        let dropped = if a.no_drop {
            false
        } else {
            crate::sys::proc::drop_caches().map_err(|e| {
                privilege(format!(
                    "dropping caches needs root ({e}): run as root, or pass --no-drop for a warm walk"
                ))
            })?;
            true
        };
        let mut rec = ctx.new_run("coldwalk", params.clone());
        let out = coldwalk::walk(&opts, dropped);
        rec.ended = crate::sys::time::unix_now();
        rec.set_settings(serde_json::json!({ "caches_dropped": dropped }));
        rec.absorb(&out.measurement())?;
        if let Some(id) = save(&mut store, &rec)? {
            ids.push(id);
        }
        if !ctx.global.json {
            println!(
                "{}: {} entries ({} dirs, {} files, {} symlinks, {} other, {} errors) in {:.3} s, {:.0} entries/s, {}{}",
                opts.path.display(),
                out.entries,
                out.dirs,
                out.files,
                out.symlinks,
                out.other,
                out.errors,
                out.wall_s,
                out.entries_per_s(),
                if dropped { "cold (caches dropped)" } else { "warm (caches not dropped)" },
                if a.runs > 1 { format!(" [run {}/{}]", i + 1, a.runs) } else { String::new() }
            );
        }
        outs.push(out);
    }
    if ctx.global.json {
        return print_json(
            "coldwalk",
            serde_json::json!({ "label": ctx.label(), "parameters": opts, "runs": outs, "stored_ids": ids }),
        );
    }
    Ok(())
}
