//! Plain CSV: `label,benchmark,metric,unit,value[,run]`, with or without a
//! header.  Rows sharing label, benchmark and run form one run; without a
//! run column every row is its own run.  A unit ending in `/s` is taken as
//! higher-is-better, anything else lower-is-better.

use super::{at, Imported};
use crate::bench::{Better, Metric};
use anyhow::Result;

/// Split one CSV line (RFC 4180 quotes).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().map(|s| s.trim().to_string()).collect()
}

pub fn parse(text: &str) -> Result<Vec<Imported>> {
    let mut out: Vec<Imported> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut first = true;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f = fields(line);
        let header = first && f.first().map(String::as_str) == Some("label");
        first = false;
        if header {
            continue;
        }
        if f.len() < 5 || f.len() > 6 {
            return Err(at(
                i + 1,
                format!(
                    "expected label,benchmark,metric,unit,value[,run], found {} fields",
                    f.len()
                ),
            ));
        }
        let value: f64 = f[4]
            .parse()
            .map_err(|_| at(i + 1, format!("'{}' is not a number", f[4])))?;
        if f[0].is_empty() || f[1].is_empty() || f[2].is_empty() {
            return Err(at(i + 1, "label, benchmark and metric must not be empty"));
        }
        let better = if f[3].ends_with("/s") {
            Better::Higher
        } else {
            Better::Lower
        };
        let metric = Metric::new(&f[2], &f[3], value, better);
        let key = match f.get(5) {
            Some(run) => format!("{}\u{0}{}\u{0}{run}", f[0], f[1]),
            None => format!("row{i}"),
        };
        match index.get(&key) {
            Some(&k) => out[k].metrics.push(metric),
            None => {
                index.insert(key, out.len());
                out.push(Imported {
                    label: Some(f[0].clone()),
                    benchmark: f[1].clone(),
                    params: serde_json::json!({ "imported_from": "csv" }),
                    metrics: vec![metric],
                    histograms: Vec::new(),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(crate::error::input(
            "no rows: expected label,benchmark,metric,unit,value[,run]",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_runs() {
        let text = "label,benchmark,metric,unit,value,run\nclear,hackbench,time,s,15.758,1\nclear,hackbench,rate,msg/s,100,1\nclear,hackbench,time,s,15.630,2\n";
        let r = parse(text).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].metrics.len(), 2);
        assert_eq!(r[0].metrics[1].better, Better::Higher);
        assert_eq!(r[0].label.as_deref(), Some("clear"));
        let no_run = parse("a,b,m,s,1\na,b,m,s,2\n").unwrap();
        assert_eq!(no_run.len(), 2);
        assert_eq!(
            fields("\"x,y\",\"a \"\"q\"\"\",3"),
            vec!["x,y", "a \"q\"", "3"]
        );
        let err = parse("a,b,m,s,fast\n").unwrap_err().to_string();
        assert!(
            err.contains("line 1") && err.contains("not a number"),
            "{err}"
        );
        let err = parse("label,benchmark,metric,unit,value\na,b\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
    }
}
