//! The command line, as clap derive types.  Nothing outside this module and
//! `main.rs` imports clap: `cmd::` turns these into typed options.

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

mod experiment;
pub mod values;

pub use experiment::{CampaignCommand, MatrixArgs};

use std::time::Duration;
use values::{CpuList, LoadList, Pinning, SleepPattern};

#[derive(Parser, Debug)]
#[command(
    name = "kbench",
    version,
    about = "Is one Linux kernel more responsive than another? Measure, store, compare.",
    long_about = "kbench measures how responsive a Linux kernel (or one setting of it) is: \
scheduler messaging (hackbench), timer wake-up latency (cyclictest), interactive response, \
cold-cache walks and timed builds under background loads. Every run is stored with a \
fingerprint of the system that was in effect, so kernels can be compared later with honest statistics.",
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parse the process's command line.  `--help` and `--version` print
    /// and exit 0; bad input prints clap's message as one line and exits 2.
    pub fn parse_process_args() -> Cli {
        match <Cli as Parser>::try_parse() {
            Ok(cli) => cli,
            Err(e) => {
                use clap::error::ErrorKind::*;
                if matches!(
                    e.kind(),
                    DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
                ) {
                    e.exit()
                }
                eprintln!(
                    "kbench: {}",
                    crate::report::clean(&one_line(&e.to_string()))
                );
                std::process::exit(2)
            }
        }
    }

    /// Parse a full argv (program name first) without exiting: scenario
    /// files are checked against the same definitions as the command line.
    pub fn try_parse_from_args(args: &[String]) -> Result<Cli, clap::Error> {
        <Cli as Parser>::try_parse_from(args)
    }
}

/// clap's message up to its first blank line (the usage and the `--help`
/// hint follow it), joined into one line.
pub fn one_line(msg: &str) -> String {
    msg.lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Result store: a SQLite file, or postgres://user@host/db for a shared one
    /// [default: $XDG_DATA_HOME/kbench/results.db]
    #[arg(long, global = true, env = "KBENCH_DB", value_name = "PATH")]
    pub db: Option<String>,
    /// Name of the configuration under test [default: <kernel release>/<preempt mode>];
    /// give it several times to choose labels for compare, runs and contest --show
    #[arg(long, global = true, value_name = "NAME", action = ArgAction::Append)]
    pub label: Vec<String>,
    /// Measure and print, but store nothing
    #[arg(long, global = true)]
    pub no_store: bool,
    /// Machine-readable JSON on stdout instead of tables
    #[arg(long, global = true)]
    pub json: bool,
    /// Print less: no banners, no progress
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// With --runs auto alone: stop when the headline metric's interval is within this % of its mean
    #[arg(long, global = true, value_name = "PCT", default_value_t = 2.0, value_parser = positive_percent)]
    pub precision: f64,
    /// With --runs auto: stop when the verdict against this stored label is decided
    #[arg(long, global = true, value_name = "LABEL")]
    pub against: Option<String>,
    /// Keep every other process off the probe CPUs during the run (cpusets, needs root)
    #[arg(long, global = true)]
    pub isolate: bool,
    /// With --runs auto: stop after this much time at most (e.g. 10m)
    #[arg(long, global = true, value_name = "TIME", value_parser = values::duration)]
    pub time_budget: Option<Duration>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show the fingerprint of the running system (kernel, config, preemption, knobs, CPU)
    Sysinfo(SysinfoArgs),
    /// Every benchmark in the registry (hackbench, cyclictest, …, load)
    #[command(flatten)]
    Bench(Registered),
    /// Compare labels: statistics, significance, effect sizes; table, markdown, csv, json or html
    Compare(CompareArgs),
    /// Import other tools' results (rt-tests hackbench/cyclictest, CSV) as runs
    Import(ImportArgs),
    /// Run a scenario: benchmarks and loads together, repeated, stored (a file or a preset)
    Run(RunArgs),
    /// List the built-in scenarios, or print one
    Presets {
        #[command(subcommand)]
        cmd: Option<PresetsCommand>,
    },
    /// Copy local runs to a shared PostgreSQL store (idempotent)
    Push(PushArgs),
    /// Copy runs from a shared PostgreSQL store into the local one (idempotent)
    Pull(PullArgs),
    /// List, show or delete stored runs
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Labels in the store, with run counts and fingerprint ids
    Labels,
    /// Print a shell completion script
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff) to stdout
    Man,
    /// Run a kbench command under every combination of kernel knobs, interleaved within one boot
    Matrix(MatrixArgs),
    /// Compare boots (kernels, boot parameters): a plan of interleaved blocks across reboots
    #[command(subcommand)]
    Campaign(CampaignCommand),
    /// Undo an --isolate or a matrix's knob changes that kbench could not undo itself (after a crash)
    Restore {
        /// Wait until this kbench process dies, then undo its isolation (the janitor)
        #[arg(long, hide = true)]
        after: Option<i32>,
    },
    /// The run-health monitor the run lifecycle starts beside every run
    #[command(hide = true)]
    HealthMonitor {
        /// The kbench process whose descendants are kbench's own
        #[arg(long)]
        root: i32,
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..=60_000))]
        interval_ms: u64,
        /// kbench starts no process during the run: read its processes at
        /// the start and the end only, and wake during the run only to read
        /// CPU frequencies, where the machine has them
        #[arg(long)]
        threads_only: bool,
    },
}

