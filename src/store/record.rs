//! What a stored run looks like, independent of the backend.

use crate::fingerprint::Fingerprint;
use crate::measure::{Measurement, Metric, NamedHistogram};
use anyhow::{Context, Result};
use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Fingerprints as a store reads them: each system's JSON parsed once
/// and shared by its runs (a lab's store holds thousands of runs of one
/// system).  A fingerprint that does not parse is none.
#[derive(Default)]
pub struct Fingerprints(std::collections::HashMap<String, Option<std::sync::Arc<Fingerprint>>>);

impl Fingerprints {
    pub fn of(&mut self, json: Option<String>) -> Option<std::sync::Arc<Fingerprint>> {
        self.0
            .entry(json?)
            .or_insert_with_key(|j| serde_json::from_str(j).ok().map(std::sync::Arc::new))
            .clone()
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Complete,
    Failed,
    Interrupted,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Complete => "complete",
            RunStatus::Failed => "failed",
            RunStatus::Interrupted => "interrupted",
        }
    }

    pub fn parse(s: &str) -> RunStatus {
        match s {
            "complete" => RunStatus::Complete,
            "interrupted" => RunStatus::Interrupted,
            _ => RunStatus::Failed,
        }
    }
}

/// A histogram as stored: HdrHistogram V2 encoding.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredHistogram {
    pub name: String,
    pub unit: String,
    pub data: Vec<u8>,
}

impl StoredHistogram {
    pub fn encode(h: &NamedHistogram) -> Result<StoredHistogram> {
        let mut data = Vec::new();
        V2Serializer::new()
            .serialize(&h.hist, &mut data)
            .map_err(|e| anyhow::anyhow!("encoding histogram {}: {e:?}", h.name))?;
        Ok(StoredHistogram {
            name: h.name.clone(),
            unit: h.unit.clone(),
            data,
        })
    }

    pub fn decode(&self) -> Result<Histogram<u64>> {
        check_header(&self.data).with_context(|| {
            format!(
                "the stored histogram {} is damaged or not kbench's",
                crate::text::clean(&self.name)
            )
        })?;
        Deserializer::new()
            .deserialize(&mut &self.data[..])
            .map_err(|e| anyhow::anyhow!("decoding histogram {}: {e:?}", self.name))
            .context("the stored histogram is damaged")
    }
}

/// The most counts a stored histogram may ask a reader to allocate: 4 Mi
/// (32 MiB).  kbench's own histograms need tens of thousands (3
/// significant figures up to a minute in nanoseconds: 27 648).
const MAX_COUNTS: u64 = 1 << 22;

/// Check the 40-byte V2 header (HdrHistogram's "V2 encoding" layout:
/// cookie, payload length, normalizing offset, significant figures,
/// lowest, highest, conversion ratio; all big-endian) before decoding,
/// so a crafted blob cannot make every reader allocate gigabytes: the
/// counts array its bounds imply is computed as HdrHistogram sizes it
/// (sub-buckets of 2^ceil(log2(2·10^digits)), one bucket per doubling
/// from there up to `highest`) and must stay under [`MAX_COUNTS`]; the
/// payload must be the bytes that follow.
fn check_header(data: &[u8]) -> Result<()> {
    // The V2 cookie, with or without the word-size bits (0x10) set.
    const V2_COOKIE: u32 = 0x1c84_9303;
    let word = |at: usize| u32::from_be_bytes(data[at..at + 4].try_into().unwrap());
    let long = |at: usize| u64::from_be_bytes(data[at..at + 8].try_into().unwrap());
    if data.len() < 40 {
        anyhow::bail!("{} bytes, shorter than a histogram header", data.len());
    }
    if word(0) & !0xf0 != V2_COOKIE {
        anyhow::bail!(
            "not an uncompressed V2 HdrHistogram (cookie {:#x})",
            word(0)
        );
    }
    let payload = word(4) as usize;
    if payload != data.len() - 40 {
        anyhow::bail!(
            "its header promises {payload} bytes of counts, {} follow",
            data.len() - 40
        );
    }
    let digits = word(12);
    let (low, high) = (long(16), long(24));
    if digits > 5 || low < 1 || high < low.saturating_mul(2) {
        anyhow::bail!("impossible bounds ({low}..{high}, {digits} significant figures)");
    }
    let sub_buckets = (2.0 * 10f64.powi(digits as i32)).log2().ceil().exp2() as u64;
    let unit = 63 - low.leading_zeros() as u64;
    let mut smallest_untrackable = sub_buckets << unit;
    let mut buckets = 1u64;
    while smallest_untrackable <= high && smallest_untrackable != 0 {
        if smallest_untrackable > u64::MAX / 2 {
            buckets += 1;
            break;
        }
        smallest_untrackable <<= 1;
        buckets += 1;
    }
    let counts = (buckets + 1) * (sub_buckets / 2);
    if counts > MAX_COUNTS {
        anyhow::bail!(
            "its bounds ({low}..{high}, {digits} significant figures) need {counts} counts, over the {MAX_COUNTS} kbench reads"
        );
    }
    Ok(())
}

