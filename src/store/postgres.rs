//! The shared PostgreSQL store: the same runs, schema version and
//! migrations as the SQLite store, for a lab of machines writing to one
//! database.
//!
//! Credentials come from the URL, `PGPASSWORD` or `~/.pgpass`, and are
//! never printed: [`redact`] is used for every message.  Runs carry a
//! globally unique id, so writing a run twice stores it once (`ON CONFLICT
//! DO NOTHING`), and every batch is one transaction, so a run is never
//! visible half-done and a push interrupted by a dropped connection
//! completes on retry with nothing lost or doubled.

use super::pg_connect;
use super::record::*;
use super::rows;
use super::{Store, SCHEMA_VERSION};
use crate::error::input;
use crate::measure::{Better, Metric};
use anyhow::{Context, Result};
use postgres::Client;
use std::cell::RefCell;
use std::time::Duration;

/// A stored value as PostgreSQL takes it, each as its own Rust type.
#[derive(Debug)]
struct Pg<'a, 'b>(&'b rows::Cell<'a>);

impl postgres::types::ToSql for Pg<'_, '_> {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match *self.0 {
            rows::Cell::Text(t) => t.to_sql_checked(ty, out),
            rows::Cell::OptText(t) => t.to_sql_checked(ty, out),
            rows::Cell::Real(r) => r.to_sql_checked(ty, out),
            rows::Cell::Ord(i) => i.to_sql_checked(ty, out),
            rows::Cell::Id(i) => i.to_sql_checked(ty, out),
            rows::Cell::OptInt(i) => i.to_sql_checked(ty, out),
            rows::Cell::Bool(b) => b.to_sql_checked(ty, out),
            rows::Cell::Blob(b) => b.to_sql_checked(ty, out),
        }
    }

    /// Each cell's own type checks the column's in `to_sql`.
    fn accepts(_: &postgres::types::Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

/// PostgreSQL dialect of the same migrations as SQLite's.
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS kbench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
     CREATE TABLE systems (key TEXT PRIMARY KEY, fingerprint_id TEXT NOT NULL, json TEXT NOT NULL);
     CREATE TABLE runs (
        id BIGSERIAL PRIMARY KEY,
        uuid TEXT NOT NULL UNIQUE,
        label TEXT NOT NULL,
        benchmark TEXT NOT NULL,
        params TEXT NOT NULL,
        settings TEXT NOT NULL,
        started DOUBLE PRECISION NOT NULL,
        ended DOUBLE PRECISION NOT NULL,
        status TEXT NOT NULL,
        system_key TEXT REFERENCES systems(key)
     );
     CREATE INDEX runs_label ON runs(label, benchmark);
     CREATE TABLE metrics (run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, ord INT NOT NULL,
        name TEXT NOT NULL, unit TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, better TEXT NOT NULL);
     CREATE INDEX metrics_run ON metrics(run_id);
     CREATE TABLE histograms (run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, ord INT NOT NULL,
        name TEXT NOT NULL, unit TEXT NOT NULL, data BYTEA NOT NULL);
     CREATE INDEX histograms_run ON histograms(run_id);
     CREATE TABLE notes (run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, ord INT NOT NULL, text TEXT NOT NULL);",
    "ALTER TABLE runs ADD COLUMN scenario TEXT;
     ALTER TABLE runs ADD COLUMN phase TEXT;
     ALTER TABLE runs ADD COLUMN repetition BIGINT;
     ALTER TABLE runs ADD COLUMN imported BOOLEAN NOT NULL DEFAULT FALSE;
     CREATE INDEX runs_started ON runs(started);
     CREATE INDEX notes_run ON notes(run_id);",
    "CREATE TABLE documents (kind TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
        updated DOUBLE PRECISION NOT NULL, PRIMARY KEY (kind, name));",
    // 4: SQLite's numbering of metrics, histograms and notes, which
    // PostgreSQL's tables had from the first.
    "SELECT 1;",
    "CREATE TABLE attachments (run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, ord INT NOT NULL,
        kind TEXT NOT NULL, data BYTEA NOT NULL);
     CREATE INDEX attachments_run ON attachments(run_id);",
];

