//! CPU work of a known duration, as interbench makes it: an empty loop
//! whose speed (`loops_per_ms`) is measured once per machine.
//!
//! interbench keeps the figure in a file in the current directory; kbench
//! keeps it in the store, keyed by the system fingerprint and the CPU, so
//! a new kernel or machine is calibrated again and every run records the
//! figure it used.

use crate::sys::time::{mono_ns, thread_cpu_ns};

/// Burn `loops` iterations of an empty loop the compiler cannot remove.
#[inline]
pub fn burn_loops(loops: u64) {
    crate::sys::spin::spin(loops);
}

/// Burn `us` microseconds of the thread's CPU time.
///
/// interbench burns a fixed number of loops (`loops_per_ms / 1000 * us`),
/// which is that much CPU time only while the CPU runs at the speed it was
/// calibrated at.  Here (a virtual machine whose host changes speed) the
/// same loops took from 34.9 % to 39.8 % of a CPU for Video's "40 %", and
/// Gaming's 100 ms frames took 78-82 ms.  So kbench spins in slices of
/// about 50 µs of loops and stops when the thread has used `us` of CPU:
/// the task uses the CPU interbench means it to, whatever the clock speed.
/// Preempted time is not CPU time, so under load the burn stretches in
/// wall time exactly as interbench's does.  The calibration sizes the
/// slices; the clock read between them (a system call) costs under 1 %.
pub fn burn_us(loops_per_ms: u64, us: u64) {
    let end = thread_cpu_ns() + us * 1000;
    let slice = (loops_per_ms / 20).max(1);
    loop {
        let now = thread_cpu_ns();
        if now >= end {
            return;
        }
        let left = (u128::from(end - now) * u128::from(loops_per_ms) / 1_000_000) as u64;
        burn_loops(left.clamp(1, slice));
    }
}

/// Measure `loops_per_ms` as interbench does: pinned to one CPU, a second
/// of warm-up (for the clock to reach speed), iterate until a burst takes
/// within 1 % of its length, then check again after a pause within 5 %.
/// `stop` ends it early (Ctrl-C).
///
/// Two differences, both measured here: bursts are 10 ms of the thread's
/// CPU time, where interbench times 1 ms on the wall clock.  Stolen time
/// (a virtual machine's host running something else) counts as loop time
/// on the wall clock, and 1 ms bursts ran slower than the task's longer
/// ones, so the figure came out low and the simulated tasks used less CPU
/// than they should (Video 38.0 % instead of 40 %); with 10 ms CPU-time
/// bursts Audio used 5.2 % and Video 39.8 %.
pub fn calibrate(stop: &dyn Fn() -> bool) -> Option<u64> {
    let mut lpms: u64 = 100_000;
    let start = mono_ns();
    while mono_ns() - start < 1_000_000_000 {
        burn_loops(lpms);
        if stop() {
            return None;
        }
    }
    for _attempt in 0..50 {
        let mut run = 0u64;
        let mut tries = 0;
        while !(990_000..=1_010_000).contains(&run) {
            let t = thread_cpu_ns();
            burn_loops(lpms * 10);
            run = ((thread_cpu_ns() - t) / 10).max(1);
            lpms = (1_000_000u128 * u128::from(lpms) / u128::from(run)).max(1) as u64;
            tries += 1;
            if tries > 10_000 || stop() {
                return None;
            }
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
        let t = thread_cpu_ns();
        burn_loops(lpms * 10);
        let check = (thread_cpu_ns() - t) / 10;
        if (950_000..=1_050_000).contains(&check) {
            return Some(lpms);
        }
    }
    None
}
