//! `kbench load`'s flags.

use crate::values::{self, CpuList};
use clap::Args;
use std::time::Duration;

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
#[command(after_help = crate::load::help())]
pub struct LoadArgs {
    /// The load (one of those listed below)
    #[arg(value_parser = values::load_name)]
    pub name: String,
    /// How long to run: 30, 30s, 5m
    #[arg(id = "duration_s", long = "duration", default_value = "30s", value_name = "TIME", value_parser = values::duration)]
    pub duration: Duration,
    #[command(flatten)]
    pub place: LoadPlacementArgs,
}
