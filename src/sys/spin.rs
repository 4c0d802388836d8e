//! A loop of a known, steady cost: CPU work that the compiler cannot
//! remove and that touches no memory, so its speed does not depend on
//! where a thread's stack happens to lie (a loop through `black_box`
//! stores and reloads its counter, and ran at 0.66 to 3 million loops per
//! ms here depending on the build and the thread).  interbench's loop is
//! the same idea: an empty `asm volatile` in a counted loop.

/// Spin `loops` iterations.
#[inline(never)]
pub fn spin(loops: u64) {
    let mut i = 0u64;
    while i < loops {
        // SAFETY: an empty template with no operands reads and writes
        // nothing; it only keeps the compiler from deleting the loop.
        unsafe { core::arch::asm!("", options(nomem, nostack, preserves_flags)) };
        i += 1;
    }
}
