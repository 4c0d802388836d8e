//! Verdict logic on synthetic runs: error rates by simulation, and the
//! inputs that misled earlier versions, each as a regression test.

use super::*;
use crate::measure::Metric;
use crate::stats::bootstrap::SplitMix;

pub(super) fn opts(decider: Decider, correction: Correction) -> Options {
    Options {
        labels: vec!["a".into(), "b".into()],
        baseline: None,
        metrics: Vec::new(),
        alpha: 0.05,
        decider,
        correction,
        threshold_pct: crate::stats::DEFAULT_THRESHOLD_PCT,
        detect_pct: None,
        exclude_suspect: false,
        include_warmup: false,
        allow_emulated: false,
    }
}

/// Runs of labels a and b, one metric per column of `values`.
pub(super) fn runs(a: &[Vec<f64>], b: &[Vec<f64>], unit: &str) -> Vec<RunRecord> {
    let mut out = Vec::new();
    for (label, rows) in [("a", a), ("b", b)] {
        for (i, row) in rows.iter().enumerate() {
            let mut r = RunRecord::new(label, "bench", serde_json::json!({}), None);
            r.id = out.len() as i64 + i as i64;
            for (k, v) in row.iter().enumerate() {
                r.metrics
                    .push(Metric::new(format!("m{k}"), unit, *v, Better::Lower));
            }
            out.push(r);
        }
    }
    out
}

pub(super) fn verdicts(c: &Comparison) -> Vec<Verdict> {
    c.groups
        .iter()
        .flat_map(|g| &g.metrics)
        .flat_map(|m| &m.labels)
        .filter_map(|l| l.versus.as_ref().map(|v| v.verdict))
        .collect()
}

/// 50 compares of 40 metrics, 5 runs a side, no true difference: the
/// share of compares with any better/worse verdict.
fn null_false_rate(correction: Correction) -> f64 {
    let mut rng = SplitMix(0x6b62);
    let mut bad = 0;
    for _ in 0..50 {
        let sample = |rng: &mut SplitMix| -> Vec<Vec<f64>> {
            (0..5)
                .map(|_| (0..40).map(|_| 100.0 + 5.0 * rng.normal()).collect())
                .collect()
        };
        let (a, b) = (sample(&mut rng), sample(&mut rng));
        let c = build(&runs(&a, &b, "s"), &opts(Decider::Welch, correction)).unwrap();
        if verdicts(&c)
            .iter()
            .any(|v| matches!(v, Verdict::Better | Verdict::Worse))
        {
            bad += 1;
        }
    }
    bad as f64 / 50.0
}

#[test]
fn a_report_of_many_metrics_keeps_its_error_rate() {
    let holm = null_false_rate(Correction::Holm);
    assert!(
        holm <= 0.10,
        "Holm: {holm} of compares with a false verdict"
    );
    let none = null_false_rate(Correction::None);
    let bh = null_false_rate(Correction::Bh);
    eprintln!("compares with a false better/worse: Holm {holm}, BH {bh}, none {none}");
    assert!(
        none >= 0.5,
        "without correction most compares mislead: {none}"
    );
}

#[test]
fn a_real_difference_beyond_the_threshold_is_rarely_called_equivalent() {
    let mut rng = SplitMix(99);
    let mut bad = 0;
    for _ in 0..50 {
        let a: Vec<Vec<f64>> = (0..5)
            .map(|_| (0..40).map(|_| 100.0 + 1.0 * rng.normal()).collect())
            .collect();
        let b: Vec<Vec<f64>> = (0..5)
            .map(|_| (0..40).map(|_| 105.0 + 1.0 * rng.normal()).collect())
            .collect();
        let c = build(&runs(&a, &b, "s"), &opts(Decider::Welch, Correction::Holm)).unwrap();
        if verdicts(&c).contains(&Verdict::Equivalent) {
            bad += 1;
        }
    }
    eprintln!("compares calling a 5 % change equivalent: {bad} of 50");
    assert!(
        bad <= 5,
        "{bad} of 50 compares called a 5 % change equivalent"
    );
}

