//! One label against the baseline for one metric: the effect with its
//! interval from the deciding test, the raw and family-adjusted p-values,
//! equivalence, power, and the verdict.
//!
//! The verdict is made in two steps.  [`versus`] computes everything that
//! depends on this pair alone; [`decide`] runs after every pair of the
//! family is known, because the p-values are adjusted together.
//!
//! Rules (α = `--alpha`, T = `--threshold` %, p̃ = adjusted):
//! - fewer than [`MIN_RUNS`] runs a side: *too few runs*;
//! - TOST p̃ < α (the change's interval lies within ±T): *equivalent*;
//! - test p̃ < α, the interval of the change excludes 0 and the estimated
//!   change is at least T: *better* or *worse*, by the direction of the
//!   deciding estimator (mean ratio for Welch, Hodges–Lehmann shift for
//!   Mann–Whitney);
//! - otherwise *inconclusive*, with the smallest change these runs could
//!   detect.
//!
//! Zero-variance samples get p = 0 from the t-test; the threshold then
//! decides (a 0.01 % change of constant samples is *equivalent*).

use super::{Decider, Options, MIN_RUNS};
use crate::measure::Better;
use crate::stats::describe::{mean, median};
use crate::stats::interval::{self, LogRatio};
use crate::stats::multiple::Correction;
use crate::stats::{effect, mann_whitney, power, student_t, welch};
use serde::Serialize;

/// What the comparison says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    #[serde(rename = "better")]
    Better,
    #[serde(rename = "worse")]
    Worse,
    /// Significant, for a metric with no direction.
    #[serde(rename = "different")]
    Different,
    #[serde(rename = "equivalent")]
    Equivalent,
    #[serde(rename = "inconclusive")]
    Inconclusive,
    #[serde(rename = "too few runs")]
    TooFewRuns,
    /// Withheld: the runs of either side are emulated (a guest under TCG
    /// or nested virtualisation), so a difference would be the emulator's.
    #[serde(rename = "emulated")]
    Emulated,
}

impl Verdict {
    /// A verdict the runs decided (better, worse, different or
    /// equivalent), as opposed to inconclusive, too few runs or withheld.
    pub fn is_decided(self) -> bool {
        matches!(
            self,
            Verdict::Better | Verdict::Worse | Verdict::Different | Verdict::Equivalent
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Different => "different",
            Verdict::Equivalent => "equivalent",
            Verdict::Inconclusive => "inconclusive",
            Verdict::TooFewRuns => "too few runs",
            Verdict::Emulated => "emulated",
        }
    }
}

/// A label against the baseline.
#[derive(Clone, Debug, Serialize)]
pub struct Versus {
    /// Estimated change in % of the baseline, from the deciding estimator
    /// (ratio of means for Welch, Hodges–Lehmann shift over the baseline
    /// median for Mann–Whitney); `None` when the baseline is 0.
    pub change_pct: Option<f64>,
    /// (1 − α) interval of `change_pct`; `None` when it cannot be had.
    pub change_ci_pct: Option<(f64, f64)>,
    /// (1 − 2α) interval of `change_pct`: the one equivalence is decided
    /// on (two one-sided tests at α are this interval within ±threshold;
    /// Schuirmann 1987), so an equivalent row can say it.
    pub equivalence_ci_pct: Option<(f64, f64)>,
    /// The change in the metric's unit (difference of means or HL shift).
    pub difference: f64,
    /// (1 − α) interval of `difference` (Welch's, or HL's exact one).
    pub difference_ci: Option<(f64, f64)>,
    /// Whether the change is an improvement given the metric's direction.
    pub improved: Option<bool>,
    pub welch_p_value: Option<f64>,
    pub welch_df: Option<f64>,
    pub mann_whitney_p_value: Option<f64>,
    pub mann_whitney_exact: Option<bool>,
    /// The deciding test's p, raw and adjusted over the report's family.
    pub p_value: Option<f64>,
    pub p_adjusted: Option<f64>,
    /// Equivalence (TOST within ±threshold), raw and adjusted.
    pub tost_p_value: Option<f64>,
    pub tost_p_adjusted: Option<f64>,
    /// Hodges–Lehmann shift (label − baseline), in the metric's unit.
    pub effect_size: f64,
    pub cohens_d: f64,
    /// None when there are too few runs to say.
    pub significant: Option<bool>,
    /// Smallest change (%) these runs could detect with 80 % power.
    pub detectable_change_pct: Option<f64>,
    /// Runs per side needed to detect `--detect` % (when asked).
    pub runs_needed: Option<usize>,
    /// What would decide it, for people: (a change in %, the runs per
    /// side it needs): `--detect`'s, else 10 %.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_decide: Option<(f64, usize)>,
    /// The runs' coefficient of variation (%, the two sides' mean), and
    /// the runs a side, for "to decide".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cv_pct: Option<f64>,
    /// Why no change could be detected at all, when that is so.
    pub note: Option<String>,
    pub verdict: Verdict,
    /// What a unit is on both sides: "runs", or "boots" when the boot is
    /// the unit (each value a boot's mean).
    pub unit: &'static str,
    /// Units on each side: the baseline's and this label's.
    pub n: (usize, usize),
    /// What the verdict rests on when it rests on little: both sides from
    /// one boot each, different boots.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rests_on: Option<String>,
    /// A metric that is a fixed multiple of another in every run is not a
    /// test of its own: its verdict is that metric's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_test_as: Option<String>,
}

