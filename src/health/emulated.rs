//! Runs from emulated guests decide nothing.
//!
//! A run measured in a guest under TCG (or KVM nested in another VM, or a
//! LAVA device that is a QEMU guest) measures the emulator as much as the
//! kernel: a PREEMPT_RT kernel under TCG shows no latency advantage at
//! all, and a change in the emulator's host looks like a change in the
//! kernel.  Every command that turns runs into a verdict (compare's
//! scoreboard, track's change points and `--fail-on`, decide's exit
//! status, bisect's culprit, a matrix's or campaign's `--rounds auto`
//! look) asks this one check first and, unless `--allow-emulated`, gives
//! none on such runs, saying why in the same words.

use crate::store::RunRecord;

/// The emulated runs among some runs, and why each kind is.
#[derive(Clone, Debug, Default)]
pub struct Emulated {
    pub ids: Vec<i64>,
    pub reasons: Vec<String>,
    /// Runs looked at.
    pub of: usize,
}

/// The emulated runs among `runs`.
pub fn among<'a>(runs: impl IntoIterator<Item = &'a RunRecord>) -> Emulated {
    let mut e = Emulated::default();
    for r in runs {
        e.of += 1;
        if let Some(w) = super::emulated(&r.settings) {
            e.ids.push(r.id);
            if !e.reasons.iter().any(|x| x == w) {
                e.reasons.push(w.to_string());
            }
        }
    }
    e
}

impl Emulated {
    pub fn any(&self) -> bool {
        !self.ids.is_empty()
    }

    /// "3 of 10 runs come from emulated guests (why)".
    pub fn counted(&self) -> String {
        format!(
            "{} of {} runs come from emulated guests ({})",
            self.ids.len(),
            self.of,
            self.reasons.join("; ")
        )
    }

    /// The one line a command says when it withholds `what` (its verdict,
    /// its change points, its culprit) on emulated runs.
    pub fn withheld(&self, what: &str) -> String {
        format!(
            "emulated: {}; no {what} is given on them (--allow-emulated gives it anyway: it is the emulator's as much as the kernel's)",
            self.counted()
        )
    }

    /// `Err(line)` when some runs are emulated and that is not allowed.
    pub fn refuse(&self, what: &str, allowed: bool) -> Result<(), String> {
        if self.any() && !allowed {
            Err(self.withheld(what))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64, why: Option<&str>) -> RunRecord {
        let mut r = RunRecord::new("l", "b", serde_json::json!({}), None);
        r.id = id;
        if let Some(w) = why {
            crate::store::foreign::mark_emulated(&mut r, w);
        }
        r
    }

    #[test]
    fn emulated_runs_are_counted_with_their_reasons_once() {
        let runs = [
            run(1, Some("TCG")),
            run(2, None),
            run(3, Some("TCG")),
            run(4, Some("nested")),
        ];
        let e = among(&runs);
        assert_eq!(e.ids, vec![1, 3, 4]);
        assert_eq!(
            e.counted(),
            "3 of 4 runs come from emulated guests (TCG; nested)"
        );
        assert!(e.refuse("verdict", true).is_ok());
        let line = e.refuse("verdict", false).unwrap_err();
        assert!(line.starts_with("emulated: 3 of 4 runs"), "{line}");
        assert!(
            line.contains("; no verdict is given on them (--allow-emulated"),
            "{line}"
        );
        assert!(among(&runs[1..2]).refuse("verdict", false).is_ok());
    }
}
