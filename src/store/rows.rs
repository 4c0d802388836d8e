//! The rows one run is stored as, declared once for both stores: the
//! `runs` row's columns and values, and the rows of its metrics,
//! histograms, notes and attachments, each numbered (`ord`) so both stores read them
//! back in the order they were written.  SQLite and PostgreSQL each turn
//! a [`Cell`] into their own parameter type and spell their own
//! placeholders; the column lists and what goes in them live only here.

use super::record::RunRecord;

/// One value of a row.
#[derive(Clone, Copy, Debug)]
pub enum Cell<'a> {
    Text(&'a str),
    OptText(Option<&'a str>),
    Real(f64),
    /// A position in its list (`ord`).
    Ord(i32),
    Id(i64),
    OptInt(Option<i64>),
    Bool(bool),
    Blob(&'a [u8]),
}

/// A table's rows to insert, all with the same columns.
pub struct Rows<'a> {
    pub table: &'static str,
    pub columns: &'static [&'static str],
    pub rows: Vec<Vec<Cell<'a>>>,
}

/// The `runs` row's columns.
pub const RUN_COLUMNS: &[&str] = &[
    "uuid",
    "label",
    "benchmark",
    "params",
    "settings",
    "started",
    "ended",
    "status",
    "system_key",
    "scenario",
    "phase",
    "repetition",
    "imported",
];

/// The run's texts that are not fields of the record as they stand
/// (JSON written out), kept while its cells borrow them.
pub struct Texts {
    params: String,
    settings: String,
}

impl Texts {
    pub fn of(run: &RunRecord) -> Texts {
        Texts {
            params: run.params.to_string(),
            settings: run.settings.to_string(),
        }
    }
}

/// The `runs` row of `run`, in [`RUN_COLUMNS`]' order.
pub fn run_row<'a>(
    run: &'a RunRecord,
    texts: &'a Texts,
    system_key: Option<&'a str>,
) -> Vec<Cell<'a>> {
    vec![
        Cell::Text(&run.uuid),
        Cell::Text(&run.label),
        Cell::Text(&run.benchmark),
        Cell::Text(&texts.params),
        Cell::Text(&texts.settings),
        Cell::Real(run.started),
        Cell::Real(run.ended),
        Cell::Text(run.status.as_str()),
        Cell::OptText(system_key),
        Cell::OptText(run.scenario.as_deref()),
        Cell::OptText(run.phase.as_deref()),
        Cell::OptInt(run.repetition),
        Cell::Bool(run.imported),
    ]
}

/// The rows of `run`'s metrics, histograms and notes, each numbered in
/// its list, for the run stored as `id`.
pub fn children(run: &RunRecord, id: i64) -> [Rows<'_>; 4] {
    let ord = |i: usize| Cell::Ord(i32::try_from(i).unwrap_or(i32::MAX));
    [
        Rows {
            table: "metrics",
            columns: &["run_id", "ord", "name", "unit", "value", "better"],
            rows: run
                .metrics
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    vec![
                        Cell::Id(id),
                        ord(i),
                        Cell::Text(&m.name),
                        Cell::Text(&m.unit),
                        Cell::Real(m.value),
                        Cell::Text(m.better.as_str()),
                    ]
                })
                .collect(),
        },
        Rows {
            table: "histograms",
            columns: &["run_id", "ord", "name", "unit", "data"],
            rows: run
                .histograms
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    vec![
                        Cell::Id(id),
                        ord(i),
                        Cell::Text(&h.name),
                        Cell::Text(&h.unit),
                        Cell::Blob(&h.data),
                    ]
                })
                .collect(),
        },
        Rows {
            table: "notes",
            columns: &["run_id", "ord", "text"],
            rows: run
                .notes
                .iter()
                .enumerate()
                .map(|(i, n)| vec![Cell::Id(id), ord(i), Cell::Text(n)])
                .collect(),
        },
        Rows {
            table: "attachments",
            columns: &["run_id", "ord", "kind", "data"],
            rows: run
                .attachments
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    vec![
                        Cell::Id(id),
                        ord(i),
                        Cell::Text(&a.kind),
                        Cell::Blob(&a.data),
                    ]
                })
                .collect(),
        },
    ]
}

/// `INSERT INTO table (columns) VALUES (placeholders)`, a placeholder
/// spelled by the store (`?` or `$1`, numbered from 1).
pub fn insert_sql(table: &str, columns: &[&str], placeholder: impl Fn(usize) -> String) -> String {
    let marks: Vec<String> = (1..=columns.len()).map(placeholder).collect();
    format!(
        "INSERT INTO {table} ({}) VALUES ({})",
        columns.join(", "),
        marks.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_has_a_cell_for_every_column() {
        let mut run = RunRecord::new("l", "b", serde_json::json!({}), None);
        run.notes = vec!["a".into(), "b".into()];
        let t = Texts::of(&run);
        assert_eq!(run_row(&run, &t, None).len(), RUN_COLUMNS.len());
        for rows in children(&run, 7) {
            assert!(rows.rows.iter().all(|r| r.len() == rows.columns.len()));
        }
        assert_eq!(
            insert_sql("notes", &["run_id", "ord", "text"], |i| format!("${i}")),
            "INSERT INTO notes (run_id, ord, text) VALUES ($1, $2, $3)"
        );
    }
}
