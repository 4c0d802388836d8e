//! The comparison as aligned text tables for a terminal (colour only on a
//! TTY).

use super::sections::{footnotes, sections};
use super::table;
use crate::compare::Comparison;

pub fn render(c: &Comparison, colour: bool) -> String {
    let mut out = String::new();
    for s in sections(c) {
        let head: Vec<&str> = s.header.iter().map(String::as_str).collect();
        let mut t = table::new(&head);
        table::right_align_from(&mut t, s.numeric_from);
        for r in &s.rows {
            let mut r = r.clone();
            if colour {
                if let Some(last) = r.last_mut() {
                    match last.as_str() {
                        "better" => *last = format!("\x1b[32m{last}\x1b[0m"),
                        "worse" => *last = format!("\x1b[31m{last}\x1b[0m"),
                        _ => {}
                    }
                }
            }
            t.add_row(r);
        }
        out.push_str(&s.title);
        out.push('\n');
        out.push_str(&t.to_string());
        out.push_str("\n\n");
    }
    for f in footnotes(c) {
        out.push_str(&f);
        out.push('\n');
    }
    out
}
