//! What every command shares, below every benchmark and command: the
//! global flags, what a parent kbench passed down ([`inherited`]), the
//! fingerprint (read once), the store, saving a run, the closing line and
//! JSON documents.  The lifecycle, the benchmarks and the commands above
//! it all take a [`Ctx`].

pub mod front;
pub mod global;
pub mod inherited;

pub use front::Front;
pub use global::GlobalArgs;
pub use inherited::Inherited;

use crate::fingerprint::Fingerprint;
use crate::store::{self, Access, RunRecord, Store};
use anyhow::Result;
use std::path::Path;

/// Version of every top-level JSON document kbench prints.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// What every command needs: the global flags, the fingerprint, the store.
pub struct Ctx {
    pub global: GlobalArgs,
    /// What a parent kbench passed down (scenario, experiment, isolation).
    pub inherited: Inherited,
    fingerprint: std::cell::OnceCell<Fingerprint>,
}

impl Ctx {
    pub fn new(global: GlobalArgs) -> Ctx {
        Ctx {
            global,
            inherited: Inherited::from_env(),
            fingerprint: std::cell::OnceCell::new(),
        }
    }

    /// The running system's fingerprint (read once).
    pub fn fingerprint(&self) -> &Fingerprint {
        self.fingerprint
            .get_or_init(|| Fingerprint::collect(Path::new("/")))
    }

    /// `--label`, else `<release>/<preempt mode>`.
    pub fn label(&self) -> String {
        self.global
            .label
            .first()
            .cloned()
            .unwrap_or_else(|| self.fingerprint().default_label())
    }

    /// Open the store for writing, unless `--no-store`.  Opened before any
    /// measurement so a bad `--db` fails before minutes of work.
    pub fn store_for_writing(&self) -> Result<Option<Box<dyn Store>>> {
        if self.global.no_store {
            return Ok(None);
        }
        store::open(self.global.db.as_deref(), Access::ReadWrite).map(Some)
    }

    /// Open the store for reading.
    pub fn store_for_reading(&self) -> Result<Box<dyn Store>> {
        store::open(self.global.db.as_deref(), Access::ReadOnly)
    }

    /// A new run record for `benchmark` with this label and fingerprint.
    /// When run as a scenario task, the record is tied to the scenario
    /// run, phase, repetition and placement the runner passed down.
    pub fn new_run(&self, benchmark: &str, params: serde_json::Value) -> RunRecord {
        let mut r = RunRecord::new(
            &self.label(),
            benchmark,
            params,
            Some(self.fingerprint().clone()),
        );
        self.inherited.tag(&mut r);
        r
    }

    /// The store, verbosity and voice an experiment front works with.
    pub fn front(&self) -> Front {
        Front::new(self.global.db.clone(), self.global.quiet, self.global.json)
    }

    /// The store, to change (delete, import), whatever `--no-store` says.
    pub fn store_for_update(&self) -> Result<Box<dyn Store>> {
        store::open(self.global.db.as_deref(), Access::ReadWrite)
    }

    /// Where a scenario's tasks (children) store their runs: `--db`, or
    /// with `--no-store` a store of its own in `scratch`, read for the
    /// report and dropped with it.  Its path or URL, and the store.
    pub fn tasks_store(&self, scratch: &Path) -> Result<(std::path::PathBuf, Box<dyn Store>)> {
        let db = if self.global.no_store {
            scratch.join("results.db")
        } else {
            self.global
                .db
                .as_deref()
                .map(std::path::PathBuf::from)
                .unwrap_or_else(store::default_path)
        };
        let s = store::open(Some(db.to_str().unwrap_or_default()), Access::ReadWrite)?;
        Ok((db, s))
    }

    /// Print progress/notes to stderr unless quiet.
    pub fn info(&self, msg: &str) {
        if !self.global.quiet {
            eprintln!("{msg}");
        }
    }
}

/// Save a run when there is a store; returns the id.  Runs are saved
/// after they are measured, so measuring never waits on the network; when
/// a remote store cannot take the run, it lands in the local store instead
/// (to push later) rather than being lost.
pub fn save(store: &mut Option<Box<dyn Store>>, run: &RunRecord) -> Result<Option<i64>> {
    let Some(s) = store else { return Ok(None) };
    match s.save_run(run) {
        Ok(id) => Ok(Some(id)),
        Err(e) if s.is_remote() => {
            let path = store::default_path();
            let mut local = store::open(path.to_str(), Access::ReadWrite)?;
            let id = local.save_run(run)?;
            eprintln!(
                "kbench: could not write to {}: {e:#}; run {id} was saved in {} instead: `kbench push --to URL` later",
                s.describe(),
                path.display()
            );
            Ok(Some(id))
        }
        Err(e) => Err(e),
    }
}

/// The closing line of every measuring command: which runs were stored
/// where, in one format (`stored as runs 3-5 in … (label …)`).
pub fn say_stored(ctx: &Ctx, store: &Option<Box<dyn Store>>, ids: &[i64]) {
    if let (Some(s), false) = (store, ids.is_empty()) {
        ctx.info(&format!(
            "stored as run{} {} in {} (label {})",
            if ids.len() > 1 { "s" } else { "" },
            crate::text::id_list(ids),
            s.describe(),
            ctx.label()
        ));
    }
}

/// A JSON document with its schema version and kind, pretty-printed.
pub fn json_doc(kind: &str, body: serde_json::Value) -> Result<String> {
    let mut doc = serde_json::json!({ "schema_version": JSON_SCHEMA_VERSION, "kind": kind });
    if let (Some(d), serde_json::Value::Object(b)) = (doc.as_object_mut(), body) {
        d.extend(b);
    }
    Ok(serde_json::to_string_pretty(&doc)?)
}

/// Print a JSON document with its schema version.
pub fn print_json(kind: &str, body: serde_json::Value) -> Result<()> {
    println!("{}", json_doc(kind, body)?);
    Ok(())
}
