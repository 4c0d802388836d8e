//! The scheduling events kbench traces, decoded from their raw records by
//! the layouts the kernel gives in each event's `format` file.
//!
//! Which events: task switches (`sched_switch`), wake-ups (`sched_waking`
//! where the wake-up is issued, `sched_wakeup` where it lands), migrations
//! (`sched_migrate_task`), IRQ handlers and softirqs (`irq_handler_*`,
//! `softirq_*`), the x86 system vectors that run no IRQ handler
//! (`irq_vectors:local_timer_*`, `reschedule_*`, `call_function*_*`,
//! `irq_work_*`) and timer expiry (`hrtimer_expire_*`).  Their fields are
//! documented in include/trace/events/{sched,irq,timer}.h and
//! arch/x86/include/asm/trace/irq_vectors.h.

use super::format::{Field, Format};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A task's name as the trace gives it (up to 16 bytes, NUL padded).
pub type Comm = [u8; 16];

/// The x86 system vectors that run without an IRQ handler, named as
/// `/proc/interrupts` names them.
pub const VECTORS: &[(&str, &str)] = &[
    ("local_timer", "LOC local timer"),
    ("reschedule", "RES rescheduling IPI"),
    ("call_function", "CAL function call IPI"),
    ("call_function_single", "CAL function call IPI"),
    ("irq_work", "IWI irq work"),
];

/// What happened: one type for the event as decoded from the ring and as
/// stored with a run (serde's form is the stored one: tagged `e`, the task
/// a wake-up or migration is about as `target`, comms as text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "snake_case")]
pub enum Kind {
    Switch {
        prev_pid: i32,
        prev_prio: i32,
        /// The task state it left in (0: still runnable, preempted).
        prev_state: i64,
        #[serde(with = "comm_text")]
        prev_comm: Comm,
        next_pid: i32,
        next_prio: i32,
        #[serde(with = "comm_text")]
        next_comm: Comm,
    },
    /// `common_pid` wakes `pid` (issued on this CPU, for `target_cpu`).
    Waking {
        #[serde(rename = "target")]
        pid: i32,
        prio: i32,
        target_cpu: i32,
        #[serde(with = "comm_text")]
        comm: Comm,
    },
    /// The wake-up landed: `pid` is runnable on `target_cpu`.
    Wakeup {
        #[serde(rename = "target")]
        pid: i32,
        target_cpu: i32,
    },
    Migrate {
        #[serde(rename = "target")]
        pid: i32,
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
    /// A system vector (index into [`VECTORS`]).
    VectorEntry {
        which: u8,
    },
    VectorExit {
        which: u8,
    },
    TimerEntry,
    TimerExit,
}

/// A task as a switch or a wake-up names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Task {
    pub pid: i32,
    pub prio: i32,
    pub comm: Comm,
}

/// A task switch: who left (and in which state: 0 still runnable,
/// preempted) and who came in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switched {
    pub prev: Task,
    pub prev_state: i64,
    pub next: Task,
}

/// A context a CPU enters and leaves, nesting: an IRQ handler, a system
/// vector, a softirq, a timer's expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    Irq(i32),
    Vector(u8),
    Softirq(i32),
    Timer,
}

/// Entering or leaving a [`Context`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nesting {
    Enter(Context),
    Exit(Context),
}

/// What the readers ask of an event, in one place: a new kind of event is
/// taught here (each accessor's match lists every kind), and the trace's
/// readers (explain, waits, timeline) ask these instead of matching every
/// kind themselves.
impl Kind {
    /// The switch this event is.
    pub fn switched(&self) -> Option<Switched> {
        match *self {
            Kind::Switch {
                prev_pid,
                prev_prio,
                prev_state,
                prev_comm,
                next_pid,
                next_prio,
                next_comm,
            } => Some(Switched {
                prev: Task {
                    pid: prev_pid,
                    prio: prev_prio,
                    comm: prev_comm,
                },
                prev_state,
                next: Task {
                    pid: next_pid,
                    prio: next_prio,
                    comm: next_comm,
                },
            }),
            Kind::Waking { .. }
            | Kind::Wakeup { .. }
            | Kind::Migrate { .. }
            | Kind::IrqEntry { .. }
            | Kind::IrqExit { .. }
            | Kind::SoftirqEntry { .. }
            | Kind::SoftirqExit { .. }
            | Kind::VectorEntry { .. }
            | Kind::VectorExit { .. }
            | Kind::TimerEntry
            | Kind::TimerExit => None,
        }
    }

