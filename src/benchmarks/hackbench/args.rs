//! `kbench hackbench`'s flags.

use crate::values::{self, CpuList};
use clap::Args;

const HB_DATASIZE: u32 = 100;

const HB_DATASIZE_MAX: u32 = 1_048_576;

const HB_LOOPS: u64 = 100;

const HB_GROUPS: u32 = 10;

const HB_GROUPS_MAX: u32 = 100_000;

const HB_FDS: u32 = 20;

const HB_FDS_MAX: u32 = 10_000;

/// Declared in the order reports spell them; each flag's id is the name
/// its value is stored under (`params.rs`), which spells it.
#[derive(Args, Debug, Clone)]
pub struct HackbenchArgs {
    /// Number of groups of senders and receivers
    #[arg(short = 'g', long = "groups", default_value_t = HB_GROUPS, value_parser = clap::value_parser!(u32).range(1..=HB_GROUPS_MAX as i64))]
    pub groups: u32,
    /// Senders (and receivers) per group
    #[arg(short = 'f', long = "fds", default_value_t = HB_FDS, value_parser = clap::value_parser!(u32).range(1..=HB_FDS_MAX as i64))]
    pub fds: u32,
    /// Messages each sender sends to each receiver
    #[arg(short = 'l', long = "loops", default_value_t = HB_LOOPS, value_parser = clap::value_parser!(u64).range(1..))]
    pub loops: u64,
    /// Bytes per message
    #[arg(short = 's', long = "datasize", default_value_t = HB_DATASIZE, value_parser = clap::value_parser!(u32).range(1..=HB_DATASIZE_MAX as i64))]
    pub datasize: u32,
    /// Use pipes instead of AF_UNIX socketpairs
    #[arg(short = 'p', long = "pipe")]
    pub pipe: bool,
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
    /// Repeat N times; every run is stored (or `auto[:MAX]`: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
    /// hackbench has no probe whose wake-ups --trace explains: with it the
    /// run is traced all the same (the events read, lost, and what tracing costs)
    #[command(flatten)]
    pub trace: crate::benchmarks::trace_args::TraceArgs,
}
