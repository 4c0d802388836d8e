//! Whole-report checks on synthetic runs: one error rate across every
//! test a report makes, boots as the unit, and what the notes say.

use super::tests::{opts, runs, verdicts};
use super::*;
use crate::measure::Metric;
use crate::stats::bootstrap::SplitMix;

/// Runs of labels a and b, each run with `metrics` scoreboard metrics and
/// `counters` sched.* counters, drawn by `draw(label index, run, k)`, on
/// `boots(label, run)` (`None`: unknown).
fn report_runs(
    n: usize,
    metrics: usize,
    counters: usize,
    mut draw: impl FnMut(usize, usize, usize) -> f64,
    boots: impl Fn(usize, usize) -> Option<String>,
) -> Vec<RunRecord> {
    let mut out = Vec::new();
    for (li, label) in ["a", "b"].iter().enumerate() {
        for run in 0..n {
            let fp = boots(li, run).map(|b| crate::fingerprint::Fingerprint {
                boot_id: Some(b),
                ..Default::default()
            });
            let mut r = RunRecord::new(label, "bench", serde_json::json!({}), fp);
            r.id = out.len() as i64;
            for k in 0..metrics {
                r.metrics.push(Metric::new(
                    format!("m{k}"),
                    "s",
                    draw(li, run, k),
                    Better::Lower,
                ));
            }
            for k in 0..counters {
                r.metrics.push(Metric::new(
                    format!("sched.probe.c{k}"),
                    "1/s",
                    draw(li, run, metrics + k),
                    Better::Lower,
                ));
            }
            out.push(r);
        }
    }
    out
}

/// Any false verdict anywhere in the report: the scoreboard's or the
/// scheduling section's.
fn any_decided(c: &Comparison) -> bool {
    on_scoreboard(c) || among_counters(c)
}

/// A difference decided on the scoreboard.
fn on_scoreboard(c: &Comparison) -> bool {
    verdicts(c)
        .iter()
        .any(|v| matches!(v, Verdict::Better | Verdict::Worse | Verdict::Different))
}

/// A counter of the scheduling section decided to differ.
fn among_counters(c: &Comparison) -> bool {
    c.scheduling.as_ref().is_some_and(|s| !s.rows.is_empty())
}

/// Each family keeps its error rate: 200 null reports of 40 scoreboard
/// metrics and 30 sched.* counters at 5 runs a side err on the scoreboard
/// in at most 5 % plus sampling error (the binomial bound for 200 reports
/// at 5 % is 8.5 %), and among the counters the same.
#[test]
fn each_family_keeps_its_error_rate_with_counters_present() {
    let mut rng = SplitMix(0x4642);
    let (mut board, mut counters) = (0, 0);
    for _ in 0..200 {
        let rs = report_runs(
            5,
            40,
            30,
            |_, _, _| 100.0 * (1.0 + 0.05 * rng.normal()),
            |_, _| None,
        );
        let c = build(&rs, &opts(Decider::Welch, Correction::Holm)).unwrap();
        assert_eq!(c.tests, 40, "the scoreboard is its own family");
        assert_eq!(c.scheduling.as_ref().map_or(30, |s| s.tests), 30);
        board += usize::from(on_scoreboard(&c));
        counters += usize::from(among_counters(&c));
    }
    eprintln!("null reports with a false verdict: scoreboard {board}, counters {counters} of 200");
    assert!(
        board <= 17 && counters <= 17,
        "{board} and {counters} of 200"
    );
}

/// The person's question is the family: a headline metric's p adj and
/// verdict are the same whether the runs carry 30 scheduler counters or
/// none (the runs' metric values otherwise identical).
#[test]
fn counters_never_change_a_headline_p_adj() {
    let mut rng = SplitMix(0x7e57);
    let values: Vec<f64> = (0..2 * 5 * 40)
        .map(|i| {
            100.0 * (1.0 + 0.05 * rng.normal()) + if i >= 200 && i % 40 < 5 { 20.0 } else { 0.0 }
        })
        .collect();
    let draw = |l: usize, r: usize, k: usize| values[(l * 5 + r) * 40 + k % 40];
    let o = opts(Decider::Welch, Correction::Holm);
    let with = build(&report_runs(5, 40, 30, draw, |_, _| None), &o).unwrap();
    let without = build(&report_runs(5, 40, 0, draw, |_, _| None), &o).unwrap();
    assert!(with.scheduling.is_some() && without.scheduling.is_none());
    let adj = |c: &Comparison| -> Vec<(Option<f64>, Verdict)> {
        c.groups
            .iter()
            .flat_map(|g| &g.metrics)
            .flat_map(|m| &m.labels)
            .filter_map(|l| l.versus.as_ref())
            .map(|v| (v.p_adjusted, v.verdict))
            .collect()
    };
    assert_eq!(adj(&with), adj(&without));
    assert!(
        adj(&with).iter().any(|(_, v)| *v == Verdict::Worse),
        "a 20 % shift at CV 5 % decides, so the check can fail"
    );
}

