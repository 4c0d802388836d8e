//! `kbench job`'s flags.

use crate::values;
use clap::Args;

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
pub struct JobCmdArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// Repeat N times (cleaned before each); every run is stored (or `auto[:MAX]`: until the answer is clear, see --precision and --against)
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
    /// Drop caches before each run (needs root)
    #[arg(long)]
    pub drop_caches: bool,
}

impl JobArgs {
    /// The timed job's options from its flags (the job command and contest
    /// read the same flags).
    pub fn options(&self) -> crate::benchmarks::job::engine::JobOptions {
        crate::benchmarks::job::engine::JobOptions {
            kernel_tree: self.kernel_tree.clone(),
            kconfig: self.kconfig.clone(),
            target: self.target.clone(),
            jobs: self.jobs.map(|j| j as usize),
            cmd: self.job_cmd.clone(),
            dir: self.job_dir.clone(),
            prep: self.job_prep.clone(),
            clean: self.job_clean.clone(),
            size: self.job_size.clone(),
        }
    }
}