#[test]
fn mann_whitney_takes_its_direction_from_the_shift() {
    // 7 of 8 runs of b are a full second faster; one is a 60 s outlier,
    // which drags b's mean above a's.
    let a: Vec<Vec<f64>> = (0..8).map(|i| vec![10.0 + 0.1 * f64::from(i)]).collect();
    let mut b: Vec<Vec<f64>> = (0..7).map(|i| vec![9.0 + 0.1 * f64::from(i)]).collect();
    b.push(vec![60.0]);
    let c = build(
        &runs(&a, &b, "s"),
        &opts(Decider::MannWhitney, Correction::Holm),
    )
    .unwrap();
    let v = c.groups[0].metrics[0].labels[1].versus.as_ref().unwrap();
    assert!((v.mann_whitney_p_value.unwrap() - 0.010_411_810_411_810_413).abs() < 1e-12);
    assert!((v.effect_size + 1.0).abs() < 1e-9, "{}", v.effect_size);
    assert_eq!(v.verdict, Verdict::Better, "{v:?}");
    let (lo, hi) = v.change_ci_pct.unwrap();
    assert!(hi < 0.0 && lo > -100.0, "{lo} {hi}");
}

/// Constant samples are decided neither by p = 0 nor by the threshold:
/// zero spread is no evidence of zero noise (a quantized metric at its
/// resolution), so both sides constant give no verdict, whatever the gap
/// (they were "equivalent" at 10 against 10.001 and "worse" at 12).
#[test]
fn constant_samples_are_not_decided_by_p_zero() {
    let a = vec![vec![10.0]; 3];
    let b = vec![vec![10.001]; 3];
    let c = build(&runs(&a, &b, "s"), &opts(Decider::Welch, Correction::Holm)).unwrap();
    assert_eq!(verdicts(&c), vec![Verdict::Inconclusive]);
    let b = vec![vec![12.0]; 3];
    let c = build(&runs(&a, &b, "s"), &opts(Decider::Welch, Correction::Holm)).unwrap();
    assert_eq!(verdicts(&c), vec![Verdict::Inconclusive]);
}

#[test]
fn a_zero_baseline_has_no_percentage() {
    let a = vec![vec![0.0], vec![0.0], vec![0.0]];
    let b = vec![vec![1.0], vec![1.1], vec![0.9]];
    let c = build(
        &runs(&a, &b, "count"),
        &opts(Decider::Welch, Correction::Holm),
    )
    .unwrap();
    let v = c.groups[0].metrics[0].labels[1].versus.as_ref().unwrap();
    assert_eq!(v.change_pct, None);
    assert_eq!(v.change_ci_pct, None);
}

