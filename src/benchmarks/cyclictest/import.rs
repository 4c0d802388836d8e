//! rt-tests cyclictest text output: the per-thread summary lines
//! (`T: 0 ( 4616) P:98 I:1000 C: 300 Min: 20 Act: 23 Avg: 34 Max: 59`)
//! and/or the `-h` histogram.  One file is one run.  With a histogram the
//! distribution is rebuilt (each sample at its bucket's microsecond), so
//! percentiles can be compared like kbench's own.

use crate::benchmarks::cyclictest::engine::new_histogram;
use crate::import::checked::{self, Place};
use crate::import::{at, Imported};
use crate::measure::{Better, Measurement};
use anyhow::Result;

#[derive(Debug, Default, Clone, Copy)]
struct Thread {
    cycles: u64,
    min: u64,
    avg: f64,
    max: u64,
}

fn field(line: &str, key: &str) -> Option<f64> {
    line.split(key)
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A `T:` line: its cycle count and latencies, each a number a run can have.
fn thread_line(t: &str, line: usize) -> Result<Thread> {
    let shown = format!("line {line}");
    let place: Place = &shown;
    let num =
        |key: &str| field(t, key).ok_or_else(|| at(line, format!("no {key} (or not a number)")));
    Ok(Thread {
        cycles: checked::count(place, "C:", num("C:")?)?,
        min: checked::latency_us(place, "Min:", num("Min:")?)?,
        avg: checked::mean_us(place, "Avg:", num("Avg:")?)?,
        max: checked::latency_us(place, "Max:", num("Max:")?)?,
    })
}

/// A `-h` histogram row: its microsecond and the samples in it, summed
/// over the threads' columns (checked).
fn histogram_row(t: &str, line: usize) -> Result<(u64, u64)> {
    let shown = format!("line {line}");
    let cols: Vec<u64> = t
        .split_whitespace()
        .map(|c| c.parse::<u64>())
        .collect::<Result<_, _>>()
        .map_err(|_| at(line, format!("unreadable histogram row: {t}")))?;
    let (us, counts) = cols
        .split_first()
        .ok_or_else(|| at(line, "empty histogram row"))?;
    let mut n = 0u64;
    for &c in counts {
        n = checked::add_count(&shown, "the histogram row", n, c)?;
    }
    Ok((*us, n))
}

/// The numbers after a `# … Latencies:` or `# Histogram Overflows:` label.
fn numbers(rest: &str, line: usize, what: &str) -> Result<Vec<f64>> {
    rest.split_whitespace()
        .map(|v| {
            v.parse::<f64>()
                .map_err(|_| at(line, format!("'{v}' is not {what}")))
        })
        .collect()
}

/// The figures of the `T:` lines: max, cycle-weighted mean, min, samples,
/// and each thread's max and mean.
fn thread_figures(m: &mut Measurement, threads: &[Thread], cycles: u64) {
    let n = cycles;
    let avg = threads.iter().map(|t| t.avg * t.cycles as f64).sum::<f64>() / n.max(1) as f64;
    m.push(
        "max_us",
        "us",
        threads.iter().map(|t| t.max).max().unwrap_or(0) as f64,
        Better::Lower,
    );
    m.push("avg_us", "us", avg, Better::Lower);
    m.push(
        "min_us",
        "us",
        threads.iter().map(|t| t.min).min().unwrap_or(0) as f64,
        Better::Lower,
    );
    m.push("samples", "count", n as f64, Better::Neither);
    for (k, t) in threads.iter().enumerate() {
        m.push(&format!("t{k}.max_us"), "us", t.max as f64, Better::Lower);
        m.push(&format!("t{k}.avg_us"), "us", t.avg, Better::Lower);
    }
}

pub fn parse(text: &str) -> Result<Vec<Imported>> {
    let mut threads: Vec<Thread> = Vec::new();
    let mut hist = new_histogram();
    let mut in_hist = false;
    let (mut hist_max, mut over) = (Vec::<u64>::new(), 0u64);
    // Totals, checked as they grow: cycles over the `T:` lines, samples
    // recorded from histogram rows.
    let (mut cycles, mut recorded, mut overflow_line) = (0u64, 0u64, 0usize);
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        let line_no = format!("line {}", i + 1);
        let place: Place = &line_no;
        if t.starts_with("T:") {
            let th = thread_line(t, i + 1)?;
            cycles = checked::add_count(place, "the C: counts", cycles, th.cycles)?;
            threads.push(th);
        } else if t == "# Histogram" {
            in_hist = true;
        } else if in_hist && t.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            let (us, n) = histogram_row(t, i + 1)?;
            if n > 0 {
                recorded = checked::add_count(place, "the histogram", recorded, n)?;
                hist.record_n(
                    checked::bucket_ns(place, "the histogram row's latency", us)?,
                    n,
                )
                .map_err(|e| at(i + 1, format!("{e:?}")))?;
            }
        } else if let Some(rest) = t.strip_prefix("# Max Latencies:") {
            hist_max = numbers(rest, i + 1, "a latency")?
                .into_iter()
                .map(|v| checked::latency_us(place, "a max latency", v))
                .collect::<Result<_>>()?;
        } else if let Some(rest) = t.strip_prefix("# Histogram Overflows:") {
            for v in numbers(rest, i + 1, "a count")? {
                over = checked::add_count(
                    place,
                    "the overflows",
                    over,
                    checked::count(place, "an overflow count", v)?,
                )?;
            }
            overflow_line = i + 1;
        } else if t.starts_with("# Min Latencies:")
            || t.starts_with("# Avg Latencies:")
            || t.starts_with("# Total:")
        {
            in_hist = false;
        }
    }
    if threads.is_empty() && hist.is_empty() {
        return Err(crate::error::input(
            "no `T:` lines and no `# Histogram`: is this cyclictest output?",
        ));
    }
    let mut m = Measurement::default();
    if !threads.is_empty() {
        thread_figures(&mut m, &threads, cycles);
    }
    if !hist.is_empty() {
        // Overflowed samples sit beyond the histogram: record them at the
        // largest max the tool reported, so tails are not understated.
        if over > 0 {
            let place = format!("line {overflow_line}");
            checked::add_count(&place, "the histogram with its overflows", recorded, over)?;
            let top = checked::bucket_ns(
                &place,
                "a max latency",
                hist_max.iter().copied().max().unwrap_or(0),
            )? - 500;
            hist.record_n(top.max(hist.max()), over)
                .map_err(|e| crate::error::input(format!("{e:?}")))?;
        }
        if threads.is_empty() {
            m.push(
                "max_us",
                "us",
                hist_max.iter().copied().max().unwrap_or(0) as f64,
                Better::Lower,
            );
            m.push("samples", "count", hist.len() as f64, Better::Neither);
        }
        crate::import::add_latency(&mut m, hist);
    }
    Ok(vec![Imported {
        label: None,
        benchmark: "cyclictest".into(),
        params: serde_json::json!({ "threads": threads.len().max(hist_max.len()), "imported_from": "rt-tests cyclictest" }),
        metrics: m.metrics,
        histograms: m.histograms,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(r: &Imported, n: &str) -> f64 {
        r.metrics.iter().find(|m| m.name == n).unwrap().value
    }

    #[test]
    fn reads_quiet_summary_lines() {
        let r = &parse(include_str!("../../../tests/fixtures/cyclictest-smp-q.txt")).unwrap()[0];
        assert_eq!(metric(r, "max_us"), 296.0);
        assert_eq!(metric(r, "min_us"), 19.0);
        assert_eq!(metric(r, "samples"), 507.0);
        // (34·300 + 45·207) / 507
        assert!((metric(r, "avg_us") - (34.0 * 300.0 + 45.0 * 207.0) / 507.0).abs() < 1e-9);
        assert_eq!(metric(r, "t1.max_us"), 296.0);
        assert!(r.histograms.is_empty());
    }

    #[test]
    fn rebuilds_the_histogram() {
        let r = &parse(include_str!(
            "../../../tests/fixtures/cyclictest-t2-h3000.txt"
        ))
        .unwrap()[0];
        let h = &r.histograms[0].hist;
        assert_eq!(h.len(), 400, "Total 200 + 200");
        assert_eq!(metric(r, "max_us"), 2386.0);
        assert!(metric(r, "p50_us") >= 18.0 && metric(r, "p50_us") <= metric(r, "p99_us"));
        let err = parse("# Histogram\n000001 abc\n").unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(parse("hello\n").is_err());
    }
}

#[cfg(test)]
mod hostile_review {
    /// Each a finding of a hostile review: stored wrapped, clamped or
    /// coerced to 0 before, or panicked in a debug build.  All are refused
    /// now, each naming where.
    #[test]
    fn numbers_no_run_produces_are_refused_naming_where() {
        let text = |s: &str| super::parse(s).map(|_| ()).unwrap_err().to_string();
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
    }
}