/// Boots as boots: 3 boots × 5 runs a label, the boot the unit: every
/// note counts boots, and says more runs in the same boots add none.
#[test]
fn notes_count_boots_where_the_boot_is_the_unit() {
    let mut rng = SplitMix(31);
    let rs = report_runs(
        15,
        1,
        0,
        |_, run, _| 100.0 * (1.0 + 0.03 * ((run / 5) as f64 - 1.0)) + 0.2 * rng.normal(),
        |l, run| Some(format!("{l}-{}", run / 5)),
    );
    let c = build(&rs, &opts(Decider::Welch, Correction::Holm)).unwrap();
    let v = c.groups[0].metrics[0].labels[1].versus.as_ref().unwrap();
    assert_eq!((v.unit, v.n), ("boots", (3, 3)));
}

/// One boot per label: every verdict says it rests on one boot each, and
/// the warning comes first (69 of 100 such null comparisons printed an
/// unmarked better or worse at a boot-to-boot SD of 3 %).
#[test]
fn one_boot_per_label_gives_no_unmarked_verdict() {
    let mut rng = SplitMix(77);
    let mut marked = 0;
    for _ in 0..100 {
        let shift = [0.0, 3.0 * rng.normal()];
        let rs = report_runs(
            5,
            1,
            0,
            |l, _, _| 100.0 + shift[l] + 0.3 * rng.normal(),
            |l, _| Some(format!("boot-{l}")),
        );
        let c = build(&rs, &opts(Decider::Welch, Correction::Holm)).unwrap();
        assert!(
            c.above
                .iter()
                .any(|a| a.contains("each of these labels' runs come from one boot")),
            "{:?}",
            c.above
        );
        let v = c.groups[0].metrics[0].labels[1].versus.as_ref().unwrap();
        if matches!(
            v.verdict,
            Verdict::Better | Verdict::Worse | Verdict::Equivalent
        ) {
            assert_eq!(v.rests_on.as_deref(), Some(verdict::ONE_BOOT));
            marked += 1;
        }
    }
    assert!(marked > 0, "some verdicts were given, all marked");
}

/// The test and the interval from one model: no comparison of positive
/// metrics has p adj below alpha beside an interval that holds no change
/// (skewed log-normal values, 300 seeded pairs).
#[test]
fn a_small_p_never_sits_beside_an_interval_across_no_change() {
    let mut rng = SplitMix(5);
    for _ in 0..300 {
        let rs = report_runs(5, 1, 0, |_, _, _| (1.5 * rng.normal()).exp(), |_, _| None);
        let c = build(&rs, &opts(Decider::Welch, Correction::None)).unwrap();
        let v = c.groups[0].metrics[0].labels[1].versus.as_ref().unwrap();
        let (lo, hi) = v.change_ci_pct.unwrap();
        if v.p_adjusted.is_some_and(|p| p < 0.05) {
            assert!(
                lo > 0.0 || hi < 0.0,
                "p adj {:?} beside [{lo}, {hi}]",
                v.p_adjusted
            );
        }
    }
}

/// Mann-Whitney's interval on a latency with zeros stops at -100 %.
#[test]
fn mann_whitney_interval_stops_at_minus_100_percent_with_zeros() {
    let a: Vec<Vec<f64>> = [10.0, 11.0, 12.0, 11.5, 10.5, 12.5, 11.2]
        .iter()
        .map(|v| vec![*v])
        .collect();
    let b: Vec<Vec<f64>> = [0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.5]
        .iter()
        .map(|v| vec![*v])
        .collect();
    let c = build(
        &runs(&a, &b, "us"),
        &opts(Decider::MannWhitney, Correction::Holm),
    )
    .unwrap();
    let (lo, _) = c.groups[0].metrics[0].labels[1]
        .versus
        .as_ref()
        .unwrap()
        .change_ci_pct
        .unwrap();
    assert!(lo >= -100.0, "{lo}");
}

/// Mann-Whitney's floor note says what the report's strictest step needs
/// and the runs a side that would reach under it.
#[test]
fn the_mann_whitney_floor_note_names_what_the_family_needs() {
    let rs = report_runs(
        5,
        40,
        0,
        |l, r, k| 100.0 + l as f64 * 10.0 + (r + k) as f64 * 0.1,
        |_, _| None,
    );
    let c = build(&rs, &opts(Decider::MannWhitney, Correction::Holm)).unwrap();
    let notes: Vec<String> = c.groups[0]
        .metrics
        .iter()
        .filter_map(|m| m.labels[1].versus.as_ref()?.note.clone())
        .collect();
    let n = notes.first().expect("a floor note");
    assert!(n.contains("cannot go below p = 0.008 with 5+5 runs, and this report's first step needs p < 0.0013"), "{n}");
    assert!(n.contains("runs a side would reach under it"), "{n}");
}

