//! What an experiment front (matrix, campaign, vm, bisect, LAVA, track)
//! takes from the command's context: the store it reads and writes, and
//! where its words go.
//!
//! Each front once copied `--db`, `--quiet` and `--json` out of the
//! context into options of its own, opened the store itself and printed
//! with `println!` wherever it stood: twenty-odd store opens and some
//! seventy print sites, none of which a test could read without running
//! a process.  A [`Front`] is made once, by [`super::Ctx::front`]; the
//! store is opened through it (so only `store/` and `session/` open one),
//! and every word goes through its [`Say`]: a terminal, JSON lines for a
//! program reading progress, or a capture for a test.

use crate::store::{self, Access, Store};
use anyhow::Result;
use std::io::Write;
use std::sync::Arc;
#[cfg(test)]
use std::sync::Mutex;

/// Where a command's words go.  The result is what a reader asked for
/// (standard output); a note is progress or a warning (standard error),
/// one line each.  A failed write (a closed pipe) is not an error of the
/// experiment: the runs are stored either way.
pub trait Say: Send + Sync {
    /// Part of the result, written as given (a caller ends its lines).
    fn out(&self, text: &str);
    /// One line of progress or warning.
    fn note(&self, line: &str);
    /// A typed event: `json` for a program, `text` (possibly empty: a
    /// person is told nothing) for a person.
    fn event(&self, json: &str, text: &str) {
        if !text.is_empty() {
            self.note(text)
        }
        let _ = json;
    }
}

/// A person at a terminal (or a file they redirect to).
pub struct Terminal;

impl Say for Terminal {
    fn out(&self, text: &str) {
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
    }
    fn note(&self, line: &str) {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

/// A program: the result is the JSON document the command prints, and
/// every line on standard error a JSON object with an `event` field (a
/// note is `{"event": "note", "text": "…"}`), so a wrapper can follow
/// progress without parsing prose.
pub struct Json;

impl Say for Json {
    fn out(&self, text: &str) {
        Terminal.out(text)
    }
    fn note(&self, line: &str) {
        Terminal.note(&serde_json::json!({ "event": "note", "text": line }).to_string())
    }
    fn event(&self, json: &str, _text: &str) {
        Terminal.note(json)
    }
}

/// Notes passed on, the result dropped ([`Front::muted`]).
struct Muted(Arc<dyn Say>);

impl Say for Muted {
    fn out(&self, _text: &str) {}
    fn note(&self, line: &str) {
        self.0.note(line)
    }
    fn event(&self, json: &str, text: &str) {
        self.0.event(json, text)
    }
}

/// Everything said, kept (a test reads what a person would have seen).
#[cfg(test)]
#[derive(Default)]
pub struct Captured {
    pub out: Mutex<String>,
    pub notes: Mutex<Vec<String>>,
}

#[cfg(test)]
impl Say for Captured {
    fn out(&self, text: &str) {
        if let Ok(mut o) = self.out.lock() {
            o.push_str(text);
        }
    }
    fn note(&self, line: &str) {
        if let Ok(mut n) = self.notes.lock() {
            n.push(line.to_string());
        }
    }
}

/// The store, the verbosity and the voice of one command.
#[derive(Clone)]
pub struct Front {
    db: Option<String>,
    pub quiet: bool,
    pub json: bool,
    say: Arc<dyn Say>,
}

impl std::fmt::Debug for Front {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Front")
            .field("db", &self.db)
            .field("quiet", &self.quiet)
            .field("json", &self.json)
            .finish_non_exhaustive()
    }
}

impl Front {
    /// A front on `db` (`None`: the default store) speaking to a terminal,
    /// or in JSON lines with `json`.
    pub fn new(db: Option<String>, quiet: bool, json: bool) -> Front {
        let say: Arc<dyn Say> = if json {
            Arc::new(Json)
        } else {
            Arc::new(Terminal)
        };
        Front {
            db,
            quiet,
            json,
            say,
        }
    }

    /// The same front, its words going to `say` instead.
    #[cfg(test)]
    pub fn with_say(self, say: Arc<dyn Say>) -> Front {
        Front { say, ..self }
    }

    /// The same front with its result thrown away and its notes kept: for
    /// a step (a bisection inside `track --follow`) whose report the
    /// caller gives in its own.
    pub fn muted(&self) -> Front {
        Front {
            say: Arc::new(Muted(self.say.clone())),
            ..self.clone()
        }
    }

    /// `--db` as given, for a child kbench or a lock's key.
    pub fn db(&self) -> Option<&str> {
        self.db.as_deref()
    }

    /// The store, to read.
    pub fn read_store(&self) -> Result<Box<dyn Store>> {
        store::open(self.db(), Access::ReadOnly)
    }

    /// The store, to write.
    pub fn write_store(&self) -> Result<Box<dyn Store>> {
        store::open(self.db(), Access::ReadWrite)
    }

    /// Part of the result, as given.
    pub fn out(&self, text: &str) {
        self.say.out(text)
    }

    /// One line of the result.
    pub fn line(&self, text: &str) {
        self.say.out(&format!("{text}\n"))
    }

    /// A warning or a message that must be seen, even with `--quiet`.
    pub fn note(&self, line: &str) {
        self.say.note(line)
    }

    /// Progress: not with `--quiet`.
    pub fn progress(&self, line: &str) {
        if !self.quiet {
            self.say.note(line)
        }
    }

    /// A typed event (`experiment::event`): its JSON line under
    /// `--json`, else its text; progress (not with `--quiet`) unless
    /// `always`.
    pub fn event(&self, json: &str, text: &str, always: bool) {
        if always || !self.quiet {
            self.say.event(json, text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_front_speaks_through_its_say_and_quiet_drops_only_progress() {
        let c = Arc::new(Captured::default());
        let f = Front::new(None, true, false).with_say(c.clone());
        f.line("result");
        f.out("more\n");
        f.progress("round 1");
        f.note("kbench: warning: x");
        assert_eq!(*c.out.lock().unwrap(), "result\nmore\n");
        assert_eq!(*c.notes.lock().unwrap(), vec!["kbench: warning: x"]);
        assert!(format!("{f:?}").contains("quiet: true"));
    }

    #[test]
    fn a_front_opens_the_store_it_was_given() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("r.db");
        let f = Front::new(Some(db.to_string_lossy().into()), false, false);
        assert_eq!(f.db(), db.to_str());
        f.write_store().unwrap();
        assert!(db.exists());
        f.read_store().unwrap();
    }
}
