//! The lines under a comparison's tables, the same in every format: how
//! its verdicts were decided (the test, the one family and the error it
//! keeps), what was left out, and its warnings.

use super::sections::tally_line;
use crate::compare::Comparison;

/// The lines under the tables: how to read them, and warnings.
pub fn footnotes(c: &Comparison) -> Vec<String> {
    let test = match c.decider {
        crate::compare::Decider::Welch => {
            "Welch's t-test on one model with its interval: for positive metrics the log of the ratio of means, its interval on the same scale (the raw difference, with Fieller's interval, otherwise), so a p adj under alpha never sits beside an interval across no change; where a side is heavy-tailed (its logarithms' SD over 0.35), p is the larger of that and a studentized permutation test's, exact under no change"
        }
        crate::compare::Decider::MannWhitney => {
            "the Mann-Whitney U test; change = Hodges-Lehmann shift over the baseline median, with its exact interval"
        }
    };
    let family = match c.correction {
        crate::stats::multiple::Correction::Holm => format!(
            "Holm's step-down, counting a comparison's two tests as one where only one null can be true (Shaffer): the chance of any false verdict among them is at most {}",
            c.alpha
        ),
        crate::stats::multiple::Correction::Bh => format!(
            "Benjamini-Hochberg over both tests: the expected share of false verdicts is at most {}",
            c.alpha
        ),
        crate::stats::multiple::Correction::None => {
            "no correction: each test at alpha on its own, so the report's chance of a false verdict grows with its size".to_string()
        }
    };
    let mut v = vec![
        format!("verdicts: {}", tally_line(c)),
        format!(
            "baseline {}; decided by {test}; p adj = adjusted over the scoreboard's {} comparisons, each a difference test and an equivalence test, as one family ({family}; the scheduling section's counters explain the answer and are adjusted among themselves, as a second family); \
             better/worse = p adj < {}, the change's interval clear of no change, and the change at least {} %; equivalent = the change's {:.0} % interval within ±{} % (two one-sided tests at the same alpha, adjusted the same way; \
             the 95 % interval shown may reach past it); inconclusive = neither, with the smallest change these runs could detect (80 % power); \
             no verdict below {} runs a side; the intervals are each comparison's own, not adjusted for the report's many tests (p adj is)",
            c.baseline,
            c.tests,
            c.alpha,
            c.threshold_pct,
            (1.0 - 2.0 * c.alpha) * 100.0,
            c.threshold_pct,
            crate::compare::MIN_RUNS
        ),
        "95% CI of a label's mean: log-normal (Cox) for positive metrics, so it never goes below zero; Student t otherwise".into(),
    ];
    for g in &c.groups {
        for (dup, of) in &g.duplicates {
            v.push(format!(
                "{} {dup} equals {of} in every run and is not shown again",
                g.benchmark
            ));
        }
    }
    let one_boot = c.on_one_boot(|v| v.is_decided());
    if one_boot > 0 {
        v.push(format!(
            "the bound above covers the runs' variation within a boot, not from one boot to the next: {one_boot} verdict(s) rest on one boot each, where a boot's own offset alone can make a verdict (boot each label several times: kbench campaign, kbench vm --boots)"
        ));
    }
    v.extend(c.left_out.iter().cloned());
    v.extend(c.missing.iter().map(|m| format!("missing: {m}")));
    v.extend(c.warnings.iter().map(|w| format!("warning: {w}")));
    v
}