/// A benchmark's subcommand, found in [`crate::registry`]: its name and
/// its flags, which the benchmark's own entry turns into typed options.
#[derive(Debug, Clone)]
pub struct Registered {
    pub name: &'static str,
    pub matches: clap::ArgMatches,
}

impl clap::FromArgMatches for Registered {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let found = m
            .subcommand()
            .and_then(|(name, sub)| crate::registry::find(name).map(|e| (e, sub)));
        match found {
            Some((e, sub)) => Ok(Registered {
                name: e.name,
                matches: sub.clone(),
            }),
            None => Err(clap::Error::new(clap::error::ErrorKind::InvalidSubcommand)),
        }
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Subcommand for Registered {
    fn augment_subcommands(cmd: clap::Command) -> clap::Command {
        crate::registry::BENCHMARKS
            .iter()
            .fold(cmd, |c, e| c.subcommand((e.command)().about(e.about)))
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        crate::registry::find(name).is_some()
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

#[derive(Args, Debug)]
pub struct SysinfoArgs {
    /// Read /proc and /sys below this directory (for fixture trees)
    #[arg(long, hide = true, default_value = "/")]
    pub root: std::path::PathBuf,
}

#[derive(Subcommand, Debug)]
pub enum RunsCommand {
    /// List stored runs
    List {
        /// Only runs of this benchmark
        #[arg(long)]
        benchmark: Option<String>,
        /// Only the newest N runs
        #[arg(long, value_name = "N")]
        last: Option<usize>,
    },
    /// Show one run: metrics, histogram summaries, fingerprint
    Show { id: i64 },
    /// Delete runs by id
    Delete {
        #[arg(required = true)]
        ids: Vec<i64>,
        /// Do not ask for confirmation
        #[arg(short, long)]
        yes: bool,
    },
}

// hackbench's defaults and bounds (rt-tests').
const HB_DATASIZE: u32 = 100;
const HB_DATASIZE_MAX: u32 = 1_048_576;
const HB_LOOPS: u64 = 100;
const HB_GROUPS: u32 = 10;
const HB_GROUPS_MAX: u32 = 100_000;
const HB_FDS: u32 = 20;
const HB_FDS_MAX: u32 = 10_000;

#[derive(Args, Debug, Clone)]
pub struct HackbenchArgs {
    /// Use pipes instead of AF_UNIX socketpairs
    #[arg(short = 'p', long = "pipe")]
    pub pipe: bool,
    /// Bytes per message
    #[arg(short = 's', long = "datasize", default_value_t = HB_DATASIZE, value_parser = clap::value_parser!(u32).range(1..=HB_DATASIZE_MAX as i64))]
    pub datasize: u32,
    /// Messages each sender sends to each receiver
    #[arg(short = 'l', long = "loops", default_value_t = HB_LOOPS, value_parser = clap::value_parser!(u64).range(1..))]
    pub loops: u64,
    /// Number of groups of senders and receivers
    #[arg(short = 'g', long = "groups", default_value_t = HB_GROUPS, value_parser = clap::value_parser!(u32).range(1..=HB_GROUPS_MAX as i64))]
    pub groups: u32,
    /// Senders (and receivers) per group
    #[arg(short = 'f', long = "fds", default_value_t = HB_FDS, value_parser = clap::value_parser!(u32).range(1..=HB_FDS_MAX as i64))]
    pub fds: u32,
    /// Tasks are threads of one process
    #[arg(short = 'T', long = "threads", conflicts_with = "process")]
    pub threads: bool,
    /// Tasks are processes (the default)
    #[arg(short = 'P', long = "process")]
    pub process: bool,
    /// Run the parent at SCHED_FIFO priority 1
    #[arg(short = 'F', long = "fifo")]
    pub fifo: bool,
    /// Pin every task to these CPUs (numactl -C syntax: 0-31, 0,2,4-7)
    #[arg(long, value_name = "LIST", value_parser = values::cpu_list)]
    pub cpus: Option<CpuList>,
    /// Repeat N times; every run is stored (or auto[:MAX]: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
}

#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Tasks: Audio, Video, X, Gaming, Custom (-C/-I). Loads: None, Video, X, Burn, Write, \
Read, Ring, Compile, Memload (needs swap), Custom. Names are case-insensitive; -W/-w select, -X/-x exclude \
(default: every task and load). Standard set: kbench interbench; a short look: kbench interbench -t 3 \
--exact-duration -W audio -w none -w burn"
)]
pub struct InterbenchArgs {
    /// Seconds each task runs under each load (rounded up to a multiple of 10, as interbench, unless --exact-duration)
    #[arg(short = 't', long = "time", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
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
    #[arg(short = 'C', long = "custom-cpu", value_name = "PCT", requires = "custom_interval", value_parser = clap::value_parser!(u64).range(1..=100))]
    pub custom_cpu: Option<u64>,
    /// The Custom task's interval in us, with -C
    #[arg(short = 'I', long = "custom-interval", value_name = "US", requires = "custom_cpu", value_parser = clap::value_parser!(u64).range(100..=10_000_000))]
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
}

#[derive(Args, Debug, Clone)]
pub struct SchbenchArgs {
    /// Message threads
    #[arg(short = 'm', long = "message-threads", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub message_threads: u32,
    /// Worker threads per message thread [default: CPUs / message threads, rounded up]
    #[arg(short = 't', long = "threads", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// Seconds to run
    #[arg(short = 'r', long = "runtime", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub runtime: u64,
    /// Seconds of warm-up, after which the statistics start again (schbench drops -w below -r 30; kbench keeps it)
    #[arg(short = 'w', long = "warmuptime", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=604_800))]
    pub warmuptime: u64,
    /// Print interval statistics to stderr every N seconds (0: never)
    #[arg(short = 'i', long = "intervaltime", default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=604_800))]
    pub intervaltime: u64,
    /// Zero the statistics every N seconds (0: never)
    #[arg(short = 'z', long = "zerotime", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=604_800))]
    pub zerotime: u64,
    /// Cache footprint of a request's matrices, KiB
    #[arg(short = 'F', long = "cache-footprint", visible_alias = "cache_footprint", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=4_194_304))]
    pub cache_footprint: u64,
    /// Matrix multiplications per request (think time)
    #[arg(short = 'n', long = "operations", default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub operations: u64,
    /// Sleep per request, usec (simulated network or disk)
    #[arg(short = 's', long = "sleep-usec", visible_alias = "sleep_usec", default_value_t = 100, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
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
    /// Repeat the measurement N times (each run stored) (or auto[:MAX]: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
}

#[derive(Args, Debug, Clone)]
pub struct CyclictestArgs {
    /// Base interval of the measurement threads, µs
    #[arg(short = 'i', long = "interval", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub interval: u64,
    /// Distance between the intervals of successive threads, µs. kbench's
    /// default is 0, so every thread gets the same number of samples
    /// (rt-tests' default is 500)
    #[arg(short = 'd', long = "distance", default_value_t = 0)]
    pub distance: u64,
    /// Run for this long: 20, 20s, 5m, 1h [default: until Ctrl-C or --loops]
    #[arg(short = 'D', long = "duration", value_name = "TIME", value_parser = values::duration)]
    pub duration: Option<Duration>,
    /// Stop each thread after this many samples
    #[arg(short = 'l', long = "loops", value_parser = clap::value_parser!(u64).range(1..))]
    pub loops: Option<u64>,
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
    /// Number of threads (default: 1, or one per online CPU with -S)
    #[arg(short = 't', long = "threads", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// One thread per online CPU, each pinned to its CPU
    #[arg(short = 'S', long = "smp")]
    pub smp: bool,
    /// Pin threads round-robin to these CPUs (numactl syntax)
    #[arg(short = 'a', long = "affinity", value_name = "LIST", value_parser = values::cpu_list)]
    pub affinity: Option<CpuList>,
    /// Also print a cyclictest-style histogram with this many 1 µs buckets
    #[arg(short = 'h', long = "histogram", value_name = "US", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub histogram: Option<u64>,
    /// Leave /dev/cpu_dma_latency alone (by default it is held at 0 during the run)
    #[arg(long)]
    pub default_system: bool,
    /// Repeat N times; every run is stored (or auto[:MAX]: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
    /// Print help
    #[arg(long = "help", action = ArgAction::Help)]
    pub help: Option<bool>,
}

#[derive(Args, Debug, Clone)]
pub struct ColdwalkArgs {
    /// Directory to walk (the seed walks /usr)
    pub path: std::path::PathBuf,
    /// Do not drop caches first (no root needed; the run is recorded as warm)
    #[arg(long)]
    pub no_drop: bool,
    /// Stay on the filesystem of PATH
    #[arg(short = 'x', long = "one-file-system")]
    pub one_file_system: bool,
    /// lstat every entry, as `ls -lR` does (default: like `ls -R`, only
    /// entries whose type the directory does not give)
    #[arg(long)]
    pub stat: bool,
    /// Repeat N times (caches dropped before each); every run is stored (or auto[:MAX]: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
}

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
    #[arg(short = 't', long = "time-limit", value_name = "TIME", value_parser = values::duration)]
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
    /// Repeat N times; every run is stored (or auto[:MAX]: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
}

