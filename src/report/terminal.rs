//! The comparison as aligned text tables for a terminal (colour only on a
//! TTY): the scoreboard and its verdict counts first, then the systems,
//! then (with `--details`) a table per metric.

use super::footnotes::footnotes;
use super::sections::{
    details, scheduling, scoreboard, systems, tally_line, waited_behind, Section,
};
use crate::compare::Comparison;
use crate::text::table;

/// How the text is drawn: colour on a TTY, and the width prose wraps to
/// (none with `--wide`).
#[derive(Clone, Copy)]
struct Style {
    colour: bool,
    width: usize,
}

impl Style {
    fn of(c: &Comparison, colour: bool) -> Style {
        Style {
            colour,
            width: if c.wide {
                usize::MAX
            } else {
                crate::text::width()
            },
        }
    }
}

fn section(out: &mut String, s: &Section, st: Style) {
    // A table wider than the terminal goes on in a second one under it,
    // its first column (the label) repeated.
    if let Some((left, right)) = split(s, st) {
        section(out, &left, st);
        out.pop();
        section(out, &right, st);
        return;
    }
    // A table of facts (no verdicts) too wide even so: its widest rows
    // leave it and are listed under it, a line per value (a kernel's
    // version string at 80 columns).
    if s.verdict_col.is_none() && s.groups.is_empty() && drawn_width(s) > st.width.saturating_add(2)
    {
        let (kept, listed) = overflow(s, st.width.saturating_add(2));
        section(out, &kept, st);
        if !listed.is_empty() {
            out.pop();
            out.push_str(&listed);
            out.push('\n');
        }
        return;
    }
    if let Some(lead) = &s.lead {
        out.push_str(&crate::text::wrap(&crate::text::clean(lead), st.width));
        out.push('\n');
    }
    if !s.title.is_empty() {
        out.push_str(&crate::text::wrap(&crate::text::clean(&s.title), st.width));
        out.push('\n');
    }
    if s.rows.is_empty() {
        // The title says why (nothing differed): no header over nothing.
        out.push('\n');
        return;
    }
    let text = drawn(s, st.colour);
    if s.groups.is_empty() {
        out.push_str(&text);
    } else {
        // A group's line above its first row (line 0 is the header).
        let lines: Vec<&str> = text.lines().collect();
        let mut with: Vec<String> = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            if let Some((_, g)) = s.groups.iter().find(|(at, _)| i > 0 && *at == i - 1) {
                with.push(crate::text::clean(g).into_owned());
            }
            with.push(format!("{}{l}", if i > 0 { "  " } else { "" }));
        }
        out.push_str(&with.join("\n"));
    }
    out.push_str("\n\n");
}

/// A section's table as text (its verdicts coloured when `colour`).
fn drawn(s: &Section, colour: bool) -> String {
    let head: Vec<&str> = s.header.iter().map(String::as_str).collect();
    let mut t = table::new(&head);
    table::right_align_from(&mut t, s.numeric_from);
    for r in &s.rows {
        t.add_row(r.clone());
    }
    // Painted after layout: the table measures the words, not the escapes.
    if let Some(i) = s.verdict_col {
        t.paint_verdicts(i);
    }
    t.set_colour(colour);
    t.to_string()
}

/// `s` without the rows that make it wider than `width` (the widest row
/// first, until it fits), and those rows as text: the row's first cell,
/// then each other cell under its column's heading, wrapped.
fn overflow(s: &Section, width: usize) -> (Section, String) {
    let natural = |r: &Vec<String>| -> usize {
        r.iter()
            .map(|c| crate::text::clean(c).chars().count())
            .sum::<usize>()
            + 2 * r.len()
    };
    let mut kept = s.clone();
    kept.rows.clear();
    let mut rows: Vec<Vec<String>> = s.rows.clone();
    let mut out_rows: Vec<Vec<String>> = Vec::new();
    loop {
        kept.rows = rows.clone();
        if rows.is_empty() || drawn_width(&kept) <= width {
            break;
        }
        let widest = (0..rows.len())
            .max_by_key(|&i| natural(&rows[i]))
            .unwrap_or(0);
        out_rows.push(rows.remove(widest));
    }
    let mut text = String::new();
    for r in s.rows.iter().filter(|r| out_rows.contains(r)) {
        text.push_str(&crate::text::clean(&r[0]));
        text.push('\n');
        for (h, v) in s.header.iter().zip(r).skip(1) {
            let line = format!("  {}: {}", crate::text::clean(h), crate::text::clean(v));
            text.push_str(&crate::text::wrap_indented(&line, width.saturating_sub(2)));
            text.push('\n');
        }
    }
    (kept, text)
}

