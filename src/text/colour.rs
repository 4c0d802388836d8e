//! Colour, decided once and painted last.  Why here: every table kbench
//! prints goes through [`super::table`], which cleans each cell of
//! control characters so a hostile label cannot act on a terminal; a cell
//! painted before that was shown as `\x1b[32mbetter\x1b[0m`.  So a cell
//! carries a [`Paint`] beside its text, widths are measured on the text,
//! and the escape is written around the padded cell only when colour is
//! on for the stream being written.
//!
//! Whether colour is on follows the conventions terminal programs share:
//! `--color never|always|auto`; with `auto`, `NO_COLOR` (any non-empty
//! value) turns it off, `CLICOLOR_FORCE` on, `TERM=dumb` off, and
//! otherwise only a terminal gets it (never a pipe or a file).  The
//! escapes themselves are `anstyle`'s.

use anstyle::{AnsiColor, Style};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU8, Ordering};

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Choice {
    #[default]
    Auto,
    Always,
    Never,
}

/// What a painted cell means to a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// better, like good, complete
    Good,
    /// worse, like bad, failed
    Bad,
    /// equivalent
    Same,
    /// inconclusive, too few runs, emulated, paused
    Unsure,
}

impl Paint {
    fn style(self) -> Style {
        let c = match self {
            Paint::Good => AnsiColor::Green,
            Paint::Bad => AnsiColor::Red,
            Paint::Same => AnsiColor::Cyan,
            Paint::Unsure => AnsiColor::Yellow,
        };
        Style::new().fg_color(Some(c.into()))
    }

    /// `text` wrapped in this paint's escapes (its width unchanged on screen).
    pub fn wrap(self, text: &str) -> String {
        let s = self.style();
        format!("{}{text}{}", s.render(), s.render_reset())
    }
}

/// The paint of a verdict or status word as kbench's tables write it (a
/// verdict may say what it rests on after its word: `worse (one boot
/// each)`, a status why after a colon: `skipped: make failed`).
pub fn of_verdict(verdict: &str) -> Option<Paint> {
    match verdict.split([':', '(']).next().unwrap_or(verdict).trim() {
        "better" | "like good" | "good" | "complete" => Some(Paint::Good),
        "worse" | "like bad" | "bad" | "failed" | "lost" => Some(Paint::Bad),
        "equivalent" => Some(Paint::Same),
        "inconclusive" | "too few runs" | "emulated" | "cannot tell" | "interrupted"
        | "skipped" | "paused" => Some(Paint::Unsure),
        _ => None,
    }
}

const UNSET: u8 = 0;
const AUTO: u8 = 1;
const ALWAYS: u8 = 2;
const NEVER: u8 = 3;
static CHOICE: AtomicU8 = AtomicU8::new(UNSET);

/// Set the process's choice (the edge does this once, from `--color`).
pub fn choose(c: Choice) {
    let v = match c {
        Choice::Auto => AUTO,
        Choice::Always => ALWAYS,
        Choice::Never => NEVER,
    };
    CHOICE.store(v, Ordering::Relaxed);
}

fn chosen() -> Choice {
    match CHOICE.load(Ordering::Relaxed) {
        ALWAYS => Choice::Always,
        NEVER => Choice::Never,
        _ => Choice::Auto,
    }
}

/// Whether text for standard output is painted.
pub fn stdout() -> bool {
    decide(chosen(), &Env::read(), std::io::stdout().is_terminal())
}

/// The environment's say in it.
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub no_color: bool,
    pub force: bool,
    pub dumb: bool,
}

impl Env {
    fn read() -> Env {
        let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
        Env {
            no_color: set("NO_COLOR"),
            force: std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0"),
            dumb: std::env::var_os("TERM").is_some_and(|t| t == "dumb"),
        }
    }
}

/// The rule, apart from the process (tested).
pub fn decide(c: Choice, env: &Env, terminal: bool) -> bool {
    match c {
        Choice::Always => true,
        Choice::Never => false,
        Choice::Auto if env.no_color => false,
        Choice::Auto if env.force => true,
        Choice::Auto => terminal && !env.dumb,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule() {
        let plain = Env::default();
        assert!(decide(Choice::Auto, &plain, true));
        assert!(!decide(Choice::Auto, &plain, false));
        let no = Env {
            no_color: true,
            ..Env::default()
        };
        assert!(!decide(Choice::Auto, &no, true));
        assert!(decide(Choice::Always, &no, false), "the flag wins");
        assert!(!decide(Choice::Never, &plain, true));
        let force = Env {
            force: true,
            ..Env::default()
        };
        assert!(decide(Choice::Auto, &force, false));
        let dumb = Env {
            dumb: true,
            ..Env::default()
        };
        assert!(!decide(Choice::Auto, &dumb, true));
    }

    #[test]
    fn verdicts_and_their_paint() {
        assert_eq!(of_verdict("better"), Some(Paint::Good));
        assert_eq!(of_verdict("worse (one boot each)"), Some(Paint::Bad));
        assert_eq!(of_verdict("too few runs"), Some(Paint::Unsure));
        assert_eq!(of_verdict("12.5"), None);
        assert_eq!(
            of_verdict("like bad (the change may come in parts)"),
            Some(Paint::Bad)
        );
        assert_eq!(of_verdict("skipped: `make` failed"), Some(Paint::Unsure));
        assert_eq!(
            of_verdict("cannot tell: after 12 units"),
            Some(Paint::Unsure)
        );
        assert_eq!(of_verdict("goodness"), None);
        let w = Paint::Good.wrap("better");
        assert!(w.starts_with("\x1b[32m") && w.ends_with("\x1b[0m"), "{w:?}");
    }
}
