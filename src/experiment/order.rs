//! The order of an experiment: blocked and randomised.
//!
//! Every round (block) visits each setting once, in a fresh random order
//! drawn from one seeded stream, so drift within a batch falls on every
//! setting alike and the whole order can be rebuilt from its seed (it is
//! stored with the runs).  Randomising within blocks is the classical
//! randomised complete block design (Box, Hunter & Hunter, *Statistics for
//! Experimenters*, 2nd ed., 2005, ch. 4).

use crate::stats::bootstrap::SplitMix;

/// A permutation of `0..n` drawn from `rng` (Fisher-Yates): the one
/// seeded shuffle every experiment's order is made of.
pub fn permutation(rng: &mut SplitMix, n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        // Lemire's reduction is not needed at these sizes: the bias of
        // a modulo over 2^64 for n <= 64 is below 1e-17.
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        p.swap(i, j);
    }
    p
}

/// `rounds` blocks, each a permutation of `0..n` from a SplitMix64
/// stream seeded by `seed`.
pub fn blocks(n: usize, rounds: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = SplitMix(seed);
    (0..rounds).map(|_| permutation(&mut rng, n)).collect()
}

/// `rounds` blocks in mirrored pairs: a seeded permutation, then the
/// same backwards (A B, B A), so a linear drift within each pair falls on
/// every arm alike (`vm`'s boots).
pub fn mirrored(n: usize, rounds: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = SplitMix(seed);
    let mut out: Vec<Vec<usize>> = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let p = if r % 2 == 1 {
            out[r - 1].iter().rev().copied().collect()
        } else {
            permutation(&mut rng, n)
        };
        out.push(p);
    }
    out
}

/// Alternating blocks (A B, B A, A B, …): for two boots, the classic
/// A B B A order that balances a linear drift.
pub fn alternating(n: usize, rounds: usize) -> Vec<Vec<usize>> {
    (0..rounds)
        .map(|r| {
            let mut p: Vec<usize> = (0..n).collect();
            if r % 2 == 1 {
                p.reverse();
            }
            p
        })
        .collect()
}

/// A seed from the clock and the process, for when none is given.
pub fn fresh_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    SplitMix(t ^ (u64::from(std::process::id()) << 32)).next_u64() >> 11
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_visits_each_setting_once_and_the_seed_rebuilds_it() {
        let a = blocks(4, 50, 7);
        for b in &a {
            let mut s = b.clone();
            s.sort();
            assert_eq!(s, vec![0, 1, 2, 3]);
        }
        assert_eq!(a, blocks(4, 50, 7));
        assert_ne!(a, blocks(4, 50, 8));
        // Not always the same order: every setting comes first sometimes.
        for k in 0..4 {
            assert!(a.iter().any(|b| b[0] == k), "{k} never first");
        }
        assert_eq!(
            alternating(2, 4),
            vec![vec![0, 1], vec![1, 0], vec![0, 1], vec![1, 0]]
        );
    }
}
