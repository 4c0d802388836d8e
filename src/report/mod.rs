//! Reports: turning stored results into text, tables and charts.
//!
//! Only presentation lives here; numbers come from `compare` and `stats`.
//! One file per format; the terminal and Markdown renderers share the
//! format-neutral [`sections`].

pub mod csv;
pub mod html;
pub mod markdown;
pub mod sections;
pub mod seed2023;
pub mod svg;
pub mod table;
pub mod terminal;

/// Text from users and imported files, made safe to print: control
/// characters (a terminal escape in a label, a carriage return in a host
/// name) are shown as `\x1b`-style escapes instead of acting on the
/// reader's terminal.  Every renderer passes its text through this.
pub fn clean(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .map(|c| {
                if c.is_control() {
                    format!("\\x{:02x}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(super::clean("plain"), "plain");
        assert_eq!(super::clean("a\x1b[31mred"), "a\\x1b[31mred");
        assert_eq!(super::clean("cr\rlf\n"), "cr\\x0dlf\\x0a");
    }
}
