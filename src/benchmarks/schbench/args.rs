//! `kbench schbench`'s flags.

use crate::values::{self, Pinning};
use clap::Args;

/// Each flag's id is the name its value is stored under (`params.rs`),
/// which spells it in reports, in this order.
#[derive(Args, Debug, Clone)]
pub struct SchbenchArgs {
    /// Message threads
    #[arg(short = 'm', long = "message-threads", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub message_threads: u32,
    /// Worker threads per message thread [default: CPUs / message threads, rounded up]
    #[arg(id = "workers", short = 't', long = "threads", value_name = "THREADS", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// Seconds to run
    #[arg(id = "runtime_s", short = 'r', long = "runtime", value_name = "RUNTIME", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub runtime: u64,
    /// Seconds of warm-up, after which the statistics start again (schbench drops -w below -r 30; kbench keeps it)
    #[arg(id = "warmup_s", short = 'w', long = "warmuptime", value_name = "WARMUPTIME", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=604_800))]
    pub warmuptime: u64,
    /// Print interval statistics to stderr every N seconds (0: never)
    #[arg(short = 'i', long = "intervaltime", default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=604_800))]
    pub intervaltime: u64,
    /// Zero the statistics every N seconds (0: never)
    #[arg(short = 'z', long = "zerotime", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=604_800))]
    pub zerotime: u64,
    /// Cache footprint of a request's matrices, KiB
    #[arg(id = "footprint_kb", short = 'F', long = "cache-footprint", value_name = "CACHE_FOOTPRINT", visible_alias = "cache_footprint", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=4_194_304))]
    pub cache_footprint: u64,
    /// Matrix multiplications per request (think time)
    #[arg(short = 'n', long = "operations", default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub operations: u64,
    /// Sleep per request, usec (simulated network or disk)
    #[arg(id = "sleep_us", short = 's', long = "sleep-usec", value_name = "SLEEP_USEC", visible_alias = "sleep_usec", default_value_t = 100, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub sleep_usec: u64,
    /// Requests per second over all message threads (instead of as fast as possible)
    #[arg(short = 'R', long = "rps", value_parser = clap::value_parser!(u64).range(1..=10_000_000), conflicts_with = "auto_rps")]
    pub rps: Option<u64>,
    /// Grow requests per second until the CPUs are this busy (percent)
    #[arg(short = 'A', long = "auto-rps", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub auto_rps: Option<u32>,
    /// Pipe mode: copy this many bytes per hand-off instead of a request (at most 1 MiB)
    #[arg(short = 'p', long = "pipe", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub pipe: Option<u64>,
    /// Calibration: time only the matrix work (no lock, sleep not counted)
    #[arg(short = 'C', long = "calibrate")]
    pub calibrate: bool,
    /// Do not take the per-CPU lock during the matrix work
    #[arg(short = 'L', long = "no-locking")]
    pub no_locking: bool,
    /// Pin message thread N to the Nth CPU of LIST ('auto': message thread N on CPU N)
    #[arg(short = 'M', long = "message-cpus", value_name = "LIST|auto", value_parser = values::pinning)]
    pub message_cpus: Option<Pinning>,
    /// Pin worker threads to LIST ('auto': every CPU the message threads do not have)
    #[arg(short = 'W', long = "worker-cpus", value_name = "LIST|auto", value_parser = values::pinning)]
    pub worker_cpus: Option<Pinning>,
    /// Percent of the footprint private to each worker; the rest is shared by all
    #[arg(long = "split", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub split: Option<u32>,
    /// Repeat the measurement N times (each run stored) (or `auto[:MAX]`: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
    #[command(flatten)]
    pub trace: crate::benchmarks::trace_args::TraceArgs,
}
