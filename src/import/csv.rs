//! Plain CSV: `label,benchmark,metric,unit,value[,run[,better]]`, with or
//! without a header (with one, columns may come in any order).  Rows
//! sharing label, benchmark and run form one run; without a run column
//! every row is its own run.
//!
//! Nothing is guessed that could mislead a comparison:
//! - a metric's direction comes from its `better` column (`lower` or
//!   `higher`), else from `--better`, else from the unit table below; a
//!   unit the table does not know is refused, naming the line;
//! - one metric of one benchmark in two units or two directions is
//!   refused, naming both lines (`s` and `ms` would otherwise be pooled);
//! - NaN and infinity are refused with the line number (a timeout written
//!   as `inf` would otherwise vanish and flatter its label);
//! - a metric repeated within one run is an error naming the line;
//! - the label column wins; `--label` only fills rows whose label is empty.
//!
//! Units with a known direction (case does not matter): lower is better
//! for `s`, `sec`, `ms`, `us`, `µs`, `ns`, `min`, `cycles`; higher is
//! better for anything per second (`/s`, `/sec`, `ops/s`, `MB/s`, …) and
//! `fps`, `Hz`, `kHz`, `MHz`, `score`, `ops`, `rps`, `iops`.  `%` and
//! anything else need a `better` column or `--better`.

use super::{at, Imported};
use crate::measure::{Better, Metric};
use anyhow::Result;
use std::collections::HashMap;

/// The direction a unit implies, if it implies one.
pub fn direction_of_unit(unit: &str) -> Option<Better> {
    let u = unit.trim().to_ascii_lowercase();
    const LOWER: &[&str] = &[
        "s", "sec", "secs", "seconds", "ms", "msec", "us", "µs", "usec", "ns", "nsec", "min",
        "cycles",
    ];
    const HIGHER: &[&str] = &["fps", "hz", "khz", "mhz", "score", "ops", "rps", "iops"];
    const PER_SECOND: &[&str] = &["/s", "/sec", "/second"];
    if LOWER.contains(&u.as_str()) {
        Some(Better::Lower)
    } else if HIGHER.contains(&u.as_str()) || PER_SECOND.iter().any(|s| u.ends_with(s)) {
        Some(Better::Higher)
    } else {
        None
    }
}

/// Column positions of one file.
struct Columns {
    label: usize,
    benchmark: usize,
    metric: usize,
    unit: usize,
    value: usize,
    run: Option<usize>,
    better: Option<usize>,
}

const NAMES: [&str; 7] = [
    "label",
    "benchmark",
    "metric",
    "unit",
    "value",
    "run",
    "better",
];

impl Columns {
    fn positional() -> Columns {
        Columns {
            label: 0,
            benchmark: 1,
            metric: 2,
            unit: 3,
            value: 4,
            run: Some(5),
            better: Some(6),
        }
    }

    fn from_header(h: &csv::StringRecord, line: usize) -> Result<Columns> {
        let find = |name: &str| h.iter().position(|f| f.trim().eq_ignore_ascii_case(name));
        for f in h.iter() {
            if !NAMES.iter().any(|n| f.trim().eq_ignore_ascii_case(n)) {
                return Err(at(
                    line,
                    format!(
                        "unknown column '{}' (columns: {})",
                        f.trim(),
                        NAMES.join(", ")
                    ),
                ));
            }
        }
        let need = |name: &str| {
            find(name).ok_or_else(|| at(line, format!("the header has no '{name}' column")))
        };
        Ok(Columns {
            label: need("label")?,
            benchmark: need("benchmark")?,
            metric: need("metric")?,
            unit: need("unit")?,
            value: need("value")?,
            run: find("run"),
            better: find("better"),
        })
    }
}

/// One row's cells, read and checked.
struct Row {
    label: String,
    benchmark: String,
    name: String,
    unit: String,
    value: f64,
    better: Better,
    run: Option<String>,
}

