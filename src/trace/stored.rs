//! The trace as kept with a run: each window's events in a compact form
//! (times from the window's start, comms as text), the explanations, and
//! what was traced; gzip-compressed JSON in one attachment of the run, so
//! it travels with the run through both stores and push/pull.

use super::event::{comm_str, Event, Kind};
use super::reader::Window;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{Read, Write};

/// The attachment kind a run's trace is stored under.
pub const KIND: &str = "trace-windows-v1";

/// One event of a stored window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredEvent {
    /// ns from the window's start.
    pub t: u64,
    pub cpu: u16,
    pub pid: i32,
    #[serde(flatten)]
    pub kind: StoredKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "snake_case")]
pub enum StoredKind {
    Switch {
        prev_pid: i32,
        prev_prio: i32,
        prev_state: i64,
        prev_comm: String,
        next_pid: i32,
        next_prio: i32,
        next_comm: String,
    },
    Waking {
        target: i32,
        prio: i32,
        target_cpu: i32,
        comm: String,
    },
    Wakeup {
        target: i32,
        target_cpu: i32,
    },
    Migrate {
        target: i32,
        orig_cpu: i32,
        dest_cpu: i32,
    },
    IrqEntry {
        irq: i32,
    },
    IrqExit {
        irq: i32,
    },
    SoftirqEntry {
        vec: i32,
    },
    SoftirqExit {
        vec: i32,
    },
    VectorEntry {
        which: u8,
    },
    VectorExit {
        which: u8,
    },
    TimerEntry,
    TimerExit,
}

impl StoredEvent {
    pub fn of(e: &Event, base: u64) -> StoredEvent {
        let kind = match e.kind {
            Kind::Switch {
                prev_pid,
                prev_prio,
                prev_state,
                prev_comm,
                next_pid,
                next_prio,
                next_comm,
            } => StoredKind::Switch {
                prev_pid,
                prev_prio,
                prev_state,
                prev_comm: comm_str(&prev_comm),
                next_pid,
                next_prio,
                next_comm: comm_str(&next_comm),
            },
            Kind::Waking {
                pid,
                prio,
                target_cpu,
                comm,
            } => StoredKind::Waking {
                target: pid,
                prio,
                target_cpu,
                comm: comm_str(&comm),
            },
            Kind::Wakeup { pid, target_cpu } => StoredKind::Wakeup {
                target: pid,
                target_cpu,
            },
            Kind::Migrate {
                pid,
                orig_cpu,
                dest_cpu,
            } => StoredKind::Migrate {
                target: pid,
                orig_cpu,
                dest_cpu,
            },
            Kind::IrqEntry { irq } => StoredKind::IrqEntry { irq },
            Kind::IrqExit { irq } => StoredKind::IrqExit { irq },
            Kind::SoftirqEntry { vec } => StoredKind::SoftirqEntry { vec },
            Kind::SoftirqExit { vec } => StoredKind::SoftirqExit { vec },
            Kind::VectorEntry { which } => StoredKind::VectorEntry { which },
            Kind::VectorExit { which } => StoredKind::VectorExit { which },
            Kind::TimerEntry => StoredKind::TimerEntry,
            Kind::TimerExit => StoredKind::TimerExit,
        };
        StoredEvent {
            t: e.ts.saturating_sub(base),
            cpu: e.cpu,
            pid: e.pid,
            kind,
        }
    }
}

/// Every window of a run, as stored.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Windows {
    pub irq_names: HashMap<i32, String>,
    pub cpus: Vec<usize>,
    pub windows: Vec<Window>,
}

impl Windows {
    /// gzip-compressed JSON.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let json = serde_json::to_vec(self)?;
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&json)?;
        Ok(z.finish()?)
    }

    pub fn decode(data: &[u8]) -> Result<Windows> {
        let mut json = Vec::new();
        flate2::read::GzDecoder::new(data)
            .take(1 << 30)
            .read_to_end(&mut json)
            .context("the stored trace is not gzip data")?;
        serde_json::from_slice(&json).context("the stored trace is damaged")
    }
}
