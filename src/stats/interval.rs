//! Confidence intervals for a label's mean and for the change from the
//! baseline, chosen so an interval never claims what cannot be: times,
//! latencies and rates are positive, so their intervals are built on the
//! log scale and never cross zero (or −100 %).

use super::describe::{mean, variance};
use super::student_t;

/// Welch–Satterthwaite degrees of freedom of a sum of independent
/// variance components vᵢ = sᵢ²/nᵢ: ν = (Σvᵢ)² / Σ(vᵢ²/(nᵢ−1)).
/// Satterthwaite, F. E. (1946), *Biometrics Bulletin* 2(6): 110–114.
pub fn satterthwaite(parts: &[(f64, usize)]) -> f64 {
    let total: f64 = parts.iter().map(|p| p.0).sum();
    let den: f64 = parts.iter().map(|&(v, n)| v * v / (n as f64 - 1.0)).sum();
    if den == 0.0 {
        parts.iter().map(|p| p.1 as f64 - 1.0).sum()
    } else {
        total * total / den
    }
}

/// Two-sided `level` quantile of t with `df` degrees of freedom.
fn t_crit(level: f64, df: f64) -> f64 {
    student_t::quantile(1.0 - (1.0 - level) / 2.0, df)
}

/// Whether every value is positive (and finite), so log-scale intervals apply.
pub fn all_positive(x: &[f64]) -> bool {
    !x.is_empty() && x.iter().all(|v| *v > 0.0 && v.is_finite())
}

/// Welch's interval for the difference of means x̄ − b̄:
/// (x̄ − b̄) ± t_{1−α/2, ν}·√(s²ₓ/nₓ + s²_b/n_b), ν by Welch–Satterthwaite
/// (Welch 1947, *Biometrika* 34: 28–35).  As SciPy's
/// `ttest_ind(x, b, equal_var=False).confidence_interval(level)`.
pub fn welch_diff(base: &[f64], x: &[f64], level: f64) -> Option<(f64, f64)> {
    if base.len() < 2 || x.len() < 2 {
        return None;
    }
    let (vb, vx) = (
        variance(base) / base.len() as f64,
        variance(x) / x.len() as f64,
    );
    let d = mean(x) - mean(base);
    let se = (vb + vx).sqrt();
    if se == 0.0 {
        return Some((d, d));
    }
    let h = t_crit(level, satterthwaite(&[(vb, base.len()), (vx, x.len())])) * se;
    Some((d - h, d + h))
}

/// The ratio of means x̄/b̄ of two positive samples on the log scale, by
/// the delta method: r = ln(x̄/b̄), se² = s²ₓ/(nₓx̄²) + s²_b/(n_b b̄²), with
/// Welch–Satterthwaite degrees of freedom over the two components.
/// Casella, G. & Berger, R. L. (2002), *Statistical Inference*, 2nd ed.,
/// §5.5.4 (the delta method); the log scale keeps the ratio positive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogRatio {
    pub estimate: f64,
    pub se: f64,
    pub df: f64,
}

impl LogRatio {
    pub fn of(base: &[f64], x: &[f64]) -> Option<LogRatio> {
        if base.len() < 2 || x.len() < 2 || !all_positive(base) || !all_positive(x) {
            return None;
        }
        LogRatio::from_moments(
            (base.len(), mean(base), variance(base)),
            (x.len(), mean(x), variance(x)),
        )
    }

    /// The same from each side's count, mean and sample variance (a
    /// summary kept where the values are not).  `None` unless both means
    /// are positive and both sides have two values or more.
    pub fn from_moments(base: (usize, f64, f64), x: (usize, f64, f64)) -> Option<LogRatio> {
        let ((nb, mb, sb), (nx, mx, sx)) = (base, x);
        if nb < 2 || nx < 2 || !(mb > 0.0 && mx > 0.0) || !(sb >= 0.0 && sx >= 0.0) {
            return None;
        }
        let vb = sb / (nb as f64 * mb * mb);
        let vx = sx / (nx as f64 * mx * mx);
        Some(LogRatio {
            estimate: (mx / mb).ln(),
            se: (vb + vx).sqrt(),
            df: satterthwaite(&[(vb, nb), (vx, nx)]),
        })
    }

