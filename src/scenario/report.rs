//! The report printed after a scenario: the 2023 seed's layout, a block
//! per label with a row per reported metric and one column per
//! repetition (the mean of the task's complete runs in it).  Every figure
//! carries its unit and every row says in a few words what it measures
//! and which way is better, so the main job's output reads on its own.

use super::Scenario;
use crate::measure::Better;
use crate::store::RunRecord;

fn fmt(v: f64, unit: &str) -> String {
    match unit {
        "s" if v.abs() < 1.0 => format!("{:.3} ms", v * 1000.0),
        "s" => format!("{v:.3} s"),
        "us" => format!("{v:.0} us"),
        "%" => format!("{v:.0}%"),
        "count" | "" => crate::text::table::num(v),
        u => format!("{} {u}", crate::text::table::num(v)),
    }
}

/// What a reported metric of a task kind measures, in a few words: its
/// registry declaration's meaning.
pub fn meaning(kind: &str, metric: &str) -> Option<&'static str> {
    crate::registry::find(kind)?
        .metrics
        .iter()
        .find(|m| m.name == metric)
        .map(|m| m.meaning)
}

fn direction(b: Better) -> &'static str {
    match b {
        Better::Lower => "lower is better",
        Better::Higher => "higher is better",
        Better::Neither => "for information",
    }
}

/// Rows: (title, cells per repetition, what the row means).
pub fn rows(sc: &Scenario, runs: &[RunRecord]) -> Vec<(String, Vec<String>, String)> {
    let mut out = Vec::new();
    for ph in &sc.phases {
        // A contest task's runs are shown as contest's table (render).
        for task in ph.tasks.iter().filter(|t| t.kind != "contest") {
            for (k, metric) in task.show.iter().enumerate() {
                let title = if task.show.len() == 1 || k == 0 && task.show.len() == 1 {
                    task.row.clone()
                } else {
                    format!("{} {metric}", task.row)
                };
                let mut cells = Vec::new();
                let mut better = None;
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
                            r.metrics.iter().find(|m| &m.name == metric).map(|m| {
                                better = Some(m.better);
                                (m.value, m.unit.clone())
                            })
                        })
                        .collect();
                    cells.push(if vals.is_empty() {
                        "-".to_string()
                    } else {
                        let mean = vals.iter().map(|v| v.0).sum::<f64>() / vals.len() as f64;
                        fmt(mean, &vals[0].1)
                    });
                }
                let what = match (meaning(&task.kind, metric), better) {
                    (Some(m), Some(b)) => format!("{m}; {}", direction(b)),
                    (Some(m), None) => m.to_string(),
                    (None, Some(b)) => format!("{metric}; {}", direction(b)),
                    (None, None) => String::new(),
                };
                out.push((title, cells, what));
            }
        }
    }
    out
}

/// `(what)` from column `at` on, wrapped so the report fits the
/// terminal's width (its further lines under its first word; on a line of
/// its own when too little room is left beside the figures).
fn meaning_wrapped(what: &str, at: usize) -> String {
    const FEWEST: usize = 30;
    let width = crate::text::width();
    let text = format!("({what})");
    let (first, indent) = if width.saturating_sub(at) >= FEWEST {
        (String::new(), at + 1)
    } else {
        ("\n     ".to_string(), 6)
    };
    let wrapped = crate::text::wrap(&text, width.saturating_sub(indent - 1));
    // `wrap` starts each further line with two spaces.
    first + &wrapped.replace("\n  ", &format!("\n{}", " ".repeat(indent)))
}

pub fn render(label: &str, sc: &Scenario, runs: &[RunRecord]) -> String {
    let rows = rows(sc, runs);
    let w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let cells: Vec<String> = rows.iter().map(|r| r.1.join(", ")).collect();
    let cw = cells.iter().map(|c| c.chars().count()).max().unwrap_or(0);
    let mut out = format!("{}\n\n", crate::text::clean(label));
    for ((title, _, what), c) in rows.iter().zip(&cells) {
        let line = if what.is_empty() {
            format!("   {title:w$}  {c}")
        } else {
            let head = format!("   {title:w$}  {c:cw$}  ");
            format!("{head}{}", meaning_wrapped(what, head.chars().count()))
        };
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let contest: Vec<crate::benchmarks::contest::engine::table::Row> = runs
        .iter()
        .filter(|r| r.benchmark == "contest")
        .filter_map(crate::benchmarks::contest::engine::table::Row::from_run)
        .collect();
    if !contest.is_empty() {
        if !rows.is_empty() {
            out.push('\n');
        }
        out.push_str(&crate::benchmarks::contest::engine::table::render(
            &contest,
            &[label.to_string()],
            &crate::benchmarks::contest::engine::block_order(),
            label,
        ));
    }
    if let Some(line) = crate::health::suspect_line(runs) {
        out.push_str(&format!("\n{line}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::meaning_wrapped;

    /// A row's meaning wraps within the terminal's width: beside the
    /// figures, its further lines under its first word; on lines of its
    /// own when too little room is left.
    #[test]
    fn meanings_fit_the_terminal() {
        let what = "fair-class thread wake-up delay 99 % of wake-ups beat; lower is better";
        for at in [10, 56, 80, 100, 117] {
            let text = format!("{}{}", " ".repeat(at), meaning_wrapped(what, at));
            assert!(
                text.lines().all(|l| l.chars().count() <= 118),
                "at {at}:\n{text}"
            );
            let words: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(words.join(" "), format!("({what})"), "at {at}");
        }
        let beside = meaning_wrapped(what, 56);
        let second = beside.lines().nth(1).unwrap();
        assert_eq!(second.len() - second.trim_start().len(), 57, "{beside}");
        assert_eq!(meaning_wrapped("short", 20), "(short)");
    }
}
