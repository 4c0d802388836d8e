//! `kbench interbench`'s flags.

use crate::values;
use clap::Args;

#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Tasks: Audio, Video, X, Gaming, Custom (-C/-I). Loads: None, Video, X, Burn, Write, \
Read, Ring, Compile, Memload (needs swap), Custom. Names are case-insensitive; -W/-w select, -X/-x exclude \
(default: every task and load). Standard set: kbench interbench; a short look: kbench interbench -t 3 \
--exact-duration -W audio -w none -w burn"
)]
pub struct InterbenchArgs {
    /// Seconds each task runs under each load (rounded up to a multiple of 10, as interbench, unless --exact-duration)
    #[arg(id = "duration_s", short = 't', long = "time", value_name = "TIME", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub time: u64,
    /// Run -t seconds exactly instead of rounding up to a multiple of 10 (X's 0-100 % sweep takes 10 s)
    #[arg(long)]
    pub exact_duration: bool,
    /// Benchmark this task (repeatable; default: all)
    #[arg(short = 'W', long = "bench", value_name = "TASK")]
    pub bench: Vec<String>,
    /// Do not benchmark this task (repeatable)
    #[arg(short = 'X', long = "exclude-bench", value_name = "TASK")]
    pub exclude_bench: Vec<String>,
    /// Test against this load (repeatable; default: all)
    #[arg(short = 'w', long = "load", value_name = "LOAD")]
    pub load: Vec<String>,
    /// Do not test against this load (repeatable)
    #[arg(short = 'x', long = "exclude-load", value_name = "LOAD")]
    pub exclude_load: Vec<String>,
    /// Nice of the benchmarked task
    #[arg(short = 'B', long = "bench-nice", default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-20..=19))]
    pub bench_nice: i32,
    /// Nice of the load
    #[arg(short = 'N', long = "load-nice", default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-20..=19))]
    pub load_nice: i32,
    /// Real-time benchmarks: the task runs SCHED_FIFO 95, latencies in us (needs root)
    #[arg(short = 'r', long = "rt")]
    pub rt: bool,
    /// Imitate a uniprocessor: task, timekeeper and loads on CPU 0
    #[arg(short = 'u', long = "uniprocessor")]
    pub uniprocessor: bool,
    /// CPU hogs of the Burn load and processes of the Ring [default: online CPUs]
    #[arg(short = 'L', long = "burn", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub burn: Option<u32>,
    /// Measure loops_per_ms again even if the store has it for this system
    #[arg(short = 'b', long = "recalibrate")]
    pub recalibrate: bool,
    /// Use this loops_per_ms instead of the calibration (at most 100,000,000:
    /// an empty loop at one turn a cycle on a 6 GHz CPU makes 6,000,000;
    /// work is burnt in slices of a 20th of it, so a figure far past the
    /// CPU's made each slice run for seconds, deaf to Ctrl-C)
    #[arg(short = 'l', long = "loops-per-ms", value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub loops_per_ms: Option<u64>,
    /// The Custom task's CPU %, with -I
    #[arg(id = "custom_cpu_pct", short = 'C', long = "custom-cpu", value_name = "PCT", requires = "custom_interval_us", value_parser = clap::value_parser!(u64).range(1..=100))]
    pub custom_cpu: Option<u64>,
    /// The Custom task's interval in us, with -C
    #[arg(id = "custom_interval_us", short = 'I', long = "custom-interval", value_name = "US", requires = "custom_cpu_pct", value_parser = clap::value_parser!(u64).range(100..=10_000_000))]
    pub custom_interval: Option<u64>,
    /// A comment stored with the run (interbench writes it to its log file)
    #[arg(short = 'm', long = "comment")]
    pub comment: Option<String>,
    /// Accepted for interbench's command lines; kbench keeps no log file (everything is in the store)
    #[arg(short = 'c', hide = true)]
    pub console_only: bool,
    /// Where the Write and Read loads put their files [default: the temp dir]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
    /// Repetitions, each stored as a run (auto: until clear)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
    #[command(flatten)]
    pub trace: crate::benchmarks::trace_args::TraceArgs,
}
