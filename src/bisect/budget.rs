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
//!
//! A search that reuses earlier units can be misled by a machine that
//! drifts between steps; its confirmation then fails, and sees why (a
//! candidate unlike its own earlier units, [`super::stale`]).  Rather than end there with a lead, the search is
//! made once more with both ends measured beside every candidate, and its
//! culprit confirmed afresh again.  Two confirmations can each name a
//! culprit, so where that second search may come the first runs at
//! 0.8·α and the second at 0.2·α: together α (union bound), whatever
//! either search did.

/// How `--alpha` is spent.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Budget {
    pub alpha: f64,
    /// Steps planned at the start (the ends, confirmation and revert
    /// are not among them).
    pub planned: usize,
    /// Whether a search whose levels went stale may be made again with
    /// fresh ends (not for stored runs, which do not drift; a state from
    /// before this reads as no).
    #[serde(default)]
    pub again: bool,
}

/// Share of α for the planned decisions (the rest is for unplanned ones).
const PLANNED_SHARE: f64 = 0.9;

/// Share of α for the first confirmation where a second may come.
const FIRST_CONFIRM_SHARE: f64 = 0.8;

impl Budget {
    /// For `candidates` (both ends included).
    pub fn new(alpha: f64, candidates: usize) -> Budget {
        let inner = candidates.saturating_sub(1).max(1);
        let steps = (usize::BITS - (inner - 1).leading_zeros()) as usize;
        Budget {
            alpha,
            planned: steps,
            again: true,
        }
    }

    /// The α of the ends and the revert.
    pub fn whole(&self) -> f64 {
        self.alpha
    }

    /// The α of a confirmation: all of it where no second search may
    /// come (`may_again` false, and not `second`), else the first's or
    /// the second's share.
    pub fn confirm(&self, may_again: bool, second: bool) -> f64 {
        match (may_again, second) {
            (_, true) => (1.0 - FIRST_CONFIRM_SHARE) * self.alpha,
            (true, false) => FIRST_CONFIRM_SHARE * self.alpha,
            (false, false) => self.alpha,
        }
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

    /// The sentence a bisection opens and closes with; `may_again`
    /// whether its search may yet be made again with fresh ends, `second`
    /// whether it was.
    pub fn describe(&self, may_again: bool, second: bool) -> String {
        let at = if may_again || second {
            format!(
                "{:.4}, or, when that comparison finds the machine drifted and the search is made again with both ends measured beside every candidate, its own at {:.4} (together {})",
                self.confirm(true, false),
                self.confirm(true, true),
                self.alpha
            )
        } else {
            format!("{}", self.alpha)
        };
        format!(
            "the chance that this bisection names a culprit that is not worse than its parent is at most {a} (--alpha): one is named only when a comparison of its own, measured afresh, finds it worse at {at}; the search's {} planned steps run at {:.4} each and steps a skip adds at halving shares of the {:.4} held back",
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
        assert!(b.describe(false, false).contains("at most 0.05"));
    }

    /// Two confirmations, where a second may come, stay within α.
    #[test]
    fn the_confirmations_share_alpha_when_the_search_may_be_made_again() {
        let b = Budget::new(0.05, 16);
        assert_eq!(b.confirm(false, false), 0.05);
        let two = b.confirm(true, false) + b.confirm(true, true);
        assert!(
            (two - 0.05).abs() < 1e-12 && b.confirm(true, true) < 0.05,
            "{two}"
        );
        let d = b.describe(true, false);
        assert!(
            d.contains("worse at 0.0400, or,") && d.contains("at 0.0100 (together 0.05)"),
            "{d}"
        );
        assert!(!b.describe(false, false).contains("made again"));
    }
}