/// What one-boot verdicts rest on, said beside them.
pub const ONE_BOOT: &str = "one boot each";

/// Both samples divided by their largest magnitude, and that divisor:
/// every test and relative figure is the same on them, and values near
/// 1e300 or 1e-300 neither overflow nor underflow a variance.
fn scaled(base: &[f64], x: &[f64]) -> (Vec<f64>, Vec<f64>, f64) {
    let both: Vec<f64> = base.iter().chain(x).copied().collect();
    let s = crate::stats::describe::scale_of(&both);
    (
        base.iter().map(|v| v / s).collect(),
        x.iter().map(|v| v / s).collect(),
        s,
    )
}

/// Everything about one pair that does not depend on the rest of the report.
pub fn versus(base: &[f64], x: &[f64], better: Better, o: &Options) -> Versus {
    let (bs, xs, s) = scaled(base, x);
    let mut v = versus_scaled(&bs, &xs, better, o);
    // Back to the metric's unit: what is in it.
    v.difference *= s;
    v.difference_ci = v.difference_ci.map(|(a, b)| (a * s, b * s));
    v.effect_size *= s;
    v
}

fn versus_scaled(base: &[f64], x: &[f64], better: Better, o: &Options) -> Versus {
    let w = welch::test(base, x);
    let mw = mann_whitney::test(base, x);
    let level = 1.0 - o.alpha;
    let margin = o.threshold_pct / 100.0;
    let (change_pct, change_ci_pct, difference, difference_ci, tost) = match o.decider {
        Decider::Welch => welch_effect(base, x, level, margin),
        Decider::MannWhitney => shift_effect(base, x, level, margin),
    };
    // The interval two one-sided tests at α decide on: level 1 − 2α.
    let equivalence_ci_pct = change_ci(o.decider, base, x, 1.0 - 2.0 * o.alpha);
    let sign = change_pct.unwrap_or(difference);
    let improved = match better {
        Better::Lower => Some(sign < 0.0),
        Better::Higher => Some(sign > 0.0),
        Better::Neither => None,
    };
    let enough = base.len() >= MIN_RUNS && x.len() >= MIN_RUNS;
    // Test and interval from one model: for positive metrics Welch's
    // change interval is on the log scale, and so is the deciding test.
    let p_value = match o.decider {
        Decider::Welch => match LogRatio::of(base, x) {
            Some(lr) => Some(guarded_p(base, x, lr.p_value(), o.alpha)),
            None => w.map(|w| w.p),
        },
        Decider::MannWhitney => mw.map(|m| m.p),
    };
    Versus {
        change_pct,
        change_ci_pct,
        equivalence_ci_pct,
        difference,
        difference_ci,
        improved,
        welch_p_value: w.map(|w| w.p),
        welch_df: w.map(|w| w.df),
        mann_whitney_p_value: mw.map(|m| m.p),
        mann_whitney_exact: mw.map(|m| m.exact),
        p_value: if enough { p_value } else { None },
        p_adjusted: None,
        tost_p_value: if enough { tost } else { None },
        tost_p_adjusted: None,
        effect_size: effect::hodges_lehmann(base, x),
        cohens_d: effect::cohens_d(base, x),
        significant: None,
        detectable_change_pct: None,
        runs_needed: None,
        to_decide: None,
        cv_pct: None,
        note: None,
        verdict: Verdict::TooFewRuns,
        unit: "runs",
        n: (base.len(), x.len()),
        rests_on: None,
        same_test_as: None,
    }
}

