//! Every run audited for the sched_ext scheduler it ran under, for its
//! whole length.
//!
//! On a kernel with sched_ext, a run's figures belong to whichever
//! scheduler ran its tasks, and that can change mid-run: a BPF scheduler
//! ejected by the kernel's watchdog leaves the rest of the run to EEVDF,
//! and a service that restarts it makes the switch invisible to anyone
//! who polls.  So each repetition reads the kernel's state before and
//! after it (`sys::sched_ext`): the same `enable_seq` and `enabled` at
//! both ends, and no ejection in the kernel log between, or the run is
//! failed with the reason.  The scheduler's identity (`root/ops`, and
//! what a parent kbench that started it says of it) goes into the run's
//! settings, its event counters' growth into `sched_ext.*` metrics.
//! On a kernel without sched_ext this is nothing at all.

use crate::measure::{Better, Measurement};
use crate::store::RunRecord;
use crate::sys::sched_ext::{self, Kmsg, State};

/// The state as the run began.
pub struct Audit {
    start: State,
    kmsg: Kmsg,
    /// The audit's own time so far: what it adds to a run, stored with
    /// the run (`audit_us`) so its cost is seen where it is paid.
    spent: std::time::Duration,
}

/// Before the run: `None` on a kernel without sched_ext (whose kernel
/// log is then never opened).  The state is read before the log's place
/// is taken: an ejection between the two still shows, as a state that
/// changed, though its log line is not kept.
pub fn begin() -> Option<Audit> {
    let t = std::time::Instant::now();
    let start = sched_ext::read()?;
    let kmsg = Kmsg::now();
    Some(Audit {
        start,
        kmsg,
        spent: t.elapsed(),
    })
}

/// The state as the run ended, read as soon as it did.
pub struct Finished {
    start: State,
    end: Option<State>,
    log: Option<Vec<String>>,
    spent: std::time::Duration,
}

/// Right after the run.
pub fn finish(a: Option<Audit>) -> Option<Finished> {
    let mut a = a?;
    let t = std::time::Instant::now();
    let end = sched_ext::read();
    let log = a.kmsg.since();
    Some(Finished {
        end,
        log,
        start: a.start,
        spent: a.spent + t.elapsed(),
    })
}

/// What the run ran under, into `rec`; when that changed during the run
/// its figures are two schedulers' (or none's): the run is failed, with
/// why, and `say` says so.
/// What a parent matrix said of the scheduler it attached is in `ctx`.
pub fn record(
    f: Option<Finished>,
    ctx: &crate::session::Ctx,
    rec: &mut RunRecord,
) -> anyhow::Result<()> {
    let say = |m: &str| ctx.info(m);
    if let Some(why) = audit(f, ctx.inherited.sched_ext.as_ref(), rec)? {
        rec.status = crate::store::RunStatus::Failed;
        rec.notes.push(why.clone());
        say(&format!("kbench: {why}; the run is stored as failed"));
    }
    Ok(())
}

/// What the run ran under, into `rec`; `Some(why)` when that changed.
fn audit(
    f: Option<Finished>,
    parent: Option<&serde_json::Value>,
    rec: &mut RunRecord,
) -> anyhow::Result<Option<String>> {
    let Some(a) = f else { return Ok(None) };
    let (end, log) = (a.end, a.log);
    let ejected: Vec<String> = log
        .iter()
        .flatten()
        .filter_map(|l| sched_ext::ejection(l))
        .collect();
    let why = judge(&a.start, end.as_ref(), &ejected);
    let parent = parent.cloned().unwrap_or(serde_json::Value::Null);
    rec.set_settings(serde_json::json!({ "sched_ext": {
        "state": a.start.state,
        "ops": a.start.ops,
        "enable_seq": a.start.enable_seq,
        "enable_seq_after": end.as_ref().map(|e| e.enable_seq),
        "scheduler": parent,
        "kernel_log_read": log.is_some(),
        "ejected": why,
        "audit_us": a.spent.as_micros() as u64,
    }}));
    if let (Some(e), None) = (&end, &why) {
        let mut m = Measurement::default();
        for (name, after) in &e.events {
            if let Some(before) = a.start.events.get(name) {
                let short = name.trim_start_matches("SCX_EV_").to_ascii_lowercase();
                m.push(
                    &format!("sched_ext.{short}"),
                    "events",
                    after.saturating_sub(*before) as f64,
                    Better::Neither,
                );
            }
        }
        rec.absorb(&m)?;
    }
    Ok(why)
}

/// Whether the run kept one scheduler from start to end.
fn judge(start: &State, end: Option<&State>, ejected: &[String]) -> Option<String> {
    if let Some(e) = ejected.first() {
        return Some(format!("ejected: {e}"));
    }
    let end = match end {
        Some(e) => e,
        None => return Some("sched_ext went away during the run".into()),
    };
    if end.enable_seq != start.enable_seq && start.enabled() {
        return Some(format!(
            "ejected: the sched_ext scheduler was detached and attached again during the run (enable_seq {} then {})",
            start.enable_seq, end.enable_seq
        ));
    }
    if end.state != start.state || end.enable_seq != start.enable_seq {
        return Some(if start.enabled() {
            format!(
                "ejected: the sched_ext scheduler {} was detached during the run (state {})",
                start.ops.as_deref().unwrap_or("?"),
                end.state
            )
        } else {
            format!(
                "a sched_ext scheduler attached during the run (state {} then {})",
                start.state, end.state
            )
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(state: &str, seq: u64) -> State {
        State {
            state: state.into(),
            enable_seq: seq,
            ops: Some("bpfland_1.1.4".into()),
            events: Default::default(),
        }
    }

    #[test]
    fn a_run_that_kept_its_scheduler_passes_and_any_change_fails_it() {
        let on = st("enabled", 2);
        assert_eq!(judge(&on, Some(&st("enabled", 2)), &[]), None);
        assert_eq!(
            judge(&st("disabled", 0), Some(&st("disabled", 0)), &[]),
            None
        );
        // Ejected and restarted by a service: the state is enabled at both
        // ends, and only enable_seq tells.
        let w = judge(&on, Some(&st("enabled", 3)), &[]).unwrap();
        assert!(w.starts_with("ejected:") && w.contains("2 then 3"), "{w}");
        let w = judge(&on, Some(&st("disabled", 2)), &[]).unwrap();
        assert!(w.contains("detached during the run"), "{w}");
        let w = judge(&st("disabled", 2), Some(&st("enabled", 3)), &[]).unwrap();
        assert!(w.contains("attached during the run"), "{w}");
        // The kernel log's reason comes first.
        let w = judge(
            &on,
            Some(&st("enabled", 3)),
            &["bpfland_1.1.4: runnable task stall".into()],
        )
        .unwrap();
        assert_eq!(w, "ejected: bpfland_1.1.4: runnable task stall");
    }
}
