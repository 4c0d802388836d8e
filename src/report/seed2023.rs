//! The 2023 seed's layout: a block per label, a row per metric, the runs'
//! values side by side (`hackbench1  15.758s, 15.630s, 16.127s`), and
//! under each row of a compared label its verdict against the baseline.

use super::sections::{change_text, p_text, tally_line};
use crate::compare::{params_text, Comparison};

fn value(v: f64, unit: &str) -> String {
    match unit {
        "s" => format!("{v:.3}s"),
        "us" => format!("{v:.0}"),
        "" | "count" => format!("{v}"),
        u => format!("{v:.3} {u}"),
    }
}

pub fn render(c: &Comparison) -> String {
    let mut names = Vec::new();
    for g in &c.groups {
        let many = c
            .groups
            .iter()
            .filter(|o| o.benchmark == g.benchmark)
            .count()
            > 1;
        for m in &g.metrics {
            let mut n = format!("{} {}", g.benchmark, m.metric);
            if many {
                n.push_str(&format!(" [{}]", params_text(&g.params)));
            }
            names.push(n);
        }
    }
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for label in &c.labels {
        out.push_str(label);
        out.push_str("\n\n");
        let mut i = 0;
        for g in &c.groups {
            for m in &g.metrics {
                let name = &names[i];
                i += 1;
                if let Some(l) = m.labels.iter().find(|l| &l.label == label) {
                    let vals: Vec<String> = l.values.iter().map(|v| value(*v, &m.unit)).collect();
                    out.push_str(&format!("   {name:width$}  {}\n", vals.join(", ")));
                    if let Some(v) = &l.versus {
                        out.push_str(&format!(
                            "   {:width$}  vs {}: {}, p adj {}, {}\n",
                            "",
                            c.baseline,
                            change_text(v.change_pct, v.change_ci_pct),
                            p_text(v.p_adjusted),
                            v.verdict.as_str()
                        ));
                    }
                }
            }
        }
        out.push('\n');
    }
    if c.labels.len() > 1 {
        out.push_str(&tally_line(c));
        out.push('\n');
    }
    out
}