/// Read record `rec` (at `line`) by the columns `c`: every cell there and
/// of its kind, the value a number a run can have, the direction known.
fn read_row(
    rec: &csv::StringRecord,
    c: &Columns,
    line: usize,
    default_label: Option<&str>,
    default_better: Option<Better>,
) -> Result<Row> {
    let width = [c.label, c.benchmark, c.metric, c.unit, c.value]
        .into_iter()
        .max()
        .unwrap_or(0);
    if rec.len() <= width || rec.len() > NAMES.len() {
        return Err(at(
            line,
            format!(
                "expected label,benchmark,metric,unit,value[,run[,better]], found {} fields",
                rec.len()
            ),
        ));
    }
    let get = |k: usize| rec.get(k).unwrap_or("");
    let opt = |k: Option<usize>| k.and_then(|k| rec.get(k)).filter(|s| !s.is_empty());
    let raw = get(c.value);
    let value: f64 = raw
        .parse()
        .map_err(|_| at(line, format!("'{raw}' is not a number")))?;
    if !value.is_finite() {
        return Err(at(
            line,
            format!("'{raw}' is not a finite number: leave the run out, or store what it means (a timeout as its limit)"),
        ));
    }
    let label = match (get(c.label), default_label) {
        ("", Some(d)) => d.to_string(),
        ("", None) => {
            return Err(at(line, "the label is empty: fill it in or give --label"));
        }
        (l, _) => l.to_string(),
    };
    let (benchmark, name, unit) = (get(c.benchmark), get(c.metric), get(c.unit));
    if benchmark.is_empty() || name.is_empty() {
        return Err(at(line, "benchmark and metric must not be empty"));
    }
    let value = super::checked::metric(&format!("line {line}"), unit.trim(), value)?;
    let better = match opt(c.better) {
        Some(b) if b.eq_ignore_ascii_case("lower") => Better::Lower,
        Some(b) if b.eq_ignore_ascii_case("higher") => Better::Higher,
        Some(b) => {
            return Err(at(line, format!("better is '{b}': write lower or higher")));
        }
        None => default_better.or_else(|| direction_of_unit(unit)).ok_or_else(|| {
            at(
                line,
                format!(
                    "unit '{unit}' does not say whether lower or higher is better: add a better column (lower/higher) or pass --better"
                ),
            )
        })?,
    };
    Ok(Row {
        label,
        benchmark: benchmark.to_string(),
        name: name.to_string(),
        unit: unit.to_string(),
        value,
        better,
        run: opt(c.run).map(str::to_string),
    })
}

/// Every row of one metric of one benchmark has one unit and one
/// direction (`kinds`: each one's first, with its line).
fn same_kind(
    kinds: &mut HashMap<(String, String), (String, Better, usize)>,
    benchmark: &str,
    name: &str,
    unit: &str,
    better: Better,
    line: usize,
) -> Result<()> {
    let kind = (benchmark.to_string(), name.to_string());
    match kinds.get(&kind) {
        Some((u, b, first)) if u != unit || *b != better => Err(at(
            line,
            format!(
                "{benchmark} {name} is in {unit} ({}) here but in {u} ({}) on line {first}: one metric takes one unit and one direction",
                better.as_str(),
                b.as_str()
            ),
        )),
        Some(_) => Ok(()),
        None => {
            kinds.insert(kind, (unit.to_string(), better, line));
            Ok(())
        }
    }
}