/// An advisory lock key so concurrent kbench processes migrate one at a time.
const MIGRATION_LOCK: i64 = 0x6b62_656e_6368;

/// The URL with every password replaced by `***`: in the user info
/// (`user:pw@host`, the last `@` of the authority ending it) and in the
/// query (`?password=…`, any case, as libpq accepts it).
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let (authority, path) = match before_query.find('/') {
        Some(i) => before_query.split_at(i),
        None => (before_query, ""),
    };
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => authority.to_string(),
    };
    let mut out = format!("{scheme}://{authority}{path}");
    if let Some(q) = query {
        let parts: Vec<String> = q
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                _ => kv.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&parts.join("&"));
    }
    out
}

/// A password from `~/.pgpass` (host:port:database:user:password, `*`
/// matching anything), as libpq reads it.
fn pgpass(host: &str, port: u16, db: &str, user: &str) -> Option<String> {
    let path = std::env::var_os("PGPASSFILE")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".pgpass"))
        })?;
    let text = std::fs::read_to_string(path).ok()?;
    let port = port.to_string();
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let f: Vec<&str> = l.splitn(5, ':').collect();
        let ok = |i: usize, v: &str| f.get(i).is_some_and(|x| *x == "*" || *x == v);
        (f.len() == 5 && ok(0, host) && ok(1, &port) && ok(2, db) && ok(3, user))
            .then(|| f[4].to_string())
    })
}

/// The trait reads through `&self`; the client needs `&mut`, and a store
/// is used by one thread, so a `RefCell` holds it.
///
/// A store stays open for as long as a command runs, and a matrix or a
/// campaign step holds it while its children measure, minutes at a time:
/// a server's `idle_session_timeout`, a pooler or a firewall may close the
/// connection meanwhile.  So every use first checks the connection (an
/// empty query: one round trip) and connects again when it is gone,
/// rather than losing the runs of a whole matrix to a closed socket.
pub struct PgStore {
    client: RefCell<Client>,
    config: postgres::Config,
    tls: pg_connect::Tls,
    shown: String,
}

