//! A confounding guard: labels whose systems differ in the kernel *and*
//! in something that is not the kernel (the machine, a knob, the sched_ext
//! scheduler) give verdicts that mix both effects, whatever the
//! statistics say.  A campaign across reboots meets this when a boot
//! brings up a different governor or THP mode, a CPU offline, or a
//! scheduler service that started on one kernel only; said above the
//! scoreboard, naming the fields, so the reader knows what a verdict is
//! of.  A matrix that varies knobs within one kernel, or a kernel
//! comparison where nothing else moved, says nothing.

use super::config_diff::Row;
use crate::store::RunRecord;
use std::collections::BTreeSet;

/// Fields of the system table that are the machine, not the kernel.
/// Everything else is the kernel (what a kernel comparison varies): its
/// release, preemption, HZ, version string, command line, mitigations
/// (which differ by kernel) and every config option.
const MACHINE: &[&str] = &[
    "host",
    "cpu",
    "cpus online",
    "hypervisor",
    "cpuidle",
    "clocksource",
    "THP",
    "governor",
    "SMT",
    "memory",
];

fn differs(r: &Row) -> bool {
    r.values.iter().collect::<BTreeSet<_>>().len() > 1
}

/// Is a row of the machine or its knobs, not of the kernel?
fn not_kernel(r: &Row, knobs: &BTreeSet<String>) -> bool {
    MACHINE.contains(&r.field.as_str()) || knobs.contains(&r.field)
}

/// The sched_ext scheduler each label's runs ran under ("none" for none).
fn schedulers(runs: &[&RunRecord], labels: &[String]) -> Vec<String> {
    labels
        .iter()
        .map(|l| {
            let names: BTreeSet<String> = runs
                .iter()
                .filter(|r| &r.label == l)
                .map(|r| {
                    let s = &r.settings["sched_ext"];
                    s["ops"]
                        .as_str()
                        .or_else(|| s["scheduler"]["name"].as_str())
                        .unwrap_or("none")
                        .to_string()
                })
                .collect();
            names.into_iter().collect::<Vec<_>>().join("+")
        })
        .collect()
}

/// The warning, when the labels differ in the kernel and in more.
/// `knobs` are the table's rows that are scheduler knobs.
pub fn guard(
    rows: &[Row],
    knobs: &BTreeSet<String>,
    runs: &[&RunRecord],
    labels: &[String],
) -> Option<String> {
    let kernel = rows
        .iter()
        .any(|r| r.field != "fingerprint" && differs(r) && !not_kernel(r, knobs));
    let mut more: Vec<String> = rows
        .iter()
        .filter(|r| differs(r) && not_kernel(r, knobs))
        .map(|r| format!("{} ({})", r.field, r.values.join(" / ")))
        .collect();
    let sched = schedulers(runs, labels);
    if sched.iter().collect::<BTreeSet<_>>().len() > 1 {
        more.push(format!("sched_ext scheduler ({})", sched.join(" / ")));
    }
    (kernel && !more.is_empty()).then(|| {
        format!(
            "confounded: the labels differ in the kernel and in {}; each verdict mixes their effects (compare on one machine with only the kernel changed, or vary the rest in a matrix)",
            crate::text::clip(&more.join(", "), 600)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(field: &str, a: &str, b: &str) -> Row {
        Row {
            field: field.into(),
            values: vec![a.into(), b.into()],
        }
    }

    #[test]
    fn kernel_and_machine_both_differing_is_said() {
        let knobs: BTreeSet<String> = ["sched_autogroup_enabled".to_string()].into();
        let labels = vec!["a".to_string(), "b".to_string()];
        let kernel_only = [row("kernel", "6.1", "6.12"), row("HZ", "250", "1000")];
        assert_eq!(guard(&kernel_only, &knobs, &[], &labels), None);
        let knob_only = [
            row("kernel", "6.1", "6.1"),
            row("sched_autogroup_enabled", "0", "1"),
        ];
        assert_eq!(guard(&knob_only, &knobs, &[], &labels), None);
        let both = [
            row("kernel", "6.1", "6.12"),
            row("THP", "always", "never"),
            row("sched_autogroup_enabled", "0", "1"),
        ];
        let w = guard(&both, &knobs, &[], &labels).unwrap();
        assert!(
            w.contains("THP (always / never)") && w.contains("sched_autogroup_enabled (0 / 1)"),
            "{w}"
        );
        // The scheduler a label ran under counts too.
        let mut a = RunRecord::new("a", "b", serde_json::json!({}), None);
        a.settings["sched_ext"] = serde_json::json!({"ops": "bpfland_1.1.4"});
        let b = RunRecord::new("b", "b", serde_json::json!({}), None);
        let w = guard(&kernel_only, &knobs, &[&a, &b], &labels).unwrap();
        assert!(
            w.contains("sched_ext scheduler (bpfland_1.1.4 / none)"),
            "{w}"
        );
    }
}
