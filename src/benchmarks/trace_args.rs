//! The `--trace` flags every latency probe takes (cyclictest, schbench,
//! interbench, responsiveness; hackbench for what tracing costs),
//! declared once and flattened into each probe's flags.

use crate::trace::{Cpus, Options, DEFAULT_BUFFER_KB};
use crate::values;
use clap::Args;
use std::time::Duration;

#[derive(Args, Debug, Clone, Default)]
pub struct TraceArgs {
    /// Record the kernel's scheduling events during the run and explain the
    /// worst wake-ups: who held the CPU, IRQs, softirqs, idle (needs root)
    #[arg(long)]
    pub trace: bool,
    /// With --trace: the CPUs to trace: probe (the probe's CPUs), all, or a list
    #[arg(long, value_name = "probe|all|LIST", requires = "trace", value_parser = trace_cpus)]
    pub trace_cpus: Option<Cpus>,
    /// With --trace: the kernel's trace buffer per CPU (e.g. 4M) [default: 4M]
    #[arg(long, value_name = "SIZE", requires = "trace", value_parser = buffer)]
    pub trace_buffer: Option<u64>,
    /// With --trace: explain the K worst wake-ups [default: 10]
    #[arg(long, value_name = "K", requires = "trace", value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub trace_worst: Option<u64>,
    /// With --trace: also explain every wake-up at least this late (e.g. 500us, 2ms)
    #[arg(long, value_name = "TIME", requires = "trace", value_parser = values::duration)]
    pub trace_threshold: Option<Duration>,
}

/// `probe`, `all` or a list of online CPUs.
fn trace_cpus(s: &str) -> Result<Cpus, String> {
    match s {
        "probe" => Ok(Cpus::Probe),
        "all" => Ok(Cpus::All),
        _ => values::cpu_list(s).map(|l| Cpus::List(l.0)),
    }
}

/// A per-CPU buffer: from 64 KiB to 1 GiB, in KiB.
fn buffer(s: &str) -> Result<u64, String> {
    let b = values::size(s)?;
    if !(64 << 10..=1 << 30).contains(&b) {
        return Err(format!("trace buffer '{s}' must be from 64K to 1G per CPU"));
    }
    Ok(b / 1024)
}

impl TraceArgs {
    /// What to trace, when asked.
    pub fn options(&self) -> Option<Options> {
        self.trace.then(|| Options {
            cpus: self.trace_cpus.clone().unwrap_or(Cpus::Probe),
            buffer_kb: self.trace_buffer.unwrap_or(DEFAULT_BUFFER_KB),
            worst: self.trace_worst.unwrap_or(10) as usize,
            threshold_ns: self
                .trace_threshold
                .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            root_pid: 0,
        })
    }
}