    /// The task a wake-up (issued or landed) is about, and the CPU it is
    /// for.
    pub fn woken(&self) -> Option<(i32, i32)> {
        match *self {
            Kind::Waking {
                pid, target_cpu, ..
            }
            | Kind::Wakeup { pid, target_cpu } => Some((pid, target_cpu)),
            Kind::Switch { .. }
            | Kind::Migrate { .. }
            | Kind::IrqEntry { .. }
            | Kind::IrqExit { .. }
            | Kind::SoftirqEntry { .. }
            | Kind::SoftirqExit { .. }
            | Kind::VectorEntry { .. }
            | Kind::VectorExit { .. }
            | Kind::TimerEntry
            | Kind::TimerExit => None,
        }
    }

    /// The waker's view of a wake-up it issues: the woken task as named.
    pub fn waking(&self) -> Option<Task> {
        match *self {
            Kind::Waking {
                pid, prio, comm, ..
            } => Some(Task { pid, prio, comm }),
            Kind::Switch { .. }
            | Kind::Wakeup { .. }
            | Kind::Migrate { .. }
            | Kind::IrqEntry { .. }
            | Kind::IrqExit { .. }
            | Kind::SoftirqEntry { .. }
            | Kind::SoftirqExit { .. }
            | Kind::VectorEntry { .. }
            | Kind::VectorExit { .. }
            | Kind::TimerEntry
            | Kind::TimerExit => None,
        }
    }

    /// A migration: the task, from and to.
    pub fn migrated(&self) -> Option<(i32, i32, i32)> {
        match *self {
            Kind::Migrate {
                pid,
                orig_cpu,
                dest_cpu,
            } => Some((pid, orig_cpu, dest_cpu)),
            Kind::Switch { .. }
            | Kind::Waking { .. }
            | Kind::Wakeup { .. }
            | Kind::IrqEntry { .. }
            | Kind::IrqExit { .. }
            | Kind::SoftirqEntry { .. }
            | Kind::SoftirqExit { .. }
            | Kind::VectorEntry { .. }
            | Kind::VectorExit { .. }
            | Kind::TimerEntry
            | Kind::TimerExit => None,
        }
    }

    /// The context this event enters or leaves.
    pub fn nesting(&self) -> Option<Nesting> {
        use Nesting::{Enter, Exit};
        match *self {
            Kind::IrqEntry { irq } => Some(Enter(Context::Irq(irq))),
            Kind::IrqExit { irq } => Some(Exit(Context::Irq(irq))),
            Kind::VectorEntry { which } => Some(Enter(Context::Vector(which))),
            Kind::VectorExit { which } => Some(Exit(Context::Vector(which))),
            Kind::SoftirqEntry { vec } => Some(Enter(Context::Softirq(vec))),
            Kind::SoftirqExit { vec } => Some(Exit(Context::Softirq(vec))),
            Kind::TimerEntry => Some(Enter(Context::Timer)),
            Kind::TimerExit => Some(Exit(Context::Timer)),
            Kind::Switch { .. }
            | Kind::Waking { .. }
            | Kind::Wakeup { .. }
            | Kind::Migrate { .. } => None,
        }
    }

    /// The tasks this event names (a switch's two, a wake-up's one).
    pub fn pids(&self) -> [Option<i32>; 2] {
        if let Some(s) = self.switched() {
            return [Some(s.prev.pid), Some(s.next.pid)];
        }
        [self.woken().map(|w| w.0), None]
    }
}

/// A comm kept as text: written as [`comm_str`] gives it, read back into
/// its 16 bytes (a longer text, which kbench never writes, is cut there).
mod comm_text {
    use super::Comm;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(c: &Comm, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::comm_str(c))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Comm, D::Error> {
        let text = String::deserialize(d)?;
        let mut c = [0u8; 16];
        let n = text.len().min(16);
        c[..n].copy_from_slice(&text.as_bytes()[..n]);
        Ok(c)
    }
}

/// One event, on one CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub ts: u64,
    pub cpu: u16,
    /// The task current on the CPU when it happened (`common_pid`).
    pub pid: i32,
    pub kind: Kind,
}