impl PgStore {
    /// Connect, check the schema, migrate.
    pub fn open(url: &str) -> Result<PgStore> {
        let shown = redact(url);
        let (url, tls) = pg_connect::take_tls(url, &shown)?;
        let mut config: postgres::Config = url
            .parse()
            .map_err(|e| input(format!("--db {shown} is not a PostgreSQL URL: {e}")))?;
        config
            .application_name("kbench")
            .connect_timeout(std::time::Duration::from_secs(10));
        if config.get_password().is_none() {
            if let Ok(p) = std::env::var("PGPASSWORD") {
                config.password(p);
            } else {
                let host = match config.get_hosts().first() {
                    Some(postgres::config::Host::Tcp(h)) => h.clone(),
                    _ => "localhost".into(),
                };
                let port = config.get_ports().first().copied().unwrap_or(5432);
                let user = config.get_user().unwrap_or("").to_string();
                let db = config.get_dbname().unwrap_or(&user).to_string();
                if let Some(p) = pgpass(&host, port, &db, &user) {
                    config.password(p);
                }
            }
        }
        config.ssl_mode(pg_connect::client_mode(tls.mode));
        pg_connect::resolve_hosts(&mut config, &shown)?;
        let mut client = connect(&config, &tls, &shown)?;
        let mut tx = client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS kbench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        )?;
        let version: i64 = tx
            .query_opt(
                "SELECT value FROM kbench_meta WHERE key = 'schema_version'",
                &[],
            )?
            .map(|r| super::schema::parse_version(&r.get::<_, String>(0), &shown))
            .transpose()?
            .unwrap_or(0);
        if version > SCHEMA_VERSION {
            return Err(input(format!(
                "result store {shown} has schema version {version}, newer than this kbench understands ({SCHEMA_VERSION}): upgrade kbench"
            )));
        }
        for (v, m) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.batch_execute(m)
                .with_context(|| format!("migrating {shown} to schema version {}", v + 1))?;
            tx.execute(
                "INSERT INTO kbench_meta (key, value) VALUES ('schema_version', $1)
                 ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                &[&(v as i64 + 1).to_string()],
            )?;
        }
        tx.commit()?;
        Ok(PgStore {
            client: RefCell::new(client),
            config,
            tls,
            shown,
        })
    }

    /// The connection, connected again first if the server has closed it
    /// (or it does not answer within 10 s).
    fn live(&self) -> Result<std::cell::RefMut<'_, Client>> {
        let mut client = self.client.borrow_mut();
        if client.is_closed() || client.is_valid(Duration::from_secs(10)).is_err() {
            *client = connect(&self.config, &self.tls, &self.shown)?;
        }
        Ok(client)
    }

    /// Metrics, notes (and histograms) of many runs, three queries in all
    /// rather than three per run: over a network that is the difference
    /// between a fraction of a second and many seconds.
    fn fill_all(&self, recs: &mut [RunRecord], histograms: bool) -> Result<()> {
        let ids: Vec<i64> = recs.iter().map(|r| r.id).collect();
        let pos: std::collections::HashMap<i64, usize> =
            ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        let mut client = self.live()?;
        let q = "SELECT run_id, name, unit, value, better FROM metrics WHERE run_id = ANY($1) ORDER BY run_id, ord";
        for r in client.query(q, &[&ids])? {
            recs[pos[&r.get::<_, i64>(0)]].metrics.push(Metric {
                name: r.get(1),
                unit: r.get(2),
                value: r.get(3),
                better: Better::parse(r.get(4)),
            });
        }
        let q = "SELECT run_id, text FROM notes WHERE run_id = ANY($1) ORDER BY run_id, ord";
        for r in client.query(q, &[&ids])? {
            recs[pos[&r.get::<_, i64>(0)]].notes.push(r.get(1));
        }
        if histograms {
            let q = "SELECT run_id, name, unit, data FROM histograms WHERE run_id = ANY($1) ORDER BY run_id, ord";
            for r in client.query(q, &[&ids])? {
                recs[pos[&r.get::<_, i64>(0)]]
                    .histograms
                    .push(StoredHistogram {
                        name: r.get(1),
                        unit: r.get(2),
                        data: r.get(3),
                    });
            }
            let q = "SELECT run_id, kind, data FROM attachments WHERE run_id = ANY($1) ORDER BY run_id, ord";
            for r in client.query(q, &[&ids])? {
                recs[pos[&r.get::<_, i64>(0)]]
                    .attachments
                    .push(crate::store::Attachment {
                        kind: r.get(1),
                        data: r.get(2),
                    });
            }
        }
        Ok(())
    }

    fn query_runs(
        &self,
        where_sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
        histograms: bool,
    ) -> Result<Vec<RunRecord>> {
        let sql = format!(
            "SELECT r.id, r.uuid, r.label, r.benchmark, r.params, r.settings, r.started, r.ended, r.status,
                    r.scenario, r.phase, r.repetition, r.imported, s.json
             FROM runs r LEFT JOIN systems s ON s.key = r.system_key {where_sql}"
        );
        let rows = self.live()?.query(sql.as_str(), params)?;
        let mut out = Vec::with_capacity(rows.len());
        let mut fps = Fingerprints::default();
        for r in rows {
            let fp: Option<String> = r.get(13);
            let rec = RunRecord {
                id: r.get(0),
                uuid: r.get(1),
                label: r.get(2),
                benchmark: r.get(3),
                params: serde_json::from_str(r.get::<_, &str>(4)).unwrap_or_default(),
                settings: serde_json::from_str(r.get::<_, &str>(5)).unwrap_or_default(),
                started: r.get(6),
                ended: r.get(7),
                status: RunStatus::parse(r.get(8)),
                fingerprint: fps.of(fp),
                metrics: Vec::new(),
                histograms: Vec::new(),
                attachments: Vec::new(),
                notes: Vec::new(),
                scenario: r.get(9),
                phase: r.get(10),
                repetition: r.get(11),
                imported: r.get(12),
            };
            out.push(rec);
        }
        self.fill_all(&mut out, histograms)?;
        Ok(out)
    }
}

