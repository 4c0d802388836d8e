//! The comparison as aligned text tables for a terminal (colour only on a
//! TTY): the scoreboard and its verdict counts first, then the systems,
//! then (with `--details`) a table per metric.

use super::sections::{
    details, footnotes, scheduling, scoreboard, systems, tally_line, waited_behind, Section,
};
use crate::compare::Comparison;
use crate::text::table;

fn paint(verdict: &str) -> Option<&'static str> {
    match verdict {
        "better" => Some("32"),
        "worse" => Some("31"),
        "equivalent" => Some("36"),
        "inconclusive" | "too few runs" => Some("33"),
        _ => None,
    }
}

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
            width: if c.wide { usize::MAX } else { WIDTH },
        }
    }
}

fn section(out: &mut String, s: &Section, st: Style) {
    let head: Vec<&str> = s.header.iter().map(String::as_str).collect();
    let mut t = table::new(&head);
    table::right_align_from(&mut t, s.numeric_from);
    for r in &s.rows {
        let mut r = r.clone();
        if let (true, Some(i)) = (st.colour, s.verdict_col) {
            if let Some(code) = r.get(i).and_then(|v| paint(v)) {
                r[i] = format!("\x1b[{code}m{}\x1b[0m", r[i]);
            }
        }
        t.add_row(r);
    }
    out.push_str(&crate::text::wrap(&crate::text::clean(&s.title), st.width));
    out.push('\n');
    let text = t.to_string();
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
    scoreboard_fitted(&mut out, &scoreboard(c), st);
    rest(&mut out, c, st, with_details);
    out
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

/// The scoreboard; when its "to decide" column would take it past the
/// terminal's width, that column becomes a line per row under the table
/// (`to decide, lat b: n = 3, CV 51 %: …`).
fn scoreboard_fitted(out: &mut String, s: &Section, st: Style) {
    let mut fit = String::new();
    section(
        &mut fit,
        s,
        Style {
            colour: false,
            ..st
        },
    );
    let wide = fit
        .lines()
        .any(|l| l.chars().count() > st.width.saturating_add(2));
    if !wide || s.header.last().map(String::as_str) != Some("to decide") {
        section(out, s, st);
        return;
    }
    let mut narrow = s.clone();
    narrow.header.pop();
    let mut notes = Vec::new();
    for (i, r) in narrow.rows.iter_mut().enumerate() {
        let bench = s
            .groups
            .iter()
            .rev()
            .find(|(at, _)| *at <= i)
            .and_then(|(_, g)| g.split_whitespace().next())
            .unwrap_or("");
        if let Some(n) = r.pop().filter(|n| !n.is_empty()) {
            notes.push(format!("to decide, {bench} {} ({}): {n}", r[0], r[2]));
        }
    }
    section(out, &narrow, st);
    // `section` ended with a blank line: the notes go before it.
    out.pop();
    for n in notes {
        out.push_str(&crate::text::wrap(&crate::text::clean(&n), st.width));
        out.push('\n');
    }
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

/// The width prose is wrapped to (tables are as wide as their columns).
pub const WIDTH: usize = 118;

/// The comparison as aligned text for a terminal.
pub struct Terminal;

impl super::Format for Terminal {
    fn render(&self, i: &super::Input) -> anyhow::Result<String> {
        Ok(render_with(i.comparison, i.colour, i.details, i.curves))
    }
}
