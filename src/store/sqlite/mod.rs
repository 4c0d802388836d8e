//! The embedded SQLite store (WAL mode, busy timeout, versioned schema).
//!
//! Opening validates before it writes anything: a file that is not SQLite,
//! a SQLite file that is not a kbench store, or a store from a newer kbench
//! is refused with the file left untouched.

mod open;
mod write;

use super::record::*;
use super::schema::{APPLICATION_ID, MIGRATIONS};
use super::{Access, Store, SCHEMA_VERSION};
use crate::error::input;
use crate::measure::{Better, Metric};
use anyhow::{Context, Result};
use open::{check_identity, check_path, check_whole, connect, text_of};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;
use write::insert_run;

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

impl SqliteStore {
    /// Open (creating folders and file when writing) and migrate.
    pub fn open(path: &Path, access: Access) -> Result<SqliteStore> {
        let shown = path.display();
        let exists = check_path(path, access)?;
        let conn = connect(path, access)?;
        conn.busy_timeout(Duration::from_secs(60))?;
        let version = check_identity(&conn, path)?;
        let mut store = SqliteStore {
            conn,
            path: path.to_path_buf(),
        };
        if access == Access::ReadWrite && exists {
            check_whole(&store.conn, path)?;
        }
        if access == Access::ReadWrite {
            set_wal(&store.conn)
                .map_err(|e| input(format!("cannot write result store {shown}: {e}")))?;
            store.migrate(version)?;
        } else if version == 0 {
            return Err(input(format!(
                "result store {shown} has no runs yet (another kbench may be creating it this moment): run a benchmark first, or try again"
            )));
        } else if version < SCHEMA_VERSION {
            return Err(input(format!(
                "result store {shown} has schema version {version}; run any kbench command that writes to it to upgrade it"
            )));
        }
        store.conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(store)
    }

    /// Apply migrations `from..SCHEMA_VERSION`, all in one transaction: a
    /// reader opening the store meanwhile sees it as it was or as it will
    /// be, never a schema half-way (which it would be told to upgrade).
    fn migrate(&mut self, _from: i64) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Re-read inside the write lock: another process may have migrated.
        let from: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if from >= SCHEMA_VERSION {
            return Ok(());
        }
        for v in from..SCHEMA_VERSION {
            tx.execute_batch(MIGRATIONS[v as usize]).with_context(|| {
                format!(
                    "migrating {} to schema version {}",
                    self.path.display(),
                    v + 1
                )
            })?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        tx.commit()?;
        Ok(())
    }

    /// A store that came from somewhere else (a guest's), checked before
    /// anything reads it: kbench's tables must be tables (a view or a
    /// virtual table can make a few kilobytes read as millions of rows:
    /// a 74 KB guest store grew the host to 6 GB) and hold at most
    /// `max_rows` rows each.
    pub fn check_foreign(&self, max_rows: i64) -> Result<()> {
        for t in [
            "systems",
            "runs",
            "metrics",
            "histograms",
            "notes",
            "attachments",
        ] {
            let kind: Option<String> = self
                .conn
                .query_row(
                    "SELECT type FROM sqlite_master WHERE name = ?1",
                    params![t],
                    |r| r.get(0),
                )
                .optional()?;
            match kind.as_deref() {
                None if t == "attachments" => continue,
                Some("table") => {}
                other => anyhow::bail!("its {t} is {}, not a table", other.unwrap_or("missing")),
            }
            let n: i64 = self.conn.query_row(
                &format!("SELECT count(*) FROM (SELECT 1 FROM {t} LIMIT ?1)"),
                params![max_rows + 1],
                |r| r.get(0),
            )?;
            if n > max_rows {
                anyhow::bail!("its {t} holds more than {max_rows} rows");
            }
        }
        Ok(())
    }