/// A connection to the server `config` names.
fn connect(config: &postgres::Config, tls: &pg_connect::Tls, shown: &str) -> Result<Client> {
    config
        .connect(pg_connect::connector(tls, shown)?)
        .map_err(|e| {
            input(format!(
                "cannot connect to result store {shown}: {}",
                with_cause(&e)
            ))
        })
}

/// The error's first line and, when it has one, its cause's ("error
/// connecting to server: Connection refused (os error 111)").
fn with_cause(e: &postgres::Error) -> String {
    use std::error::Error;
    match e.source() {
        Some(cause) if !e.to_string().contains(&cause.to_string()) => {
            format!("{}: {}", first_line(e), first_line(cause))
        }
        _ => first_line(e),
    }
}

fn first_line(e: &dyn std::fmt::Display) -> String {
    let s = e.to_string();
    s.lines().next().unwrap_or("").to_string()
}

/// A filter's SQL and parameters in PostgreSQL's `$n` style.
fn where_clause(f: &RunFilter) -> (String, Vec<Box<dyn postgres::types::ToSql + Sync>>) {
    let (sql, args) = f.to_sql(Dialect::Postgres);
    let args = args
        .into_iter()
        .map(|a| -> Box<dyn postgres::types::ToSql + Sync> {
            match a {
                SqlArg::Text(t) => Box::new(t),
                SqlArg::Texts(v) => Box::new(v),
                SqlArg::Real(r) => Box::new(r),
            }
        })
        .collect();
    (sql, args)
}

/// Insert one run in a transaction; an existing uuid is left as it is.
fn insert(tx: &mut postgres::Transaction, run: &RunRecord) -> Result<i64> {
    let system_key = match &run.fingerprint {
        Some(fp) => {
            let key = fp.content_key();
            tx.execute(
                "INSERT INTO systems (key, fingerprint_id, json) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING",
                &[&key, &fp.id, &serde_json::to_string(fp)?],
            )?;
            Some(key)
        }
        None => None,
    };
    let texts = rows::Texts::of(run);
    let cells = rows::run_row(run, &texts, system_key.as_deref());
    let params: Vec<Pg> = cells.iter().map(Pg).collect();
    let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = params
        .iter()
        .map(|p| p as &(dyn postgres::types::ToSql + Sync))
        .collect();
    let sql = format!(
        "{} ON CONFLICT (uuid) DO NOTHING RETURNING id",
        rows::insert_sql("runs", rows::RUN_COLUMNS, |i| format!("${i}"))
    );
    let row = tx.query_opt(&sql, &refs)?;
    let Some(row) = row else {
        // Stored before: keep the first copy.
        return Ok(tx
            .query_one("SELECT id FROM runs WHERE uuid = $1", &[&run.uuid])?
            .get(0));
    };
    let id: i64 = row.get(0);
    for table in rows::children(run, id) {
        let sql = rows::insert_sql(table.table, table.columns, |i| format!("${i}"));
        let st = tx.prepare(&sql)?;
        for r in &table.rows {
            let params: Vec<Pg> = r.iter().map(Pg).collect();
            let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = params
                .iter()
                .map(|p| p as &(dyn postgres::types::ToSql + Sync))
                .collect();
            tx.execute(&st, &refs)?;
        }
    }
    Ok(id)
}

impl Store for PgStore {
    fn save_run(&mut self, run: &RunRecord) -> Result<i64> {
        Ok(self.save_runs(std::slice::from_ref(run))?[0])
    }

    fn save_runs(&mut self, runs: &[RunRecord]) -> Result<Vec<i64>> {
        let shown = self.shown.clone();
        let mut client = self.live()?;
        let mut tx = client
            .transaction()
            .map_err(|e| anyhow::anyhow!("writing to {shown}: {}", first_line(&e)))?;
        let mut ids = Vec::with_capacity(runs.len());
        for r in runs {
            ids.push(
                insert(&mut tx, r)
                    .map_err(|e| anyhow::anyhow!("writing to {shown}: {}", first_line(&e)))?,
            );
        }
        tx.commit()
            .map_err(|e| anyhow::anyhow!("committing to {shown}: {}", first_line(&e)))?;
        Ok(ids)
    }

