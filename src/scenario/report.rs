//! The report printed after a scenario: the 2023 seed's layout, a block
//! per label with a row per reported metric and one column per
//! repetition (the mean of the task's complete runs in it).

use super::Scenario;
use crate::store::RunRecord;

fn fmt(v: f64, unit: &str) -> String {
    match unit {
        "s" if v.abs() < 1.0 => format!("{v:.6}"),
        "s" => format!("{v:.3}s"),
        "us" => format!("{v:.0}"),
        "%" => format!("{v:.0}%"),
        "count" | "" => crate::report::table::num(v),
        u => format!("{} {u}", crate::report::table::num(v)),
    }
}

/// Rows: (title, cells per repetition).
pub fn rows(sc: &Scenario, runs: &[RunRecord]) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for ph in &sc.phases {
        for task in &ph.tasks {
            for (k, metric) in task.show.iter().enumerate() {
                let title = if task.show.len() == 1 || k == 0 && task.show.len() == 1 {
                    task.row.clone()
                } else {
                    format!("{} {metric}", task.row)
                };
                let mut cells = Vec::new();
                for rep in 0..sc.runs {
                    let vals: Vec<(f64, String)> = runs
                        .iter()
                        .filter(|r| {
                            r.phase.as_deref() == Some(ph.name.as_str())
                                && r.repetition == Some(rep as i64)
                        })
                        .filter(|r| {
                            r.params.get("task").and_then(|t| t.as_str())
                                == Some(task.name.as_str())
                        })
                        .filter_map(|r| {
                            r.metrics
                                .iter()
                                .find(|m| &m.name == metric)
                                .map(|m| (m.value, m.unit.clone()))
                        })
                        .collect();
                    cells.push(if vals.is_empty() {
                        "-".to_string()
                    } else {
                        let mean = vals.iter().map(|v| v.0).sum::<f64>() / vals.len() as f64;
                        fmt(mean, &vals[0].1)
                    });
                }
                out.push((title, cells));
            }
        }
    }
    out
}

pub fn render(label: &str, sc: &Scenario, runs: &[RunRecord]) -> String {
    let rows = rows(sc, runs);
    let w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let mut out = format!("{label}\n\n");
    for (title, cells) in rows {
        out.push_str(&format!("   {title:w$}  {}\n", cells.join(", ")));
    }
    out
}