/// Above this SD of a side's logarithms (a coefficient of variation of
/// about 36 % for log-normal values) a side is heavy-tailed.
pub const HEAVY_LOG_SD: f64 = 0.35;

/// Whether positive values spread widely on the log scale.
fn heavy(v: &[f64]) -> bool {
    if v.len() < 2 || v.iter().any(|&x| x <= 0.0 || !x.is_finite()) {
        return false;
    }
    let logs: Vec<f64> = v.iter().map(|x| x.ln()).collect();
    crate::stats::describe::variance(&logs).sqrt() > HEAVY_LOG_SD
}

/// The p of the log ratio of means, guarded where tails are heavy.
///
/// Its interval comes from the delta method, whose p is too small on
/// skewed values at few runs: on log-normal runs (σ 1) at 5 runs a side,
/// 5.5-5.8 % of null 70-test reports held a false verdict at a stated 5 %.
/// Where either side is heavy-tailed ([`HEAVY_LOG_SD`]), the p is the
/// larger of it and the studentized permutation test's
/// ([`crate::stats::permutation`]), which is exact under "no difference"
/// whatever the distribution; a verdict then needs both.  Only a p under
/// α can make a verdict (an adjusted p is never smaller), so above it the
/// permutations are not drawn.
fn guarded_p(base: &[f64], x: &[f64], p: f64, alpha: f64) -> f64 {
    if p >= alpha || !(heavy(base) || heavy(x)) {
        return p;
    }
    match crate::stats::permutation::test(base, x, 19_999, None) {
        Some(w) => p.max(w.p),
        None => p,
    }
}

/// The smallest two-sided p the exact Mann–Whitney test can reach with
/// m and n runs: 2 / C(m + n, m).
pub(super) fn mann_whitney_floor(m: usize, n: usize) -> f64 {
    let mut c = 1.0f64;
    for i in 0..m.min(n) {
        c = c * (m + n - i) as f64 / (i + 1) as f64;
    }
    (2.0 / c).min(1.0)
}

type Effect = (
    Option<f64>,
    Option<(f64, f64)>,
    f64,
    Option<(f64, f64)>,
    Option<f64>,
);

/// The deciding estimator's change interval (%) at `level`.
fn change_ci(decider: Decider, base: &[f64], x: &[f64], level: f64) -> Option<(f64, f64)> {
    match decider {
        Decider::Welch => welch_change_ci(base, x, level),
        Decider::MannWhitney => shift_change_ci(
            effect::hodges_lehmann_ci_tied(base, x, level),
            median(base).abs(),
            base,
            x,
        ),
    }
}

/// Welch: ratio of means (log scale for positive data, Fieller otherwise).
fn welch_effect(base: &[f64], x: &[f64], level: f64, margin: f64) -> Effect {
    let (bm, xm) = (mean(base), mean(x));
    let diff = xm - bm;
    let diff_ci = interval::welch_diff(base, x, level);
    let pct = (bm != 0.0).then(|| diff / bm.abs() * 100.0);
    let tost = match LogRatio::of(base, x) {
        Some(lr) => Some(lr.tost_p(margin)),
        None => diff_tost_p(base, x, margin * bm.abs()),
    };
    (pct, welch_change_ci(base, x, level), diff, diff_ci, tost)
}

