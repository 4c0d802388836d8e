//! `kbench contest`'s flags.

use crate::benchmarks::job::args::JobArgs;
use crate::benchmarks::load::args::LoadPlacementArgs;
use crate::values::{self, LoadList};
use clap::Args;

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
