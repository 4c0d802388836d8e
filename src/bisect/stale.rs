//! Did the machine drift between steps?  A search that tests candidates
//! against the levels (every unit of the candidates already decided)
//! reuses units measured minutes or hours before; on a machine that
//! drifts, those units go stale and a step can be misled.  The error
//! bound does not rest on them (the confirmation is measured afresh),
//! but the answer can: a misled search ends at a candidate its
//! confirmation does not show worse.
//!
//! The confirmation gives a fresh look at both levels for free: its
//! parent belongs to the good level and its culprit to the bad one.  So
//! each side's fresh units are compared with its level's earlier units,
//! as a log ratio of means (delta method, Welch-Satterthwaite degrees of
//! freedom, the scale `parts` uses), two-sided at 0.01 shared over the
//! tests (Bonferroni).  A level's units were stopped on by sequential
//! tests, so they are not a perfectly fair sample of it; the strict level
//! keeps that from reading as drift.  What is found is evidence that tells
//! the user why a bisection ended "not confirmed" and what to do
//! (`--fresh-ends`); it decides nothing.  It cannot tell drift from a
//! step misled by chance (a good candidate put in the bad level makes
//! that level unlike its fresh members too), and says both; on a steady
//! machine such a lead is rare, and it is run only for a lead: measured
//! on culprits confirmed, the sequential stopping of both its samples
//! made it cry drift in 5 of 291 steady bisections.

use crate::stats::interval::LogRatio;
use crate::stats::student_t;

/// The family-wise level of the check.
const LEVEL: f64 = 0.01;

/// One level against fresh units of one of its members.
pub struct Side<'a> {
    /// Which level: "good" or "bad".
    pub level: &'static str,
    /// The member measured afresh (the parent, the culprit).
    pub member: &'a str,
    /// Per bisected metric: its name, the level's units, the fresh ones.
    pub metrics: Vec<(&'a str, &'a [f64], &'a [f64])>,
}

/// What the check found.
#[derive(Debug, PartialEq)]
pub struct Stale {
    /// What to tell the user, with the figures.
    pub line: String,
    /// Both levels moved the same way in a metric: the machine drifted
    /// (a step misled by chance puts a candidate in the wrong level, which
    /// moves that level alone).
    pub drift: bool,
}

/// One test that held: side, metric, p, log ratio, units of the level
/// and fresh.
type Held<'a> = (&'a Side<'a>, &'a str, f64, f64, usize, usize);

