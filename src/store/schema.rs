//! The versioned SQLite schema.  `MIGRATIONS[i]` takes a database from
//! version `i` to `i + 1`; `PRAGMA user_version` records where it is.
//! Never edit a migration that has shipped: add the next one.

/// `PRAGMA application_id` of a kbench store ("kbnc").
pub const APPLICATION_ID: i64 = 0x6b62_6e63;

pub const MIGRATIONS: &[&str] = &[
    // 1: systems, runs, metrics, histograms, notes.
    "CREATE TABLE systems (
        key TEXT PRIMARY KEY,
        fingerprint_id TEXT NOT NULL,
        json TEXT NOT NULL
     );
     CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL UNIQUE,
        label TEXT NOT NULL,
        benchmark TEXT NOT NULL,
        params TEXT NOT NULL,
        settings TEXT NOT NULL,
        started REAL NOT NULL,
        ended REAL NOT NULL,
        status TEXT NOT NULL,
        system_key TEXT REFERENCES systems(key)
     );
     CREATE INDEX runs_label ON runs(label, benchmark);
     CREATE TABLE metrics (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        unit TEXT NOT NULL,
        value REAL NOT NULL,
        better TEXT NOT NULL
     );
     CREATE INDEX metrics_run ON metrics(run_id);
     CREATE TABLE histograms (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        unit TEXT NOT NULL,
        data BLOB NOT NULL
     );
     CREATE INDEX histograms_run ON histograms(run_id);
     CREATE TABLE notes (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        text TEXT NOT NULL
     );",
    // 2: scenario membership, imported runs, time index.
    "ALTER TABLE runs ADD COLUMN scenario TEXT;
     ALTER TABLE runs ADD COLUMN phase TEXT;
     ALTER TABLE runs ADD COLUMN repetition INTEGER;
     ALTER TABLE runs ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
     CREATE INDEX runs_started ON runs(started);
     CREATE INDEX notes_run ON notes(run_id);",
    // 3: named documents (a campaign's plan), kept beside the runs they
    // produce so one store holds the whole experiment.
    "CREATE TABLE documents (
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        body TEXT NOT NULL,
        updated REAL NOT NULL,
        PRIMARY KEY (kind, name)
     );",
    // 4: each metric, histogram and note numbered in its run's list, as
    // PostgreSQL stores them (rows of older runs keep NULL and read back
    // in the order they were written).
    "ALTER TABLE metrics ADD COLUMN ord INTEGER;
     ALTER TABLE histograms ADD COLUMN ord INTEGER;
     ALTER TABLE notes ADD COLUMN ord INTEGER;",
    // 5: attachments of a run: what is neither a metric, a histogram nor
    // a note, kept whole (a traced run's trace windows).
    "CREATE TABLE attachments (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data BLOB NOT NULL
     );
     CREATE INDEX attachments_run ON attachments(run_id);",
];

/// A schema version as a store holds it (PostgreSQL keeps it as text):
/// a whole number from 0 up; anything else is a damaged store, refused
/// rather than migrated over.
pub fn parse_version(text: &str, shown: &str) -> anyhow::Result<i64> {
    match text.trim().parse::<i64>() {
        Ok(v) if v >= 0 => Ok(v),
        _ => Err(crate::error::input(format!(
            "result store {shown} has schema version '{}', which no kbench writes: the store is damaged; restore it from a backup or pass another --db",
            crate::text::clean(text)
        ))),
    }
}
