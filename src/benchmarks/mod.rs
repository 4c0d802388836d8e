//! Every benchmark kbench runs, one folder each: `mod.rs` holds its
//! registry [`crate::lifecycle::entry::Entry`] and turns its flags into the
//! engine's options; `args.rs` declares its flags; `adapter.rs` (where it
//! has one of its own) is its [`crate::lifecycle::Benchmark`]: its text, its
//! JSON and what goes into the record; `params.rs` the parameters it
//! stores; `engine/` measures, and never prints or stores.  The run
//! lifecycle is `lifecycle::drive`.  Adding a benchmark is a folder here
//! plus one line in `registry::BENCHMARKS` (the test benchmark shows it).

pub mod coldwalk;
pub mod contest;
pub mod cyclictest;
pub mod hackbench;
pub mod interbench;
pub mod job;
pub mod load;
pub mod responsiveness;
pub mod schbench;
#[cfg(debug_assertions)]
pub mod testbench;
pub mod trace_args;

/// Most threads a run of a thread-per-task benchmark may start on `cpus`
/// CPUs: 64 a CPU, 128 at least, `most` at most.  Past that its own
/// threads queue behind each other for the CPUs and what it measures is
/// that (schbench's and cyclictest's comments give the figures).
pub fn thread_limit(cpus: usize, most: usize) -> usize {
    cpus.saturating_mul(64).clamp(128, most)
}
