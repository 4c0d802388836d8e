//! Runs measured in an emulated guest (`kbench vm` under TCG, or KVM
//! nested in another VM) measure the emulator as much as the kernel: a
//! PREEMPT_RT kernel under TCG shows no latency advantage at all.  A
//! comparison says so above its scoreboard and withholds every verdict
//! that rests on such runs (better, worse, different, equivalent become
//! "emulated"), unless `--allow-emulated`.

use super::{Group, Verdict};
use crate::health::emulated::Emulated;
use crate::store::RunRecord;

/// The emulated runs among the compared labels, and why they are (the
/// check every deciding command shares: [`mod@crate::health::emulated`]).
pub fn find(runs: &[&RunRecord], labels: &[String]) -> Emulated {
    crate::health::emulated::among(runs.iter().copied().filter(|r| labels.contains(&r.label)))
}

/// The line above the scoreboard, when any run is emulated.
pub fn notice(e: &Emulated, allowed: bool) -> Option<String> {
    if !e.any() {
        return None;
    }
    Some(format!(
        "emulated: {}; {}",
        e.counted(),
        if allowed {
            "verdicts are given anyway (--allow-emulated): they are the emulator's as much as the kernel's"
        } else {
            "no verdict is given on them (--allow-emulated gives them)"
        }
    ))
}

/// Withhold the verdicts of every comparison whose baseline or label has
/// an emulated run.
pub fn withhold(groups: &mut [Group], emulated: &[i64]) {
    if emulated.is_empty() {
        return;
    }
    for g in groups.iter_mut() {
        let touched = |label: &str| {
            g.run_ids
                .get(label)
                .is_some_and(|ids| ids.iter().any(|i| emulated.contains(i)))
        };
        let base = g
            .metrics
            .first()
            .and_then(|m| m.labels.iter().find(|l| l.versus.is_none()))
            .map(|l| l.label.clone());
        let base_touched = base.as_deref().is_some_and(touched);
        let hit: Vec<String> = g
            .run_ids
            .keys()
            .filter(|l| base_touched || touched(l))
            .cloned()
            .collect();
        for m in g.metrics.iter_mut() {
            for l in m.labels.iter_mut() {
                let Some(v) = l.versus.as_mut() else { continue };
                if hit.contains(&l.label) && v.verdict.is_decided() {
                    v.verdict = Verdict::Emulated;
                }
            }
        }
    }
}