/// Welch's change interval (%): of the ratio of means, on the log scale
/// for positive data, Fieller's otherwise.
fn welch_change_ci(base: &[f64], x: &[f64], level: f64) -> Option<(f64, f64)> {
    if let Some(lr) = LogRatio::of(base, x) {
        let (lo, hi) = lr.ratio_ci(level);
        return Some(((lo - 1.0) * 100.0, (hi - 1.0) * 100.0));
    }
    let bm = mean(base);
    let non_negative = base.iter().chain(x).all(|v| *v >= 0.0);
    interval::fieller(base, x, level).map(|(lo, hi)| {
        let (a, b) = if bm > 0.0 {
            (lo - 1.0, hi - 1.0)
        } else {
            (1.0 - hi, 1.0 - lo)
        };
        // Data with zeros but none below: the change cannot be below -100 %.
        if non_negative {
            ((a * 100.0).max(-100.0), b * 100.0)
        } else {
            (a * 100.0, b * 100.0)
        }
    })
}

/// Two one-sided Welch tests of |x̄ − b̄| < `m` (Schuirmann 1987), for
/// metrics that are not all positive; `m` treats the baseline mean as
/// known.
fn diff_tost_p(base: &[f64], x: &[f64], m: f64) -> Option<f64> {
    if base.len() < 2 || x.len() < 2 {
        return None;
    }
    let w = welch::test(x, base)?;
    let d = mean(x) - mean(base);
    if !w.t.is_finite() || w.t == 0.0 && d == 0.0 {
        return Some(if d.abs() < m { 0.0 } else { 1.0 });
    }
    let se = d / w.t;
    let p_lo = 1.0 - student_t::cdf((d + m) / se, w.df);
    let p_hi = student_t::cdf((d - m) / se, w.df);
    Some(p_lo.max(p_hi))
}

/// Mann–Whitney: the Hodges–Lehmann shift over the baseline's median.
fn shift_effect(base: &[f64], x: &[f64], level: f64, margin: f64) -> Effect {
    let shift = effect::hodges_lehmann(base, x);
    let ci = effect::hodges_lehmann_ci_tied(base, x, level);
    let bmed = median(base).abs();
    let pct = (bmed != 0.0).then(|| shift / bmed * 100.0);
    let tost = effect::hodges_lehmann_tost_p(base, x, margin * bmed);
    (pct, shift_change_ci(ci, bmed, base, x), shift, ci, tost)
}

/// A Hodges–Lehmann shift interval over the baseline's median `bmed`
/// (%), for the baseline's values and the label's `x`.
fn shift_change_ci(
    ci: Option<(f64, f64)>,
    bmed: f64,
    base: &[f64],
    x: &[f64],
) -> Option<(f64, f64)> {
    ci.filter(|_| bmed != 0.0).map(|(lo, hi)| {
        let (lo, hi) = (lo / bmed * 100.0, hi / bmed * 100.0);
        // A metric none of whose values is negative (a latency with zeros
        // among them) cannot fall by more than all of it.
        if base.iter().chain(x).all(|v| *v >= 0.0) {
            (lo.max(-100.0), hi)
        } else {
            (lo, hi)
        }
    })
}

/// Whether both sides' runs all read one value each (and there are any).
fn constant(base: &[f64], x: &[f64]) -> bool {
    let flat = |v: &[f64]| !v.is_empty() && v.iter().all(|a| *a == v[0]);
    flat(base) && flat(x)
}