/// Where and how a background load runs (shared by `load` and `contest`).
#[derive(Args, Debug, Clone, Default)]
pub struct LoadPlacementArgs {
    /// Size of the mem, io, io_other and read loads: 64M, 2G [default: contest's, as the machine allows]
    #[arg(long, value_name = "SIZE", value_parser = values::size)]
    pub size: Option<u64>,
    /// Folder for load files (a private folder is made inside) [default: the system temp dir]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
    /// Second location for io_other, ideally another disk [default: /var/tmp]
    #[arg(long, value_name = "DIR")]
    pub io_other_dir: Option<std::path::PathBuf>,
    /// Tree for list (default /) and ctar/xtar (default /usr/include; a kernel tree is classic)
    #[arg(long, value_name = "DIR")]
    pub tree: Option<std::path::PathBuf>,
    /// Processes for cpu (default: one per CPU) or dbench clients (default: 16 per CPU)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub procs: Option<u32>,
    /// Pin the load's processes to these CPUs (numactl syntax)
    #[arg(long = "load-cpus", value_name = "LIST", value_parser = values::cpu_list)]
    pub cpus: Option<CpuList>,
    /// Nice level of the load's processes
    #[arg(long = "load-nice", value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-20..=19))]
    pub nice: Option<i32>,
}

