//! The trace as kept with a run: each window's events in a compact form
//! (times from the window's start, comms as text), the explanations, and
//! what was traced; gzip-compressed JSON in one attachment of the run, so
//! it travels with the run through both stores and push/pull.

use super::event::{comm_str, Event, Kind};
use super::explain::Explanation;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{Read, Write};

/// The events around one wake-up, and their explanation.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Window {
    pub explanation: Explanation,
    pub events: Vec<StoredEvent>,
}

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

    /// The windows of an attachment, read with limits: the JSON at most
    /// [`MAX_JSON`] and [`MAX_RATIO`] times the compressed size (kbench's
    /// own compress 5–15 times; a crafted "gzip bomb" far more), and what
    /// it holds checked by [`Windows::check`], so a crafted store costs a
    /// reader neither gigabytes nor a panic.
    pub fn decode(data: &[u8]) -> Result<Windows> {
        let cap = (data.len() as u64)
            .saturating_mul(MAX_RATIO)
            .clamp(1 << 20, MAX_JSON);
        let mut json = Vec::new();
        flate2::read::GzDecoder::new(data)
            .take(cap + 1)
            .read_to_end(&mut json)
            .context("the stored trace is not gzip data")?;
        if json.len() as u64 > cap {
            anyhow::bail!(
                "the stored trace unpacks to over {} MiB from {} KiB, more than kbench ever writes: refused as damaged or crafted",
                cap >> 20,
                data.len() >> 10
            );
        }
        let w: Windows = serde_json::from_slice(&json).context("the stored trace is damaged")?;
        w.check()?;
        Ok(w)
    }

    /// Refuse what kbench never writes: more CPUs than Linux has
    /// (`NR_CPUS` is at most 8192), more windows or events than a reader
    /// keeps, times beyond a day (so every sum of them fits in a u64).
    pub fn check(&self) -> Result<()> {
        let bad = |what: String| Err(anyhow::anyhow!("the stored trace is damaged: {what}"));
        if self.cpus.len() > MAX_CPUS || self.cpus.iter().any(|&c| c >= MAX_CPUS) {
            return bad(format!(
                "it names {} CPUs, or a CPU number over {MAX_CPUS}",
                self.cpus.len()
            ));
        }
        if self.windows.len() > MAX_WINDOWS {
            return bad(format!(
                "{} windows (kbench keeps at most {MAX_WINDOWS})",
                self.windows.len()
            ));
        }
        let events: usize = self.windows.iter().map(|w| w.events.len()).sum();
        if events > MAX_EVENTS {
            return bad(format!("{events} events (at most {MAX_EVENTS})"));
        }
        for (i, w) in self.windows.iter().enumerate() {
            if !w.explanation.times_fit() || w.events.iter().any(|ev| ev.t > MAX_NS) {
                return bad(format!("window {} holds a time beyond a day", i + 1));
            }
        }
        Ok(())
    }
}

/// The most JSON a stored trace may unpack to (kbench's largest, a full
/// reader bound of windows, are tens of MiB).
const MAX_JSON: u64 = 256 << 20;
/// The most the JSON may be larger than its gzip.
const MAX_RATIO: u64 = 40;
/// Linux's largest `NR_CPUS`.
const MAX_CPUS: usize = 8192;
/// More windows and events than any reader keeps.
const MAX_WINDOWS: usize = 100_000;
const MAX_EVENTS: usize = 50_000_000;
use super::explain::MAX_NS;

#[cfg(test)]
mod tests {
    use super::*;

    fn gz(json: &[u8]) -> Vec<u8> {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(json).unwrap();
        z.finish().unwrap()
    }

    /// A "gzip bomb" (a few KiB that unpack to MiBs of one byte) is
    /// refused after at most its limit is unpacked, with the sizes said.
    #[test]
    fn a_gzip_bomb_is_refused_at_its_limit() {
        let bomb = gz(&vec![b' '; 8 << 20]);
        assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
        let e = format!("{:#}", Windows::decode(&bomb).unwrap_err());
        assert!(
            e.contains("unpacks to over") && e.contains("crafted"),
            "{e}"
        );
    }

    /// More CPUs than Linux has, and times whose sums overflow, are
    /// refused as damaged rather than allocated or added.
    #[test]
    fn impossible_counts_and_times_are_refused() {
        let many = format!(
            r#"{{"irq_names":{{}},"cpus":{:?},"windows":[]}}"#,
            vec![0; 9000]
        );
        let e = format!("{:#}", Windows::decode(&gz(many.as_bytes())).unwrap_err());
        assert!(e.contains("CPUs"), "{e}");
        let big = format!(r#"{{"irq_names":{{}},"cpus":[{}],"windows":[]}}"#, 1 << 20);
        assert!(Windows::decode(&gz(big.as_bytes())).is_err());
        for (latency, part) in [(u64::MAX, 1u64), (1, u64::MAX), (MAX_NS, MAX_NS)] {
            let json = format!(
                r#"{{"irq_names":{{}},"cpus":[0],"windows":[{{"explanation":{{"latency_ns":{latency},"tid":1,"comm":"p","cpu":0,"expected_ns":0,"parts":[{{"kind":"idle","ns":{part}}},{{"kind":"probe","ns":{part}}}],"woken_by":null,"migrations":[],"lost_events":false}},"events":[]}}]}}"#
            );
            let e = format!("{:#}", Windows::decode(&gz(json.as_bytes())).unwrap_err());
            assert!(e.contains("beyond a day"), "{latency} {part}: {e}");
        }
        let fine = r#"{"irq_names":{},"cpus":[0],"windows":[{"explanation":{"latency_ns":5,"tid":1,"comm":"p","cpu":0,"expected_ns":0,"parts":[{"kind":"probe","ns":5}],"woken_by":null,"migrations":[],"lost_events":false},"events":[]}]}"#;
        assert_eq!(
            Windows::decode(&gz(fine.as_bytes())).unwrap().windows.len(),
            1
        );
    }
}
