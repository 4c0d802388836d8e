//! What each label's worst wake-ups waited behind, from the explanations
//! `--trace` stored with its runs (see [`crate::trace::summary`]); a
//! group has this only when some of its runs were traced.

use crate::store::RunRecord;
use crate::trace::explain::Explanation;
use crate::trace::summary::{summarise, Summary};
use serde::Serialize;

/// One label's traced runs in a group, summed up.
#[derive(Clone, Debug, Serialize)]
pub struct LabelTrace {
    pub label: String,
    pub runs: usize,
    pub summary: Summary,
}

/// The group's labels' summaries, in label order; empty when no run of
/// the group was traced.
pub fn waited_behind(rs: &[&RunRecord], labels: &[String]) -> Vec<LabelTrace> {
    fn traced(r: &RunRecord) -> bool {
        r.settings["trace"]["traced"] == true
    }
    if !rs.iter().any(|r| traced(r)) {
        return Vec::new();
    }
    labels
        .iter()
        .filter_map(|l| {
            let of: Vec<&RunRecord> = rs.iter().copied().filter(|r| &r.label == l).collect();
            if of.is_empty() {
                return None;
            }
            let traced_runs: Vec<&RunRecord> = of.iter().copied().filter(|r| traced(r)).collect();
            let explained: Vec<Explanation> = traced_runs
                .iter()
                .filter_map(|r| r.settings["trace"]["outliers"].as_array())
                .flatten()
                .filter_map(|o| serde_json::from_value::<Explanation>(o.clone()).ok())
                // A stored time beyond a day is damaged: left out, never summed.
                .filter(Explanation::times_fit)
                .collect();
            Some(LabelTrace {
                label: l.clone(),
                runs: of.len(),
                summary: summarise(traced_runs.len(), &explained),
            })
        })
        .collect()
}
