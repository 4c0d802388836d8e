//! Progress as typed events.
//!
//! An experiment runs for minutes to days, and what it says on the way is
//! read by two kinds of reader: a person at a terminal, and a program (a
//! lab's scheduler, CI) that wants to know which unit is running, which
//! failed and why the experiment stopped.  Each front used to print its
//! own lines and, under `--json`, wrapped each in `{"note": …}`, with its
//! children's plain lines between them: nothing a program could parse.
//! Every step of the engine is now an [`Event`]; the [`Events`] reporter
//! renders it as the line a person read before, or, under `--json`, as
//! one JSON object per line with an `event` field (the variant's name),
//! the children's lines included ([`Event::Child`]).

use crate::session::Front;
use serde::Serialize;

/// One thing that happened in an experiment.  `text` is what a person
/// is shown (empty: nothing); the other fields are for programs.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<'a> {
    /// The plan is made, or taken up again: `units` in all, `done` of
    /// them already.
    Planned {
        kind: &'a str,
        id: &'a str,
        seed: u64,
        units: usize,
        done: usize,
        text: &'a str,
    },
    /// A unit starts (1-based `number` of `of`).
    UnitStarted {
        id: &'a str,
        number: usize,
        of: usize,
        label: &'a str,
        text: &'a str,
    },
    /// A unit ended: the runs it stored, why it failed if it did.
    UnitEnded {
        id: &'a str,
        number: usize,
        of: usize,
        label: &'a str,
        runs: &'a [i64],
        failed: Option<&'a str>,
        interrupted: bool,
        wall_s: f64,
        text: &'a str,
    },
    /// A look at the data so far (`--rounds auto`): `decided` says why
    /// the experiment stops, if it does.
    Looked {
        id: &'a str,
        after: usize,
        decided: Option<&'a str>,
        text: &'a str,
    },
    /// The experiment stopped before its plan ran out, and why.
    Stopped {
        id: &'a str,
        reason: &'a str,
        done: usize,
        text: &'a str,
    },
    /// Anything else a person should read; `warning` ones are shown even
    /// with `--quiet`.
    Note { text: &'a str, warning: bool },
    /// A line a unit's child kbench wrote on its standard error (under
    /// `--json` it is relayed, not passed through): its JSON object when
    /// it wrote one, else the line.
    Child {
        unit: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        json: Option<serde_json::Value>,
    },
}

impl Event<'_> {
    /// What a person is shown.
    fn text(&self) -> &str {
        match self {
            Event::Planned { text, .. }
            | Event::UnitStarted { text, .. }
            | Event::UnitEnded { text, .. }
            | Event::Looked { text, .. }
            | Event::Stopped { text, .. }
            | Event::Note { text, .. } => text,
            Event::Child { line, .. } => line.unwrap_or(""),
        }
    }

    /// Shown even with `--quiet`.
    fn always(&self) -> bool {
        matches!(
            self,
            Event::Note { warning: true, .. } | Event::Stopped { .. }
        )
    }
}

/// The reporter: a terminal's lines, or JSON lines under `--json`, both
/// through the command's [`Front`].
#[derive(Clone, Debug)]
pub struct Events {
    front: Front,
}

impl Events {
    pub fn new(front: &Front) -> Events {
        Events {
            front: front.clone(),
        }
    }

    /// Say `e`.
    pub fn emit(&self, e: &Event) {
        let json = serde_json::to_string(e).unwrap_or_default();
        let text = if self.front.json {
            String::new()
        } else {
            crate::text::wrap(e.text(), crate::text::width())
        };
        self.front.event(&json, &text, e.always());
    }

    /// A note for a person (progress, not with `--quiet`).
    pub fn note(&self, text: &str) {
        self.emit(&Event::Note {
            text,
            warning: false,
        })
    }

    /// A warning, shown with `--quiet` too.
    pub fn warn(&self, text: &str) {
        self.emit(&Event::Note {
            text,
            warning: true,
        })
    }

    /// A child's standard-error line, relayed.
    pub fn child(&self, unit: usize, line: &str) {
        let json = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .filter(serde_json::Value::is_object);
        let line = json.is_none().then_some(line);
        self.emit(&Event::Child { unit, line, json })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::front::Captured;
    use std::sync::Arc;

    /// Under `--json` every event is one object with an `event` field; a
    /// child's JSON line is nested whole, its plain line kept as text.
    #[test]
    fn events_are_json_objects_named_by_their_kind() {
        let e = Event::UnitEnded {
            id: "m1",
            number: 2,
            of: 4,
            label: "a",
            runs: &[7],
            failed: None,
            interrupted: false,
            wall_s: 1.5,
            text: "done",
        };
        let v: serde_json::Value = serde_json::to_value(&e).unwrap();
        assert_eq!(v["event"], "unit_ended");
        assert_eq!(v["runs"][0], 7);
        let c = Arc::new(Captured::default());
        let ev = Events::new(&Front::new(None, false, false).with_say(c.clone()));
        ev.emit(&e);
        ev.child(1, "stored as run 1");
        ev.emit(&Event::UnitStarted {
            id: "m1",
            number: 1,
            of: 1,
            label: "a",
            text: "",
        });
        assert_eq!(
            *c.notes.lock().unwrap(),
            vec!["done".to_string(), "stored as run 1".to_string()],
            "a person reads the text; an event with none says nothing"
        );
        let line = serde_json::to_string(&Event::Child {
            unit: 3,
            line: None,
            json: Some(serde_json::json!({"event": "note", "text": "x"})),
        })
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["event"], "child");
        assert_eq!(v["json"]["text"], "x");
        assert!(v.get("line").is_none());
    }

    /// `--quiet` drops progress but not warnings or a stop.
    #[test]
    fn quiet_keeps_warnings_and_stops() {
        let c = Arc::new(Captured::default());
        let ev = Events::new(&Front::new(None, true, false).with_say(c.clone()));
        ev.note("progress");
        ev.warn("careful");
        ev.emit(&Event::Stopped {
            id: "m",
            reason: "decided",
            done: 3,
            text: "stopped: decided",
        });
        assert_eq!(
            *c.notes.lock().unwrap(),
            vec!["careful".to_string(), "stopped: decided".to_string()]
        );
    }
}