/// A document kept whole with a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub kind: String,
    pub data: Vec<u8>,
}

/// A whole run.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// Local row id (0 before it is stored).
    pub id: i64,
    /// Globally unique id (128 random bits, hex).
    pub uuid: String,
    pub label: String,
    pub benchmark: String,
    /// The benchmark's parameters, as given.
    pub params: serde_json::Value,
    /// Settings in effect: policy, priority, affinity, caches dropped, …
    pub settings: serde_json::Value,
    /// Unix seconds.
    pub started: f64,
    pub ended: f64,
    pub status: RunStatus,
    /// Shared: a lab's store holds thousands of runs of one system, read
    /// once and held once.
    pub fingerprint: Option<std::sync::Arc<Fingerprint>>,
    pub metrics: Vec<Metric>,
    pub histograms: Vec<StoredHistogram>,
    pub notes: Vec<String>,
    /// Whole documents kept with the run, by kind (a trace's windows);
    /// read with the histograms.
    pub attachments: Vec<Attachment>,
    /// Scenario run this belongs to, its phase and repetition.
    pub scenario: Option<String>,
    pub phase: Option<String>,
    pub repetition: Option<i64>,
    /// Read from another tool's output rather than measured.
    pub imported: bool,
}

impl RunRecord {
    /// A fresh record for `benchmark` started now.
    pub fn new(
        label: &str,
        benchmark: &str,
        params: serde_json::Value,
        fingerprint: Option<Fingerprint>,
    ) -> RunRecord {
        let now = crate::sys::time::unix_now();
        RunRecord {
            id: 0,
            uuid: crate::sys::proc::random_hex128(),
            label: label.to_string(),
            benchmark: benchmark.to_string(),
            params,
            settings: serde_json::json!({}),
            started: now,
            ended: now,
            status: RunStatus::Complete,
            fingerprint: fingerprint.map(std::sync::Arc::new),
            metrics: Vec::new(),
            histograms: Vec::new(),
            attachments: Vec::new(),
            notes: Vec::new(),
            scenario: None,
            phase: None,
            repetition: None,
            imported: false,
        }
    }

    /// Add settings in effect (kept beside what is already recorded, such
    /// as a scenario task's placement).
    pub fn set_settings(&mut self, more: serde_json::Value) {
        match (&mut self.settings, more) {
            (serde_json::Value::Object(m), serde_json::Value::Object(more)) => m.extend(more),
            (s, more) => *s = more,
        }
    }

    /// Fill metrics, histograms and notes from a measurement.
    pub fn absorb(&mut self, m: &Measurement) -> Result<()> {
        self.metrics.extend(m.metrics.iter().cloned());
        for h in &m.histograms {
            self.histograms.push(StoredHistogram::encode(h)?);
        }
        self.notes.extend(m.notes.iter().cloned());
        Ok(())
    }
}

/// A line of `kbench runs list`.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    pub id: i64,
    pub uuid: String,
    pub label: String,
    pub benchmark: String,
    pub started: f64,
    pub status: RunStatus,
    pub fingerprint_id: Option<String>,
    /// The first metric (the headline figure), if any.
    pub headline: Option<Metric>,
}

/// A line of `kbench labels`.
#[derive(Clone, Debug, Serialize)]
pub struct LabelSummary {
    pub label: String,
    pub runs: i64,
    pub benchmarks: Vec<String>,
    pub fingerprint_ids: Vec<String>,
    pub first: f64,
    pub last: f64,
}

/// Which runs to read.
#[derive(Clone, Debug, Default)]
pub struct RunFilter {
    pub labels: Vec<String>,
    pub benchmarks: Vec<String>,
    /// Unix seconds.
    pub since: Option<f64>,
    pub only_complete: bool,
    pub limit: Option<usize>,
    /// Only runs of this scenario run.
    pub scenario: Option<String>,
}

/// A `group_concat`/`string_agg` list (comma-separated) as a sorted vector.
pub fn split_list(s: Option<String>) -> Vec<String> {
    let mut v: Vec<String> = s
        .unwrap_or_default()
        .split(',')
        .filter(|x| !x.is_empty())
        .map(String::from)
        .collect();
    v.sort();
    v
}

/// A query parameter of a [`RunFilter`], for either backend.
#[derive(Clone, Debug, PartialEq)]
pub enum SqlArg {
    Text(String),
    Texts(Vec<String>),
    Real(f64),
}

/// Placeholder styles: SQLite's `?` (lists spelled out), PostgreSQL's
/// `$n` (lists as one array).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

struct SqlBuilder {
    dialect: Dialect,
    conds: Vec<String>,
    args: Vec<SqlArg>,
}

impl SqlBuilder {
    fn placeholder(&mut self, a: SqlArg) -> String {
        self.args.push(a);
        match self.dialect {
            Dialect::Sqlite => "?".into(),
            Dialect::Postgres => format!("${}", self.args.len()),
        }
    }