    fn list_runs(&self, filter: &RunFilter) -> Result<Vec<RunSummary>> {
        let runs = self.load_runs(filter, false)?;
        Ok(runs
            .into_iter()
            .map(|r| RunSummary {
                id: r.id,
                uuid: r.uuid,
                label: r.label,
                benchmark: r.benchmark,
                started: r.started,
                status: r.status,
                fingerprint_id: r.fingerprint.map(|f| f.id.clone()),
                headline: r
                    .metrics
                    .into_iter()
                    .find(|m| !m.name.starts_with("health.")),
            })
            .collect())
    }

    fn load_runs(&self, filter: &RunFilter, histograms: bool) -> Result<Vec<RunRecord>> {
        let (sql, args) = where_clause(filter);
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> =
            args.iter().map(|a| a.as_ref()).collect();
        self.query_runs(&sql, &refs, histograms)
    }

    fn load_run(&self, id: i64) -> Result<Option<RunRecord>> {
        let mut v = self.query_runs("WHERE r.id = $1", &[&id], true)?;
        Ok(v.pop())
    }

    fn delete_runs(&mut self, ids: &[i64]) -> Result<usize> {
        let mut client = self.live()?;
        let mut tx = client.transaction()?;
        let n = tx.execute("DELETE FROM runs WHERE id = ANY($1)", &[&ids.to_vec()])? as usize;
        tx.execute("DELETE FROM systems WHERE key NOT IN (SELECT system_key FROM runs WHERE system_key IS NOT NULL)", &[])?;
        tx.commit()?;
        Ok(n)
    }

    fn labels(&self) -> Result<Vec<LabelSummary>> {
        let rows = {
            self.live()?.query(
                "SELECT r.label, count(*), string_agg(DISTINCT r.benchmark, ','), string_agg(DISTINCT s.fingerprint_id, ','),
                        min(r.started), max(r.started)
                 FROM runs r LEFT JOIN systems s ON s.key = r.system_key GROUP BY r.label ORDER BY min(r.started)",
                &[],
            )?
        };
        Ok(rows
            .iter()
            .map(|r| LabelSummary {
                label: r.get(0),
                runs: r.get(1),
                benchmarks: split_list(r.get(2)),
                fingerprint_ids: split_list(r.get(3)),
                first: r.get(4),
                last: r.get(5),
            })
            .collect())
    }

    fn get_document(&self, kind: &str, name: &str) -> Result<Option<String>> {
        let row = self.live()?.query_opt(
            "SELECT body FROM documents WHERE kind = $1 AND name = $2",
            &[&kind, &name],
        )?;
        Ok(row.map(|r| r.get(0)))
    }

    fn put_document(&mut self, kind: &str, name: &str, body: &str) -> Result<()> {
        self.live()?.execute(
            "INSERT INTO documents (kind, name, body, updated) VALUES ($1, $2, $3, $4)
             ON CONFLICT (kind, name) DO UPDATE SET body = EXCLUDED.body, updated = EXCLUDED.updated",
            &[&kind, &name, &body, &crate::sys::time::unix_now()],
        )?;
        Ok(())
    }

    fn list_documents(&self, kind: &str) -> Result<Vec<(String, String)>> {
        let rows = self.live()?.query(
            "SELECT name, body FROM documents WHERE kind = $1 ORDER BY name",
            &[&kind],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn describe(&self) -> String {
        self.shown.clone()
    }

    fn is_remote(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://kb:s3cret@db.lab:5432/kbench"),
            "postgres://kb:***@db.lab:5432/kbench"
        );
        assert_eq!(
            redact("postgres://kb@db.lab/kbench"),
            "postgres://kb@db.lab/kbench"
        );
        assert_eq!(redact("postgresql://db/kbench"), "postgresql://db/kbench");
        assert_eq!(
            redact("postgres://kb@db/kbench?sslmode=disable&password=kbpass"),
            "postgres://kb@db/kbench?sslmode=disable&password=***"
        );
        assert_eq!(
            redact("postgres://kb:p@ss@db/k?PASSWORD=x"),
            "postgres://kb:***@db/k?PASSWORD=***",
            "an @ inside the password and the key in any case"
        );
    }
}
