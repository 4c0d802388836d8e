//! The CPU hog of the original: trial division counting down.

use crate::sys::time;

/// Is `i` prime, tested the original's way: `j` from `i − 1` down to 3,
/// stopping at the first divisor (so composites cost nearly as much).
/// Note the original never tries 2; only odd `i` are asked.
#[inline(never)]
pub fn is_prime_countdown(i: u64) -> bool {
    let mut j = i - 1;
    while j > 2 {
        if i.is_multiple_of(j) {
            return false;
        }
        j -= 1;
    }
    true
}

/// Test every odd number in [10001, 10001·(np+1)); returns how many were
/// prime (so the work cannot be optimised away).
pub fn count(np: u32) -> u64 {
    let end = 10_001 * (np as u64 + 1);
    (10_001..end)
        .step_by(2)
        .filter(|&i| is_prime_countdown(i))
        .count() as u64
}

/// Worker body: do the work once, and again until `deadline_ns` when one
/// is given (compiled code does the original's work far faster than
/// Python did, and the hogs must last as long as the probe).  Writes the
/// first pass's seconds (f64) and the number of passes (u64) to `out`.
pub fn worker(np: u32, deadline_ns: Option<u64>, out: i32) -> i32 {
    let start = time::mono_ns();
    std::hint::black_box(count(np));
    let first = (time::mono_ns() - start) as f64 / 1e9;
    let mut passes = 1u64;
    while deadline_ns.is_some_and(|d| time::mono_ns() < d) {
        std::hint::black_box(count(np));
        passes += 1;
    }
    let mut rec = [0u8; 16];
    rec[..8].copy_from_slice(&first.to_ne_bytes());
    rec[8..].copy_from_slice(&passes.to_ne_bytes());
    if crate::sys::fd::write_all(out, &rec).is_err() {
        return 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countdown_primality() {
        assert!(is_prime_countdown(10_007));
        assert!(!is_prime_countdown(10_001)); // 73 × 137
        assert!(!is_prime_countdown(10_005));
        assert!(is_prime_countdown(5));
        assert!(!is_prime_countdown(9));
    }

    #[test]
    fn counts_primes_in_the_first_range() {
        // Primes between 10001 and 20002: π(20002) − π(10001) = 2262 − 1229.
        assert_eq!(count(1), 2262 - 1229);
    }
}
