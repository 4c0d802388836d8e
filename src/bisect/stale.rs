//! Did the machine drift between steps?  A search that tests candidates
//! against the levels (every unit of the candidates already decided)
//! reuses units measured minutes or hours before; on a machine that
//! drifts, those units go stale and a step can be misled.  The error
//! bound does not rest on them (the confirmation is measured afresh),
//! but the answer can: a misled search ends at a candidate its
//! confirmation does not show worse.
//!
//! The confirmation gives a fresh look for free at its two members (the
//! last good candidate and the first bad one), and each was measured
//! before, in its own step (or, for an end, the ends' decision and the
//! steps that topped it up).  A candidate unlike its own earlier units
//! is the machine drifting: nothing the search did can make a candidate
//! differ from itself.  So each member's fresh units are compared with
//! its own earlier ones, as a log ratio of means (delta method,
//! Welch-Satterthwaite degrees of freedom, the scale `parts` uses),
//! two-sided at 0.01 shared over the tests (Bonferroni); that is drift,
//! and the search may be made again with fresh ends.  Failing that, each
//! member is compared with its level (every unit of the candidates
//! decided like it): a level off alone is a step misled by chance (a
//! candidate put in the wrong level), said as such, and the bisection
//! ends as a lead.  The earlier units were stopped on by sequential
//! tests, so they are not a perfectly fair sample; the strict level keeps
//! that from reading as drift.  It is run only for a lead.

use crate::stats::interval::LogRatio;
use crate::stats::student_t;

/// The family-wise level of each of the two checks.
const LEVEL: f64 = 0.01;

/// Earlier units against fresh units of one candidate.
pub struct Side<'a> {
    /// Whose earlier units: "its own", "the good level's", "the bad
    /// level's".
    pub against: &'static str,
    /// The candidate measured afresh (the parent, the culprit).
    pub member: &'a str,
    /// Per bisected metric: its name, the earlier units, the fresh ones.
    pub metrics: Vec<(&'a str, &'a [f64], &'a [f64])>,
}

/// What the check found.
#[derive(Debug, PartialEq)]
pub struct Stale {
    /// What to tell the user, with the figures.
    pub line: String,
    /// A candidate was unlike its own earlier units: the machine drifted.
    pub drift: bool,
}

/// The test of `sides` that held with the smallest p, at [`LEVEL`]
/// shared over every test, as "X's n fresh units of m are +a % off ...
/// (p ...; at most ... is called off)".
fn strongest(sides: &[Side]) -> Option<String> {
    let tests: usize = sides.iter().map(|s| s.metrics.len()).sum();
    let at = LEVEL / tests.max(1) as f64;
    let (p, s, name, est, n_earlier, n_fresh) = sides
        .iter()
        .flat_map(|s| s.metrics.iter().map(move |m| (s, m)))
        .filter_map(|(s, &(name, earlier, fresh))| {
            let lr = LogRatio::of(earlier, fresh)?;
            // No spread on either side is no evidence of noise, not of drift.
            if lr.se.is_nan() || lr.se <= 0.0 {
                return None;
            }
            let p = student_t::two_sided_p(lr.estimate / lr.se, lr.df);
            (p < at).then_some((p, s, name, lr.estimate, earlier.len(), fresh.len()))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    let p = if p < 1e-4 {
        "p < 0.0001".to_string()
    } else {
        format!("p = {p:.4}")
    };
    Some(format!(
        "{}'s {n_fresh} fresh units of {name} are {:+.1} % off {} {n_earlier} earlier ones ({p}; at most {at:.4} is called off)",
        s.member,
        (est.exp() - 1.0) * 100.0,
        s.against,
    ))
}

/// Whether the members are unlike their own earlier units (`own`: drift)
/// or, failing that, their levels' (`levels`: a step misled by chance).
pub fn check(own: &[Side], levels: &[Side]) -> Option<Stale> {
    if let Some(off) = strongest(own) {
        return Some(Stale {
            line: format!(
                "the machine drifted between steps: {off}, so steps that reused earlier units may have been misled"
            ),
            drift: true,
        });
    }
    strongest(levels).map(|off| Stale {
        line: format!(
            "the levels do not match fresh units: {off}, while each is like its own earlier units: a step was misled by chance and the search followed it"
        ),
        drift: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side<'a>(against: &'static str, earlier: &'a [f64], fresh: &'a [f64]) -> Side<'a> {
        Side {
            against,
            member: "c7",
            metrics: vec![("wall", earlier, fresh)],
        }
    }

    /// Values around `mean` with a spread of 2 %, deterministic.
    fn around(mean: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| mean * (1.0 + 0.02 * ((i * 7 % 11) as f64 / 5.0 - 1.0)))
            .collect()
    }

    const OWN: &str = "its own";
    const GOOD: &str = "the good level's";

    #[test]
    fn members_like_their_units_and_levels_are_nothing() {
        let (l, f) = (around(100.0, 40), around(100.0, 10));
        assert_eq!(
            check(&[side(OWN, &l[..8], &f)], &[side(GOOD, &l, &f)]),
            None
        );
    }

    #[test]
    fn a_member_unlike_its_own_units_is_drift_with_the_figures() {
        let (own, f, level) = (around(100.0, 8), around(110.0, 10), around(104.0, 40));
        let found = check(&[side(OWN, &own, &f)], &[side(GOOD, &level, &f)]).expect("drift");
        assert!(found.drift, "{found:?}");
        assert!(
            found.line.starts_with("the machine drifted between steps: c7's 10 fresh units of wall are +9.9 % off its own 8 earlier ones"),
            "{found:?}"
        );
    }

    #[test]
    fn a_level_off_alone_is_a_step_misled_not_drift() {
        let (own, f, level) = (around(100.0, 8), around(100.0, 10), around(108.0, 40));
        let found = check(&[side(OWN, &own, &f)], &[side(GOOD, &level, &f)]).expect("off");
        assert!(!found.drift, "{found:?}");
        assert!(
            found.line.starts_with("the levels do not match fresh units: c7's 10 fresh units of wall are -7.4 % off the good level's 40"),
            "{found:?}"
        );
    }

    #[test]
    fn constant_sides_and_short_ones_are_no_evidence() {
        let (l, f) = (vec![100.0; 20], vec![103.0; 5]);
        assert_eq!(check(&[side(OWN, &l, &f)], &[]), None);
        let (l, f) = (around(100.0, 40), vec![120.0]);
        assert_eq!(check(&[side(OWN, &l, &f)], &[side(GOOD, &l, &f)]), None);
    }

    #[test]
    fn the_level_is_shared_over_every_test() {
        // A shift whose p lies between 0.01/4 and 0.01: off alone, not
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
        assert!(check(&[side(OWN, &l, &f)], &[]).is_some());
        let same = around(100.0, 10);
        let four = [
            side(OWN, &l, &f),
            side(OWN, &l, &same),
            side(OWN, &l, &same),
            side(OWN, &l, &same),
        ];
        assert_eq!(check(&four, &[]), None);
        let far = around(110.0, 10);
        let found = check(&[side(OWN, &l, &f), side(OWN, &l, &far)], &[]).expect("off");
        assert!(
            found.line.contains("+10.0 %") && found.line.contains("at most 0.0050"),
            "{found:?}"
        );
    }
}