    /// `level` interval of the ratio x̄/b̄ (always positive).
    pub fn ratio_ci(&self, level: f64) -> (f64, f64) {
        let h = if self.se == 0.0 {
            0.0
        } else {
            t_crit(level, self.df) * self.se
        };
        ((self.estimate - h).exp(), (self.estimate + h).exp())
    }

    /// Two-sided p of "the ratio is 1" on the same log scale and with the
    /// same standard error and degrees of freedom as [`Self::ratio_ci`],
    /// so p < 1 − level exactly when that interval leaves out 1: the test
    /// and the interval cannot disagree.
    pub fn p_value(&self) -> f64 {
        if self.se == 0.0 {
            return if self.estimate == 0.0 { 1.0 } else { 0.0 };
        }
        let t = (self.estimate / self.se).abs();
        (2.0 * (1.0 - student_t::cdf(t, self.df))).clamp(0.0, 1.0)
    }

    /// TOST p-value for "the ratio lies within (1 − m, 1 + m)": the larger
    /// of the two one-sided t-tests' p.  Schuirmann, D. J. (1987), "A
    /// comparison of the two one-sided tests procedure…", *J.
    /// Pharmacokinet. Biopharm.* 15(6): 657–680.
    pub fn tost_p(&self, margin: f64) -> f64 {
        let (lo, hi) = (
            (1.0 - margin).max(f64::MIN_POSITIVE).ln(),
            (1.0 + margin).ln(),
        );
        if self.se == 0.0 {
            return if self.estimate > lo && self.estimate < hi {
                0.0
            } else {
                1.0
            };
        }
        let p_lo = 1.0 - student_t::cdf((self.estimate - lo) / self.se, self.df);
        let p_hi = student_t::cdf((self.estimate - hi) / self.se, self.df);
        p_lo.max(p_hi)
    }
}

/// Fieller's interval for the ratio of independent means x̄/b̄, for
/// samples that are not all positive: the ρ with
/// (x̄ − ρb̄)² ≤ t²(s²ₓ/nₓ + ρ²s²_b/n_b), t at Welch–Satterthwaite df
/// evaluated at ρ̂.  `None` when the set is unbounded (b̄ not clearly away
/// from zero).  Fieller, E. C. (1954), "Some problems in interval
/// estimation", *J. R. Statist. Soc. B* 16(2): 175–185.
pub fn fieller(base: &[f64], x: &[f64], level: f64) -> Option<(f64, f64)> {
    if base.len() < 2 || x.len() < 2 {
        return None;
    }
    let (mb, mx) = (mean(base), mean(x));
    let (vb, vx) = (
        variance(base) / base.len() as f64,
        variance(x) / x.len() as f64,
    );
    if mb == 0.0 {
        return None;
    }
    let rho = mx / mb;
    if vb + vx == 0.0 {
        return Some((rho, rho));
    }
    let t = t_crit(
        level,
        satterthwaite(&[(vx, x.len()), (rho * rho * vb, base.len())]),
    );
    let a = mb * mb - t * t * vb;
    let b = -2.0 * mx * mb;
    let c = mx * mx - t * t * vx;
    let disc = b * b - 4.0 * a * c;
    if a <= 0.0 || disc < 0.0 {
        return None;
    }
    let r = disc.sqrt();
    Some(((-b - r) / (2.0 * a), (-b + r) / (2.0 * a)))
}