/// The widest of a section's table lines, as `section` draws them
/// (uncoloured; a group's rows indented by two).
fn drawn_width(s: &Section) -> usize {
    let indent = if s.groups.is_empty() { 0 } else { 2 };
    drawn(s, false)
        .lines()
        .map(|l| l.chars().count() + indent)
        .max()
        .unwrap_or(0)
}

/// A table too wide for `st.width` as two: the most columns that fit,
/// and the rest after the first column again.  `None` when it fits, or
/// when not even two columns would.
fn split(s: &Section, st: Style) -> Option<(Section, Section)> {
    if s.header.len() < 3 || drawn_width(s) <= st.width.saturating_add(2) {
        return None;
    }
    let cut = |from: usize, to: usize, keep_first: bool| -> Section {
        let cols: Vec<usize> = (keep_first && from > 0)
            .then_some(0)
            .into_iter()
            .chain(from..to)
            .collect();
        let pick = |r: &Vec<String>| cols.iter().map(|&i| r[i].clone()).collect();
        let at = |i: usize| cols.iter().position(|&c| c == i);
        Section {
            title: if from == 0 {
                s.title.clone()
            } else {
                String::new()
            },
            header: pick(&s.header),
            rows: s.rows.iter().map(pick).collect(),
            numeric_from: cols
                .iter()
                .position(|&c| c >= s.numeric_from)
                .unwrap_or(usize::MAX),
            verdict_col: s.verdict_col.and_then(at),
            groups: s.groups.clone(),
            lead: if from == 0 { s.lead.clone() } else { None },
            break_at: None,
        }
    };
    let fits = |k: usize| drawn_width(&cut(0, k, false)) <= st.width.saturating_add(2);
    let k = s
        .break_at
        .filter(|&k| k >= 2 && k < s.header.len() && fits(k))
        .or_else(|| (2..s.header.len()).rev().find(|&k| fits(k)))?;
    Some((cut(0, k, false), cut(k, s.header.len(), true)))
}

/// `curves` (with `--curve`, or a sweep) in place of the scoreboard.
pub fn render_with(
    c: &Comparison,
    colour: bool,
    with_details: bool,
    curves: Option<&[crate::compare::curve::Curve]>,
) -> String {
    let Some(curves) = curves else {
        return render(c, colour, with_details);
    };
    let st = Style::of(c, colour);
    let mut out = String::new();
    above(&mut out, c, st);
    for cv in curves {
        section(&mut out, &super::curves::section(c, cv), st);
        for l in super::curves::parting_lines(c, cv) {
            out.push_str(&crate::text::clean(&l));
            out.push('\n');
        }
        out.push('\n');
    }
    rest(&mut out, c, st, with_details);
    out
}

pub fn render(c: &Comparison, colour: bool, with_details: bool) -> String {
    let st = Style::of(c, colour);
    let mut out = String::new();
    above(&mut out, c, st);
    scoreboard_fitted(&mut out, &scoreboard(c), st);
    rest(&mut out, c, st, with_details);
    out
}

/// What a reader must know before the first table.
fn above(out: &mut String, c: &Comparison, st: Style) {
    for a in &c.above {
        out.push_str(&crate::text::wrap(&crate::text::clean(a), st.width));
        out.push_str("\n\n");
    }
}

/// What follows the scoreboard (or the curves).
fn rest(out: &mut String, c: &Comparison, st: Style, with_details: bool) {
    out.push_str(&tally_line(c));
    out.push_str("\n\n");
    section(out, &systems(c), st);
    if let Some(s) = waited_behind(c) {
        prose(out, &s, st);
    }
    if let Some(s) = scheduling(c) {
        section(out, &s, st);
    }
    if with_details {
        for s in details(c) {
            section(out, &s, st);
        }
    }
    for f in footnotes(c).iter().skip(1) {
        out.push_str(&crate::text::wrap(&crate::text::clean(f), st.width));
        out.push('\n');
    }
}

