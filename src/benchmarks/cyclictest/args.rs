//! `kbench cyclictest`'s flags.

use crate::values::{self, CpuList};
use clap::{ArgAction, Args};
use std::time::Duration;

/// Declared in the order reports spell them; each flag's id is the name
/// its value is stored under (`params.rs`), which spells it.
#[derive(Args, Debug, Clone)]
pub struct CyclictestArgs {
    /// One thread per online CPU, each pinned to its CPU
    #[arg(short = 'S', long = "smp")]
    pub smp: bool,
    /// Number of threads (default: 1, or one per online CPU with -S); at
    /// most 64 for each CPU they run on, 128 at least
    #[arg(short = 't', long = "threads", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// Pin threads round-robin to these CPUs (numactl syntax)
    #[arg(short = 'a', long = "affinity", value_name = "LIST", value_parser = values::cpu_list)]
    pub affinity: Option<CpuList>,
    /// Real-time priority of the measurement threads (1-99)
    #[arg(
        short = 'p',
        long = "priority",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub priority: i32,
    /// Scheduling policy of the measurement threads [default: fifo when -p is given, else other]
    #[arg(long, value_name = "fifo|rr|other|batch|idle", value_parser = values::policy)]
    pub policy: Option<crate::sys::sched::Policy>,
    /// Lock memory (mlockall) so page faults do not show up as latency
    #[arg(short = 'm', long = "mlockall")]
    pub mlockall: bool,
    /// Base interval of the measurement threads, µs
    #[arg(id = "interval_us", short = 'i', long = "interval", value_name = "INTERVAL", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub interval: u64,
    /// Distance between the intervals of successive threads, µs. kbench's
    /// default is 0, so every thread gets the same number of samples
    /// (rt-tests' default is 500)
    #[arg(
        id = "distance_us",
        short = 'd',
        long = "distance",
        value_name = "DISTANCE",
        default_value_t = 0
    )]
    pub distance: u64,
    /// Run for this long: 20, 20s, 5m, 1h [default: until Ctrl-C or --loops]
    #[arg(id = "duration_s", short = 'D', long = "duration", value_name = "TIME", value_parser = values::duration)]
    pub duration: Option<Duration>,
    /// Stop each thread after this many samples
    #[arg(short = 'l', long = "loops", value_parser = clap::value_parser!(u64).range(1..))]
    pub loops: Option<u64>,
    /// Also print a cyclictest-style histogram with this many 1 µs buckets
    #[arg(short = 'h', long = "histogram", value_name = "US", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub histogram: Option<u64>,
    /// Leave /dev/cpu_dma_latency alone (by default it is held at 0 during the run)
    #[arg(long)]
    pub default_system: bool,
    /// Repeat N times; every run is stored (or `auto[:MAX]`: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
    #[command(flatten)]
    pub trace: crate::benchmarks::trace_args::TraceArgs,
    /// Print help
    #[arg(long = "help", action = ArgAction::Help)]
    pub help: Option<bool>,
}
