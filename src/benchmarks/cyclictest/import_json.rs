//! rt-tests cyclictest `--json` output.  Note two of its keys really end
//! in a colon: `"cmdline:"` and `"rt_test_version:"`.

use crate::benchmarks::cyclictest::engine::new_histogram;
use crate::import::checked;
use crate::import::Imported;
use crate::measure::{Better, Measurement};
use anyhow::Result;

pub fn parse(text: &str) -> Result<Vec<Imported>> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| crate::error::input(format!("line {}: not JSON: {e}", e.line())))?;
    let threads = v.get("thread").and_then(|t| t.as_object()).ok_or_else(|| {
        crate::error::input("no \"thread\" object: is this cyclictest --json output?")
    })?;
    let mut hist = new_histogram();
    let mut m = Measurement::default();
    let (mut n, mut sum, mut min, mut max) = (0u64, 0.0, u64::MAX, 0u64);
    let mut recorded = 0u64;
    let mut keys: Vec<&String> = threads.keys().collect();
    keys.sort_by_key(|k| k.parse::<u64>().unwrap_or(u64::MAX));
    for k in keys {
        let t = &threads[k];
        let place = format!("thread {k}");
        let num = |f: &str| t.get(f).and_then(|x| x.as_f64());
        // A member that is there must be a number: `"min": "x"` or a
        // negative is refused, never read as 0.
        let present = |f: &str| -> Result<Option<f64>> {
            match t.get(f) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(x) => x.as_f64().map(Some).ok_or_else(|| {
                    crate::error::input(format!("{place}: \"{f}\" is not a number"))
                }),
            }
        };
        let cycles =
            num("cycles").ok_or_else(|| crate::error::input(format!("thread {k}: no cycles")))?;
        let cycles = checked::count(&place, "cycles", cycles)?;
        let (tmin, tmax, tavg) = (
            checked::latency_us(&place, "min", present("min")?.unwrap_or(0.0))?,
            checked::latency_us(&place, "max", present("max")?.unwrap_or(0.0))?,
            checked::mean_us(&place, "avg", present("avg")?.unwrap_or(0.0))?,
        );
        n = checked::add_count(&place, "the cycles", n, cycles)?;
        sum += tavg * cycles as f64;
        min = min.min(tmin);
        max = max.max(tmax);
        m.push(&format!("t{k}.max_us"), "us", tmax as f64, Better::Lower);
        m.push(&format!("t{k}.avg_us"), "us", tavg, Better::Lower);
        if let Some(h) = t.get("histogram").and_then(|h| h.as_object()) {
            for (us, count) in h {
                let us: u64 = us.parse().map_err(|_| {
                    crate::error::input(format!("thread {k}: histogram key '{us}' is not a number"))
                })?;
                let c = count.as_f64().ok_or_else(|| {
                    crate::error::input(format!(
                        "{place}: histogram count for '{us}' is not a number"
                    ))
                })?;
                let c = checked::count(&place, "a histogram count", c)?;
                if c > 0 {
                    recorded = checked::add_count(&place, "the histogram", recorded, c)?;
                    hist.record_n(checked::bucket_ns(&place, "a histogram key", us)?, c)
                        .map_err(|e| crate::error::input(format!("{e:?}")))?;
                }
            }
        }
    }
    m.metrics.splice(
        0..0,
        [
            crate::measure::Metric::new("max_us", "us", max as f64, Better::Lower),
            crate::measure::Metric::new("avg_us", "us", sum / n.max(1) as f64, Better::Lower),
            crate::measure::Metric::new(
                "min_us",
                "us",
                if min == u64::MAX { 0.0 } else { min as f64 },
                Better::Lower,
            ),
            crate::measure::Metric::new("samples", "count", n as f64, Better::Neither),
        ],
    );
    if !hist.is_empty() {
        crate::import::add_latency(&mut m, hist);
    }
    let cmdline = v.get("cmdline:").and_then(|c| c.as_str()).unwrap_or("");
    let version = v
        .get("rt_test_version:")
        .and_then(|c| c.as_str())
        .unwrap_or("");
    Ok(vec![Imported {
        label: None,
        benchmark: "cyclictest".into(),
        params: serde_json::json!({ "threads": threads.len(), "imported_from": "rt-tests cyclictest", "cmdline": cmdline, "rt_tests_version": version }),
        metrics: m.metrics,
        histograms: m.histograms,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_colon_keys_and_histograms() {
        let r = &parse(include_str!(
            "../../../tests/fixtures/cyclictest-t2-h3000.json"
        ))
        .unwrap()[0];
        assert!(r.params["cmdline"]
            .as_str()
            .unwrap()
            .starts_with("cyclictest "));
        assert_eq!(r.params["rt_tests_version"], "2.40");
        let get = |n: &str| r.metrics.iter().find(|m| m.name == n).unwrap().value;
        assert_eq!(get("samples"), 400.0);
        assert_eq!(get("max_us"), 2386.0);
        assert_eq!(r.histograms[0].hist.len(), 400);
        assert!(parse("{\"nothing\": 1}").is_err());
        let err = parse("{\n\"x\": }").unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
    }
}

#[cfg(test)]
mod hostile_review {
    /// Each a finding of a hostile review: stored wrapped, clamped or
    /// coerced to 0 before, or panicked in a debug build.  All are refused
    /// now, each naming where.
    #[test]
    fn numbers_no_run_produces_are_refused_naming_where() {
        let json = |s: serde_json::Value| {
            super::parse(&s.to_string())
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
    }
}
