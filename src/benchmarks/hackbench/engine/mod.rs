//! hackbench: scheduler messaging throughput, with rt-tests' semantics.
//!
//! `groups` groups, each of `fds` senders and `fds` receivers.  Every
//! sender writes `loops` messages of `datasize` bytes to each receiver of
//! its group; every receiver reads `fds × loops` messages.  Transport is an
//! AF_UNIX stream socketpair per receiver, or a pipe.  Tasks are real
//! processes (forked while kbench is single-threaded, as rt-tests forks)
//! or threads of one process.
//!
//! Timing follows rt-tests: every task signals ready over a pipe and then
//! waits on a shared wake fd; the clock starts when all are ready and the
//! wake byte is written, and stops when every task has been reaped.  Task
//! creation is outside the figure.

mod limits;
mod process;
mod task;
mod thread;

use crate::benchmarks::hackbench::metrics as declared;
use crate::measure::Measurement;
use anyhow::Result;
use serde::Serialize;

/// What to run.
#[derive(Clone, Debug, Serialize)]
pub struct Options {
    pub groups: u32,
    pub fds: u32,
    pub loops: u64,
    pub datasize: usize,
    /// Pipes instead of socketpairs.
    pub pipe: bool,
    /// Threads instead of processes.
    pub threads: bool,
    /// Parent at SCHED_FIFO priority 1 during the run.
    pub fifo: bool,
    /// Affinity of every task.
    pub cpus: Option<Vec<usize>>,
    /// Receivers check every byte and that nothing extra arrives (tests).
    #[serde(skip)]
    pub verify: bool,
}

impl Options {
    pub fn tasks(&self) -> u64 {
        2 * self.fds as u64 * self.groups as u64
    }

    /// Messages the run sends; `None` past 2^53, a count no run reaches
    /// and no metric holds exactly (a run of more is refused before it
    /// starts).
    pub fn checked_messages(&self) -> Option<u64> {
        (self.groups as u64)
            .checked_mul(self.fds as u64)?
            .checked_mul(self.fds as u64)?
            .checked_mul(self.loops)
            .filter(|&m| m <= 1 << 53)
    }

    /// Messages the run sends (checked before the run starts).
    pub fn messages(&self) -> u64 {
        self.checked_messages().unwrap_or(u64::MAX)
    }

    pub fn mode_name(&self) -> &'static str {
        if self.threads {
            "threaded"
        } else {
            "process"
        }
    }

    pub fn transport_name(&self) -> &'static str {
        if self.pipe {
            "pipe"
        } else {
            "socket"
        }
    }
}

/// One run's result.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Outcome {
    pub elapsed_ns: u64,
    pub messages: u64,
    pub bytes: u64,
}

impl Outcome {
    pub fn seconds(&self) -> f64 {
        self.elapsed_ns as f64 / 1e9
    }

    pub fn messages_per_s(&self) -> f64 {
        self.messages as f64 / self.seconds().max(1e-9)
    }

    /// Payload throughput in MB/s (10^6 bytes).
    pub fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.seconds().max(1e-9)
    }

    pub fn measurement(&self) -> Measurement {
        let mut m = Measurement::default();
        m.record(&declared::TIME, self.seconds());
        m.record(&declared::MESSAGES_PER_S, self.messages_per_s());
        m.record(&declared::MB_PER_S, self.mb_per_s());
        m
    }
}

/// Check limits, then run once.  Fails with `Interrupted` on Ctrl-C and
/// with a clear message when a worker dies; no task outlives the call.
pub fn run(opts: &Options) -> Result<Outcome> {
    limits::check(opts)?;
    if let Some(cpus) = &opts.cpus {
        crate::sys::sched::set_affinity(0, cpus).map_err(|e| {
            anyhow::anyhow!(
                "setting affinity to {}: {e}",
                crate::sys::cpus::format_list(cpus)
            )
        })?;
    }
    let elapsed_ns = if opts.threads {
        thread::run(opts)?
    } else {
        process::run(opts)?
    };
    Ok(Outcome {
        elapsed_ns,
        messages: opts.messages(),
        bytes: opts.messages() * opts.datasize as u64,
    })
}
