//! An A/A comparison (a kernel against itself, booted again under a label
//! of its own) read as the noise floor of its setup: what `vm --aa` and
//! `campaign init --aa` print beside their verdicts.

use super::{Comparison, Verdict};

/// The A/A comparison read as a noise floor: per metric, the smallest
/// change these boots could tell (80 % power), and whether anything read
/// as changed (it should not).
pub fn noise_floor(c: &Comparison) -> Vec<String> {
    let mut floors = Vec::new();
    let mut changed = Vec::new();
    for g in &c.groups {
        for m in &g.metrics {
            for l in &m.labels {
                let Some(v) = &l.versus else { continue };
                if let Some(d) = v.detectable_change_pct {
                    floors.push(format!("{} {}: ±{:.1} %", g.benchmark, m.metric, d));
                }
                if matches!(
                    v.verdict,
                    Verdict::Better | Verdict::Worse | Verdict::Different
                ) {
                    changed.push(format!("{} {}", g.benchmark, m.metric));
                }
            }
        }
    }
    let mut out = Vec::new();
    if !floors.is_empty() {
        out.push(format!(
            "noise floor: the smallest change these boots can tell (80 % power): {}",
            floors.join(", ")
        ));
    }
    out.push(if changed.is_empty() {
        "the kernel against itself: nothing read as changed, as it should".to_string()
    } else {
        format!(
            "the kernel against itself read as changed in {}: this setup varies more between boots than its runs show; trust no A/B verdict below that",
            changed.join(", ")
        )
    });
    out
}
