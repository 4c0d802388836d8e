//! One kept window as lanes, a lane per CPU: slices for the tasks that
//! ran (between switches), the IRQ handlers, system vectors and softirqs
//! nested over them, and instants for wake-ups and migrations.  The
//! Perfetto export and the HTML report's timelines both draw from this.

use super::event::{comm_str, Context, Nesting};
use super::event::{softirq_name, VECTORS};
use super::stored::Window;
use std::collections::{BTreeMap, HashMap};

/// What a slice is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cat {
    /// The late task itself.
    Probe,
    Task,
    Idle,
    Irq,
    Softirq,
}

impl Cat {
    pub fn as_str(self) -> &'static str {
        match self {
            Cat::Probe => "probe",
            Cat::Task => "task",
            Cat::Idle => "idle",
            Cat::Irq => "irq",
            Cat::Softirq => "softirq",
        }
    }
}

/// A span of one CPU's time (ns from the window's start); `depth` 0 for
/// tasks, 1 and up for what interrupted them.
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    pub cpu: u16,
    pub from: u64,
    pub to: u64,
    pub name: String,
    pub cat: Cat,
    pub depth: usize,
}

/// A moment on a CPU: a wake-up ("wakeup") or a migration ("migrate").
#[derive(Clone, Debug, PartialEq)]
pub struct Instant {
    pub cpu: u16,
    pub t: u64,
    pub name: String,
    pub cat: &'static str,
}

/// The window's lanes.  Every event names the task current on its CPU:
/// where a switch is not in the trace, the lane follows that.
pub fn lanes(win: &Window, irqs: &HashMap<i32, String>) -> (Vec<Slice>, Vec<Instant>) {
    let probe = win.explanation.tid;
    let cat_of = |p: i32| match p {
        0 => Cat::Idle,
        p if p == probe => Cat::Probe,
        _ => Cat::Task,
    };
    let end = win.events.last().map_or(0, |x| x.t);
    let comms = comms_of(win);
    // By CPU, so the lanes' last slices come out in the same order every time.
    let mut running: BTreeMap<u16, (u64, String, i32)> = BTreeMap::new();
    let mut open: HashMap<u16, Vec<(u64, String, Cat)>> = HashMap::new();
    let (mut slices, mut instants) = (Vec::new(), Vec::new());
    let task = |slices: &mut Vec<Slice>, cpu, from, to, name: &str, p: i32| {
        slices.push(Slice {
            cpu,
            from,
            to,
            name: format!("{name}[{p}]"),
            cat: cat_of(p),
            depth: 0,
        });
    };
    for e in &win.events {
        let known = running.get(&e.cpu).map(|r| r.2);
        if known.is_some_and(|p| p != e.pid) {
            if let Some((from, name, p)) = running.remove(&e.cpu) {
                task(&mut slices, e.cpu, from, e.t, &name, p);
            }
            let name = comms.get(&e.pid).cloned().unwrap_or_default();
            running.insert(e.cpu, (e.t, name, e.pid));
        }
        let mut enter =
            |name: String, cat: Cat| open.entry(e.cpu).or_default().push((e.t, name, cat));
        if let Some(sw) = e.kind.switched() {
            let (from, name, p) =
                running
                    .remove(&e.cpu)
                    .unwrap_or((0, comm_str(&sw.prev.comm), sw.prev.pid));
            task(&mut slices, e.cpu, from, e.t, &name, p);
            running.insert(e.cpu, (e.t, comm_str(&sw.next.comm), sw.next.pid));
        } else if let Some(n) = e.kind.nesting() {
            match n {
                Nesting::Enter(c) => {
                    if let Some((name, cat)) = entered(c, irqs) {
                        enter(name, cat);
                    }
                }
                // A timer's expiry is not drawn: it is inside the local
                // timer's vector, which is.
                Nesting::Exit(Context::Timer) => {}
                Nesting::Exit(_) => {
                    let stack = open.entry(e.cpu).or_default();
                    let depth = stack.len();
                    if let Some((from, name, cat)) = stack.pop() {
                        slices.push(Slice {
                            cpu: e.cpu,
                            from,
                            to: e.t,
                            name,
                            cat,
                            depth,
                        });
                    }
                }
            }
        } else if let Some(t) = e.kind.waking() {
            instants.push(Instant {
                cpu: e.cpu,
                t: e.t,
                name: format!("wakes {}[{}]", comm_str(&t.comm), t.pid),
                cat: "wakeup",
            });
        } else if let Some((pid, orig_cpu, dest_cpu)) = e.kind.migrated() {
            instants.push(Instant {
                cpu: e.cpu,
                t: e.t,
                name: format!("{pid} migrates {orig_cpu}->{dest_cpu}"),
                cat: "migrate",
            });
        }
    }
    for (cpu, (from, name, p)) in running {
        task(&mut slices, cpu, from, end, &name, p);
    }
    (slices, instants)
}

/// An IRQ handler, system vector or softirq entered: its name and
/// category (a timer's expiry is not drawn).
fn entered(c: Context, irqs: &HashMap<i32, String>) -> Option<(String, Cat)> {
    Some(match c {
        Context::Irq(irq) => (
            format!("IRQ {irq} {}", irqs.get(&irq).map_or("", String::as_str))
                .trim_end()
                .to_string(),
            Cat::Irq,
        ),
        Context::Vector(which) => (
            VECTORS.get(which as usize).map_or("?", |v| v.1).to_string(),
            Cat::Irq,
        ),
        Context::Softirq(vec) => (format!("softirq {}", softirq_name(vec)), Cat::Softirq),
        Context::Timer => return None,
    })
}

/// Every task's comm as the window's events give them.
fn comms_of(win: &Window) -> HashMap<i32, String> {
    let mut comms: HashMap<i32, String> = HashMap::new();
    for e in &win.events {
        if let Some(sw) = e.kind.switched() {
            comms.insert(sw.prev.pid, comm_str(&sw.prev.comm));
            comms.insert(sw.next.pid, comm_str(&sw.next.comm));
        } else if let Some(t) = e.kind.waking() {
            comms.entry(t.pid).or_insert_with(|| comm_str(&t.comm));
        }
    }
    comms
}
