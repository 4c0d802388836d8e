//! The comparison as Markdown, fit to paste into a mailing-list post or an
//! issue.

use super::sections::{footnotes, sections};
use crate::compare::Comparison;

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

pub fn render(c: &Comparison) -> String {
    let mut out = format!("## kbench comparison: {}\n\n", c.labels.join(" vs "));
    for s in sections(c) {
        out.push_str(&format!("### {}\n\n", s.title));
        out.push_str(&format!(
            "| {} |\n",
            s.header
                .iter()
                .map(|h| cell(h))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        let align: Vec<&str> = (0..s.header.len())
            .map(|i| if i >= s.numeric_from { "---:" } else { "---" })
            .collect();
        out.push_str(&format!("| {} |\n", align.join(" | ")));
        for r in &s.rows {
            out.push_str(&format!(
                "| {} |\n",
                r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
            ));
        }
        out.push('\n');
    }
    for f in footnotes(c) {
        out.push_str(&format!("- {f}\n"));
    }
    out
}
