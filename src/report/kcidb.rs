//! The comparison as KCIDB (schema v5) JSON, for KernelCI's dashboards.
//!
//! KCIDB keeps a test as a path, a status and one number; kbench gives it
//! one test per metric and label (`kbench.<benchmark>.<metric>`), its
//! number the label's median in the metric's unit, and in `misc` what
//! KCIDB has no field for: the boots and runs behind it, the mean's 95 %
//! interval, and the verdict against the baseline with the change's
//! interval and the report's alpha.  A label is a build of a checkout
//! (the kernel it names); ids are the origin, a colon, and a hash of what
//! they stand for, so sending a report twice names the same objects.

use super::{Format, Input};
use sha2::{Digest, Sha256};

/// The CI system's name in KCIDB (`^[a-z0-9_]+$`).
pub const ORIGIN: &str = "kbench";

pub struct Kcidb;

pub fn id(kind: &str, parts: &[&str]) -> String {
    let mut h = Sha256::new();
    h.update(kind.as_bytes());
    for p in parts {
        h.update([0u8]);
        h.update(p.as_bytes());
    }
    format!(
        "{ORIGIN}:{kind}-{}",
        &crate::fingerprint::hex(&h.finalize())[..24]
    )
}

/// A KCIDB path segment: letters, digits and `_` (dots separate segments).
pub fn segment(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The kernel release a label's runs ran, if one.
fn release(i: &Input, label: &str) -> Option<String> {
    i.runs
        .iter()
        .filter(|r| r.label == label)
        .find_map(|r| r.fingerprint.as_ref().and_then(|f| f.release.clone()))
}

impl<'a> Format<Input<'a>> for Kcidb {
    fn render(&self, i: &Input<'a>) -> anyhow::Result<String> {
        let c = i.comparison;
        let mut checkouts = Vec::new();
        let mut builds = Vec::new();
        for label in &c.labels {
            let checkout = id("checkout", &[label]);
            let kernel = release(i, label);
            checkouts.push(serde_json::json!({
                "id": checkout, "origin": ORIGIN,
                "tree_name": segment(label),
                "misc": { "kbench_label": label, "kernel_release": kernel },
            }));
            let arch = i
                .runs
                .iter()
                .filter(|r| &r.label == label)
                .find_map(|r| r.fingerprint.as_ref().and_then(|f| f.machine.clone()));
            let mut b = serde_json::json!({
                "id": id("build", &[label]), "checkout_id": checkout, "origin": ORIGIN,
                "status": "PASS",
                "misc": { "kbench_label": label, "kernel_release": kernel },
            });
            if let Some(a) = arch {
                b["architecture"] = a.into();
            }
            builds.push(b);
        }
        let mut tests = Vec::new();
        for g in &c.groups {
            let command = crate::compare::command_text(&g.benchmark, &g.params);
            for m in &g.metrics {
                for l in &m.labels {
                    let path = format!("kbench.{}.{}", segment(&g.benchmark), segment(&m.metric));
                    let v = l.versus.as_ref();
                    let mut t = serde_json::json!({
                        "id": id("test", &[&l.label, &command, &m.metric]),
                        "build_id": id("build", &[&l.label]),
                        "origin": ORIGIN,
                        "path": path,
                        "status": "PASS",
                        "misc": {
                            "kbench_label": l.label,
                            "command": command,
                            "unit": if l.boots.is_some() { "boots" } else { "runs" },
                            "boots": l.boots.as_ref().map(|b| b.boots),
                            "runs": l.boots.as_ref().map_or(l.summary.n, |b| b.runs),
                            "mean": finite(l.summary.mean),
                            "mean_ci95": [finite(l.summary.ci_low), finite(l.summary.ci_high)],
                            "baseline": c.baseline,
                            "verdict": v.map(|v| v.verdict.as_str()),
                            "change_pct": v.and_then(|v| v.change_pct).and_then(finite),
                            "change_ci95_pct": v.and_then(|v| v.change_ci_pct).map(|(a, b)| [finite(a), finite(b)]),
                            "p_adjusted": v.and_then(|v| v.p_adjusted).and_then(finite),
                            "alpha": c.alpha,
                        },
                    });
                    if let Some(x) = finite(l.summary.median) {
                        let mut n = serde_json::json!({ "value": x });
                        if !m.unit.is_empty() {
                            n["unit"] = m.unit.clone().into();
                        }
                        t["number"] = n;
                    }
                    tests.push(t);
                }
            }
        }
        let doc = serde_json::json!({
            "version": { "major": 5, "minor": 3 },
            "checkouts": checkouts,
            "builds": builds,
            "tests": tests,
        });
        Ok(serde_json::to_string_pretty(&doc)? + "\n")
    }
}

/// A number JSON can hold (KCIDB's numbers are finite).
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}
