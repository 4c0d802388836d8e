//! Opening a SQLite store safely: the path checked before SQLite sees it
//! (no symlink to nothing, no store created by a reader), the file's
//! identity (kbench's application id and schema), and before anything is
//! written, the whole of it: SQLite's `quick_check` of its pages and a
//! scan of the runs' text, which `quick_check` does not read.

use super::super::schema::APPLICATION_ID;
use super::super::Access;
use super::super::SCHEMA_VERSION;
use crate::error::input;
use anyhow::Result;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// Whether a store is at `path` (a new one may be made there when
/// writing); a folder, a dangling symlink, or nothing to read are refused.
pub(super) fn check_path(path: &Path, access: Access) -> Result<bool> {
    let shown = path.display();
    if path.is_dir() {
        return Err(input(format!(
            "result store {shown} is a directory; give a file path to --db"
        )));
    }
    let exists = path.exists();
    if !exists && std::fs::symlink_metadata(path).is_ok() {
        // A dangling symlink: SQLite would create whatever it names.
        let to = std::fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        return Err(input(format!(
            "result store {shown} is a symbolic link to {to}, which does not exist: kbench does not create a store through a link; point --db at the store itself"
        )));
    }
    if !exists && access == Access::ReadOnly {
        return Err(input(format!(
            "no result store at {shown} yet: run a benchmark first, or point --db/KBENCH_DB at an existing store"
        )));
    }
    if !exists {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                input(format!(
                    "cannot create the folder for result store {shown}: {e}"
                ))
            })?;
        }
    }
    Ok(exists)
}

/// Open the connection, refusing a store that cannot be written when
/// writing is asked.
pub(super) fn connect(path: &Path, access: Access) -> Result<Connection> {
    let shown = path.display();
    let flags = match access {
        Access::ReadOnly => OpenFlags::SQLITE_OPEN_READ_ONLY,
        Access::ReadWrite => OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
    } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let opened = if access == Access::ReadOnly && read_without_files(path) {
        Connection::open_with_flags(immutable_uri(path), flags | OpenFlags::SQLITE_OPEN_URI)
    } else {
        Connection::open_with_flags(path, flags)
    };
    let conn = opened.map_err(|e| {
        input(format!(
            "cannot open result store {shown}: {e} (is the folder writable?)"
        ))
    })?;
    if access == Access::ReadWrite
        && conn
            .is_readonly(rusqlite::DatabaseName::Main)
            .unwrap_or(false)
    {
        return Err(input(if crate::sys::fd::is_readonly_fs(path) {
            format!("result store {shown} is on a read-only filesystem: reading commands (runs, show, compare) work; to store runs pass another --db")
        } else {
            format!("result store {shown} is read-only: fix its permissions or pass another --db")
        }));
    }
    Ok(conn)
}

/// A kbench store of a schema this kbench reads: its schema version.
pub(super) fn check_identity(conn: &Connection, path: &Path) -> Result<i64> {
    let shown = path.display();
    // One read transaction, so another process creating the store at
    // the same moment cannot be seen half-way.
    let (app_id, version, tables) = read_identity(conn).map_err(|e| {
        let busy = matches!(
            e.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        );
        input(if busy {
            // Its data is fine: another process holds it (a long write,
            // or a lock taken by hand); moving it aside would lose runs.
            format!(
                "result store {shown} is locked by another process ({e}): wait for it to finish, or pass another --db"
            )
        } else {
            format!(
                "result store {shown} is not a readable SQLite database ({e}): move it aside or pass another --db"
            )
        })
    })?;
    if app_id != APPLICATION_ID && !(app_id == 0 && version == 0 && tables == 0) {
        return Err(input(format!(
            "{shown} is a SQLite database but not a kbench result store: pass another --db"
        )));
    }
    if version < 0 {
        super::super::schema::parse_version(&version.to_string(), &shown.to_string())?;
    }
    if version > SCHEMA_VERSION {
        return Err(input(format!(
            "result store {shown} has schema version {version}, newer than this kbench understands ({SCHEMA_VERSION}): upgrade kbench"
        )));
    }
    Ok(version)
}

/// Text of column `i` of a run's row (column 0 its id), or a conversion
/// failure that says which run holds what is not UTF-8 (a crafted or
/// damaged store), rather than SQLite's bare "Conversion error".
pub(super) fn text_of(r: &rusqlite::Row, i: usize, what: &str) -> rusqlite::Result<String> {
    match r.get_ref(i)? {
        rusqlite::types::ValueRef::Text(b) => {
            std::str::from_utf8(b).map(str::to_owned).map_err(|_| {
                let id: i64 = r.get(0).unwrap_or(0);
                rusqlite::Error::FromSqlConversionFailure(
                    i,
                    rusqlite::types::Type::Text,
                    format!("the {what} of run {id} is not UTF-8 text").into(),
                )
            })
        }
        _ => r.get(i),
    }
}

