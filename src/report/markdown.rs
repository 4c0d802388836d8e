//! The comparison as Markdown, fit to paste into a mailing-list post or an
//! issue: the scoreboard first, details with `--details`.

use super::footnotes::footnotes;
use super::sections::{
    details, scheduling, scoreboard, systems, tally_line, waited_behind, Section,
};
use crate::compare::Comparison;

fn cell(s: &str) -> String {
    crate::text::clean(s).replace('|', "\\|")
}

fn section(out: &mut String, s: &Section) {
    if let Some(lead) = &s.lead {
        out.push_str(&format!("**{}**\n\n", cell(lead)));
    }
    out.push_str(&format!("### {}\n\n", cell(&s.title)));
    if s.rows.is_empty() {
        return;
    }
    out.push_str(&format!(
        "| {} |\n",
        s.header
            .iter()
            .map(|h| cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    ));
    let align: Vec<&str> = (0..s.header.len())
        .map(|i| {
            if i >= s.numeric_from && Some(i) != s.verdict_col {
                "---:"
            } else {
                "---"
            }
        })
        .collect();
    out.push_str(&format!("| {} |\n", align.join(" | ")));
    for (i, r) in s.rows.iter().enumerate() {
        if let Some((_, g)) = s.groups.iter().find(|(at, _)| *at == i) {
            let blank = vec![""; s.header.len().saturating_sub(1)].join(" | ");
            out.push_str(&format!("| **{}** | {blank} |\n", cell(g)));
        }
        out.push_str(&format!(
            "| {} |\n",
            r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
        ));
    }
    out.push('\n');
}

/// The scoreboard with its "note" column as a list under the table, so
/// that its rows stay short enough for a mailing-list reader.
fn scoreboard_with_notes(out: &mut String, s: &Section) {
    if s.header.last().map(String::as_str) != Some("note") {
        section(out, s);
        return;
    }
    let mut table = s.clone();
    table.header.pop();
    let mut notes = Vec::new();
    for (i, r) in table.rows.iter_mut().enumerate() {
        let Some(n) = r.pop().filter(|n| !n.is_empty()) else {
            continue;
        };
        let group = s
            .groups
            .iter()
            .rev()
            .find(|(at, _)| *at <= i)
            .map(|(_, g)| super::sections::short_title(g, &s.groups))
            .unwrap_or_default();
        notes.push(format!(
            "- *{} {}*: {}",
            cell(&group),
            cell(&r[0]),
            cell(&n)
        ));
    }
    section(out, &table);
    for n in notes {
        out.push_str(&n);
        out.push('\n');
    }
    out.push('\n');
}

pub fn render(
    c: &Comparison,
    with_details: bool,
    curves: Option<&[crate::compare::curve::Curve]>,
) -> String {
    let mut out = format!("## kbench comparison: {}\n\n", cell(&c.labels.join(" vs ")));
    for a in &c.above {
        out.push_str(&format!("> **{}**\n\n", cell(a)));
    }
    match curves {
        Some(cs) => {
            for cv in cs {
                section(&mut out, &super::curves::section(c, cv));
                for l in super::curves::parting_lines(c, cv) {
                    out.push_str(&format!("- {}\n", cell(&l)));
                }
                out.push('\n');
            }
        }
        None => scoreboard_with_notes(&mut out, &scoreboard(c)),
    }
    out.push_str(&format!("**{}**\n\n", tally_line(c)));
    section(&mut out, &systems(c));
    if let Some(s) = waited_behind(c) {
        section(&mut out, &s);
    }
    if let Some(s) = scheduling(c) {
        section(&mut out, &s);
    }
    if with_details {
        for s in details(c) {
            section(&mut out, &s);
        }
    }
    for f in footnotes(c).iter().skip(1) {
        out.push_str(&format!("- {}\n", cell(f)));
    }
    out
}

/// The comparison as Markdown, for a mailing list or an issue.
pub struct Markdown;

impl<'a> super::Format<super::Input<'a>> for Markdown {
    fn render(&self, i: &super::Input<'a>) -> anyhow::Result<String> {
        Ok(render(i.comparison, i.details, i.curves))
    }
}
