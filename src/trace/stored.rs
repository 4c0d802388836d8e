//! The trace as kept with a run: each window's events in a compact form
//! (times from the window's start, comms as text), the explanations, and
//! what was traced; gzip-compressed JSON in one attachment of the run, so
//! it travels with the run through both stores and push/pull.

use super::event::{Event, Kind};
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
    pub kind: Kind,
}

impl StoredEvent {
    /// An event as kept in a window: its time from the window's start.
    pub fn of(e: &Event, base: u64) -> StoredEvent {
        StoredEvent {
            t: e.ts.saturating_sub(base),
            cpu: e.cpu,
            pid: e.pid,
            kind: e.kind,
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

    /// The one event type is stored in the form traces were always kept
    /// in (tag `e`, the woken or migrated task as `target`, comms as
    /// text), and reads back as the same event.
    #[test]
    fn an_event_is_stored_as_before_and_reads_back() {
        let mut comm = [0u8; 16];
        comm[..11].copy_from_slice(b"kworker/0:1");
        let events = [
            Event {
                ts: 1_500,
                cpu: 1,
                pid: 42,
                kind: Kind::Waking {
                    pid: 7,
                    prio: 120,
                    target_cpu: 0,
                    comm,
                },
            },
            Event {
                ts: 2_000,
                cpu: 0,
                pid: 0,
                kind: Kind::Migrate {
                    pid: 7,
                    orig_cpu: 1,
                    dest_cpu: 0,
                },
            },
            Event {
                ts: 2_500,
                cpu: 0,
                pid: 0,
                kind: Kind::TimerExit,
            },
        ];
        let stored: Vec<StoredEvent> = events.iter().map(|e| StoredEvent::of(e, 1_000)).collect();
        let json = serde_json::to_string(&stored).unwrap();
        assert_eq!(
            json,
            r#"[{"t":500,"cpu":1,"pid":42,"e":"waking","target":7,"prio":120,"target_cpu":0,"comm":"kworker/0:1"},{"t":1000,"cpu":0,"pid":0,"e":"migrate","target":7,"orig_cpu":1,"dest_cpu":0},{"t":1500,"cpu":0,"pid":0,"e":"timer_exit"}]"#
        );
        let back: Vec<StoredEvent> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, stored);
        assert_eq!(back[0].kind, events[0].kind);
        // A comm longer than the kernel's 16 bytes is cut there, not refused.
        let long = r#"{"t":0,"cpu":0,"pid":0,"e":"waking","target":1,"prio":1,"target_cpu":0,"comm":"a-name-of-twenty-chars"}"#;
        let e: StoredEvent = serde_json::from_str(long).unwrap();
        let Kind::Waking { comm, .. } = e.kind else {
            panic!("{e:?}")
        };
        assert_eq!(&comm, b"a-name-of-twenty");
    }

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
