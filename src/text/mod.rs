//! Text for people: user and imported text made safe to print, id lists,
//! one-line messages and aligned tables.  Every layer prints through these
//! (the store's errors, the health lines, the reports), so they sit at the
//! bottom with nothing of kbench's above them.

pub mod colour;
pub mod shell;
pub mod table;

/// Text from users and imported files, made safe to print: control
/// characters (a terminal escape in a label, a carriage return in a host
/// name) are shown as `\x1b`-style escapes instead of acting on the
/// reader's terminal.  Every renderer passes its text through this.
pub fn clean(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(unsafe_to_show) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .map(|c| {
                if c.is_control() {
                    format!("\\x{:02x}", c as u32)
                } else if unsafe_to_show(c) {
                    format!("\\u{{{:04x}}}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// A control character, or one that reorders or hides the text around it
/// (the bidirectional overrides and isolates, U+202A-U+202E and
/// U+2066-U+2069, and the marks U+200E, U+200F: a label with U+202E shows
/// its tail reversed, "Trojan Source").
fn unsafe_to_show(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// Ids as a short list, in order: `3`, `3-5`, `3-5,9`.
pub fn id_list(ids: &[i64]) -> String {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", ids[i], ids[j])
        } else {
            ids[i].to_string()
        });
        i = j + 1;
    }
    parts.join(",")
}

/// At most `max` characters of `s`, with an ellipsis and the length
/// when cut: for text of unknown size in a one-line message.
pub fn clip(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max).collect();
    format!("{head}… ({n} characters)")
}

/// clap's message up to its first blank line (the usage and the `--help`
/// hint follow it), joined into one line.
pub fn one_line(msg: &str) -> String {
    msg.lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_clipped_with_its_length() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("ééééé", 3), "ééé… (5 characters)");
    }

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(clean("plain"), "plain");
        assert_eq!(clean("a\x1b[31mred"), "a\\x1b[31mred");
        assert_eq!(clean("rt\u{202e}lanif"), "rt\\u{202e}lanif");
        assert_eq!(clean("é ü ✓"), "é ü ✓");
        assert_eq!(clean("cr\rlf\n"), "cr\\x0dlf\\x0a");
    }

    #[test]
    fn id_lists_compress_ranges() {
        assert_eq!(id_list(&[]), "");
        assert_eq!(id_list(&[3]), "3");
        assert_eq!(id_list(&[3, 4, 5]), "3-5");
        assert_eq!(id_list(&[3, 4, 5, 9, 11, 12]), "3-5,9,11-12");
        assert_eq!(id_list(&[7, 1, 2, 6, 9, 2]), "1-2,6-7,9");
    }
}

/// The width prose is wrapped to away from a terminal (a pipe, a file),
/// so that a report fits 120 columns with room for an indent, and stays
/// the same from one machine to the next.
pub const WIDTH: usize = 118;

/// The width kbench's prose is wrapped to and its tables fitted to: on a
/// terminal its own columns less two (room for an indent; tables may use
/// the two), elsewhere [`WIDTH`].  Read once.
pub fn width() -> usize {
    static W: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *W.get_or_init(|| {
        use std::io::IsTerminal;
        let out = std::io::stdout();
        let cols = if out.is_terminal() {
            terminal_size::terminal_size_of(&out).map(|(w, _)| usize::from(w.0))
        } else {
            None
        };
        cols.filter(|&c| c > 0)
            .map_or(WIDTH, |c| c.saturating_sub(2).clamp(38, 400))
    })
}

/// `s` wrapped to `width` as [`wrap`] does, its leading indent kept on
/// every line (a plan's indented lines stay under their heading).
pub fn wrap_indented(s: &str, width: usize) -> String {
    let text = s.trim_start();
    let pad = " ".repeat(s.len() - text.len());
    let wrapped = wrap(text, width.saturating_sub(pad.len()).max(8));
    format!("{pad}{}", wrapped.replace('\n', &format!("\n{pad}")))
}

/// A path longer than `room` columns in pieces that fit, each ending in
/// its `/` (a piece without one longer than `room` stays whole).
fn path_pieces(w: &str, room: usize) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    let mut cur = String::new();
    for seg in w.split_inclusive('/') {
        if !cur.is_empty() && cur.chars().count() + seg.chars().count() > room {
            pieces.push(std::mem::take(&mut cur));
        }
        cur.push_str(seg);
    }
    pieces.push(cur);
    pieces
}

/// `text` wrapped at spaces to `width` columns, later lines indented by
/// two; a path longer than a line is broken after a `/`, another word
/// longer than the width stays whole, and a lone `%` stays with the
/// number before it (`±2 %` never breaks).
pub fn wrap(text: &str, width: usize) -> String {
    let mut words: Vec<String> = Vec::new();
    for w in text.split(' ') {
        match words.last_mut() {
            Some(last) if w == "%" || w.starts_with("%,") || w.starts_with("%)") => {
                last.push(' ');
                last.push_str(w);
            }
            _ => words.push(w.to_string()),
        }
    }
    let room = width.saturating_sub(2).max(1);
    let words: Vec<String> = words
        .into_iter()
        .flat_map(|w| {
            if w.chars().count() > room && w.contains('/') {
                path_pieces(&w, room)
            } else {
                vec![w]
            }
        })
        .collect();
    let mut out = String::new();
    let mut line = 0usize;
    for w in &words {
        let n = w.chars().count();
        if line > 0 && line + 1 + n > width {
            out.push_str("\n  ");
            line = 2;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(w);
        line += n;
    }
    out
}

#[cfg(test)]
mod wrap_tests {
    #[test]
    fn prose_wraps_at_spaces_and_keeps_long_words() {
        assert_eq!(super::wrap("aa bb cc", 5), "aa bb\n  cc");
        assert_eq!(super::wrap("a verylongword b", 4), "a\n  verylongword\n  b");
        assert_eq!(super::wrap("short", 80), "short");
        assert_eq!(super::wrap("within ±2 %", 9), "within\n  ±2 %");
        assert_eq!(super::wrap("of 5 %, so", 5), "of\n  5 %,\n  so");
        // A long path breaks after a slash; each piece fits the room.
        assert_eq!(
            super::wrap("image /var/cache/kernels/boot/vmlinuz-6.1: x", 14),
            "image\n  /var/cache/\n  kernels/\n  boot/\n  vmlinuz-6.1:\n  x"
        );
    }
}
