//! Writing one run into the SQLite store: its system once, its row and
//! its children, inside the caller's transaction.

use crate::store::record::RunRecord;
use crate::store::rows;
use anyhow::Result;
use rusqlite::{params, OptionalExtension};

/// A stored value as SQLite takes it (a flag as 0 or 1).
struct Lite<'a, 'b>(&'b rows::Cell<'a>);

impl rusqlite::ToSql for Lite<'_, '_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value, ValueRef};
        Ok(match *self.0 {
            rows::Cell::Text(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            rows::Cell::OptText(Some(t)) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            rows::Cell::OptText(None) | rows::Cell::OptInt(None) => ToSqlOutput::Owned(Value::Null),
            rows::Cell::Real(r) => ToSqlOutput::Owned(Value::Real(r)),
            rows::Cell::Ord(i) => ToSqlOutput::Owned(Value::Integer(i64::from(i))),
            rows::Cell::Id(i) | rows::Cell::OptInt(Some(i)) => {
                ToSqlOutput::Owned(Value::Integer(i))
            }
            rows::Cell::Bool(b) => ToSqlOutput::Owned(Value::Integer(i64::from(b))),
            rows::Cell::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
        })
    }
}

/// Insert one run (and its system) inside an open transaction.
pub(super) fn insert_run(tx: &rusqlite::Transaction, run: &RunRecord) -> Result<i64> {
    // A run copied in twice (pull) is stored once.
    if let Some(id) = tx
        .query_row("SELECT id FROM runs WHERE uuid = ?", [&run.uuid], |r| {
            r.get::<_, i64>(0)
        })
        .optional()?
    {
        return Ok(id);
    }
    let system_key = match &run.fingerprint {
        Some(fp) => {
            let key = fp.content_key();
            tx.execute(
                "INSERT OR IGNORE INTO systems (key, fingerprint_id, json) VALUES (?, ?, ?)",
                params![key, fp.id, serde_json::to_string(fp)?],
            )?;
            Some(key)
        }
        None => None,
    };
    let texts = rows::Texts::of(run);
    let sql = rows::insert_sql("runs", rows::RUN_COLUMNS, |_| "?".into());
    tx.execute(
        &sql,
        rusqlite::params_from_iter(
            rows::run_row(run, &texts, system_key.as_deref())
                .iter()
                .map(Lite),
        ),
    )?;
    let id = tx.last_insert_rowid();
    for table in rows::children(run, id) {
        let mut st = tx.prepare_cached(&rows::insert_sql(table.table, table.columns, |_| {
            "?".into()
        }))?;
        for row in &table.rows {
            st.execute(rusqlite::params_from_iter(row.iter().map(Lite)))?;
        }
    }
    Ok(id)
}