/// How to decode one event id.
#[derive(Clone, Debug)]
enum Decode {
    Switch([Field; 7]),
    Waking([Field; 4]),
    Wakeup([Field; 2]),
    Migrate([Field; 3]),
    Irq(bool, Field),
    Softirq(bool, Field),
    Vector(bool, u8),
    Timer(bool),
}

/// Decoders for the events enabled, by id; IRQ names seen, by number.
#[derive(Clone, Debug, Default)]
pub struct Decoder {
    by_id: HashMap<u16, Decode>,
    pid: Option<Field>,
    irq_name: Option<Field>,
    /// IRQ number -> handler name, as the trace gave it.
    pub irq_names: HashMap<i32, String>,
}

fn fields<const N: usize>(f: &Format, names: [&str; N]) -> Result<[Field; N], String> {
    let mut out = Vec::with_capacity(N);
    for n in names {
        out.push(f.field(n)?);
    }
    out.try_into().map_err(|_| "field count".to_string())
}

fn comm(f: &Field, rec: &[u8]) -> Comm {
    let mut c = [0u8; 16];
    let s = f.str(rec);
    let n = s.len().min(16);
    c[..n].copy_from_slice(&s[..n]);
    c
}

impl Decoder {
    /// Learn the event `system/name` from its format; errors name what is
    /// missing (a field this kernel lacks).
    pub fn add(&mut self, system: &str, name: &str, f: &Format) -> Result<(), String> {
        self.pid.get_or_insert(f.field("common_pid")?);
        let d = match (system, name) {
            ("sched", "sched_switch") => Decode::Switch(fields(
                f,
                [
                    "prev_pid",
                    "prev_prio",
                    "prev_state",
                    "prev_comm",
                    "next_pid",
                    "next_prio",
                    "next_comm",
                ],
            )?),
            ("sched", "sched_waking") => {
                Decode::Waking(fields(f, ["pid", "prio", "target_cpu", "comm"])?)
            }
            ("sched", "sched_wakeup") | ("sched", "sched_wakeup_new") => {
                Decode::Wakeup(fields(f, ["pid", "target_cpu"])?)
            }
            ("sched", "sched_migrate_task") => {
                Decode::Migrate(fields(f, ["pid", "orig_cpu", "dest_cpu"])?)
            }
            ("irq", "irq_handler_entry") => {
                self.irq_name = Some(f.field("name")?);
                Decode::Irq(true, f.field("irq")?)
            }
            ("irq", "irq_handler_exit") => Decode::Irq(false, f.field("irq")?),
            ("irq", "softirq_entry") => Decode::Softirq(true, f.field("vec")?),
            ("irq", "softirq_exit") => Decode::Softirq(false, f.field("vec")?),
            ("timer", "hrtimer_expire_entry") => Decode::Timer(true),
            ("timer", "hrtimer_expire_exit") => Decode::Timer(false),
            ("irq_vectors", n) => {
                let (base, entry) = match (n.strip_suffix("_entry"), n.strip_suffix("_exit")) {
                    (Some(b), _) => (b, true),
                    (_, Some(b)) => (b, false),
                    _ => return Err(format!("{system}/{name} is not traced")),
                };
                let which = VECTORS
                    .iter()
                    .position(|(v, _)| *v == base)
                    .ok_or_else(|| format!("{system}/{name} is not traced"))?;
                Decode::Vector(entry, which as u8)
            }
            _ => return Err(format!("{system}/{name} is not traced")),
        };
        self.by_id.insert(f.id, d);
        Ok(())
    }