/// `level` interval of the mean of a positive sample by the modified Cox
/// method for log-normal data: exp(ȳ + s²/2 ± t_{n−1}·√(s²/n + s⁴/(2(n−1))))
/// with y = ln x.  It is asymmetric for skewed data (latency maxima) and
/// never crosses zero.  Olsson, U. (2005), "Confidence intervals for the
/// mean of a log-normal distribution", *J. Statist. Educ.* 13(1).
pub fn cox_mean(x: &[f64], level: f64) -> Option<(f64, f64)> {
    if x.len() < 2 || !all_positive(x) {
        return None;
    }
    let y: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let n = y.len() as f64;
    let (m, s2) = (mean(&y), variance(&y));
    let centre = m + s2 / 2.0;
    let h = t_crit(level, n - 1.0) * (s2 / n + s2 * s2 / (2.0 * (n - 1.0))).sqrt();
    Some(((centre - h).exp(), (centre + h).exp()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::close;

    const B: &[f64] = &[15.758, 15.63, 16.127];
    const X: &[f64] = &[14.716, 14.627, 14.597];
    const LAT_B: &[f64] = &[0.100391, 0.102956, 0.232901];
    const LAT_X: &[f64] = &[0.059826, 0.058776, 0.058987];

    /// scipy 1.17: `ttest_ind(X, B, equal_var=False).confidence_interval(0.95)`.
    #[test]
    fn welch_difference_matches_scipy() {
        let (lo, hi) = welch_diff(B, X, 0.95).unwrap();
        assert!(close(lo, -1.789_986_407_464_933_9, 1e-9), "{lo}");
        assert!(close(hi, -0.593_346_925_868_399, 1e-9), "{hi}");
        let (lo, hi) = welch_diff(LAT_B, LAT_X, 0.95).unwrap();
        assert!(close(lo, -0.274_441_093_067_062_1, 1e-9), "{lo}");
        assert!(close(hi, 0.102_001_759_733_728_77, 1e-9), "{hi}");
        assert_eq!(welch_diff(&[1.0, 1.0], &[2.0, 2.0], 0.95), Some((1.0, 1.0)));
    }

    /// The same formulas evaluated in Python with `scipy.stats.t.ppf`/`cdf`
    /// (tests/fixtures/stats-reference.py prints them).
    #[test]
    fn log_ratio_fieller_and_cox_match_the_reference() {
        let r = LogRatio::of(B, X).unwrap();
        let (lo, hi) = r.ratio_ci(0.95);
        assert!(close(lo, 0.890_795_524_483_411_3, 1e-9), "{lo}");
        assert!(close(hi, 0.960_020_731_301_350_8, 1e-9), "{hi}");
        assert!(close(r.df, 2.267_826_435_891_368_2, 1e-9), "{}", r.df);
        assert!(close(r.tost_p(0.02), 0.990_076_698_636_694_1, 1e-9));
        assert!(
            close(r.p_value(), 0.010_321_359_572_667_922, 1e-8),
            "{}",
            r.p_value()
        );
        let r = LogRatio::of(LAT_B, LAT_X).unwrap();
        assert!(
            close(r.p_value(), 0.096_117_494_673_068_22, 1e-8),
            "{}",
            r.p_value()
        );
        let (lo, hi) = r.ratio_ci(0.95);
        assert!(lo > 0.0, "a ratio interval of positive data stays positive");
        assert!(close(lo, 0.111_625_137_082_713_54, 1e-9), "{lo}");
        assert!(close(hi, 1.484_578_683_477_029_6, 1e-9), "{hi}");
        let (lo, hi) = fieller(B, X, 0.95).unwrap();
        assert!(close(lo, 0.891_326_935_481_308_6, 1e-9), "{lo}");
        assert!(close(hi, 0.960_624_046_656_327, 1e-9), "{hi}");
        assert_eq!(
            fieller(&[-1.0, 1.0, 0.5], &[1.0, 2.0, 3.0], 0.95),
            None,
            "a baseline mean not clearly away from zero gives no ratio interval"
        );
        let (lo, hi) = cox_mean(LAT_B, 0.95).unwrap();
        assert!(close(lo, 0.041_477_686_215_032_936, 1e-9), "{lo}");
        assert!(close(hi, 0.544_590_958_731_673, 1e-9), "{hi}");
    }

    #[test]
    fn skewed_positive_maxima_get_a_positive_interval() {
        // cyclictest max_us over runs: one host stall among quiet runs.
        let max_us = [380.0, 412.0, 351.0, 62_000.0, 398.0];
        let (lo, _) = cox_mean(&max_us, 0.95).unwrap();
        assert!(lo > 0.0);
        let s = crate::stats::describe::Summary::of(&max_us, 0.95);
        assert!(s.ci_low < 0.0, "the t interval would have gone negative");
    }
}
