//! Percentile bootstrap confidence intervals, seeded so reports are
//! reproducible.  Efron, B. & Tibshirani, R. (1993), *An Introduction to
//! the Bootstrap*, ch. 13 (the percentile interval).

/// A small deterministic generator (SplitMix64, Steele et al. 2014).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `level` (e.g. 0.95) percentile-bootstrap interval of the mean of `x`,
/// from `resamples` resamples with replacement, seeded by `seed`.
/// `None` below two values.
pub fn mean_ci(x: &[f64], level: f64, resamples: usize, seed: u64) -> Option<(f64, f64)> {
    if x.len() < 2 {
        return None;
    }
    let mut rng = SplitMix(seed);
    let n = x.len();
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            (0..n)
                .map(|_| x[(rng.next() % n as u64) as usize])
                .sum::<f64>()
                / n as f64
        })
        .collect();
    means.sort_by(|a, b| a.total_cmp(b));
    let lo_i = (((1.0 - level) / 2.0) * resamples as f64).floor() as usize;
    let hi_i = ((1.0 - (1.0 - level) / 2.0) * resamples as f64).ceil() as usize - 1;
    Some((
        means[lo_i.min(resamples - 1)],
        means[hi_i.min(resamples - 1)],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_brackets_the_mean_and_is_reproducible() {
        let x = [10.0, 12.0, 11.0, 15.0, 9.0, 13.0];
        let (lo, hi) = mean_ci(&x, 0.95, 2000, 42).unwrap();
        let m = x.iter().sum::<f64>() / 6.0;
        assert!(lo < m && m < hi, "{lo} {m} {hi}");
        assert!(lo >= 9.0 && hi <= 15.0, "within the data's range");
        assert_eq!(mean_ci(&x, 0.95, 2000, 42), Some((lo, hi)));
        let (lo2, hi2) = mean_ci(&x, 0.5, 2000, 42).unwrap();
        assert!(
            hi2 - lo2 < hi - lo,
            "a lower level gives a narrower interval"
        );
    }

    #[test]
    fn constant_data_has_zero_width() {
        assert_eq!(mean_ci(&[3.0, 3.0, 3.0], 0.95, 500, 1), Some((3.0, 3.0)));
        assert_eq!(mean_ci(&[3.0], 0.95, 500, 1), None);
    }
}