/// The verdicts of one family (the scoreboard, or the scheduling
/// section): every test that can give a verdict (each comparison's
/// difference test and its equivalence test) adjusted together
/// ([`crate::stats::multiple::adjust_paired`]), then each pair decided.
/// Power figures use α/m, the strictest step of the ladder.  A pair whose
/// `source` names another (a metric that is a fixed multiple of another)
/// is no test of its own: it takes that one's adjusted p-values.
pub fn decide(all: &mut [(&mut Versus, &[f64], &[f64])], source: &[Option<usize>], o: &Options) {
    let own = |i: usize| source.get(i).copied().flatten().is_none();
    // Both sides constant: zero spread is no evidence of zero noise (a
    // metric quantized at its resolution reads so), so no test of its own.
    let testable = |i: usize| !constant(all[i].1, all[i].2);
    let raw: Vec<Option<f64>> = all
        .iter()
        .enumerate()
        .map(|(i, (v, _, _))| v.p_value.filter(|_| own(i) && testable(i)))
        .collect();
    let tost: Vec<Option<f64>> = all
        .iter()
        .enumerate()
        .map(|(i, (v, _, _))| v.tost_p_value.filter(|_| own(i) && testable(i)))
        .collect();
    let (mut adj, mut tadj) = crate::stats::multiple::adjust_paired(&raw, &tost, o.correction);
    for (i, s) in source.iter().enumerate() {
        if let Some(s) = s {
            adj[i] = adj[*s].filter(|_| all[i].0.p_value.is_some());
            tadj[i] = tadj[*s].filter(|_| all[i].0.tost_p_value.is_some());
        }
    }
    let m = raw.iter().filter(|p| p.is_some()).count().max(1) as f64;
    let alpha_each = match o.correction {
        Correction::None => o.alpha,
        _ => o.alpha / m,
    };
    for (((v, base, x), p), tp) in all.iter_mut().zip(adj).zip(tadj) {
        v.p_adjusted = p;
        v.tost_p_adjusted = tp;
        if v.p_value.is_none() {
            v.verdict = Verdict::TooFewRuns;
            continue;
        }
        if constant(base, x) {
            v.verdict = Verdict::Inconclusive;
            v.significant = Some(false);
            v.note = Some(format!(
                "every run of each side reads one value ({} and {}): no spread to tell the noise by (a metric at its resolution reads so), so no verdict from these runs",
                crate::text::table::num(base[0]),
                crate::text::table::num(x[0])
            ));
            continue;
        }
        let significant = p.is_some_and(|p| p < o.alpha)
            && v.change_ci_pct
                .or(v.difference_ci)
                .is_some_and(|(lo, hi)| lo > 0.0 || hi < 0.0);
        v.significant = Some(significant);
        let big_enough = v.change_pct.is_none_or(|c| c.abs() >= o.threshold_pct);
        v.verdict = if tp.is_some_and(|p| p < o.alpha) && o.threshold_pct > 0.0 {
            Verdict::Equivalent
        } else if significant && big_enough {
            match v.improved {
                Some(true) => Verdict::Better,
                Some(false) => Verdict::Worse,
                None => Verdict::Different,
            }
        } else {
            Verdict::Inconclusive
        };
        if v.verdict == Verdict::Inconclusive {
            explain_inconclusive(v, base, x, o, alpha_each);
        }
    }
}

/// What an inconclusive comparison could tell apart and what would decide
/// it (from the deciding test's own power), or why its test cannot reach
/// the family's level at all.
fn explain_inconclusive(v: &mut Versus, base: &[f64], x: &[f64], o: &Options, alpha_each: f64) {
    let floor = mann_whitney_floor(base.len(), x.len());
    if o.decider == Decider::MannWhitney && floor >= alpha_each {
        // Against what the family's strictest step needs, and the
        // runs a side that would reach under it.
        let reach = (2..=200)
            .find(|&k| mann_whitney_floor(k.max(base.len()), k.max(x.len())) < alpha_each)
            .map_or("over 200".to_string(), |k| k.to_string());
        v.note = Some(format!(
                "Mann-Whitney cannot go below p = {floor:.3} with {}+{} {u}, and this report's first step needs p < {alpha_each:.4}: about {reach} {u} a side would reach under it",
                base.len(),
                x.len(),
                u = v.unit
            ));
        return;
    }
    let (bs, xs, _) = scaled(base, x);
    let (base, x) = (bs.as_slice(), xs.as_slice());
    // Each test from its own power: Welch's from the t
    // distribution, Mann-Whitney's from the exact rank test's
    // (stats::power::mann_whitney_shift).
    let mw = o.decider == Decider::MannWhitney;
    let needed = |d: f64| {
        if mw {
            power::mann_whitney_runs_needed(base, x, d, alpha_each)
        } else {
            power::runs_needed(base, x, d, alpha_each)
        }
    };
    v.detectable_change_pct = if mw {
        power::mann_whitney_detectable_change_pct(base, x, alpha_each)
    } else {
        power::detectable_change_pct(base, x, alpha_each)
    };
    v.runs_needed = o.detect_pct.and_then(needed);
    let want = o.detect_pct.unwrap_or(10.0);
    v.to_decide = needed(want).map(|n| (want, n));
    let cv = |s: &[f64]| {
        let m = crate::stats::describe::mean(s);
        crate::stats::describe::variance(s).sqrt() / m * 100.0
    };
    v.cv_pct = Some((cv(base) + cv(x)) / 2.0).filter(|c| c.is_finite());
}
