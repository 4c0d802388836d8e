//! `kbench coldwalk`'s flags.

use crate::values;
use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct ColdwalkArgs {
    /// Directory to walk (the seed walks /usr)
    pub path: std::path::PathBuf,
    /// Do not drop caches first (no root needed; the run is recorded as warm)
    #[arg(long)]
    pub no_drop: bool,
    /// Stay on the filesystem of PATH
    #[arg(id = "one_filesystem", short = 'x', long = "one-file-system")]
    pub one_file_system: bool,
    /// lstat every entry, as `ls -lR` does (default: like `ls -R`, only
    /// entries whose type the directory does not give)
    #[arg(id = "stat_every_entry", long = "stat")]
    pub stat: bool,
    /// Repeat N times (caches dropped before each); every run is stored (or `auto[:MAX]`: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
}
