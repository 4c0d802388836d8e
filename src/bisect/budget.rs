//! The bisection's error, and the search's levels.
//!
//! A culprit is named only when a comparison of its own, measured afresh
//! (its units and its parent's interleaved in seeded random rounds, none
//! of them seen by the search), finds it worse than its parent at α:
//! so whatever led the search there (an unlucky step, units of earlier
//! steps that a drifting machine made stale, two changes in the range),
//! the chance that the named culprit is not worse than its parent is at
//! most α.  The same holds of a span named when skips leave several
//! candidates: its last good candidate and its first bad one are
//! compared afresh.  Neither needs the one-change model.
//!
//! The search's steps decide which candidate to look at next; an error
//! there costs runs and, when the confirmation then fails, the answer,
//! never a wrong culprit.  Each step still runs at a level that keeps the
//! search's own errors rare: under the one-change model, with a level of
//! 0.9·α / S for each of the ⌈log₂(N − 1)⌉ = S steps a bisection of N
//! candidates plans and halving shares of 0.1·α for the steps skips add,
//! the steps' levels sum to less than α (union bound).  The ends' test
//! (which metrics got worse) and the revert run at α.

/// How `--alpha` is spent.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Budget {
    pub alpha: f64,
    /// Steps planned at the start (the ends, confirmation and revert
    /// are not among them).
    pub planned: usize,
}

/// Share of α for the planned decisions (the rest is for unplanned ones).
const PLANNED_SHARE: f64 = 0.9;

impl Budget {
    /// For `candidates` (both ends included).
    pub fn new(alpha: f64, candidates: usize) -> Budget {
        let inner = candidates.saturating_sub(1).max(1);
        let steps = (usize::BITS - (inner - 1).leading_zeros()) as usize;
        Budget {
            alpha,
            planned: steps,
        }
    }

    /// The α of the ends, the confirmation (the bound) and the revert.
    pub fn whole(&self) -> f64 {
        self.alpha
    }

    /// The search's level for step `k` (0-based, in the order they are
    /// made).
    pub fn step(&self, k: usize) -> f64 {
        if k < self.planned {
            PLANNED_SHARE * self.alpha / self.planned as f64
        } else {
            let extra = (k - self.planned + 1).min(1000) as i32;
            (1.0 - PLANNED_SHARE) * self.alpha / 2f64.powi(extra)
        }
    }

    /// The sentence a bisection opens and closes with.
    pub fn describe(&self) -> String {
        format!(
            "the chance that this bisection names a culprit that is not worse than its parent is at most {a} (--alpha): one is named only when a comparison of its own, measured afresh, finds it worse at {a}; the search's {} planned steps run at {:.4} each and steps a skip adds at halving shares of the {:.4} held back",
            self.planned,
            self.step(0),
            (1.0 - PLANNED_SHARE) * self.alpha,
            a = self.alpha,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_stay_under_alpha_however_many_there_are() {
        let b = Budget::new(0.05, 16);
        // 16 candidates: 15 after the good end, 4 halvings.
        assert_eq!(b.planned, 4);
        let total: f64 = (0..200).map(|k| b.step(k)).sum();
        assert!(total <= 0.05 && total > 0.0499, "{total}");
        let some: f64 = (0..20).map(|k| b.step(k)).sum();
        assert!(some < 0.05, "{some}");
        assert_eq!(Budget::new(0.05, 2).planned, 0);
        assert_eq!(Budget::new(0.05, 64).planned, 6);
        assert_eq!(b.whole(), 0.05);
        assert!(b.describe().contains("at most 0.05"));
    }
}
