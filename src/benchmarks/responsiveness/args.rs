//! `kbench responsiveness`'s flags.

use crate::values::{self, SleepPattern};
use clap::Args;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct ResponsivenessArgs {
    /// Interactive worker processes (sleep, then a small task)
    #[arg(short = 'i', long = "interactive", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub interactive: u32,
    /// Prime worker processes (CPU hogs) [default: one per online CPU]; -p and -i together at most 16 a CPU (64 at least)
    #[arg(short = 'p', long = "prime", value_parser = clap::value_parser!(u32).range(0..=4096))]
    pub prime: Option<u32>,
    /// Size of each prime worker's range: odd numbers in [10001, 10001*(np+1))
    #[arg(long = "np", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub np: u32,
    /// Stop the interactive workers after this long: 30, 30s, 2m
    #[arg(id = "time_limit_s", short = 't', long = "time-limit", value_name = "TIME", value_parser = values::duration)]
    pub time_limit: Option<Duration>,
    /// The interactive sleeps in seconds, cycled; task k follows sleep k (sort, read, copy)
    #[arg(long, default_value = "1,2,3", value_name = "LIST", value_parser = values::sleep_pattern)]
    pub sleep_pattern: SleepPattern,
    /// Multiply every sleep by this (e.g. 0.1 for a quick suite)
    #[arg(long, default_value_t = 1.0)]
    pub sleep_scale: f64,
    /// Where the tasks' printing goes: a file, or `stdout` as the original did
    #[arg(long, default_value = "/dev/null", value_name = "FILE|stdout")]
    pub print_to: String,
    /// Repeat N times; every run is stored (or `auto[:MAX]`: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
    #[command(flatten)]
    pub trace: crate::benchmarks::trace_args::TraceArgs,
}