    /// Apply only the first `n` migrations (for migration tests).
    #[cfg(test)]
    pub fn create_at_version(path: &Path, n: usize) -> Result<()> {
        let conn = Connection::open(path)?;
        for (i, m) in MIGRATIONS.iter().take(n).enumerate() {
            conn.execute_batch(m)?;
            conn.pragma_update(None, "user_version", i as i64 + 1)?;
        }
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
        Ok(())
    }

    fn where_clause(filter: &RunFilter) -> (String, Vec<rusqlite::types::Value>) {
        use rusqlite::types::Value;
        let (sql, args) = filter.to_sql(Dialect::Sqlite);
        let args = args
            .into_iter()
            .map(|a| match a {
                SqlArg::Text(t) => Value::Text(t),
                SqlArg::Real(r) => Value::Real(r),
                SqlArg::Texts(_) => unreachable!("SQLite lists are spelled out"),
            })
            .collect();
        (sql, args)
    }

    fn metrics_of(&self, id: i64) -> Result<Vec<Metric>> {
        let mut st = self.conn.prepare_cached(
            "SELECT name, unit, value, better FROM metrics WHERE run_id = ? ORDER BY ord, rowid",
        )?;
        let rows = st.query_map([id], |r| {
            Ok(Metric {
                name: r.get(0)?,
                unit: r.get(1)?,
                value: r.get(2)?,
                better: Better::parse(&r.get::<_, String>(3)?),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn row_to_record(r: &rusqlite::Row) -> rusqlite::Result<(RunRecord, Option<String>)> {
        let params = text_of(r, 4, "parameters")?;
        let settings = text_of(r, 5, "settings")?;
        let fp_json: Option<String> = r.get(13)?;
        Ok((
            RunRecord {
                id: r.get(0)?,
                uuid: text_of(r, 1, "id")?,
                label: text_of(r, 2, "label")?,
                benchmark: text_of(r, 3, "benchmark")?,
                params: serde_json::from_str(&params).unwrap_or(serde_json::Value::Null),
                settings: serde_json::from_str(&settings).unwrap_or(serde_json::Value::Null),
                started: r.get(6)?,
                ended: r.get(7)?,
                status: RunStatus::parse(&r.get::<_, String>(8)?),
                fingerprint: None,
                metrics: Vec::new(),
                histograms: Vec::new(),
                attachments: Vec::new(),
                notes: Vec::new(),
                scenario: r.get(9)?,
                phase: r.get(10)?,
                repetition: r.get(11)?,
                imported: r.get::<_, i64>(12)? != 0,
            },
            fp_json,
        ))
    }

    /// Metrics and notes of many runs at once: a query per few thousand
    /// runs rather than two per run.
    fn fill_many(&self, out: &mut [RunRecord]) -> Result<()> {
        let at: std::collections::HashMap<i64, usize> =
            out.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
        let ids: Vec<i64> = out.iter().map(|r| r.id).collect();
        for chunk in ids.chunks(5000) {
            let marks = vec!["?"; chunk.len()].join(",");
            let mut st = self.conn.prepare(&format!(
                "SELECT run_id, name, unit, value, better FROM metrics WHERE run_id IN ({marks}) ORDER BY run_id, ord, rowid"
            ))?;
            let mut q = st.query(rusqlite::params_from_iter(chunk))?;
            while let Some(r) = q.next()? {
                let id: i64 = r.get(0)?;
                if let Some(&i) = at.get(&id) {
                    out[i].metrics.push(Metric {
                        name: r.get(1)?,
                        unit: r.get(2)?,
                        value: r.get(3)?,
                        better: Better::parse(&r.get::<_, String>(4)?),
                    });
                }
            }
            let mut st = self.conn.prepare(&format!(
                "SELECT run_id, text FROM notes WHERE run_id IN ({marks}) ORDER BY run_id, ord, rowid"
            ))?;
            let mut q = st.query(rusqlite::params_from_iter(chunk))?;
            while let Some(r) = q.next()? {
                let id: i64 = r.get(0)?;
                if let Some(&i) = at.get(&id) {
                    out[i].notes.push(r.get(1)?);
                }
            }
        }
        Ok(())
    }

    const RUN_COLUMNS: &'static str =
        "r.id, r.uuid, r.label, r.benchmark, r.params, r.settings, r.started, r.ended, \
         r.status, r.scenario, r.phase, r.repetition, r.imported, s.json";

    fn fill(&self, rec: &mut RunRecord, fp_json: Option<String>, histograms: bool) -> Result<()> {
        rec.fingerprint = Fingerprints::default().of(fp_json);
        rec.metrics = self.metrics_of(rec.id)?;
        let mut st = self
            .conn
            .prepare_cached("SELECT text FROM notes WHERE run_id = ? ORDER BY ord, rowid")?;
        rec.notes = st
            .query_map([rec.id], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if histograms {
            let mut st = self.conn.prepare_cached(
                "SELECT name, unit, data FROM histograms WHERE run_id = ? ORDER BY ord, rowid",
            )?;
            rec.histograms = st
                .query_map([rec.id], |r| {
                    Ok(StoredHistogram {
                        name: r.get(0)?,
                        unit: r.get(1)?,
                        data: r.get(2)?,
                    })
                })?
                .collect::<rusqlite::Result<_>>()?;
            let mut st = self.conn.prepare_cached(
                "SELECT kind, data FROM attachments WHERE run_id = ? ORDER BY ord",
            )?;
            rec.attachments = st
                .query_map([rec.id], |r| {
                    Ok(crate::store::Attachment {
                        kind: r.get(0)?,
                        data: r.get(1)?,
                    })
                })?
                .collect::<rusqlite::Result<_>>()?;
        }
        Ok(())
    }
}

/// Switch to WAL once (it persists).  Changing the journal mode needs an
/// exclusive lock and SQLite may report "locked" without calling the busy
/// handler, so retry for a while when another process holds the file.
fn set_wal(conn: &Connection) -> rusqlite::Result<()> {
    let mut tries = 0;
    loop {
        let mode: rusqlite::Result<String> =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0));
        match mode {
            Ok(_) => return Ok(()),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && tries < 600 =>
            {
                tries += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(e),
        }
    }
}

impl Store for SqliteStore {
    fn save_run(&mut self, run: &RunRecord) -> Result<i64> {
        Ok(self.save_runs(std::slice::from_ref(run))?[0])
    }

    fn save_runs(&mut self, runs: &[RunRecord]) -> Result<Vec<i64>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .with_context(|| format!("writing to result store {}", self.path.display()))?;
        let mut ids = Vec::with_capacity(runs.len());
        for run in runs {
            ids.push(insert_run(&tx, run)?);
        }
        tx.commit()
            .with_context(|| format!("committing to result store {}", self.path.display()))?;
        Ok(ids)
    }

    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<RunSummary>> {
        let (wh, args) = Self::where_clause(filter);
        let sql = format!(
            "SELECT r.id, r.uuid, r.label, r.benchmark, r.started, r.status, s.fingerprint_id
             FROM runs r LEFT JOIN systems s ON s.key = r.system_key{wh}"
        );
        let mut st = self.conn.prepare(&sql)?;
        let rows = st.query_map(rusqlite::params_from_iter(args), |r| {
            Ok(RunSummary {
                id: r.get(0)?,
                uuid: r.get(1)?,
                label: r.get(2)?,
                benchmark: r.get(3)?,
                started: r.get(4)?,
                status: RunStatus::parse(&r.get::<_, String>(5)?),
                fingerprint_id: r.get(6)?,
                headline: None,
            })
        })?;
        let mut out: Vec<RunSummary> = rows.collect::<rusqlite::Result<_>>()?;
        for s in &mut out {
            s.headline = self
                .metrics_of(s.id)?
                .into_iter()
                .find(|m| !m.name.starts_with("health."));
        }
        Ok(out)
    }

    fn load_runs(&self, filter: &RunFilter, histograms: bool) -> Result<Vec<RunRecord>> {
        let (wh, args) = Self::where_clause(filter);
        let sql = format!(
            "SELECT {} FROM runs r LEFT JOIN systems s ON s.key = r.system_key{wh}",
            Self::RUN_COLUMNS
        );
        let mut st = self.conn.prepare(&sql)?;
        if histograms {
            let rows: Vec<(RunRecord, Option<String>)> = st
                .query_map(rusqlite::params_from_iter(args), Self::row_to_record)?
                .collect::<rusqlite::Result<_>>()?;
            let mut out = Vec::with_capacity(rows.len());
            for (mut rec, fp) in rows {
                self.fill(&mut rec, fp, histograms)?;
                out.push(rec);
            }
            return Ok(out);
        }
        // The runs held once (not as rows, then again as records).
        let mut fps = Fingerprints::default();
        let mut out = Vec::new();
        let mut q = st.query(rusqlite::params_from_iter(args))?;
        while let Some(r) = q.next()? {
            let (mut rec, fp) = Self::row_to_record(r)?;
            rec.fingerprint = fps.of(fp);
            out.push(rec);
        }
        self.fill_many(&mut out)?;
        Ok(out)
    }

    fn load_run(&self, id: i64) -> Result<Option<RunRecord>> {
        let sql = format!(
            "SELECT {} FROM runs r LEFT JOIN systems s ON s.key = r.system_key WHERE r.id = ?",
            Self::RUN_COLUMNS
        );
        let row = self
            .conn
            .query_row(&sql, [id], Self::row_to_record)
            .optional()?;
        let Some((mut rec, fp)) = row else {
            return Ok(None);
        };
        self.fill(&mut rec, fp, true)?;
        Ok(Some(rec))
    }

    fn delete_runs(&mut self, ids: &[i64]) -> Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut n = 0;
        for id in ids {
            n += tx.execute("DELETE FROM runs WHERE id = ?", [id])?;
        }
        tx.execute(
            "DELETE FROM systems WHERE key NOT IN (SELECT system_key FROM runs WHERE system_key IS NOT NULL)",
            [],
        )?;
        tx.commit()?;
        Ok(n)
    }

    fn labels(&self) -> Result<Vec<LabelSummary>> {
        let mut st = self.conn.prepare(
            "SELECT r.label, count(*), group_concat(DISTINCT r.benchmark), group_concat(DISTINCT s.fingerprint_id),
                    min(r.started), max(r.started)
             FROM runs r LEFT JOIN systems s ON s.key = r.system_key
             GROUP BY r.label ORDER BY min(r.started)",
        )?;
        let rows = st.query_map([], |r| {
            Ok(LabelSummary {
                label: r.get(0)?,
                runs: r.get(1)?,
                benchmarks: split_list(r.get(2)?),
                fingerprint_ids: split_list(r.get(3)?),
                first: r.get(4)?,
                last: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn get_document(&self, kind: &str, name: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT body FROM documents WHERE kind = ?1 AND name = ?2",
                params![kind, name],
                |r| r.get(0),
            )
            .optional()?)
    }

    fn put_document(&mut self, kind: &str, name: &str, body: &str) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO documents (kind, name, body, updated) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (kind, name) DO UPDATE SET body = excluded.body, updated = excluded.updated",
                params![kind, name, body, crate::sys::time::unix_now()],
            )
            .with_context(|| format!("writing to result store {}", self.path.display()))?;
        Ok(())
    }

    fn list_documents(&self, kind: &str) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn
            .prepare("SELECT name, body FROM documents WHERE kind = ?1 ORDER BY name")?;
        let rows = st.query_map(params![kind], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Better, Metric};

    #[test]
    fn migrates_a_version_1_store_and_keeps_its_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        SqliteStore::create_at_version(&path, 1).unwrap();
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(
                "INSERT INTO systems VALUES ('k1', 'abc123abc123', '{\"release\":\"2.5.39\",\"id\":\"abc123abc123\"}');
                 INSERT INTO runs (uuid, label, benchmark, params, settings, started, ended, status, system_key)
                   VALUES ('u1', '2.5.39-pe', 'contest', '{\"load\":\"process\"}', '{}', 1.0, 84.6, 'complete', 'k1');
                 INSERT INTO metrics VALUES (1, 'time', 's', 83.6, 'lower');
                 INSERT INTO notes VALUES (1, 'from the 2002 mail');",
            )
            .unwrap();
            let v: i64 = c
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .unwrap();
            assert_eq!(v, 1);
        }
        let store = SqliteStore::open(&path, Access::ReadWrite).unwrap();
        let v: i64 = store
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let run = store.load_run(1).unwrap().unwrap();
        assert_eq!(run.label, "2.5.39-pe");
        assert_eq!(
            run.metrics,
            vec![Metric::new("time", "s", 83.6, Better::Lower)]
        );
        assert_eq!(run.notes, vec!["from the 2002 mail".to_string()]);
        assert_eq!(run.fingerprint.unwrap().release.as_deref(), Some("2.5.39"));
        assert_eq!(run.scenario, None);
        assert!(!run.imported);
    }

    /// A reader opening a store while another kbench creates it sees no
    /// store yet or the whole of it, never a schema half-way that it is
    /// told to upgrade (the migrations once committed one by one).
    #[test]
    fn a_reader_during_creation_is_never_told_to_upgrade() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..40 {
            let path = dir.path().join(format!("s{i}.db"));
            let p = path.clone();
            let writer =
                std::thread::spawn(move || SqliteStore::open(&p, Access::ReadWrite).map(|_| ()));
            let mut seen = Vec::new();
            loop {
                let done = writer.is_finished();
                match SqliteStore::open(&path, Access::ReadOnly) {
                    Ok(_) => break,
                    Err(e) => seen.push(e.to_string()),
                }
                assert!(!done, "the store was made but cannot be read: {seen:?}");
            }
            writer.join().unwrap().unwrap();
            for e in &seen {
                assert!(
                    !e.contains("upgrade") && !e.contains("damaged"),
                    "store {i}: {e}"
                );
            }
        }
    }

    #[test]
    fn save_and_load_keep_everything() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = SqliteStore::open(&dir.path().join("s.db"), Access::ReadWrite).unwrap();
        let mut rec = RunRecord::new(
            "k",
            "cyclictest",
            serde_json::json!({"interval_us": 1000}),
            None,
        );
        rec.metrics
            .push(Metric::new("max", "us", 35.0, Better::Lower));
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        for v in [1000u64, 2000, 3000, 50_000] {
            h.record(v).unwrap();
        }
        rec.histograms.push(
            StoredHistogram::encode(&crate::measure::NamedHistogram {
                name: "latency".into(),
                unit: "ns".into(),
                hist: h.clone(),
            })
            .unwrap(),
        );
        rec.status = RunStatus::Interrupted;
        rec.scenario = Some("quick".into());
        rec.repetition = Some(2);
        let id = store.save_run(&rec).unwrap();
        let back = store.load_run(id).unwrap().unwrap();
        assert_eq!(back.uuid, rec.uuid);
        assert_eq!(back.status, RunStatus::Interrupted);
        assert_eq!(back.params, rec.params);
        assert_eq!(back.scenario.as_deref(), Some("quick"));
        assert_eq!(back.repetition, Some(2));
        let h2 = back.histograms[0].decode().unwrap();
        assert_eq!(h2, h);
        assert_eq!(h2.max(), h.max());
        let filter = RunFilter {
            benchmarks: vec!["cyclictest".into()],
            only_complete: true,
            ..Default::default()
        };
        assert!(
            store.load_runs(&filter, false).unwrap().is_empty(),
            "interrupted runs are not complete"
        );
    }
}
