//! Seeded ranges with one change, two changes and a steady drift, each
//! bisected by the real search: the result says the change comes in parts
//! where it does, and seldom where it does not.

use super::super::search::{Measure, Outcome, Role, Unit};
use crate::measure::Better;
use crate::stats::bootstrap::SplitMix;
use anyhow::Result;

/// A range of 41 candidates whose mean at candidate `i` is `mean(i)`, with
/// a coefficient of variation `cv`.
struct Range {
    mean: fn(usize) -> f64,
    cv: f64,
    rng: SplitMix,
}

impl Measure for Range {
    fn prepare(&mut self, _i: usize) -> std::result::Result<(), String> {
        Ok(())
    }

    fn unit(&mut self, i: usize, _step: usize, _role: Role) -> Result<Option<Vec<f64>>> {
        let v = (self.mean)(i) * (1.0 + self.cv * self.rng.normal());
        Ok(Some(vec![v.max(1e-9)]))
    }

    fn units_of(&self, _step: usize) -> Result<Vec<Unit>> {
        Ok(Vec::new())
    }
}

/// Of `trials` bisections: how many named a culprit, how many of those
/// said the change comes in parts, and how many confirmed it against its
/// parent.
fn bisect(mean: fn(usize) -> f64, trials: u64) -> (usize, usize, usize) {
    let (mut named, mut parts, mut confirmed) = (0, 0, 0);
    for t in 0..trials {
        let mut s = super::super::sim::state(41, 0.05, 80, t);
        let mut r = Range {
            mean,
            cv: 0.03,
            rng: SplitMix(1000 + t),
        };
        if let Ok(Outcome::Culprit {
            parts: p,
            confirmed: c,
            ..
        }) = s.run(&mut r)
        {
            named += 1;
            parts += usize::from(!p.is_empty());
            confirmed += usize::from(c);
        }
    }
    (named, parts, confirmed)
}

#[test]
fn one_change_is_seldom_called_parts() {
    let (named, parts, confirmed) = bisect(|i| if i >= 20 { 110.0 } else { 100.0 }, 20);
    eprintln!("one +10 % change: {named} of 20 named, {parts} called parts, {confirmed} confirmed");
    assert!(named >= 18, "{named}");
    assert!(confirmed >= 18, "{confirmed}");
    assert!(parts <= 2, "{parts} of {named}");
}

#[test]
fn two_changes_are_called_parts() {
    let (named, parts, _) = bisect(
        |i| 100.0 * if i >= 12 { 1.06 } else { 1.0 } * if i >= 28 { 1.06 } else { 1.0 },
        20,
    );
    eprintln!("two +6 % changes: {named} of 20 named, {parts} called parts");
    assert!(named >= 10, "{named}");
    assert!(parts * 10 >= named * 7, "{parts} of {named}");
}

#[test]
fn a_drift_is_called_parts() {
    let (named, parts, _) = bisect(|i| 100.0 * (1.0 + 0.003 * i as f64), 20);
    eprintln!("+0.3 % a commit: {named} of 20 named, {parts} called parts");
    assert!(parts * 10 >= named * 8, "{parts} of {named}");
}

/// A near-null pair is seldom confirmed: under a drift of +0.2 % a
/// commit (ends 8 % apart, no single change), whatever commit the search
/// ends at differs from its parent by 0.2 %, under the threshold; the
/// confirmation, which alone lets a culprit be named, says so in at most
/// alpha (0.05) of bisections.  Over 200 seeded bisections a count above
/// 15 (7.5 %) would have a chance under 2 % at a true rate of 5 %; 1,000
/// of them (release build) confirmed 3.3 %.  (An audit of 11b479b found
/// 8.3 % of such bisections "confirmed".)
#[test]
fn a_drift_is_seldom_confirmed_commit_by_commit() {
    let (named, _, confirmed) = bisect(|i| 100.0 * (1.0 + 0.002 * i as f64), 200);
    eprintln!("+0.2 % a commit: {named} of 200 named, {confirmed} confirmed");
    assert!(named >= 180, "{named}");
    assert!(confirmed <= 15, "{confirmed} of {named} confirmed");
}

/// The arithmetic: ends +10 % and a culprit +10 % is one change; ends
/// +10 % and a culprit +2 %, both tight, is parts; a metric with no
/// direction is never judged.
#[test]
fn the_lines_compare_ends_and_culprit() {
    let m = vec![
        ("t".to_string(), Better::Lower),
        ("u".into(), Better::Neither),
    ];
    let e = (1.1f64.ln(), 0.01, 30.0);
    assert!(super::lines(&m, &[Some(e)], &[(0, (1.1f64.ln(), 0.01, 30.0))], 0.05).is_empty());
    let l = super::lines(&m, &[Some(e)], &[(0, (1.02f64.ln(), 0.01, 30.0))], 0.05);
    assert_eq!(l.len(), 1);
    assert!(
        l[0].starts_with("t: the ends differ by +10.0 %, the culprit by +2.0 %"),
        "{l:?}"
    );
    assert!(super::lines(&m, &[None, Some(e)], &[(1, (0.0, 0.01, 30.0))], 0.05).is_empty());
    // Higher is better: the ends fell more than the culprit did.
    let h = vec![("ops".to_string(), Better::Higher)];
    let down = (0.9f64.ln(), 0.01, 30.0);
    assert_eq!(
        super::lines(&h, &[Some(down)], &[(0, (0.98f64.ln(), 0.01, 30.0))], 0.05).len(),
        1
    );
}
