//! Reading other tools' outputs into runs, so years of old logs (and the
//! seeds' own tables) can be compared.  Every parser names the line it
//! could not read.

mod checked;
pub mod csv;
pub mod cyclictest;
pub mod cyclictest_json;
pub mod hackbench;

use crate::bench::{Metric, NamedHistogram};

/// One run read from a file.
#[derive(Clone, Debug)]
pub struct Imported {
    /// From the file (CSV), else the caller's `--label`.
    pub label: Option<String>,
    pub benchmark: String,
    pub params: serde_json::Value,
    pub metrics: Vec<Metric>,
    pub histograms: Vec<NamedHistogram>,
}

/// p50/p99/p99.9 (µs) of a rebuilt latency histogram as metrics, and the
/// histogram itself, so imported runs compare like kbench's own.
pub fn add_latency(m: &mut crate::bench::Measurement, hist: hdrhistogram::Histogram<u64>) {
    for (name, q) in [("p50_us", 0.5), ("p99_us", 0.99), ("p999_us", 0.999)] {
        m.push(
            name,
            "us",
            (hist.value_at_quantile(q) / 1000) as f64,
            crate::bench::Better::Lower,
        );
    }
    m.histograms.push(NamedHistogram {
        name: "latency".into(),
        unit: "ns".into(),
        hist,
    });
}

/// A parse error at a line (1-based).
pub fn at(line: usize, msg: impl std::fmt::Display) -> anyhow::Error {
    crate::error::input(format!("line {line}: {msg}"))
}

#[cfg(test)]
mod tests {
    /// Each a finding of a hostile review: stored wrapped, clamped or
    /// coerced to 0 before, or panicked in a debug build.  All are refused
    /// now, each naming where.
    #[test]
    fn numbers_no_run_produces_are_refused_naming_where() {
        let text = |s: &str| {
            super::cyclictest::parse(s)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        let t = |c: &str, min: &str, avg: &str, max: &str| {
            format!("T: 0 ( 1) P:98 I:1000 C: {c} Min: {min} Act: 2 Avg: {avg} Max: {max}\n")
        };
        for (input, says) in [
            ("# Histogram\n18446744073709552 1\n".to_string(), "line 2"),
            (t("18446744073709551615", "1", "2", "3"), "line 1: C:"),
            (
                format!("{}{}", t("9007199254740992", "1", "2", "3"), t("5", "1", "2", "3")),
                "line 2: the C: counts",
            ),
            (t("-5", "1", "2", "3"), "line 1: C:"),
            (t("NaN", "1", "2", "3"), "line 1: C:"),
            (t("5", "-1", "2", "3"), "line 1: Min:"),
            (t("5", "1", "NaN", "3"), "line 1: Avg:"),
            (t("5", "1", "2", "1e400"), "line 1: Max:"),
            (
                "# Histogram\n00001 5\n# Histogram Overflows: 18446744073709551615\n".into(),
                "line 3",
            ),
            (
                "# Histogram\n00001 5\n# Histogram Overflows: 1\n# Max Latencies: 18446744073709551615\n".into(),
                "line 4",
            ),
        ] {
            let e = text(&input);
            assert!(e.starts_with(says), "{input:?}: {e}");
        }
        let json = |s: serde_json::Value| {
            super::cyclictest_json::parse(&s.to_string())
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        for (input, says) in [
            (
                serde_json::json!({"thread": {"0": {"cycles": 1, "histogram": {"18446744073709552": 1}}}}),
                "thread 0: a histogram key",
            ),
            (
                serde_json::json!({"thread": {"0": {"cycles": 18446744073709551615u64}}}),
                "thread 0: cycles",
            ),
            (
                serde_json::json!({"thread": {"0": {"cycles": 1, "min": -4}}}),
                "thread 0: min",
            ),
            (
                serde_json::json!({"thread": {"0": {"cycles": 1, "max": "x"}}}),
                "thread 0: \"max\"",
            ),
            (
                serde_json::json!({"thread": {"0": {"cycles": 1, "histogram": {"3": -1}}}}),
                "thread 0: a histogram count",
            ),
        ] {
            let e = json(input.clone());
            assert!(e.starts_with(says), "{input}: {e}");
        }
        for bad in ["inf", "-inf", "-1", "1e400", "NaN"] {
            let err = super::hackbench::parse(&format!("Time: {bad}\n")).unwrap_err();
            let e = err.to_string();
            assert!(e.starts_with("line 1: Time:"), "{bad}: {e}");
            assert!(
                err.downcast_ref::<crate::error::UserError>().is_some(),
                "{bad}: exit 2"
            );
        }
    }
}
