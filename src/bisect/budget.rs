//! The bisection's error, spent over its steps.
//!
//! Under the model every bisection assumes (one change: each candidate
//! behaves as the good end before it and as the bad end from it on), a
//! wrong culprit can come two ways.  If nothing changed, any culprit is
//! wrong, and one is named only if the ends are wrongly found to differ:
//! the ends' test runs at α.  If one change did happen, the culprit is
//! wrong only if a step decided a candidate wrongly; by the union bound
//! (Bonferroni) that chance is at most the sum of the steps' own error
//! rates, whatever their dependence.  The steps a bisection of N
//! candidates needs are known when none is skipped, ⌈log₂(N − 1)⌉, and
//! each of those S gets 0.9·α / S; a skip adds steps nobody planned, and
//! the k-th of those gets 0.1·α / 2ᵏ, so however many come the steps'
//! sum stays under α: 0.9·α + 0.1·α·(½ + ¼ + …) < α.  Either way the
//! chance of a wrong culprit is at most α.  The confirmation against the
//! parent only withholds a culprit (one not shown worse is named as not
//! confirmed), and the revert only informs: both run at α and add nothing
//! to the bound.

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

    /// The α of the ends, the confirmation and the revert.
    pub fn whole(&self) -> f64 {
        self.alpha
    }

    /// The α of step `k` (0-based, in the order they are made).
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
            "the chance that this bisection names a wrong culprit is at most {a} (--alpha): the ends are decided at {a}, each of its {} planned steps at {:.4}, and steps a skip adds at halving shares of the {:.4} held back",
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