/// Whether `sides`' levels are unlike their fresh units, each test at
/// [`LEVEL`] shared over every test.
pub fn check(sides: &[Side]) -> Option<Stale> {
    let tests: usize = sides.iter().map(|s| s.metrics.len()).sum();
    let at = LEVEL / tests.max(1) as f64;
    let held: Vec<Held> = sides
        .iter()
        .flat_map(|s| s.metrics.iter().map(move |m| (s, m)))
        .filter_map(|(s, &(name, level, fresh))| {
            let lr = LogRatio::of(level, fresh)?;
            // No spread on either side is no evidence of noise, not of drift.
            if lr.se.is_nan() || lr.se <= 0.0 {
                return None;
            }
            let p = student_t::two_sided_p(lr.estimate / lr.se, lr.df);
            (p < at).then_some((s, name, p, lr.estimate, level.len(), fresh.len()))
        })
        .collect();
    let p_of = |p: f64| {
        if p < 1e-4 {
            "p < 0.0001".to_string()
        } else {
            format!("p = {p:.4}")
        }
    };
    let off = |h: &Held| {
        format!(
            "{}'s {} fresh units of {} are {:+.1} % off the {} level's {} earlier ones",
            h.0.member,
            h.5,
            h.1,
            (h.3.exp() - 1.0) * 100.0,
            h.0.level,
            h.4
        )
    };
    // Both levels off the same way in one metric.
    let both = held.iter().find_map(|a| {
        held.iter()
            .find(|b| b.1 == a.1 && b.0.level != a.0.level && b.3.signum() == a.3.signum())
            .map(|b| (a, b))
    });
    if let Some((a, b)) = both {
        return Some(Stale {
            line: format!(
                "the machine drifted between steps: {} and {} ({} and {}; at most {at:.4} is called off), so steps that reused earlier units may have been misled",
                off(a),
                off(b),
                p_of(a.2),
                p_of(b.2)
            ),
            drift: true,
        });
    }
    let h = held.iter().min_by(|a, b| a.2.total_cmp(&b.2))?;
    Some(Stale {
        line: format!(
            "the levels do not match fresh units: {} ({}; at most {at:.4} is called off): a step was misled by chance and the search followed it, or the machine drifted",
            off(h),
            p_of(h.2)
        ),
        drift: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side<'a>(level: &'a [f64], fresh: &'a [f64]) -> Side<'a> {
        Side {
            level: "good",
            member: "c7",
            metrics: vec![("wall", level, fresh)],
        }
    }

    fn bad<'a>(level: &'a [f64], fresh: &'a [f64]) -> Side<'a> {
        Side {
            level: "bad",
            member: "c8",
            metrics: vec![("wall", level, fresh)],
        }
    }

    /// Values around `mean` with a spread of 2 %, deterministic.
    fn around(mean: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| mean * (1.0 + 0.02 * ((i * 7 % 11) as f64 / 5.0 - 1.0)))
            .collect()
    }

    #[test]
    fn a_level_like_its_fresh_units_is_no_drift() {
        let (l, f) = (around(100.0, 40), around(100.0, 10));
        assert_eq!(check(&[side(&l, &f)]), None);
    }

    #[test]
    fn fresh_units_well_off_their_level_are_stale_with_the_figures() {
        let (l, f) = (around(100.0, 40), around(110.0, 10));
        let found = check(&[side(&l, &f)]).expect("off");
        assert!(!found.drift, "one level alone is not drift");
        assert!(
            found
                .line
                .contains("c7's 10 fresh units of wall are +10.0 % off the good level's 40"),
            "{found:?}"
        );
    }

    #[test]
    fn constant_sides_and_short_ones_are_no_evidence() {
        let (l, f) = (vec![100.0; 20], vec![103.0; 5]);
        assert_eq!(check(&[side(&l, &f)]), None);
        let (l, f) = (around(100.0, 40), vec![120.0]);
        assert_eq!(check(&[side(&l, &f)]), None);
    }

    #[test]
    fn the_level_is_shared_over_every_test() {
        // A shift whose p lies between 0.01/4 and 0.01: drift alone, not
        // among four tests.
        let l = around(100.0, 40);
        let p = |f: &[f64]| {
            let lr = LogRatio::of(&l, f).unwrap();
            student_t::two_sided_p(lr.estimate / lr.se, lr.df)
        };
        let f = (0..200)
            .map(|i| around(100.0 + 0.01 * i as f64, 10))
            .find(|f| (0.0025..0.01).contains(&p(f)))
            .expect("a shift with p between 0.0025 and 0.01");
        assert!(check(&[side(&l, &f)]).is_some());
        let same = around(100.0, 10);
        let four = [
            side(&l, &f),
            side(&l, &same),
            side(&l, &same),
            side(&l, &same),
        ];
        assert_eq!(check(&four), None);
        let far = around(110.0, 10);
        let found = check(&[side(&l, &f), side(&l, &far)]).expect("off");
        assert!(
            found.line.contains("+10.0 %") && found.line.contains("at most 0.0050"),
            "{found:?}"
        );
    }

    /// Both levels off the same way is drift; opposite ways is not.
    #[test]
    fn both_levels_moved_the_same_way_is_drift() {
        let (g, b) = (around(100.0, 40), around(108.0, 40));
        let (gf, bf) = (around(110.0, 10), around(119.0, 10));
        let found = check(&[side(&g, &gf), bad(&b, &bf)]).expect("drift");
        assert!(found.drift, "{found:?}");
        assert!(
            found
                .line
                .starts_with("the machine drifted between steps: c7's"),
            "{found:?}"
        );
        assert!(
            found
                .line
                .contains("c8's 10 fresh units of wall are +10.2 % off the bad level's 40"),
            "{found:?}"
        );
        let down = around(97.0, 10);
        let found = check(&[side(&g, &gf), bad(&b, &down)]).expect("off");
        assert!(!found.drift, "{found:?}");
        let found = check(&[side(&g, &gf), bad(&b, &around(108.0, 10))]).expect("off");
        assert!(
            !found.drift && found.line.starts_with("the levels do not match"),
            "{found:?}"
        );
    }
}
