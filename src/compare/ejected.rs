//! Runs failed because their sched_ext scheduler changed under them (an
//! ejection, a detach, a restart by a service): they are left out of the
//! comparison like every failed run, but a scheduler that was ejected in
//! some of a label's runs is a finding in itself (a scheduler that stalls
//! under this load), so it is said above the scoreboard, per label, with
//! the kernel's reasons.

use crate::store::{RunRecord, RunStatus};
use std::collections::BTreeSet;

/// One line per label some of whose runs failed that way: `complete`
/// are the runs compared, `others` the rest.
pub fn notice(complete: &[RunRecord], others: &[RunRecord], labels: &[String]) -> Vec<String> {
    labels
        .iter()
        .filter_map(|l| {
            let mine: Vec<&RunRecord> = others.iter().filter(|r| &r.label == l).collect();
            let of = mine.len() + complete.iter().filter(|r| &r.label == l).count();
            let why: Vec<&str> = mine
                .iter()
                .filter(|r| r.status == RunStatus::Failed)
                .filter_map(|r| r.settings["sched_ext"]["ejected"].as_str())
                .collect();
            if why.is_empty() {
                return None;
            }
            let reasons: BTreeSet<String> = why
                .iter()
                .map(|w| crate::text::clip(&crate::text::clean(w), 120))
                .collect();
            Some(format!(
                "{l}: {} of {} runs failed because the sched_ext scheduler changed during them ({}); they are left out",
                why.len(),
                of,
                reasons.into_iter().collect::<Vec<_>>().join("; ")
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ejections_are_counted_per_label() {
        let run = |label: &str, ejected: Option<&str>| {
            let mut r = RunRecord::new(label, "b", serde_json::json!({}), None);
            if let Some(w) = ejected {
                r.status = RunStatus::Failed;
                r.settings["sched_ext"] = serde_json::json!({ "ejected": w });
            }
            r
        };
        let all = vec![
            run("bpfland", Some("ejected: bpfland: runnable task stall")),
            run("bpfland", None),
            run("bpfland", Some("ejected: bpfland: runnable task stall")),
            run("eevdf", None),
        ];
        let labels = vec!["eevdf".to_string(), "bpfland".to_string()];
        let (complete, others): (Vec<_>, Vec<_>) = all
            .into_iter()
            .partition(|r| r.status == RunStatus::Complete);
        assert_eq!(
            notice(&complete, &others, &labels),
            vec!["bpfland: 2 of 3 runs failed because the sched_ext scheduler changed during them (ejected: bpfland: runnable task stall); they are left out"]
        );
    }
}