#[derive(Args, Debug, Clone)]
pub struct LoadArgs {
    /// process, mem, io, io_other, read, list, ctar, xtar, dbench or cpu
    #[arg(value_parser = values::load_name)]
    pub name: String,
    /// How long to run: 30, 30s, 5m
    #[arg(long, default_value = "30s", value_name = "TIME", value_parser = values::duration)]
    pub duration: Duration,
    #[command(flatten)]
    pub place: LoadPlacementArgs,
}

/// The timed job (shared by `contest` and scenarios).
#[derive(Args, Debug, Clone, Default)]
pub struct JobArgs {
    /// A kernel source tree to build (the job becomes a real kernel build)
    #[arg(long, value_name = "DIR")]
    pub kernel_tree: Option<std::path::PathBuf>,
    /// Kernel config: defconfig, tinyconfig, allnoconfig or a file [default: defconfig]
    #[arg(long, value_name = "NAME|FILE")]
    pub kconfig: Option<String>,
    /// Kernel make target: vmlinux, bzImage or a directory like kernel/ [default: vmlinux]
    #[arg(long, value_name = "TARGET")]
    pub target: Option<String>,
    /// Parallel make jobs [default: number of CPUs]
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub jobs: Option<u32>,
    /// Any command as the job, split like a shell would but never run by one
    #[arg(long, value_name = "'CMD ARGS…'")]
    pub job_cmd: Option<String>,
    /// Folder the job command runs in [default: the current folder]
    #[arg(long, value_name = "DIR")]
    pub job_dir: Option<std::path::PathBuf>,
    /// Run once before the first timed run (untimed)
    #[arg(long, value_name = "'CMD…'")]
    pub job_prep: Option<String>,
    /// Run before every timed run (untimed)
    #[arg(long, value_name = "'CMD…'")]
    pub job_clean: Option<String>,
    /// Size of the generated C project: tiny, small (~10 s here), medium (~60 s), large
    #[arg(long, value_name = "SIZE", value_parser = values::job_size)]
    pub job_size: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct ContestArgs {
    /// Loads to run, comma-separated [default: every load that can run here]
    #[arg(long, value_name = "LIST", value_parser = values::load_list)]
    pub loads: Option<LoadList>,
    /// Rounds over all loads; every run is stored
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Label whose mean noload time is the Ratio's denominator [default: this label]
    #[arg(long, value_name = "LABEL")]
    pub reference: Option<String>,
    /// Print the table from stored runs instead of running
    #[arg(long)]
    pub show: bool,
    /// With --show: labels to include, in row order (old spelling of --label A --label B)
    #[arg(long, value_name = "A,B,…", hide = true)]
    pub labels: Option<String>,
    #[command(flatten)]
    pub job: JobArgs,
    #[command(flatten)]
    pub place: LoadPlacementArgs,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Table,
    Markdown,
    Csv,
    Json,
    Html,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Statistics per metric (the default)
    Stats,
    /// The 2023 seed's layout: per label, a row per metric, one column per run
    Seed2023,
    /// contest's table (contest runs only)
    Contest,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestKind {
    Welch,
    MannWhitney,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorrectionKind {
    /// Holm's step-down: family-wise error rate <= alpha
    Holm,
    /// Benjamini-Hochberg: false discovery rate <= alpha
    Bh,
    /// Each test at alpha on its own (the report's error rate grows with its size)
    None,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Exit 3 when any label is worse than the baseline
    Worse,
    /// Exit 3 when any verdict is worse, inconclusive or too few runs
    Inconclusive,
}

/// A percentage: a finite number from 0 to 1000.
fn percent(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("'{s}' is not a percentage"))?;
    if v.is_finite() && (0.0..=1000.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{s} is outside 0-1000 %"))
    }
}

/// A positive percentage.
fn positive_percent(s: &str) -> Result<f64, String> {
    match percent(s)? {
        v if v > 0.0 => Ok(v),
        _ => Err("the change to detect must be above 0 %".into()),
    }
}

#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// The label the others are compared with [default: the first --label, or the oldest]
    #[arg(long, value_name = "LABEL")]
    pub baseline: Option<String>,
    /// Only this benchmark (repeatable)
    #[arg(long, value_name = "NAME")]
    pub benchmark: Vec<String>,
    /// Only this metric (repeatable; per-CPU metrics such as cpu0.p99_us only when named)
    #[arg(long, value_name = "NAME")]
    pub metric: Vec<String>,
    /// Only runs started on or after this date (YYYY-MM-DD or RFC 3339)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Significance level
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// The test that decides "significant" (and gives the change's direction and interval)
    #[arg(long = "test", value_enum, default_value_t = TestKind::Welch)]
    pub test: TestKind,
    /// How the p-values of one report are adjusted together
    #[arg(long, value_enum, default_value_t = CorrectionKind::Holm)]
    pub correction: CorrectionKind,
    /// Smallest change that matters, in %: changes whose interval lies within it are "equivalent"
    #[arg(long, value_name = "PCT", default_value_t = crate::compare::DEFAULT_THRESHOLD_PCT, value_parser = percent)]
    pub threshold: f64,
    /// Under inconclusive verdicts, also say how many runs a side would detect this change (%)
    #[arg(long, value_name = "PCT", value_parser = positive_percent)]
    pub detect: Option<f64>,
    /// Leave out runs the health monitor marked suspect (reports say how many)
    #[arg(long)]
    pub exclude_suspect: bool,
    /// Keep runs stored as warm-up (the first repetition of benchmarks whose first differs)
    #[arg(long)]
    pub include_warmup: bool,
    /// Per-metric detail tables after the scoreboard (always in HTML)
    #[arg(long)]
    pub details: bool,
    /// Exit with status 3 when a verdict is this bad (for CI pipelines)
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<FailOn>,
    /// Output format
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// Table layout
    #[arg(long, value_enum, default_value_t = Layout::Stats)]
    pub layout: Layout,
    /// Write to this file instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportFormat {
    /// rt-tests hackbench output (`Time:` lines)
    Hackbench,
    /// rt-tests cyclictest text output (`T:` lines and/or `-h` histogram)
    Cyclictest,
    /// rt-tests cyclictest `--json` output
    CyclictestJson,
    /// label,benchmark,metric,unit,value[,run[,better]]; header optional
    Csv,
}

#[derive(Args, Debug, Clone)]
pub struct ImportArgs {
    /// File to read (- for standard input)
    pub file: std::path::PathBuf,
    /// What the file holds
    #[arg(long, value_enum)]
    pub format: ImportFormat,
    /// Store the runs under this benchmark name instead
    #[arg(long, value_name = "NAME")]
    pub benchmark: Option<String>,
    /// CSV: the direction of metrics whose row has no better column (else taken from the unit)
    #[arg(long, value_enum, value_name = "DIR")]
    pub better: Option<BetterArg>,
    /// State a parameter the file does not (e.g. hackbench's transport=socket, fifo=false), so
    /// the runs group with kbench's runs of the same settings; repeatable
    #[arg(long, value_name = "KEY=VALUE", action = ArgAction::Append)]
    pub assume: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BetterArg {
    Lower,
    Higher,
}

#[derive(Args, Debug, Clone)]
pub struct JobCmdArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// Repeat N times (cleaned before each); every run is stored (or auto[:MAX]: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
    /// Drop caches before each run (needs root)
    #[arg(long)]
    pub drop_caches: bool,
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// A scenario file (TOML) or a preset name (see `kbench presets`)
    pub scenario: String,
    /// Repetitions [default: the scenario's]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: Option<u32>,
    /// Multiply loops and durations by this (the scenario's `scale`)
    #[arg(long)]
    pub scale: Option<f64>,
    /// Set a scenario variable: NAME=VALUE (repeatable)
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Print the plan (phases, tasks, placement, estimated time) and start nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Stop at the first failing task instead of going on with the next repetition
    #[arg(long)]
    pub fail_fast: bool,
}

#[derive(Subcommand, Debug)]
pub enum PresetsCommand {
    /// List the built-in scenarios
    List,
    /// Print a preset's TOML, to copy and edit
    Show { name: String },
}

#[derive(Args, Debug, Clone)]
pub struct PushArgs {
    /// The shared store: postgres://user@host/dbname
    #[arg(long, value_name = "URL")]
    pub to: String,
    /// Only runs started on or after this date (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct PullArgs {
    /// The shared store: postgres://user@host/dbname
    #[arg(long, value_name = "URL")]
    pub from: String,
    /// Only runs started on or after this date (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
}

/// `kbench testbench` (debug builds only): see `lifecycle::testbench`.
#[cfg(debug_assertions)]
#[derive(Args, Debug, Clone)]
pub struct TestbenchArgs {
    /// The figure each repetition stores
    #[arg(long, default_value_t = 1.0)]
    pub value: f64,
    /// Seconds each repetition waits (Ctrl-C ends the wait, keeping the figure)
    #[arg(long, default_value_t = 0.0, value_parser = crate::cli::seconds)]
    pub seconds: f64,
    /// Fail repetition N (1-based) before it measures
    #[arg(long, value_name = "N")]
    pub fail_at: Option<u32>,
    /// Repeat N times; every run is stored
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
}

/// A non-negative number of seconds, at most a year.
#[cfg(debug_assertions)]
fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=31_622_400.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a number of seconds from 0 to a year")),
    }
}