/// The first text of the runs' table that is not UTF-8, said with its
/// run: SQLite's `quick_check` looks at pages, not at what they hold.
fn first_bad_text(conn: &Connection) -> rusqlite::Result<Option<String>> {
    // A store another kbench is creating this moment has no runs yet.
    let has_runs: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'",
        [],
        |r| r.get(0),
    )?;
    if has_runs == 0 {
        return Ok(None);
    }
    let mut st = conn.prepare(
        "SELECT id, CAST(uuid AS BLOB), CAST(label AS BLOB), CAST(benchmark AS BLOB),
                CAST(params AS BLOB), CAST(settings AS BLOB) FROM runs",
    )?;
    let mut q = st.query([])?;
    while let Some(r) = q.next()? {
        for (i, what) in [
            (1, "id"),
            (2, "label"),
            (3, "benchmark"),
            (4, "parameters"),
            (5, "settings"),
        ] {
            if let rusqlite::types::ValueRef::Blob(b) = r.get_ref(i)? {
                if std::str::from_utf8(b).is_err() {
                    let id: i64 = r.get(0)?;
                    return Ok(Some(format!("the {what} of run {id} is not UTF-8 text")));
                }
            }
        }
    }
    Ok(None)
}

/// Nothing is written into a damaged store: its structure is checked
/// first (a store of 7.6 MB takes about 35 ms here).
pub(super) fn check_whole(conn: &Connection, path: &Path) -> Result<()> {
    let shown = path.display();
    let check: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .unwrap_or_else(|e| e.to_string());
    let check = if check == "ok" {
        first_bad_text(conn)
            .unwrap_or_else(|e| Some(e.to_string()))
            .unwrap_or(check)
    } else {
        check
    };
    if check != "ok" {
        return Err(input(format!(
            "result store {shown} is damaged ({}): nothing was written; restore it from a backup or pass another --db",
            crate::text::clean(&check)
        )));
    }
    Ok(())
}

/// Should a reading command open the store as immutable, creating no
/// `-wal`/`-shm` files beside it?  On a read-only filesystem it must
/// (SQLite cannot make them there, and nobody can be writing); and a user
/// reading someone else's store while nobody writes it (no `-wal` file)
/// must not leave files of their own in its folder, which the owner's
/// kbench would then trip over.
fn read_without_files(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if crate::sys::fd::is_readonly_fs(path) {
        return true;
    }
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let owner = std::fs::metadata(path).map(|m| m.uid()).ok();
    !Path::new(&wal).exists() && owner != Some(crate::sys::proc::euid())
}

/// `file:` URI of a store opened read-only and immutable (`%`, `?` and
/// `#` escaped, as SQLite's URI rules ask).
fn immutable_uri(path: &Path) -> String {
    let mut p = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' | '?' | '#' => p.push_str(&format!("%{:02X}", c as u32)),
            c => p.push(c),
        }
    }
    format!("file:{p}?mode=ro&immutable=1")
}

/// `(application_id, user_version, number of schema objects)`, read in
/// one transaction.
fn read_identity(conn: &Connection) -> rusqlite::Result<(i64, i64, i64)> {
    conn.execute_batch("BEGIN DEFERRED")?;
    let r = (|| {
        let app_id: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        Ok((app_id, version, tables))
    })();
    let _ = conn.execute_batch("COMMIT");
    r
}

#[cfg(test)]
mod tests {
    use crate::store::{Access, RunFilter, RunRecord, SqliteStore, Store};

    /// A store another process holds locked is said to be locked, not
    /// "not a readable SQLite database … move it aside".
    #[test]
    fn a_locked_store_is_said_to_be_locked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        drop(SqliteStore::open(&path, Access::ReadWrite).unwrap());
        let holder = rusqlite::Connection::open(&path).unwrap();
        holder
            .execute_batch("PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE")
            .unwrap();
        let other = rusqlite::Connection::open(&path).unwrap();
        let e = format!("{:#}", super::check_identity(&other, &path).unwrap_err());
        assert!(e.contains("is locked by another process"), "{e}");
        assert!(!e.contains("move it aside"), "{e}");
    }

    /// A label that is not UTF-8 (written by another program) is said
    /// with its run by a reader, and refuses writers by the integrity
    /// check, before anything is written.
    #[test]
    fn text_that_is_not_utf8_is_refused_with_its_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let id = {
            let mut s = SqliteStore::open(&path, Access::ReadWrite).unwrap();
            s.save_run(&RunRecord::new(
                "ok",
                "hackbench",
                serde_json::json!({}),
                None,
            ))
            .unwrap()
        };
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute("UPDATE runs SET label = CAST(X'6bff' AS TEXT)", [])
            .unwrap();
        let r = SqliteStore::open(&path, Access::ReadOnly).unwrap();
        let e = format!(
            "{:#}",
            r.load_runs(&RunFilter::default(), false).unwrap_err()
        );
        assert!(
            e.contains(&format!("the label of run {id} is not UTF-8")),
            "{e}"
        );
        drop(r);
        let e = format!(
            "{:#}",
            SqliteStore::open(&path, Access::ReadWrite).err().unwrap()
        );
        assert!(
            e.contains("is damaged")
                && e.contains("not UTF-8")
                && e.contains("nothing was written"),
            "{e}"
        );
    }
}
