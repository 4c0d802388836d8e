//! `kbench lava test`: what runs in a LAVA boot.  The command is run as a
//! child kbench on a store of its own; each run's metrics become LAVA test
//! cases (`<LAVA_SIGNAL_TESTCASE …>` lines, which LAVA's test shell reads
//! from the console whatever prints them), and the store goes to the log
//! as one bundle (see [`super::bundle`]).

use super::bundle::{self, Boot};
use crate::experiment::runner::{Here, Runner, Unit};
use crate::store::{Access, RunStatus, Tag};
use anyhow::Result;

/// Where it runs.
pub struct Options {
    pub plan: String,
    pub boot: u32,
    pub label: String,
    pub command: Vec<String>,
    /// Where the LAVA lines go (standard output, read by the dispatcher).
    pub front: crate::session::Front,
}

/// A LAVA test case name: letters, digits, `.`, `_` and `-` only.
fn case_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Run the command, say its runs to LAVA, print the bundle; the command's
/// exit code.
pub fn run(o: &Options) -> Result<i32> {
    let b = Boot {
        plan: o.plan.clone(),
        boot: o.boot,
        label: o.label.clone(),
    };
    let scratch = crate::sys::janitor::Scratch::in_tmp("lava")?;
    let db = scratch.path().join("boot.db");
    let db_text = db.display().to_string();
    let tag = Tag::Lava {
        id: o.plan.clone(),
        boot: o.boot,
    };
    let ran = {
        // The boot's store is closed before its bytes are read: the last
        // connection to close writes its journal back into the file.
        let mut store = crate::store::open(Some(&db_text), Access::ReadWrite)?;
        let unit = Unit {
            label: &o.label,
            command: &o.command,
            tag: Some(&tag),
            number: o.boot as usize,
            of: 0,
            env: &[],
        };
        Here::on(Some(&db_text)).run(&mut *store, &unit)?
    };
    let code = ran.code.unwrap_or(128);
    if ran.runs.is_empty() {
        o.front.line(&format!(
            "{} {} {} {} the command exited {code} and stored no run",
            bundle::FAILED,
            b.plan,
            b.boot,
            b.label
        ));
        return Ok(if code == 0 { 1 } else { code });
    }
    for r in &ran.runs {
        let result = if r.status == RunStatus::Complete {
            "pass"
        } else {
            "fail"
        };
        for m in &r.metrics {
            o.front.line(&format!(
                "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID={} RESULT={result} MEASUREMENT={} UNITS={}>",
                case_name(&format!("kbench.{}.{}", r.benchmark, m.name)),
                m.value,
                case_name(if m.unit.is_empty() { "none" } else { &m.unit })
            ));
        }
    }
    let bytes = std::fs::read(&db)?;
    for line in bundle::encode(&b, &bytes) {
        o.front.line(&line);
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    #[test]
    fn case_names_are_what_lava_takes() {
        assert_eq!(
            super::case_name("kbench.cyclictest.p99 us/x"),
            "kbench.cyclictest.p99_us_x"
        );
    }
}