    /// Decode one raw record of `cpu` at `ts`; `None` for an event kbench
    /// did not enable or a record too short to be one.
    pub fn decode(&mut self, ts: u64, cpu: u16, rec: &[u8]) -> Option<Event> {
        let id = u16::from_ne_bytes(rec.get(0..2)?.try_into().ok()?);
        let d = self.by_id.get(&id)?;
        let int = |f: &Field| f.int(rec) as i32;
        let kind = match d {
            Decode::Switch([pp, ppr, pst, pc, np, npr, nc]) => Kind::Switch {
                prev_pid: int(pp),
                prev_prio: int(ppr),
                prev_state: pst.int(rec),
                prev_comm: comm(pc, rec),
                next_pid: int(np),
                next_prio: int(npr),
                next_comm: comm(nc, rec),
            },
            Decode::Waking([p, pr, t, c]) => Kind::Waking {
                pid: int(p),
                prio: int(pr),
                target_cpu: int(t),
                comm: comm(c, rec),
            },
            Decode::Wakeup([p, t]) => Kind::Wakeup {
                pid: int(p),
                target_cpu: int(t),
            },
            Decode::Migrate([p, o, d]) => Kind::Migrate {
                pid: int(p),
                orig_cpu: int(o),
                dest_cpu: int(d),
            },
            Decode::Irq(true, f) => {
                let irq = int(f);
                if !self.irq_names.contains_key(&irq) {
                    if let Some(n) = &self.irq_name {
                        let name = String::from_utf8_lossy(n.str(rec)).into_owned();
                        self.irq_names.insert(irq, name);
                    }
                }
                Kind::IrqEntry { irq }
            }
            Decode::Irq(false, f) => Kind::IrqExit { irq: int(f) },
            Decode::Softirq(true, f) => Kind::SoftirqEntry { vec: int(f) },
            Decode::Softirq(false, f) => Kind::SoftirqExit { vec: int(f) },
            Decode::Vector(true, w) => Kind::VectorEntry { which: *w },
            Decode::Vector(false, w) => Kind::VectorExit { which: *w },
            Decode::Timer(true) => Kind::TimerEntry,
            Decode::Timer(false) => Kind::TimerExit,
        };
        let pid = self.pid.as_ref().map_or(0, |f| f.int(rec) as i32);
        Some(Event { ts, cpu, pid, kind })
    }
}

/// The softirq vectors' names (include/linux/interrupt.h, `softirq_to_name`).
pub fn softirq_name(vec: i32) -> &'static str {
    const NAMES: [&str; 10] = [
        "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER",
        "RCU",
    ];
    usize::try_from(vec)
        .ok()
        .and_then(|v| NAMES.get(v))
        .copied()
        .unwrap_or("?")
}

/// A comm as text.
pub fn comm_str(c: &Comm) -> String {
    let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
    crate::text::clean(&String::from_utf8_lossy(&c[..end])).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_record_decodes_by_its_format() {
        let f =
            super::super::format::parse(super::super::format::tests_support::SCHED_SWITCH).unwrap();
        let mut d = Decoder::default();
        d.add("sched", "sched_switch", &f).unwrap();
        let mut rec = vec![0u8; 64];
        rec[0..2].copy_from_slice(&372u16.to_ne_bytes());
        rec[4..8].copy_from_slice(&11i32.to_ne_bytes());
        rec[8..12].copy_from_slice(b"hog\0");
        rec[24..28].copy_from_slice(&11i32.to_ne_bytes());
        rec[28..32].copy_from_slice(&120i32.to_ne_bytes());
        rec[40..45].copy_from_slice(b"probe");
        rec[56..60].copy_from_slice(&22i32.to_ne_bytes());
        rec[60..64].copy_from_slice(&1i32.to_ne_bytes());
        let e = d.decode(5, 1, &rec).unwrap();
        assert_eq!((e.ts, e.cpu, e.pid), (5, 1, 11));
        match e.kind {
            Kind::Switch {
                prev_pid,
                prev_prio,
                next_pid,
                next_prio,
                next_comm,
                prev_comm,
                ..
            } => {
                assert_eq!((prev_pid, prev_prio, next_pid, next_prio), (11, 120, 22, 1));
                assert_eq!(comm_str(&next_comm), "probe");
                assert_eq!(comm_str(&prev_comm), "hog");
            }
            k => panic!("{k:?}"),
        }
        // An id kbench did not enable, and a short record, are skipped.
        rec[0..2].copy_from_slice(&9u16.to_ne_bytes());
        assert!(d.decode(5, 1, &rec).is_none());
        assert!(d.decode(5, 1, &rec[..1]).is_none());
    }

    #[test]
    fn a_format_lacking_a_field_is_named() {
        let f = super::super::format::parse(
            "ID: 7\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n",
        )
        .unwrap();
        let e = Decoder::default()
            .add("sched", "sched_switch", &f)
            .unwrap_err();
        assert!(e.contains("prev_pid"), "{e}");
        assert_eq!(softirq_name(1), "TIMER");
        assert_eq!(softirq_name(99), "?");
    }
}
