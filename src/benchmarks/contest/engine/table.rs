//! contest's table: one block per load (`noload:`, `process_load:`, …),
//! a row per label with means over its runs, and Ratio = Time / the mean
//! noload Time of the reference label.  As in contest's own mails
//! (`1.31*`), a `*` marks a Time that differs significantly from the
//! reference kernel's under the same load: Welch's t-test, Holm-adjusted
//! over every such test in the table, at alpha 0.05, with at least 3 runs
//! a side.

use crate::text::table::{self, Table};
use std::collections::BTreeMap;

/// One run as the table needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub label: String,
    pub load: String,
    pub time_s: f64,
    pub cpu_percent: f64,
    pub loads: f64,
    pub lcpu_percent: f64,
    /// What the Loads column counts (`MiB` written, ring `laps`, …).
    pub loads_unit: String,
    /// Something the reader must know about this run (mem without swap).
    pub note: Option<String>,
}

impl Row {
    /// A stored contest run as a row (`None` if it is not one).
    pub fn from_run(r: &crate::store::RunRecord) -> Option<Row> {
        let m = |n: &str| r.metrics.iter().find(|x| x.name == n);
        Some(Row {
            label: r.label.clone(),
            load: r.params.get("load")?.as_str()?.to_string(),
            time_s: m("time")?.value,
            cpu_percent: m("cpu_percent")?.value,
            loads: m("loads").map_or(0.0, |x| x.value),
            lcpu_percent: m("lcpu_percent").map_or(0.0, |x| x.value),
            loads_unit: m("loads").map_or(String::new(), |x| x.unit.clone()),
            note: r
                .settings
                .get("note")
                .and_then(|n| n.as_str())
                .map(str::to_string),
        })
    }
}