/// A metric that is a fixed multiple of another is shown, with that one's
/// test and verdict, and is not a second test.
#[test]
fn a_fixed_multiple_of_a_metric_is_not_a_second_test() {
    let a: Vec<Vec<f64>> = (0..5)
        .map(|i| {
            let v = 100.0 + f64::from(i);
            vec![v, v * 0.0001]
        })
        .collect();
    let b: Vec<Vec<f64>> = (0..5)
        .map(|i| {
            let v = 120.0 + f64::from(i);
            vec![v, v * 0.0001]
        })
        .collect();
    let c = build(
        &runs(&a, &b, "msg/s"),
        &opts(Decider::Welch, Correction::Holm),
    )
    .unwrap();
    assert_eq!(
        c.groups[0].derived,
        vec![("m1".to_string(), "m0".to_string())]
    );
    assert_eq!(c.tests, 1, "one test, not two");
    let v = |k: usize| {
        c.groups[0].metrics[k].labels[1]
            .versus
            .as_ref()
            .unwrap()
            .clone()
    };
    assert_eq!(v(1).verdict, v(0).verdict);
    assert_eq!(v(1).p_adjusted, v(0).p_adjusted);
    assert_eq!(v(1).same_test_as.as_deref(), Some("m0"));
}

/// The full figures of what a report claims about its own error
/// (`bench/report-error.sh` runs this; KBENCH_SIM_REPORTS trials each,
/// 2,000 by default): null reports of 40 metrics and 30 sched.* counters
/// at 5 runs a side; a null comparison of 3 boots × 5 runs a label with
/// a boot-to-boot SD of 3 % (the boot the unit); one boot a label at that
/// SD (how often a verdict is given, and how often it is unmarked).
#[test]
#[ignore]
fn report_error_figures() {
    let trials: usize = std::env::var("KBENCH_SIM_REPORTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let mut rng = SplitMix(0x5eed);
    let o = opts(Decider::Welch, Correction::Holm);
    let (mut whole, mut boots, mut one, mut unmarked, mut heavy) = (0, 0, 0, 0, 0);
    let (mut board, mut heavy_board) = (0, 0);
    for _ in 0..trials {
        // Heavy tails: log-normal, sigma 1 (a CV of about 130 %).
        let rs = report_runs(5, 40, 30, |_, _, _| 100.0 * rng.normal().exp(), |_, _| None);
        let c = build(&rs, &o).unwrap();
        heavy += usize::from(any_decided(&c));
        heavy_board += usize::from(on_scoreboard(&c));
        let rs = report_runs(
            5,
            40,
            30,
            |_, _, _| 100.0 * (1.0 + 0.05 * rng.normal()),
            |_, _| None,
        );
        let c = build(&rs, &o).unwrap();
        whole += usize::from(any_decided(&c));
        board += usize::from(on_scoreboard(&c));
        let shifts: Vec<f64> = (0..6).map(|_| 3.0 * rng.normal()).collect();
        let rs = report_runs(
            15,
            1,
            0,
            |l, r, _| 100.0 + shifts[l * 3 + r / 5] + 0.5 * rng.normal(),
            |l, r| Some(format!("{l}-{}", r / 5)),
        );
        boots += usize::from(any_decided(&build(&rs, &o).unwrap()));
        let shift = [3.0 * rng.normal(), 3.0 * rng.normal()];
        let rs = report_runs(
            5,
            1,
            0,
            |l, _, _| 100.0 + shift[l] + 0.5 * rng.normal(),
            |l, _| Some(format!("boot-{l}")),
        );
        let c = build(&rs, &o).unwrap();
        if any_decided(&c) {
            one += 1;
            let v = c.groups[0].metrics[0].labels[1].versus.as_ref().unwrap();
            unmarked += usize::from(v.rests_on.is_none());
        }
    }
    let pct = |k: usize| k as f64 * 100.0 / trials as f64;
    println!("{trials} null reports of 40 metrics + 30 sched.* counters, 5 runs a side: a false verdict on the scoreboard in {:.1} %, anywhere (either family) in {:.1} %", pct(board), pct(whole));
    println!("{trials} null reports of 40 metrics + 30 sched.* counters, 5 runs a side, log-normal sigma 1: a false verdict on the scoreboard in {:.2} %, anywhere in {:.2} %", pct(heavy_board), pct(heavy));
    println!(
        "{trials} null comparisons of 3 boots x 5 runs, boot SD 3 %: a false verdict in {:.1} %",
        pct(boots)
    );
    println!("{trials} null comparisons of one boot a label, boot SD 3 %: a verdict in {:.1} %, unmarked in {:.1} %", pct(one), pct(unmarked));
}