/// The scoreboard; when its "note" column would take it past the
/// terminal's width, that column becomes lines under the table, a group's
/// line and then a line per row (`  lat (b): n = 3, CV 51 %: …`).
fn scoreboard_fitted(out: &mut String, s: &Section, st: Style) {
    let wide = drawn_width(s) > st.width.saturating_add(2);
    if !wide || s.header.last().map(String::as_str) != Some("note") {
        section(out, s, st);
        return;
    }
    let mut narrow = s.clone();
    narrow.header.pop();
    let label_col = s.header.iter().position(|h| h == "label");
    let mut notes = Vec::new();
    let mut group = None;
    for (i, r) in narrow.rows.iter_mut().enumerate() {
        let Some(n) = r.pop().filter(|n| !n.is_empty()) else {
            continue;
        };
        // The group once (its short name: the table above states its
        // parameters), then its rows' notes under it.
        let g = s.groups.iter().rev().find(|(at, _)| *at <= i);
        if let Some((at, title)) = g.filter(|(at, _)| group != Some(*at)) {
            group = Some(*at);
            notes.push(super::sections::short_title(title, &s.groups));
        }
        match label_col {
            Some(l) => notes.push(format!("  {} ({}): {n}", r[0], r[l])),
            None => notes.push(format!("  {}: {n}", r[0])),
        }
    }
    section(out, &narrow, st);
    // `section` ended with a blank line: the notes go before it.
    out.pop();
    out.push_str(&crate::text::wrap(
        "Notes (what inconclusive runs could tell apart and what would decide; what equivalent rests on):",
        st.width,
    ));
    out.push('\n');
    for n in notes {
        indented(out, &n, 2, st.width);
    }
    out.push('\n');
}

/// `text` wrapped at `width`, `by` columns in, each further line of it
/// two more (a note under a group's line, say).
fn indented(out: &mut String, text: &str, by: usize, width: usize) {
    let inner = text.trim_start();
    let by = by + (text.len() - inner.len());
    let pad = " ".repeat(by);
    let wrapped = crate::text::wrap(&crate::text::clean(inner), width.saturating_sub(by));
    out.push_str(&pad);
    out.push_str(&wrapped.replace("\n", &format!("\n{pad}")));
    out.push('\n');
}

/// A section whose last column is a sentence: each row's other columns on
/// a line, the sentence wrapped below it.
fn prose(out: &mut String, s: &Section, st: Style) {
    out.push_str(&crate::text::wrap(&crate::text::clean(&s.title), st.width));
    out.push('\n');
    for r in &s.rows {
        let Some((last, head)) = r.split_last() else {
            continue;
        };
        out.push_str(&crate::text::clean(&head.join("  ")));
        out.push('\n');
        out.push_str("  ");
        out.push_str(
            &crate::text::wrap(&crate::text::clean(last), st.width.saturating_sub(2))
                .replace("\n  ", "\n    "),
        );
        out.push('\n');
    }
    out.push('\n');
}

/// The comparison as aligned text for a terminal.
pub struct Terminal;

impl<'a> super::Format<super::Input<'a>> for Terminal {
    fn render(&self, i: &super::Input<'a>) -> anyhow::Result<String> {
        Ok(render_with(i.comparison, i.colour, i.details, i.curves))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A facts table wider than the terminal keeps the rows that fit and
    /// lists the rest under it, every line within the width.
    #[test]
    fn a_table_of_facts_too_wide_lists_its_widest_rows() {
        let s = Section {
            title: "Systems compared".into(),
            header: vec!["".into(), "a".into(), "b".into()],
            rows: vec![
                vec!["HZ".into(), "250".into(), "1000".into()],
                vec![
                    "version".into(),
                    "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)".into(),
                    "#1 SMP PREEMPT_RT Debian 6.1.192-3 (2026-11-26)".into(),
                ],
            ],
            numeric_from: usize::MAX,
            verdict_col: None,
            groups: Vec::new(),
            lead: None,
            break_at: None,
        };
        let mut out = String::new();
        section(
            &mut out,
            &s,
            Style {
                colour: false,
                width: 38,
            },
        );
        assert!(out.lines().all(|l| l.chars().count() <= 40), "{out}");
        assert!(out.contains("HZ  250  1000"), "{out}");
        assert!(
            out.contains("version\n  a: #1 SMP PREEMPT_DYNAMIC"),
            "{out}"
        );
        assert!(out.contains("  b: #1 SMP PREEMPT_RT"), "{out}");
    }
}
