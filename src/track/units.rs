//! A series as the units its tests rank: boots, not runs.
//!
//! Each label of a series is a build and a boot, and its runs share that
//! boot's offset, so they are not exchangeable with another label's
//! runs: tested as runs, null series whose labels differ by a 3 %
//! label-to-label spread (the boot-to-boot spread kernels show) showed a
//! change point in 98.5 % of reports stated at 5 %.  The unit is
//! therefore the boot.  A label measured over several boots gives its
//! boot means (as `compare` does); a label of one boot gives one value,
//! its runs' mean (a boot's mean, as the boot means are).  Under "no change", the units are exchangeable
//! whatever the label-to-label spread, and the rank tests hold their
//! level.
//!
//! Beside the level, each one-boot label of at least [`SPREAD_RUNS`]
//! runs gives its runs' relative spread (interquartile range over
//! median), so a change in how much runs vary within a label (a noisier
//! kernel, a tail that grows) is still seen, as its own series of units.

use super::series::Series;
use crate::stats::describe::{median, quantile};

/// Fewest runs of a one-boot label for its spread to count.
pub const SPREAD_RUNS: usize = 4;

/// A series' units, by point.
pub struct Units {
    /// Each point's units: boot means, or its one boot's mean.
    level: Vec<Vec<f64>>,
    /// Each one-boot point's relative spread of runs.
    spread: Vec<Option<f64>>,
    /// Start of each point's units in the flattened level values.
    off: Vec<usize>,
}

impl Units {
    pub fn of(s: &Series) -> Units {
        let mut level = Vec::with_capacity(s.points.len());
        let mut spread = Vec::with_capacity(s.points.len());
        for p in &s.points {
            if p.boots.is_some() {
                level.push(p.values.clone());
                spread.push(None);
            } else {
                let m = median(&p.values);
                level.push(vec![crate::stats::describe::mean(&p.values)]);
                let iqr = quantile(&p.values, 0.75) - quantile(&p.values, 0.25);
                spread.push(
                    (p.values.len() >= SPREAD_RUNS && m.is_finite() && m != 0.0)
                        .then(|| iqr / m.abs()),
                );
            }
        }
        let mut off = vec![0];
        for l in &level {
            off.push(off.last().copied().unwrap_or(0) + l.len());
        }
        Units { level, spread, off }
    }

    /// The units of points `[from, to)`, in order.
    pub fn flat(&self, from: usize, to: usize) -> Vec<f64> {
        self.level[from..to].iter().flatten().copied().collect()
    }

    /// Where each point's units start, relative to point `from`.
    pub fn start(&self, from: usize, i: usize) -> usize {
        self.off[i] - self.off[from]
    }

    /// The spreads of points `[from, to)`, when every one has one.
    pub fn spreads(&self, from: usize, to: usize) -> Option<Vec<f64>> {
        self.spread[from..to].iter().copied().collect()
    }

    /// How much one-boot labels differ from one to the next, as a % of
    /// their median: the median absolute difference of successive
    /// labels' values over 0.954 (= √2 · Φ⁻¹(0.75), so that it estimates
    /// the labels' SD for normal values; successive differences are
    /// untouched by a level shift but at its place).  `None` with fewer
    /// than three such labels.  It includes the noise of each label's
    /// mean: it is the spread the tests see.
    pub fn label_spread_pct(&self) -> Option<f64> {
        let one: Vec<f64> = self
            .level
            .iter()
            .filter(|l| l.len() == 1)
            .map(|l| l[0])
            .collect();
        if one.len() < 3 {
            return None;
        }
        let d: Vec<f64> = one.windows(2).map(|w| (w[1] - w[0]).abs()).collect();
        let m = median(&one);
        (m != 0.0 && m.is_finite()).then(|| median(&d) / 0.953_872 / m.abs() * 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap::SplitMix;
    use crate::stats::Better;
    use crate::track::series::Point;

    fn series(points: Vec<Point>) -> Series {
        Series {
            benchmark: "b".into(),
            params: serde_json::json!({}),
            metric: "m".into(),
            unit: "us".into(),
            better: Better::Lower,
            points,
        }
    }

    fn point(values: &[f64], boots: Option<usize>) -> Point {
        Point {
            label: "l".into(),
            values: values.to_vec(),
            boots,
            system: None,
        }
    }

    #[test]
    fn a_one_boot_label_is_one_unit_and_boot_means_are_each_one() {
        let s = series(vec![
            point(&[1.0, 2.0, 3.0, 4.0, 10.0], None),
            point(&[5.0, 6.0], Some(2)),
            point(&[7.0], None),
        ]);
        let u = Units::of(&s);
        // A one-boot label's mean: an outlying run moves it, as it moves
        // a boot's mean.
        assert_eq!(u.flat(0, 3), vec![4.0, 5.0, 6.0, 7.0]);
        assert_eq!(u.start(1, 2), 2);
        // Only the first has runs enough for a spread: (quartiles 2 and 4) / 3.
        assert_eq!(u.spreads(0, 1), Some(vec![2.0 / 3.0]));
        assert_eq!(u.spreads(0, 2), None);
    }

    /// Labels with an SD of 3 % and runs of 1 % CV: the estimate is near
    /// the labels' spread (their means carry 0.45 % of run noise).
    #[test]
    fn the_label_spread_estimates_the_labels_sd() {
        let mut rng = SplitMix(5);
        let points = (0..200)
            .map(|_| {
                let m = 100.0 * (1.0 + 0.03 * rng.normal());
                let v: Vec<f64> = (0..5).map(|_| m * (1.0 + 0.01 * rng.normal())).collect();
                point(&v, None)
            })
            .collect();
        let got = Units::of(&series(points)).label_spread_pct().unwrap();
        assert!((2.5..3.7).contains(&got), "{got}");
        assert_eq!(
            Units::of(&series(vec![point(&[1.0], None); 2])).label_spread_pct(),
            None
        );
    }
}
