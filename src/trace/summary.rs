//! What a label's worst wake-ups waited behind, in one line for a
//! comparison: each explained wake-up goes to the kind of cause that took
//! most of its latency, said as a kind rather than one process
//! ("fair tasks of another autogroup (kbench-cpu)", "IRQ 11 virtio0",
//! "softirq TIMER"), and the causes are counted, largest first, with the
//! median time the wake-ups spent behind each:
//! `9 of 10 behind fair tasks of another autogroup (kbench-cpu), median
//! 16.1 ms; 1 behind IRQ 11 virtio0, median 0.2 ms`.

use super::explain::{Explanation, What};
use serde::Serialize;

/// One cause and how often it was the largest part.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cause {
    pub what: String,
    pub count: usize,
    /// The median, over those wake-ups, of the time that cause took.
    pub median_ns: u64,
}

/// A label's traced runs, summed up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub traced_runs: usize,
    pub explained: usize,
    pub causes: Vec<Cause>,
}

/// The family of a task's class ("fair", "real-time", "deadline").
fn family(class: &str) -> &str {
    class
        .split(',')
        .next()
        .unwrap_or(class)
        .split(' ')
        .next()
        .unwrap_or(class)
}

/// A part as a kind of cause.
fn kind(e: &Explanation, what: &What) -> String {
    match what {
        What::Task {
            comm,
            class,
            autogroup,
            ..
        } => {
            let group = match (autogroup, &e.autogroup) {
                (Some(a), Some(b)) if a == b => " of its own autogroup",
                (Some(_), Some(_)) => " of another autogroup",
                _ => "",
            };
            format!("{} tasks{group} ({comm})", family(class))
        }
        w @ (What::Irq { .. } | What::Vector { .. } | What::Softirq { .. }) => super::show::what(w),
        What::Idle => "the CPU waking from idle".into(),
        What::Probe => "the task itself, switched in".into(),
        What::Unaccounted { .. } => "what the trace cannot account for".into(),
    }
}

/// The cause a wake-up is counted under: the kind of part that took most
/// of its latency (several hogs one after the other are one cause), and
/// the time that kind took.
pub fn cause(e: &Explanation) -> Option<(String, u64)> {
    let mut by: Vec<(String, u64)> = Vec::new();
    for p in &e.parts {
        let k = kind(e, &p.what);
        match by.iter_mut().find(|(w, _)| *w == k) {
            Some((_, ns)) => *ns = ns.saturating_add(p.ns),
            None => by.push((k, p.ns)),
        }
    }
    // The first of equals: parts come largest first.
    by.into_iter().rev().max_by_key(|(_, ns)| *ns)
}

/// Sum up the explanations of one label's traced runs.
pub fn summarise(traced_runs: usize, explained: &[Explanation]) -> Summary {
    let mut by: Vec<(String, Vec<u64>)> = Vec::new();
    for (what, ns) in explained.iter().filter_map(cause) {
        match by.iter_mut().find(|(w, _)| *w == what) {
            Some((_, v)) => v.push(ns),
            None => by.push((what, vec![ns])),
        }
    }
    let mut causes: Vec<Cause> = by
        .into_iter()
        .map(|(what, mut v)| {
            v.sort_unstable();
            // The lower median of an even count: a time some wake-up took.
            let median_ns = v[(v.len() - 1) / 2];
            Cause {
                what,
                count: v.len(),
                median_ns,
            }
        })
        .collect();
    causes.sort_by(|a, b| b.count.cmp(&a.count).then(b.median_ns.cmp(&a.median_ns)));
    Summary {
        traced_runs,
        explained: explained.len(),
        causes,
    }
}

impl Summary {
    /// The summary in a line (`9 of 10 behind …, median 16.1 ms; 1 behind …`).
    pub fn line(&self) -> String {
        if self.traced_runs == 0 {
            return "not traced".into();
        }
        if self.causes.is_empty() {
            return format!("no wake-up explained in {} traced run(s)", self.traced_runs);
        }
        self.causes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let of = if i == 0 {
                    format!("{} of {}", c.count, self.explained)
                } else {
                    c.count.to_string()
                };
                format!(
                    "{of} behind {}, median {}",
                    c.what,
                    super::show::ns(c.median_ns)
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::super::explain::Part;
    use super::*;

    fn ex(probe_group: &str, parts: Vec<(What, u64)>) -> Explanation {
        Explanation {
            latency_ns: parts.iter().map(|p| p.1).sum(),
            tid: 1,
            comm: "schbench".into(),
            cpu: Some(1),
            expected_ns: 0,
            parts: parts
                .into_iter()
                .map(|(what, ns)| Part { what, ns })
                .collect(),
            woken_by: None,
            migrations: vec![],
            lost_events: false,
            autogroup: Some(probe_group.into()),
        }
    }

    fn hog(pid: i32, group: &str) -> What {
        What::Task {
            pid,
            comm: "kbench-cpu".into(),
            class: "fair, nice 0".into(),
            autogroup: Some(group.into()),
            cgroup: None,
        }
    }

    #[test]
    fn causes_are_counted_by_kind_largest_first_with_their_median() {
        let irq = What::Irq {
            irq: 11,
            name: "virtio0".into(),
        };
        let e = vec![
            ex(
                "autogroup 1",
                vec![(hog(10, "autogroup 7"), 16_000_000), (irq.clone(), 100_000)],
            ),
            // Two hogs one after the other: one cause, 12 ms.
            ex(
                "autogroup 1",
                vec![
                    (hog(11, "autogroup 7"), 7_000_000),
                    (hog(13, "autogroup 7"), 5_000_000),
                ],
            ),
            ex("autogroup 1", vec![(hog(12, "autogroup 7"), 18_000_000)]),
            ex("autogroup 1", vec![(irq, 300_000), (What::Idle, 1_000)]),
            ex("autogroup 7", vec![(hog(10, "autogroup 7"), 2_000_000)]),
        ];
        let s = summarise(2, &e);
        // Ties in count go to the longer median.
        assert_eq!(
            s.line(),
            "3 of 5 behind fair tasks of another autogroup (kbench-cpu), median 16.0 ms; \
             1 behind fair tasks of its own autogroup (kbench-cpu), median 2.0 ms; \
             1 behind IRQ 11 virtio0, median 300.0 us"
        );
        assert_eq!(s.causes[0].count, 3);
        assert_eq!(summarise(0, &[]).line(), "not traced");
        assert_eq!(
            summarise(3, &[]).line(),
            "no wake-up explained in 3 traced run(s)"
        );
    }
}
