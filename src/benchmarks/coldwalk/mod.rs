//! `kbench coldwalk PATH`: drop caches, walk, time; `--runs N`.

pub mod args;
pub mod metrics;

use crate::benchmarks::coldwalk::metrics as declared;
use crate::error::{input, privilege, Interrupted};
use crate::lifecycle::entry::{self, Entry};
use crate::lifecycle::{drive, Benchmark, Rep};
use crate::load::walk::{self as coldwalk, Options, Outcome};
use crate::measure::Measurement;
use crate::session::Ctx;
use crate::store::RunRecord;
use anyhow::Result;
use args::ColdwalkArgs;

const ABOUT: &str = "Drop caches, then walk a directory tree like `ls -R`, timed";

/// `coldwalk` in the registry.
pub const ENTRY: Entry = Entry {
    name: "coldwalk",
    about: ABOUT,
    metrics: metrics::ALL,
    parts: &[],
    headline: "wall",
    command: || entry::command::<ColdwalkArgs>("coldwalk", ABOUT),
    run: |ctx, m| run(ctx, &entry::args(m)?),
    estimate: entry::no_estimate,
    canonical: entry::canonical_via::<Options>,
    warmup: false,
    many_labels: entry::one_label,
    spell: entry::by_flags,
};

struct Coldwalk {
    opts: Options,
    drop_caches: bool,
}

impl Benchmark for Coldwalk {
    type Outcome = Outcome;

    fn entry(&self) -> &'static Entry {
        &ENTRY
    }

    fn params(&self) -> Result<serde_json::Value> {
        Ok(serde_json::to_value(&self.opts)?)
    }

    fn measure(&mut self, _ctx: &Ctx, _rep: Rep) -> Result<Outcome> {
        if self.drop_caches {
            crate::sys::proc::drop_caches().map_err(|e| {
                privilege(format!(
                    "dropping caches needs root ({e}): run as root, or pass --no-drop for a warm walk"
                ))
            })?;
        }
        Ok(coldwalk::walk(&self.opts, self.drop_caches))
    }

    fn stopped(&self, out: &mut Outcome) -> Option<anyhow::Error> {
        out.interrupted.then(|| Interrupted.into())
    }

    fn record(&self, out: &Outcome, rec: &mut RunRecord) -> Result<()> {
        rec.set_settings(serde_json::json!({ "caches_dropped": out.caches_dropped }));
        rec.absorb(&measurement(out))
    }

    fn text(&self, _ctx: &Ctx, out: &Outcome, rep: Rep) -> String {
        format!(
            "{}: {} entries ({} dirs, {} files, {} symlinks, {} other, {} errors) in {:.3} s, {:.0} entries/s, {}{}\n",
            self.opts.path.display(),
            out.entries,
            out.dirs,
            out.files,
            out.symlinks,
            out.other,
            out.errors,
            out.wall_s,
            out.entries_per_s(),
            if out.caches_dropped { "cold (caches dropped)" } else { "warm (caches not dropped)" },
            rep.suffix()
        )
    }

    fn json(&self, out: &Outcome) -> serde_json::Value {
        serde_json::to_value(out).unwrap_or_default()
    }
}

pub fn run(ctx: &Ctx, a: &ColdwalkArgs) -> Result<()> {
    coldwalk::check_root(&a.path).map_err(input)?;
    let opts = Options {
        path: a.path.canonicalize().unwrap_or_else(|_| a.path.clone()),
        one_filesystem: a.one_file_system,
        stat_every_entry: a.stat,
    };
    let mut b = Coldwalk {
        opts,
        drop_caches: !a.no_drop,
    };
    drive(ctx, &mut b, a.runs)
}

/// A walk's figures: its time and rate, what it found, and a note when
/// the caches were warm.
fn measurement(o: &Outcome) -> Measurement {
    let mut m = Measurement::default();
    m.record(&declared::WALL, o.wall_s);
    m.record(&declared::ENTRIES_PER_S, o.entries_per_s());
    m.record(&declared::ENTRIES, o.entries as f64);
    m.record(&declared::DIRS, o.dirs as f64);
    m.record(&declared::ERRORS, o.errors as f64);
    if !o.caches_dropped {
        m.notes
            .push("caches were not dropped: this was a warm walk".into());
    }
    m
}