    fn one_of(&mut self, col: &str, values: &[String]) {
        let cond = match self.dialect {
            Dialect::Sqlite => {
                let ps: Vec<String> = values
                    .iter()
                    .map(|v| self.placeholder(SqlArg::Text(v.clone())))
                    .collect();
                format!("{col} IN ({})", ps.join(","))
            }
            Dialect::Postgres => format!(
                "{col} = ANY({})",
                self.placeholder(SqlArg::Texts(values.to_vec()))
            ),
        };
        self.conds.push(cond);
    }
}

impl RunFilter {
    /// ` WHERE … ORDER BY … LIMIT …` over `runs r` for this filter, and its
    /// parameters in order.
    pub fn to_sql(&self, dialect: Dialect) -> (String, Vec<SqlArg>) {
        let mut b = SqlBuilder {
            dialect,
            conds: Vec::new(),
            args: Vec::new(),
        };
        if !self.labels.is_empty() {
            b.one_of("r.label", &self.labels);
        }
        if !self.benchmarks.is_empty() {
            b.one_of("r.benchmark", &self.benchmarks);
        }
        if let Some(s) = self.since {
            let p = b.placeholder(SqlArg::Real(s));
            b.conds.push(format!("r.started >= {p}"));
        }
        if self.only_complete {
            b.conds.push("r.status = 'complete'".into());
        }
        if let Some(sc) = &self.scenario {
            let p = b.placeholder(SqlArg::Text(sc.clone()));
            b.conds.push(format!("r.scenario = {p}"));
        }
        let mut sql = if b.conds.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", b.conds.join(" AND "))
        };
        sql.push_str(" ORDER BY r.started, r.id");
        if let Some(n) = self.limit {
            sql.push_str(&format!(" LIMIT {n}"));
        }
        (sql, b.args)
    }
}

#[cfg(test)]
mod tests {
    /// A 40-byte header promising bounds whose counts would take 4 GiB
    /// (1..2^62 at 5 significant figures) is refused before anything is
    /// allocated; kbench's own histograms still decode.
    #[test]
    fn a_crafted_histogram_header_is_refused_before_allocating() {
        let mut b = Vec::new();
        b.extend_from_slice(&0x1c84_9313u32.to_be_bytes());
        b.extend_from_slice(&0u32.to_be_bytes());
        b.extend_from_slice(&0u32.to_be_bytes());
        b.extend_from_slice(&5u32.to_be_bytes());
        b.extend_from_slice(&1u64.to_be_bytes());
        b.extend_from_slice(&(1u64 << 62).to_be_bytes());
        b.extend_from_slice(&1f64.to_bits().to_be_bytes());
        assert_eq!(b.len(), 40);
        let h = super::StoredHistogram {
            name: "crafted".into(),
            unit: "ns".into(),
            data: b,
        };
        let e = format!("{:#}", h.decode().unwrap_err());
        assert!(e.contains("over the 4194304 kbench reads"), "{e}");
        assert!(e.contains("histogram crafted is damaged"), "{e}");
        // A latency histogram as the probes make one (1 ns to 60 s, 3 digits).
        let mut real =
            hdrhistogram::Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        real.record(12_345).unwrap();
        let named = crate::measure::NamedHistogram {
            name: "latency".into(),
            unit: "ns".into(),
            hist: real,
        };
        let back = super::StoredHistogram::encode(&named)
            .unwrap()
            .decode()
            .unwrap();
        assert_eq!(back.len(), 1);
        // Truncated and padded blobs are refused too.
        let mut data = super::StoredHistogram::encode(&named).unwrap().data;
        data.push(0);
        let padded = super::StoredHistogram { data, ..h.clone() };
        assert!(format!("{:#}", padded.decode().unwrap_err()).contains("bytes of counts"));
    }

    use super::*;

    #[test]
    fn filters_in_both_dialects() {
        let f = RunFilter {
            labels: vec!["a".into(), "b".into()],
            since: Some(10.0),
            only_complete: true,
            limit: Some(5),
            ..Default::default()
        };
        let (sql, args) = f.to_sql(Dialect::Sqlite);
        assert_eq!(sql, " WHERE r.label IN (?,?) AND r.started >= ? AND r.status = 'complete' ORDER BY r.started, r.id LIMIT 5");
        assert_eq!(
            args,
            vec![
                SqlArg::Text("a".into()),
                SqlArg::Text("b".into()),
                SqlArg::Real(10.0)
            ]
        );
        let (sql, args) = f.to_sql(Dialect::Postgres);
        assert_eq!(sql, " WHERE r.label = ANY($1) AND r.started >= $2 AND r.status = 'complete' ORDER BY r.started, r.id LIMIT 5");
        assert_eq!(args.len(), 2);
        assert_eq!(
            RunFilter::default().to_sql(Dialect::Postgres).0,
            " ORDER BY r.started, r.id"
        );
    }
}