#[test]
fn one_metric_in_two_units_is_never_pooled() {
    let mut rs = runs(&[vec![1.0], vec![1.1], vec![0.9]], &[], "s");
    let mut more = runs(&[], &[vec![1000.0], vec![1100.0], vec![900.0]], "ms");
    for (i, r) in more.iter_mut().enumerate() {
        r.id = 100 + i as i64;
    }
    rs.extend(more);
    let c = build(&rs, &opts(Decider::Welch, Correction::Holm)).unwrap();
    assert!(verdicts(&c).is_empty(), "no pair across units");
    assert!(
        c.warnings.iter().any(|w| w.contains("never pooled")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn a_metric_equal_to_another_in_every_run_is_shown_once() {
    let a: Vec<Vec<f64>> = (0..3)
        .map(|i| vec![50.0 + f64::from(i), 50.0 + f64::from(i), 9.0])
        .collect();
    let b: Vec<Vec<f64>> = (0..3)
        .map(|i| vec![60.0 + f64::from(i), 60.0 + f64::from(i), 9.5])
        .collect();
    let c = build(&runs(&a, &b, "us"), &opts(Decider::Welch, Correction::Holm)).unwrap();
    let names: Vec<&str> = c.groups[0]
        .metrics
        .iter()
        .map(|m| m.metric.as_str())
        .collect();
    assert_eq!(names, vec!["m0", "m2"]);
    assert_eq!(
        c.groups[0].duplicates,
        vec![("m1".to_string(), "m0".to_string())]
    );
}

#[test]
fn the_smallest_attainable_mann_whitney_p() {
    assert!((verdict::mann_whitney_floor(3, 3) - 0.1).abs() < 1e-12);
    assert!((verdict::mann_whitney_floor(4, 4) - 2.0 / 70.0).abs() < 1e-12);
}

#[test]
fn inconclusive_verdicts_say_what_would_decide_them() {
    let mut rng = SplitMix(3);
    let a: Vec<Vec<f64>> = (0..4).map(|_| vec![100.0 + 10.0 * rng.normal()]).collect();
    let b: Vec<Vec<f64>> = (0..4).map(|_| vec![101.0 + 10.0 * rng.normal()]).collect();
    let mut o = opts(Decider::Welch, Correction::Holm);
    o.detect_pct = Some(1.0);
    let c = build(&runs(&a, &b, "s"), &o).unwrap();
    let v = c.groups[0].metrics[0].labels[1].versus.as_ref().unwrap();
    assert_eq!(v.verdict, Verdict::Inconclusive);
    assert!(v.detectable_change_pct.unwrap() > 2.0);
    assert!(v.runs_needed.unwrap() > 4);
}

#[test]
fn runs_from_several_boots_are_compared_with_the_boot_as_the_unit() {
    // Three boots a side; the boots differ by ±3 %, the runs in a boot
    // hardly at all.  Counted as 15 independent runs a side, +4 % looks
    // decided; with boots as units it is three against three.
    let mut rs = Vec::new();
    for (label, means) in [("a", [100.0, 103.0, 97.0]), ("b", [104.0, 107.0, 101.0])] {
        for (bi, m) in means.iter().enumerate() {
            for k in 0..5 {
                let fp = crate::fingerprint::Fingerprint {
                    boot_id: Some(format!("{label}-boot-{bi}")),
                    ..Default::default()
                };
                let mut r = RunRecord::new(label, "bench", serde_json::json!({}), Some(fp));
                r.id = rs.len() as i64;
                r.metrics.push(Metric::new(
                    "m0",
                    "s",
                    m + 0.01 * f64::from(k),
                    Better::Lower,
                ));
                rs.push(r);
            }
        }
    }
    let c = build(&rs, &opts(Decider::Welch, Correction::Holm)).unwrap();
    let m = &c.groups[0].metrics[0];
    assert_eq!(m.labels[0].summary.n, 3);
    let b = m.labels[1].boots.as_ref().unwrap();
    assert_eq!((b.boots, b.runs), (3, 15));
    assert!(b.within_sd.unwrap() < 0.02, "{b:?}");
    assert!((b.between_sd.unwrap() - 3.0).abs() < 1e-9, "{b:?}");
    assert_eq!(verdicts(&c), vec![Verdict::Inconclusive]);
    assert!(c
        .warnings
        .iter()
        .any(|w| w.contains("the boot is the unit")));
    // The same runs without boot ids are 15 a side, and decided.
    for r in rs.iter_mut() {
        r.fingerprint = None;
    }
    let c = build(&rs, &opts(Decider::Welch, Correction::Holm)).unwrap();
    assert_eq!(c.groups[0].metrics[0].labels[0].summary.n, 15);
    assert_eq!(verdicts(&c), vec![Verdict::Worse]);
    // One boot on one side is said.
    let mut one = rs.clone();
    for (i, r) in one.iter_mut().enumerate() {
        let boot = if r.label == "a" {
            "only".to_string()
        } else {
            format!("b{}", i / 5)
        };
        r.fingerprint = Some(std::sync::Arc::new(crate::fingerprint::Fingerprint {
            boot_id: Some(boot),
            ..Default::default()
        }));
    }
    let c = build(&one, &opts(Decider::Welch, Correction::Holm)).unwrap();
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("a has runs from one boot only")),
        "{:?}",
        c.warnings
    );
    assert_eq!(verdicts(&c), vec![Verdict::TooFewRuns]);
}

/// Coverage on heavily skewed data (log-normal, σ = 1), where the normal
/// theory behind the intervals is furthest off: the change interval
/// (ratio of means, on the log scale) for two labels of one distribution
/// (true change 0) and the label's bootstrap-t interval of its mean
/// (true mean e^0.5), at n = 5 and 10 a side, 800 trials each.  Measured
/// here (seed 2024): change 93.1 % (n = 5) and 91.6 % (n = 10);
/// bootstrap-t 90.5 % and 90.0 %; with 8,000 trials (seed 99, standard
/// error 0.3 points): change 91.6 % and 91.0 %, bootstrap-t 89.8 % and
/// 90.3 %.  The claim in the code and the README is narrowed to that: at
/// least 93 % on normal data, 91–92 % (change) and about 90 %
/// (bootstrap-t) on data this skewed; the floors sit below the measured
/// figures by two to three of this test's standard errors (0.9 points
/// at 800 trials), so that a regression shows.
#[test]
fn coverage_on_heavily_skewed_data_is_what_the_docs_say() {
    let mut rng = SplitMix(2024);
    let o = opts(Decider::Welch, Correction::None);
    let true_mean = 0.5f64.exp();
    for n in [5usize, 10] {
        let (mut change_in, mut mean_in, trials) = (0, 0, 800);
        for k in 0..trials {
            let mut draw = || -> Vec<f64> { (0..n).map(|_| rng.normal().exp()).collect() };
            let (a, b) = (draw(), draw());
            let v = verdict::versus(&a, &b, crate::measure::Better::Lower, &o);
            if v.change_ci_pct
                .is_some_and(|(lo, hi)| lo <= 0.0 && 0.0 <= hi)
            {
                change_in += 1;
            }
            if crate::stats::bootstrap::mean_ci(&a, 0.95, 1000, k as u64)
                .is_some_and(|(lo, hi)| lo <= true_mean && true_mean <= hi)
            {
                mean_in += 1;
            }
        }
        let (c, m) = (
            change_in as f64 / trials as f64,
            mean_in as f64 / trials as f64,
        );
        eprintln!("log-normal sigma 1, n = {n}: change interval {c:.3}, bootstrap-t {m:.3}");
        assert!(c >= 0.89, "change interval coverage {c} at n = {n}");
        assert!(m >= 0.86, "bootstrap-t coverage {m} at n = {n}");
    }
}

/// A single run has no interval: cutting a non-negative metric's interval
/// at 0 must not turn its NaN into a half-interval (which charts drew as a
/// line to NaN).
#[test]
fn a_single_runs_interval_stays_unknown() {
    let s = summary(&[5.0]);
    assert!(s.ci_low.is_nan() && s.ci_high.is_nan(), "{s:?}");
    let s = summary(&[0.0, 1.0, 30.0]);
    assert_eq!(s.ci_low, 0.0, "{s:?}");
}

/// Runs from emulated guests (`kbench vm` under TCG): the comparison says
/// so above its scoreboard and withholds every verdict resting on them,
/// unless allowed; a clear 30 % change is then decided as usual.
#[test]
fn emulated_runs_get_no_verdict_unless_allowed() {
    let a: Vec<Vec<f64>> = (0..5).map(|i| vec![100.0 + f64::from(i)]).collect();
    let b: Vec<Vec<f64>> = (0..5).map(|i| vec![130.0 + f64::from(i)]).collect();
    let mut rs = runs(&a, &b, "us");
    for r in rs.iter_mut().filter(|r| r.label == "b") {
        r.settings["health"] =
            serde_json::json!({ "emulated": "the figures measure the emulator" });
    }
    let o = opts(Decider::Welch, Correction::Holm);
    let c = build(&rs, &o).unwrap();
    assert_eq!(verdicts(&c), vec![Verdict::Emulated]);
    assert!(
        c.above[0].starts_with("emulated: 5 of 10 runs come from emulated guests (the figures measure the emulator); no verdict"),
        "{:?}",
        c.above
    );
    let allowed = build(
        &rs,
        &Options {
            allow_emulated: true,
            ..o.clone()
        },
    )
    .unwrap();
    assert_eq!(verdicts(&allowed), vec![Verdict::Worse]);
    assert!(allowed.above[0].contains("given anyway (--allow-emulated)"));
    // Without emulated runs nothing is said above the scoreboard.
    let plain = build(&runs(&a, &b, "us"), &o).unwrap();
    assert!(plain.above.is_empty());
    assert_eq!(verdicts(&plain), vec![Verdict::Worse]);
}

/// Three constant runs a side (100 against 103) were "worse, p < 0.0001,
/// [+3.0, +3.0]": zero spread read as zero noise.  Now no verdict, and
/// why; one constant side beside a varying one is still tested.
#[test]
fn constant_runs_give_no_verdict() {
    let c = build(
        &runs(&vec![vec![100.0]; 3], &vec![vec![103.0]; 3], "us"),
        &opts(Decider::Welch, Correction::Holm),
    )
    .unwrap();
    assert_eq!(verdicts(&c), vec![Verdict::Inconclusive]);
    let v = c.groups[0].metrics[0].labels[1].versus.as_ref().unwrap();
    assert!(
        v.note.as_deref().unwrap_or("").contains("no spread"),
        "{:?}",
        v.note
    );
    assert!(v.p_adjusted.is_none());
    let c = build(
        &runs(
            &vec![vec![100.0]; 5],
            &[
                vec![130.0],
                vec![131.0],
                vec![129.0],
                vec![130.5],
                vec![129.5],
            ],
            "us",
        ),
        &opts(Decider::Welch, Correction::Holm),
    )
    .unwrap();
    assert_eq!(verdicts(&c), vec![Verdict::Worse]);
}

/// Heavy tails at small levels: on log-normal runs (σ 1, 5 a side) the
/// delta-method p of the log ratio of means falls under 0.005 more often
/// than 0.5 % of null pairs; guarded by the permutation test it does not
/// (2,000 seeded pairs, seed 77: the binomial standard error at 0.5 % is
/// 0.16 points, so the bound 0.9 % is two and a half of them above it).
/// (Measured: 1.05 % raw, none guarded: 5 runs a side have 252 splits, so
/// no permutation p is under 2/252; at 0.05, 4.6 % guarded.)  Normal runs
/// (CV 5 %) are not heavy: their p is the model's, untouched.
#[test]
fn heavy_tails_do_not_make_small_p_values_too_often() {
    let mut rng = SplitMix(77);
    let o = opts(Decider::Welch, Correction::None);
    let (mut raw, mut guarded, mut at_05, trials) = (0, 0, 0, 2000);
    for _ in 0..trials {
        let mut draw = || -> Vec<f64> { (0..5).map(|_| rng.normal().exp()).collect() };
        let (a, b) = (draw(), draw());
        let lr = crate::stats::interval::LogRatio::of(&a, &b).unwrap();
        raw += usize::from(lr.p_value() < 0.005);
        let v = verdict::versus(&a, &b, crate::measure::Better::Lower, &o);
        guarded += usize::from(v.p_value.unwrap() < 0.005);
        at_05 += usize::from(v.p_value.unwrap() < 0.05);
    }
    let (r, g) = (raw as f64 / trials as f64, guarded as f64 / trials as f64);
    eprintln!("log-normal sigma 1, 5 a side: p < 0.005 in {r:.4} (delta method), {g:.4} (guarded)");
    assert!(g <= 0.009, "guarded: {g}");
    assert!(g <= r, "the guard only ever raises p: {g} > {r}");
    // At 0.05 too (standard error 0.49 points).
    let f = at_05 as f64 / trials as f64;
    eprintln!("guarded p < 0.05 in {f:.4}");
    assert!(f <= 0.06, "guarded at 0.05: {f}");
    let normal: Vec<f64> = (0..5)
        .map(|_| 100.0 * (1.0 + 0.05 * rng.normal()))
        .collect();
    let shifted: Vec<f64> = normal.iter().map(|v| v * 1.2).collect();
    let v = verdict::versus(&normal, &shifted, crate::measure::Better::Lower, &o);
    let lr = crate::stats::interval::LogRatio::of(&normal, &shifted).unwrap();
    assert_eq!(v.p_value, Some(lr.p_value()));
}