/// Parse CSV text.  `default_label` fills empty label cells; `default_better`
/// gives the direction of metrics with no `better` cell.
pub fn parse(
    text: &str,
    default_label: Option<&str>,
    default_better: Option<Better>,
) -> Result<Vec<Imported>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut out: Vec<Imported> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    // (benchmark, metric) → (unit, direction, line) of its first row.
    let mut kinds: HashMap<(String, String), (String, Better, usize)> = HashMap::new();
    // (run key, metric) → line, to find a metric repeated within a run.
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let mut cols: Option<Columns> = None;
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(i + 1, |p| p.line() as usize);
            at(line, format!("not CSV: {e}"))
        })?;
        let line = rec.position().map_or(i + 1, |p| p.line() as usize);
        if rec.iter().all(|f| f.is_empty()) {
            continue;
        }
        let c = match &cols {
            Some(c) => c,
            None => {
                let header = rec.get(0).is_some_and(|f| f.eq_ignore_ascii_case("label"));
                cols = Some(if header {
                    Columns::from_header(&rec, line)?
                } else {
                    Columns::positional()
                });
                if header {
                    continue;
                }
                cols.as_ref().expect("just set")
            }
        };
        let Row {
            label,
            benchmark,
            name,
            unit,
            value,
            better,
            run,
        } = read_row(&rec, c, line, default_label, default_better)?;
        let (benchmark, name, unit) = (benchmark.as_str(), name.as_str(), unit.as_str());
        same_kind(&mut kinds, benchmark, name, unit, better, line)?;
        let key = match run {
            Some(run) => format!("{label}\u{0}{benchmark}\u{0}{run}"),
            None => format!("row{line}"),
        };
        if let Some(first) = seen.insert((key.clone(), name.to_string()), line) {
            return Err(at(
                line,
                format!("{name} appears twice in one run (first on line {first})"),
            ));
        }
        let metric = Metric::new(name, unit, value, better);
        match index.get(&key) {
            Some(&k) => out[k].metrics.push(metric),
            None => {
                index.insert(key, out.len());
                out.push(Imported {
                    label: Some(label),
                    benchmark: benchmark.to_string(),
                    params: serde_json::json!({ "imported_from": "csv" }),
                    metrics: vec![metric],
                    histograms: Vec::new(),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(crate::error::input(
            "no rows: expected label,benchmark,metric,unit,value[,run[,better]]",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text, None, None).unwrap_err().to_string()
    }

    #[test]
    fn rows_and_runs() {
        let text = "label,benchmark,metric,unit,value,run\nclear,hackbench,time,s,15.758,1\nclear,hackbench,rate,msg/s,100,1\nclear,hackbench,time,s,15.630,2\n";
        let r = parse(text, None, None).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].metrics.len(), 2);
        assert_eq!(r[0].metrics[1].better, Better::Higher);
        assert_eq!(r[0].label.as_deref(), Some("clear"));
        let no_run = parse("a,b,m,s,1\na,b,m,s,2\n", None, None).unwrap();
        assert_eq!(no_run.len(), 2);
        let e = err("a,b,m,s,fast\n");
        assert!(e.contains("line 1") && e.contains("not a number"), "{e}");
        let e = err("label,benchmark,metric,unit,value\na,b\n");
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn quoted_fields_with_newlines_and_a_bom() {
        let text = "\u{feff}label,benchmark,metric,unit,value\n\"x,\ny\",\"a \"\"q\"\"\",m,s,3\n";
        let r = parse(text, None, None).unwrap();
        assert_eq!(r[0].label.as_deref(), Some("x,\ny"));
        assert_eq!(r[0].benchmark, "a \"q\"");
    }

    #[test]
    fn direction_from_column_flag_or_unit_table() {
        let r = parse("a,b,m,ops/sec,5\n", None, None).unwrap();
        assert_eq!(r[0].metrics[0].better, Better::Higher, "ops/sec is a rate");
        let r = parse("a,b,m,%,5,1,higher\n", None, None).unwrap();
        assert_eq!(r[0].metrics[0].better, Better::Higher);
        let r = parse("a,b,m,%,5\n", None, Some(Better::Lower)).unwrap();
        assert_eq!(r[0].metrics[0].better, Better::Lower);
        let e = err("a,b,m,%,5\n");
        assert!(e.contains("line 1") && e.contains("better"), "{e}");
        let e = err("a,b,m,s,5,1,sideways\n");
        assert!(e.contains("lower or higher"), "{e}");
        for (u, b) in [
            ("fps", Better::Higher),
            ("MB/s", Better::Higher),
            ("Hz", Better::Higher),
            ("score", Better::Higher),
            ("ms", Better::Lower),
            ("us", Better::Lower),
        ] {
            assert_eq!(direction_of_unit(u), Some(b), "{u}");
        }
    }

    #[test]
    fn what_would_mislead_is_refused_with_its_line() {
        let e = err("a,b,time,s,1\na,b,time,ms,1000\n");
        assert!(
            e.contains("line 2") && e.contains("line 1") && e.contains("ms"),
            "{e}"
        );
        let e = err("a,b,time,s,1,1,lower\na,b,time,s,1,2,higher\n");
        assert!(e.contains("line 2") && e.contains("direction"), "{e}");
        for bad in ["inf", "-inf", "NaN", "nan", "infinity"] {
            let e = err(&format!("a,b,m,s,1\na,b,m,s,{bad}\n"));
            assert!(e.contains("line 2") && e.contains("finite"), "{bad}: {e}");
        }
        let e = err("a,b,m,s,1,1\na,b,m,s,2,1\n");
        assert!(e.contains("line 2") && e.contains("twice"), "{e}");
    }

    #[test]
    fn the_label_column_wins_and_the_flag_fills_blanks() {
        let r = parse("clear,b,m,s,1\n,b,m,s,2\n", Some("given"), None).unwrap();
        assert_eq!(r[0].label.as_deref(), Some("clear"));
        assert_eq!(r[1].label.as_deref(), Some("given"));
        let e = err(",b,m,s,2\n");
        assert!(e.contains("--label"), "{e}");
    }
}
