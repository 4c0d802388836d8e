//! `kbench testbench`'s flags.

use crate::values;
use clap::Args;

/// `kbench testbench` (debug builds only): see `lifecycle::testbench`.
#[cfg(debug_assertions)]
#[derive(Args, Debug, Clone)]
pub struct TestbenchArgs {
    /// The figure each repetition stores
    #[arg(long, default_value_t = 1.0)]
    pub value: f64,
    /// Seconds each repetition waits (Ctrl-C ends the wait, keeping the figure)
    #[arg(long, default_value_t = 0.0, value_parser = crate::values::seconds)]
    pub seconds: f64,
    /// Fail repetition N (1-based) before it measures
    #[arg(long, value_name = "N")]
    pub fail_at: Option<u32>,
    /// Halfway through each repetition, eject the sched_ext scheduler
    /// (SysRq-S through /proc/sysrq-trigger): a test of the run's audit
    #[arg(long)]
    pub eject_sched_ext: bool,
    /// Halfway through a repetition run under a sched_ext scheduler,
    /// SIGKILL the kbench that started this one (a matrix): a test that
    /// its scheduler goes with it
    #[arg(long)]
    pub kill_parent_under_sched_ext: bool,
    /// Repeat N times; every run is stored
    #[arg(long, default_value = "1", value_name = "N|auto[:MAX]", value_parser = values::runs)]
    pub runs: values::Runs,
}
