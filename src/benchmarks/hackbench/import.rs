//! rt-tests hackbench output: one run per `Time:` line, with the
//! parameters from the banner before it when present.

use crate::import::{at, Imported};
use crate::measure::{Better, Metric};
use anyhow::Result;

/// rt-tests' banner states mode, groups, fds, loops and size; transport
/// (socket or pipe) and the parent's FIFO priority it does not, so they
/// are stored as unknown (`null`) unless the user states them with
/// `import --assume`.
pub fn parse(text: &str) -> Result<Vec<Imported>> {
    let mut params = serde_json::json!({
        "v": crate::benchmarks::hackbench::params::VERSION,
        "transport": null, "fifo": null, "cpus": null,
    });
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("Running in ") {
            // "Running in process mode with 2 groups using 8 file descriptors each (== 16 tasks)"
            let w: Vec<&str> = rest.split_whitespace().collect();
            let num = |k: usize| w.get(k).and_then(|v| v.parse::<u64>().ok());
            match (w.first(), num(3), num(6)) {
                (Some(mode), Some(groups), Some(fds)) => {
                    params["mode"] = serde_json::json!(if *mode == "threaded" {
                        "threaded"
                    } else {
                        "process"
                    });
                    params["groups"] = groups.into();
                    params["fds"] = (fds / 2).into();
                }
                _ => return Err(at(i + 1, format!("unreadable hackbench banner: {line}"))),
            }
        } else if let Some(rest) = line.strip_prefix("Each sender will pass ") {
            let w: Vec<&str> = rest.split_whitespace().collect();
            match (
                w.first().and_then(|v| v.parse::<u64>().ok()),
                w.get(3).and_then(|v| v.parse::<u64>().ok()),
            ) {
                (Some(loops), Some(size)) => {
                    params["loops"] = loops.into();
                    params["datasize"] = size.into();
                }
                _ => return Err(at(i + 1, format!("unreadable hackbench banner: {line}"))),
            }
        } else if let Some(t) = line.strip_prefix("Time:") {
            let v: f64 = t
                .trim()
                .parse()
                .map_err(|_| at(i + 1, format!("'{}' is not a time in seconds", t.trim())))?;
            let v = crate::import::checked::seconds(&format!("line {}", i + 1), "Time:", v)?;
            out.push(Imported {
                label: None,
                benchmark: "hackbench".into(),
                params: params.clone(),
                metrics: vec![Metric::new("time", "s", v, Better::Lower)],
                histograms: Vec::new(),
            });
        }
    }
    if out.is_empty() {
        return Err(crate::error::input(
            "no `Time:` line: is this rt-tests hackbench output?",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_banner_and_times() {
        let runs = parse(include_str!("../../../tests/fixtures/hackbench-3runs.txt")).unwrap();
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[0].params["groups"], 2);
        assert_eq!(runs[0].params["fds"], 4);
        assert_eq!(runs[0].params["loops"], 200);
        assert_eq!(runs[0].params["datasize"], 100);
        assert!(runs
            .iter()
            .all(|r| r.metrics[0].name == "time" && r.metrics[0].value > 0.0));
        let err = parse("Time: fast\n").unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        assert!(parse("nothing here\n").is_err());
    }
}

#[cfg(test)]
mod hostile_review {
    /// Each a finding of a hostile review: stored wrapped, clamped or
    /// coerced to 0 before, or panicked in a debug build.  All are refused
    /// now, each naming where.
    #[test]
    fn times_no_run_produces_are_refused_naming_where() {
        for bad in ["inf", "-inf", "-1", "1e400", "NaN"] {
            let err = super::parse(&format!("Time: {bad}\n")).unwrap_err();
            let e = err.to_string();
            assert!(e.starts_with("line 1: Time:"), "{bad}: {e}");
            assert!(
                err.downcast_ref::<crate::error::UserError>().is_some(),
                "{bad}: exit 2"
            );
        }
    }
}
