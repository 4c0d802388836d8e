//! The result store: every run with its metrics, histograms and the
//! fingerprint of the system it ran on.
//!
//! Behind the [`Store`] trait so a shared PostgreSQL backend can sit beside
//! the embedded SQLite one.  A run is written in one transaction at the
//! end, with its final status, so the store never holds half a run.

pub mod foreign;
mod pg_connect;
pub mod postgres;
mod record;
mod rows;
mod schema;
mod sqlite;
mod tag;

pub use record::{
    Attachment, LabelSummary, RunFilter, RunRecord, RunStatus, RunSummary, StoredHistogram,
};
pub use sqlite::SqliteStore;
pub use tag::{Kind, Tag};

use anyhow::Result;
use std::path::PathBuf;

/// The newest schema this kbench writes and understands.
pub const SCHEMA_VERSION: i64 = schema::MIGRATIONS.len() as i64;

/// Storage of runs.
pub trait Store {
    /// Write a complete run (row, metrics, histograms, notes, fingerprint)
    /// atomically; returns its local id.
    fn save_run(&mut self, run: &RunRecord) -> Result<i64>;
    /// Write many runs in one transaction (all or none); returns their ids.
    fn save_runs(&mut self, runs: &[RunRecord]) -> Result<Vec<i64>>;
    /// Summaries of runs matching the filter, oldest first.
    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<RunSummary>>;
    /// Full runs matching the filter (with histograms when asked).
    fn load_runs(&self, filter: &RunFilter, histograms: bool) -> Result<Vec<RunRecord>>;
    /// One run by local id.
    fn load_run(&self, id: i64) -> Result<Option<RunRecord>>;
    /// Delete runs by id; returns how many existed.
    fn delete_runs(&mut self, ids: &[i64]) -> Result<usize>;
    /// Labels with run counts and fingerprint ids.
    fn labels(&self) -> Result<Vec<LabelSummary>>;
    /// A named document (a campaign's plan), or `None`.
    fn get_document(&self, kind: &str, name: &str) -> Result<Option<String>>;
    /// Create or replace a named document, atomically.
    fn put_document(&mut self, kind: &str, name: &str, body: &str) -> Result<()>;
    /// Every document of a kind: (name, body), by name.
    fn list_documents(&self, kind: &str) -> Result<Vec<(String, String)>>;
    /// Where the store is, for messages (never with a password).
    fn describe(&self) -> String;
    /// Is it reached over the network?
    fn is_remote(&self) -> bool {
        false
    }
}

/// How a store is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

/// The store location: `--db`/`KBENCH_DB`, else
/// `$XDG_DATA_HOME/kbench/results.db`, else `~/.local/share/kbench/results.db`.
pub fn default_path() -> PathBuf {
    default_path_in(
        std::env::var_os("XDG_DATA_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
        crate::sys::user::home,
    )
}

/// The rule of [`default_path`], apart from the process: only absolute
/// folders count (the XDG spec ignores a relative `XDG_DATA_HOME`; a unit
/// or `env -i` has no `HOME`), then the password database's home, then
/// `/var/lib/kbench`.  Never a path relative to the working folder.
fn default_path_in(
    xdg: Option<PathBuf>,
    home: Option<PathBuf>,
    passwd_home: impl FnOnce() -> Option<PathBuf>,
) -> PathBuf {
    if let Some(x) = xdg.filter(|p| p.is_absolute()) {
        return x.join("kbench/results.db");
    }
    match home.filter(|p| p.is_absolute()).or_else(passwd_home) {
        Some(h) => h.join(".local/share/kbench/results.db"),
        None => PathBuf::from("/var/lib/kbench/results.db"),
    }
}

#[cfg(test)]
#[test]
fn the_default_store_is_never_relative() {
    let p = |x: Option<&str>, h: Option<&str>, pw: Option<&str>| {
        default_path_in(x.map(PathBuf::from), h.map(PathBuf::from), || {
            pw.map(PathBuf::from)
        })
    };
    assert_eq!(
        p(Some("/x"), Some("/h"), None),
        PathBuf::from("/x/kbench/results.db")
    );
    assert_eq!(
        p(Some("rel"), Some("/h"), None),
        PathBuf::from("/h/.local/share/kbench/results.db")
    );
    assert_eq!(
        p(None, None, Some("/root")),
        PathBuf::from("/root/.local/share/kbench/results.db")
    );
    assert_eq!(
        p(None, Some(""), None),
        PathBuf::from("/var/lib/kbench/results.db")
    );
    assert!(p(None, Some("."), None).is_absolute());
}

/// Whether commands kept in the store named by `db` (a campaign's reboot
/// and block command, a bisection's build) may be run: only from a SQLite
/// file that no one but this user or root could have written
/// ([`crate::sys::private::trusted`]); never from a shared PostgreSQL
/// store, which anyone with its password can write.  `Err(why not)`.
pub fn trusted_for_commands(db: Option<&str>) -> std::result::Result<(), String> {
    match db.filter(|s| !s.trim().is_empty()) {
        Some(d) if is_postgres(d) => Err(
            "it is a shared PostgreSQL store, which anyone who can write to it could have planted a command in".into(),
        ),
        Some(d) => crate::sys::private::trusted(std::path::Path::new(d)),
        None => crate::sys::private::trusted(&default_path()),
    }
}

/// Open the store named by `db` (a path), or the default.
pub fn open(db: Option<&str>, access: Access) -> Result<Box<dyn Store>> {
    // An empty KBENCH_DB means "not set".
    let path = match db.filter(|s| !s.trim().is_empty()) {
        Some(s) if is_postgres(s) => return Ok(Box::new(postgres::PgStore::open(s)?)),
        Some(s) => PathBuf::from(s),
        None => default_path(),
    };
    Ok(Box::new(SqliteStore::open(&path, access)?))
}

/// Does `db` name a PostgreSQL database rather than a file?
pub fn is_postgres(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}
