//! Boots as the unit: runs measured in one boot share what differs
//! between boots (memory layout, caches, interrupt placement), so when a
//! label has several boots its runs become boot means, and a label whose
//! runs come from one boot is said as such.

use super::verdict;
use crate::store::RunRecord;
use serde::Serialize;

/// Variation within and between boots of one label and metric.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BootSpread {
    pub boots: usize,
    pub runs: usize,
    /// Pooled SD of runs around their own boot's mean.
    pub within_sd: Option<f64>,
    /// SD of the boot means.
    pub between_sd: Option<f64>,
}

/// Runs nested in boots are not independent: when any label of a group
/// has runs from two or more boots, each label's values become its boot
/// means (runs of unknown boot count as one boot), and the spread within
/// and between boots is kept.  This is the "analyse the cluster means"
/// approach to nested data (Snedecor & Cochran, *Statistical Methods*,
/// 8th ed., 1989, §13.12): exact for balanced designs and never
/// anticonservative, at the cost of fewer degrees of freedom than a mixed
/// model would claim.
pub fn by_boot(runs: &[(f64, Option<&str>)]) -> (Vec<f64>, BootSpread) {
    let mut boots: Vec<(Option<&str>, Vec<f64>)> = Vec::new();
    for &(v, b) in runs {
        match boots.iter_mut().find(|(k, _)| *k == b) {
            Some((_, vs)) => vs.push(v),
            None => boots.push((b, vec![v])),
        }
    }
    let means: Vec<f64> = boots
        .iter()
        .map(|(_, v)| v.iter().sum::<f64>() / v.len() as f64)
        .collect();
    let n = runs.len();
    let ss: f64 = boots
        .iter()
        .zip(&means)
        .map(|((_, v), m)| v.iter().map(|x| (x - m).powi(2)).sum::<f64>())
        .sum();
    let spread = BootSpread {
        boots: boots.len(),
        runs: n,
        within_sd: (n > boots.len()).then(|| (ss / (n - boots.len()) as f64).sqrt()),
        between_sd: (means.len() > 1).then(|| crate::stats::describe::variance(&means).sqrt()),
    };
    (means, spread)
}

/// The README's A/B workflow (run on kernel A, reboot, run on B) gives
/// each label's runs from one boot: the boot-to-boot difference (a few %
/// on many machines) is then inside every change and no interval sees it.
/// Said whenever some label's runs all come from one boot while the
/// labels' boots differ.
pub(super) fn single_boot(runs: &[&RunRecord], labels: &[String]) -> Option<String> {
    if labels.len() < 2 {
        return None;
    }
    let boots = |l: &String| {
        let mut b: Vec<&str> = runs
            .iter()
            .filter(|r| &r.label == l)
            .filter_map(|r| boot_of(r))
            .collect();
        b.sort_unstable();
        b.dedup();
        b
    };
    let per: Vec<(&String, Vec<&str>)> = labels.iter().map(|l| (l, boots(l))).collect();
    let mut all: Vec<&str> = per.iter().flat_map(|(_, b)| b.iter().copied()).collect();
    all.sort_unstable();
    all.dedup();
    if all.len() < 2 {
        return None;
    }
    let one: Vec<&str> = per
        .iter()
        .filter(|(_, b)| b.len() == 1)
        .map(|(l, _)| l.as_str())
        .collect();
    (!one.is_empty()).then(|| {
        format!(
            "{}: each of these labels' runs come from one boot, and the labels' boots differ: what differs between boots (memory layout, caches, interrupt placement; often a few %) is then part of every change shown and of no interval; for a verdict on the kernel rather than the boot, give each label several boots (kbench campaign), or compare settings within one boot (kbench matrix)",
            one.join(", ")
        )
    })
}

/// Both sides' runs from one boot each, and the boots differ: a verdict
/// then cannot tell the kernel from the luck of its boot.
pub(super) fn one_boot_each(
    base: &[(f64, Option<&str>)],
    x: &[(f64, Option<&str>)],
) -> Option<String> {
    let boots = |v: &[(f64, Option<&str>)]| {
        let mut b: Vec<&str> = v.iter().filter_map(|r| r.1).collect();
        b.sort_unstable();
        b.dedup();
        (b.len() == 1 && v.iter().all(|r| r.1.is_some())).then(|| b[0].to_string())
    };
    match (boots(base), boots(x)) {
        (Some(a), Some(b)) if a != b => Some(verdict::ONE_BOOT.to_string()),
        _ => None,
    }
}

/// The boot a run was measured in, when known.
pub fn boot_of(r: &RunRecord) -> Option<&str> {
    r.fingerprint.as_ref()?.boot_id.as_deref()
}
