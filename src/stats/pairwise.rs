//! The m·n pairwise differences xⱼ − baseᵢ, never written out: counted
//! and selected from the two sorted samples.
//!
//! With both samples sorted, the differences form a matrix whose rows
//! rise and whose columns fall, so how many lie below a value is counted
//! with one pass of two pointers, O(m + n); and the k-th smallest is
//! found by repeatedly counting around a pivot (the weighted median of
//! the rows' middle candidates), which discards at least a quarter of the
//! candidates each time: O((m + n) log(mn)) in all (Johnson & Mizoguchi
//! (1978), "Selecting the Kth element in X + Y and X₁ + X₂ + … + Xₘ",
//! *SIAM J. Comput.* 7(2), 147–153; for the Hodges–Lehmann estimator,
//! Monahan (1984), "Algorithm 616: fast computation of the Hodges–Lehmann
//! location estimator", *ACM TOMS* 10(3), 265–270).  Every difference
//! compared is computed as the sorted arrays would give it (bⱼ − aᵢ in
//! floating point, which is monotone in each index), so the values
//! selected are exactly those a sort of all m·n differences would give.

/// Two samples, sorted: the base's values `a` and the label's `b`.
pub struct Pairs {
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Pairs {
    pub fn new(base: &[f64], x: &[f64]) -> Pairs {
        let mut a = base.to_vec();
        let mut b = x.to_vec();
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        Pairs { a, b }
    }

    /// How many differences there are.
    pub fn len(&self) -> usize {
        self.a.len() * self.b.len()
    }

    fn d(&self, i: usize, j: usize) -> f64 {
        self.b[j] - self.a[i]
    }

    /// For each row, the columns whose difference is below `t` (strictly
    /// when `strict`, else at most `t`): a row's count never falls as the
    /// row's base value grows, so one pointer serves every row.
    fn per_row(&self, t: f64, strict: bool) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.a.len());
        let mut p = 0;
        for i in 0..self.a.len() {
            while p < self.b.len() && {
                let d = self.d(i, p);
                if strict {
                    d < t
                } else {
                    d <= t
                }
            } {
                p += 1;
            }
            out.push(p);
        }
        out
    }

    /// (differences below `t`, differences at most `t`).
    pub fn count(&self, t: f64) -> (usize, usize) {
        (
            self.per_row(t, true).iter().sum(),
            self.per_row(t, false).iter().sum(),
        )
    }

    /// The k-th smallest difference (0-based), as a sort would place it.
    pub fn select(&self, k: usize) -> f64 {
        let (m, n) = (self.a.len(), self.b.len());
        assert!(k < m * n, "select {k} of {}", m * n);
        let mut lo = vec![0usize; m];
        let mut hi = vec![n; m];
        loop {
            let left: usize = (0..m).map(|i| hi[i] - lo[i]).sum();
            let below: usize = lo.iter().sum();
            if left <= 4 * (m + n).max(16) {
                let mut rest: Vec<f64> = (0..m)
                    .flat_map(|i| (lo[i]..hi[i]).map(move |j| (i, j)))
                    .map(|(i, j)| self.d(i, j))
                    .collect();
                rest.sort_by(f64::total_cmp);
                return rest[k - below];
            }
            // The weighted median of the rows' middle candidates.
            let mut mids: Vec<(f64, usize)> = (0..m)
                .filter(|&i| hi[i] > lo[i])
                .map(|i| (self.d(i, (lo[i] + hi[i] - 1) / 2), hi[i] - lo[i]))
                .collect();
            mids.sort_by(|x, y| x.0.total_cmp(&y.0));
            let mut acc = 0;
            let mut pivot = mids[0].0;
            for (v, w) in &mids {
                acc += w;
                if 2 * acc >= left {
                    pivot = *v;
                    break;
                }
            }
            let (lt, le) = (self.per_row(pivot, true), self.per_row(pivot, false));
            let (below_p, upto_p) = (lt.iter().sum::<usize>(), le.iter().sum::<usize>());
            if k < below_p {
                for i in 0..m {
                    hi[i] = hi[i].min(lt[i]);
                }
            } else if k >= upto_p {
                for i in 0..m {
                    lo[i] = lo[i].max(le[i]);
                }
            } else {
                return pivot;
            }
        }
    }

    /// The median of the differences (the mean of the middle two when
    /// their number is even): the Hodges–Lehmann estimate.
    pub fn median(&self) -> f64 {
        let n = self.len();
        if n == 0 {
            return f64::NAN;
        }
        if n % 2 == 1 {
            self.select(n / 2)
        } else {
            (self.select(n / 2 - 1) + self.select(n / 2)) / 2.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap::SplitMix;

    /// Every order statistic, against the sort of all differences, on
    /// samples with ties, duplicates and mixed signs.
    #[test]
    fn selection_and_counts_match_a_full_sort() {
        let mut rng = SplitMix(17);
        for (m, n) in [(1, 1), (3, 5), (7, 2), (40, 33), (120, 90)] {
            let round = |v: f64| (v * 4.0).round() / 4.0;
            let a: Vec<f64> = (0..m).map(|_| round(10.0 * rng.normal())).collect();
            let b: Vec<f64> = (0..n).map(|_| round(3.0 + 10.0 * rng.normal())).collect();
            let mut all: Vec<f64> = a
                .iter()
                .flat_map(|x| b.iter().map(move |y| y - x))
                .collect();
            all.sort_by(f64::total_cmp);
            let p = Pairs::new(&a, &b);
            for k in (0..all.len())
                .step_by((all.len() / 97).max(1))
                .chain([all.len() - 1])
            {
                assert_eq!(p.select(k).to_bits(), all[k].to_bits(), "m {m} n {n} k {k}");
            }
            for t in [all[0], all[all.len() / 2], 0.0, 1e9, -1e9] {
                let lt = all.iter().filter(|&&d| d < t).count();
                let le = all.iter().filter(|&&d| d <= t).count();
                assert_eq!(p.count(t), (lt, le), "m {m} n {n} t {t}");
            }
            assert_eq!(p.median(), crate::stats::describe::median(&all));
        }
    }
}
