//! The same machine each boot: every block's system (its kernel's
//! fingerprint id, CPU, CPUs online, governor, SMT, memory, THP,
//! clocksource, mitigations and scheduler knobs; what `compare`'s system
//! table names) is kept with the block, and a block whose system differs
//! from its label's first block in any of them is flagged: a label's
//! blocks are the same boot again, so anything that moved (a governor a
//! service set on one boot only, a CPU left offline, another microcode's
//! mitigations) is a confounder of that label's runs.  With `--strict`
//! the campaign pauses on it.

use super::{Block, Plan};
use crate::store::Store;
use anyhow::Result;

/// Audit block `position` (done, its runs stored under `label`): keep its
/// system; the differences from the label's first audited block, as
/// `field: before → now`.
pub fn block(store: &dyn Store, plan: &mut Plan, position: usize) -> Result<Vec<String>> {
    let Some(at) = plan.history.iter().rposition(|b| b.position == position) else {
        return Ok(Vec::new());
    };
    let label = plan.history[at].label.clone();
    let Some(fp) = super::block_records(store, plan, &label, position)?
        .into_iter()
        .find_map(|r| r.fingerprint)
    else {
        return Ok(Vec::new());
    };
    let audit = crate::compare::config_diff::audit(&fp);
    let first = plan
        .history
        .iter()
        .find(|b: &&Block| b.label == label && b.status == "done" && !b.audit.is_empty());
    let differs = match first {
        Some(f) if f.position != position => differences(&f.audit, &audit),
        _ => Vec::new(),
    };
    let b = &mut plan.history[at];
    b.audit = audit;
    b.differs = differs.clone();
    Ok(differs)
}

/// `field: before → now` for every field whose value moved.
fn differences(
    before: &std::collections::BTreeMap<String, String>,
    now: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(now.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let (a, b) = (before.get(k), now.get(k));
            (a != b).then(|| {
                let show = |v: Option<&String>| {
                    v.map_or("–".to_string(), |v| crate::text::clean(v).into_owned())
                };
                format!("{k}: {} → {}", show(a), show(b))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_moved_is_named() {
        let m = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let a = m(&[
            ("THP", "madvise"),
            ("cpu", "x"),
            ("governor", "performance"),
        ]);
        let b = m(&[("THP", "never"), ("cpu", "x"), ("SMT", "on")]);
        assert_eq!(
            differences(&a, &b),
            vec![
                "SMT: – → on",
                "THP: madvise → never",
                "governor: performance → –"
            ]
        );
        assert!(differences(&a, &a).is_empty());
    }
}
