//! Every benchmark kbench runs, one folder each: `mod.rs` holds its
//! registry [`crate::lifecycle::entry::Entry`] and turns its flags into the
//! engine's options; `args.rs` declares its flags; `adapter.rs` (where it
//! has one of its own) is its [`crate::lifecycle::Benchmark`]: its text, its
//! JSON and what goes into the record; `params.rs` the parameters it
//! stores.  The engines are in `bench/` and never print or store; the run
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