/// Block heading as contest printed it (`io_other:`, not `io_other_load:`).
pub fn heading(load: &str) -> String {
    match load {
        "noload" | "cacherun" | "io_other" => format!("{load}:"),
        l => format!("{l}_load:"),
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

type ByLoad<'a> = BTreeMap<(&'a str, &'a str), Vec<&'a Row>>;

/// Which (load, label) Times differ from the reference's, Holm-adjusted;
/// only pairs with 3+ runs a side are tested (and present in the map).
fn significant<'a>(
    by: &ByLoad<'a>,
    labels: &'a [String],
    load_order: &'a [String],
    reference: &str,
) -> BTreeMap<(&'a str, &'a str), bool> {
    let times = |rs: &Vec<&Row>| rs.iter().map(|r| r.time_s).collect::<Vec<f64>>();
    let mut keys = Vec::new();
    let mut ps = Vec::new();
    for load in load_order {
        let Some(base) = by.get(&(load.as_str(), reference)) else {
            continue;
        };
        for label in labels.iter().filter(|l| l.as_str() != reference) {
            let Some(rs) = by.get(&(load.as_str(), label.as_str())) else {
                continue;
            };
            if base.len() < crate::stats::MIN_RUNS || rs.len() < crate::stats::MIN_RUNS {
                continue;
            }
            if let Some(w) = crate::stats::welch::test(&times(base), &times(rs)) {
                keys.push((load.as_str(), label.as_str()));
                ps.push(Some(w.p));
            }
        }
    }
    let adj = crate::stats::multiple::adjust(&ps, crate::stats::multiple::Correction::Holm);
    keys.into_iter()
        .zip(adj)
        .map(|(k, p)| (k, p.is_some_and(|p| p < 0.05)))
        .collect()
}

/// Render the table.  `labels` gives the row order; `load_order` the
/// block order; the reference label's mean noload time is the Ratio's
/// denominator (no Ratio when it has no noload run).
pub fn render(rows: &[Row], labels: &[String], load_order: &[String], reference: &str) -> String {
    let mut by: ByLoad = BTreeMap::new();
    for r in rows {
        by.entry((r.load.as_str(), r.label.as_str()))
            .or_default()
            .push(r);
    }
    let ref_noload = by
        .get(&("noload", reference))
        .map(|rs| mean(&rs.iter().map(|r| r.time_s).collect::<Vec<_>>()));
    let marks = significant(&by, labels, load_order, reference);
    let mut out = String::new();
    for load in load_order {
        if !labels
            .iter()
            .any(|l| by.contains_key(&(load.as_str(), l.as_str())))
        {
            continue;
        }
        let mut t: Table =
            table::new(&["Kernel [runs]", "Time", "CPU%", "Loads", "LCPU%", "Ratio"]);
        table::right_align_from(&mut t, 1);
        for label in labels {
            let Some(rs) = by.get(&(load.as_str(), label.as_str())) else {
                continue;
            };
            let time = mean(&rs.iter().map(|r| r.time_s).collect::<Vec<_>>());
            let cpu = mean(&rs.iter().map(|r| r.cpu_percent).collect::<Vec<_>>());
            let loads = mean(&rs.iter().map(|r| r.loads).collect::<Vec<_>>());
            let lcpu = mean(&rs.iter().map(|r| r.lcpu_percent).collect::<Vec<_>>());
            let is_load = load != "noload" && load != "cacherun";
            t.add_row(vec![
                format!("{label} [{}]", rs.len()),
                format!("{time:.2}"),
                format!("{cpu:.0}%"),
                if is_load {
                    format!("{loads:.0}")
                } else {
                    "0".into()
                },
                if is_load {
                    format!("{lcpu:.0}%")
                } else {
                    "0%".into()
                },
                ref_noload.map_or("-".into(), |n| {
                    let star = if marks.get(&(load.as_str(), label.as_str())) == Some(&true) {
                        "*"
                    } else {
                        ""
                    };
                    format!("{:.2}{star}", time / n)
                }),
            ]);
        }
        out.push_str(&heading(load));
        out.push('\n');
        out.push_str(&t.to_string());
        out.push_str("\n\n");
    }
    let mut units: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for load in load_order {
        if let Some(r) = rows
            .iter()
            .find(|r| &r.load == load && !r.loads_unit.is_empty())
        {
            units.push(format!(
                "{} in {}",
                heading(load).trim_end_matches(':'),
                r.loads_unit
            ));
        }
        for r in rows.iter().filter(|r| &r.load == load) {
            if let Some(n) = &r.note {
                if !notes.contains(n) {
                    notes.push(n.clone());
                }
            }
        }
    }
    if !units.is_empty() {
        out.push_str(&format!("Loads counts: {}\n", units.join("; ")));
    }
    for n in &notes {
        out.push_str(&format!("{n}\n"));
    }
    if !marks.is_empty() {
        out.push_str(&format!(
            "* Time differs from {reference}'s under the same load (Welch, Holm-adjusted over the {} tests of this table, alpha 0.05)\n",
            marks.len()
        ));
    }
    if ref_noload.is_none() {
        out.push_str(&format!(
            "(no Ratio: reference {reference} has no noload run)\n"
        ));
    }
    out.trim_end().to_string() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, load: &str, t: f64, cpu: f64, loads: f64, lcpu: f64) -> Row {
        Row {
            label: label.into(),
            load: load.into(),
            time_s: t,
            cpu_percent: cpu,
            loads,
            lcpu_percent: lcpu,
            loads_unit: String::new(),
            note: None,
        }
    }

    #[test]
    fn renders_the_seed_layout_with_ratios_against_the_reference() {
        // Figures from the 2002 contest mail (2.4.19 as reference).
        let rows = vec![
            row("2.4.19", "noload", 67.71, 98.0, 0.0, 0.0),
            row("2.5.39", "noload", 73.17, 93.0, 0.0, 0.0),
            row("2.4.19", "process", 110.75, 57.0, 12.0, 40.0),
            row("2.5.39", "process", 91.0, 76.0, 10.0, 30.0),
            row("2.5.39", "process", 91.0, 76.0, 14.0, 34.0),
        ];
        let labels = vec!["2.4.19".to_string(), "2.5.39".to_string()];
        let order: Vec<String> = ["noload", "cacherun", "process"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let text = render(&rows, &labels, &order, "2.4.19");
        let expected = "\
noload:
Kernel [runs]   Time  CPU%  Loads  LCPU%  Ratio
2.4.19 [1]     67.71   98%      0     0%   1.00
2.5.39 [1]     73.17   93%      0     0%   1.08

process_load:
Kernel [runs]    Time  CPU%  Loads  LCPU%  Ratio
2.4.19 [1]     110.75   57%     12    40%   1.64
2.5.39 [2]      91.00   76%     12    32%   1.34
";
        assert_eq!(text, expected);
    }

    #[test]
    fn marks_significant_differences_from_the_reference_as_contest_did() {
        // Five runs each, like the mail's "average of 5 runs": process_load
        // differs (91.0 vs 83.6 s), mem_load does not (103.72 vs 103.95 s).
        let mut rows = Vec::new();
        for (k, d) in [-0.4, -0.2, 0.0, 0.2, 0.4].iter().enumerate() {
            let j = if k % 2 == 0 { 0.3 } else { -0.3 };
            rows.push(row("2.5.39", "noload", 73.17 + d, 93.0, 0.0, 0.0));
            rows.push(row("2.5.39-pe", "noload", 73.03 + d, 94.0, 0.0, 0.0));
            rows.push(row("2.5.39", "process", 91.0 + d, 76.0, 10.0, 30.0));
            rows.push(row("2.5.39-pe", "process", 83.6 + d, 82.0, 10.0, 30.0));
            rows.push(row("2.5.39", "mem", 103.72 + d + j, 72.0, 10.0, 30.0));
            rows.push(row("2.5.39-pe", "mem", 103.95 + d - j, 73.0, 10.0, 30.0));
        }
        let labels = vec!["2.5.39-pe".to_string(), "2.5.39".to_string()];
        let order: Vec<String> = ["noload", "process", "mem"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let text = render(&rows, &labels, &order, "2.5.39-pe");
        assert!(
            text.contains("2.5.39 [5]     91.00   76%     10    30%  1.25*\n"),
            "{text}"
        );
        let mem = text.split("mem_load:").nth(1).unwrap();
        assert!(!mem.lines().take(3).any(|l| l.contains('*')), "{text}");
        assert!(
            !text.split("process_load:").next().unwrap().contains('*'),
            "{text}"
        );
        assert!(text.contains("* Time differs from 2.5.39-pe's"), "{text}");
    }

    #[test]
    fn headings_order_and_units_as_contest() {
        assert_eq!(heading("io_other"), "io_other:");
        assert_eq!(heading("io"), "io_load:");
        assert_eq!(heading("noload"), "noload:");
        assert_eq!(
            crate::benchmarks::contest::engine::block_order(),
            [
                "noload", "cacherun", "process", "ctar", "xtar", "io", "io_other", "read", "list",
                "mem", "dbench", "cpu"
            ]
        );
        let mut mem = row("a", "mem", 10.0, 90.0, 5.0, 5.0);
        mem.loads_unit = "MiB".into();
        mem.note = Some("mem_load: no swap here".into());
        let mut io = row("a", "io_other", 10.0, 90.0, 5.0, 5.0);
        io.loads_unit = "MiB".into();
        let text = render(
            &[mem, io],
            &["a".into()],
            &crate::benchmarks::contest::engine::block_order(),
            "a",
        );
        assert!(
            text.find("io_other:").unwrap() < text.find("mem_load:").unwrap(),
            "{text}"
        );
        assert!(
            text.contains("Loads counts: io_other in MiB; mem_load in MiB"),
            "{text}"
        );
        assert!(text.contains("mem_load: no swap here"), "{text}");
    }

    #[test]
    fn says_when_the_reference_has_no_noload() {
        let rows = vec![row("a", "process", 10.0, 90.0, 1.0, 5.0)];
        let text = render(&rows, &["a".into()], &["process".into()], "a");
        assert!(text.contains("no Ratio"), "{text}");
        assert!(text.contains("process_load:"));
    }
}
