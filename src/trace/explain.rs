//! Why one wake-up was late: the trace window around it, replayed on the
//! CPU the task ran on, from when it should have run to when it ran.
//!
//! Every nanosecond of that span goes to what the CPU was doing then: an
//! IRQ handler (by number and name) or a system vector, a softirq (by
//! vector), another task (pid, comm, class and priority or nice, autogroup
//! and cgroup where `/proc` still has them), the CPU idle, or the task
//! itself (switched in, on its way back to user space and its clock
//! read).  What the trace cannot say (before its window, a CPU with no
//! events) is "unaccounted", never spread over the rest, so the parts
//! always sum to the latency.  Where the task was woken from (the waker,
//! its CPU, IRQ or task context) and its migrations are said beside.
//! This is the analysis rtla's `timerlat -a` does for real-time threads
//! (tools/tracing/rtla), for any probe.

use super::event::{comm_str, softirq_name, Context, Event, Nesting, Task, VECTORS};
use super::wakeups::Wakeup;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What a part of the latency was spent on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum What {
    Irq {
        irq: i32,
        name: String,
    },
    Vector {
        name: String,
    },
    Softirq {
        vec: i32,
        name: String,
    },
    Task {
        pid: i32,
        comm: String,
        /// "fair, nice 0", "FIFO 99", "deadline".
        class: String,
        autogroup: Option<String>,
        cgroup: Option<String>,
    },
    Idle,
    /// The task itself: switched in, returning to user space.
    Probe,
    Unaccounted {
        why: String,
    },
}

/// One part of a latency.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    #[serde(flatten)]
    pub what: What,
    pub ns: u64,
}

/// Who woke the task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Waker {
    pub pid: i32,
    pub comm: String,
    pub cpu: u16,
    /// "task", "IRQ", "softirq", "timer".
    pub context: String,
    /// From when the task should have run to the wake-up.
    pub after_ns: i64,
}

/// One late wake-up, explained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    pub latency_ns: u64,
    pub tid: i32,
    pub comm: String,
    /// The CPU it ran on (`None`: the trace never shows it switched in).
    pub cpu: Option<u16>,
    pub expected_ns: u64,
    pub parts: Vec<Part>,
    pub woken_by: Option<Waker>,
    pub migrations: Vec<(i32, i32)>,
    /// Events the kernel lost on that CPU during the window.
    pub lost_events: bool,
    /// The task's own autogroup, while it lived (to say whether what it
    /// waited behind was of its group or another).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autogroup: Option<String>,
}

/// A day in ns: no wake-up, part of one or event of its window is
/// longer, so any sum of them fits in a u64 (a stored one beyond it is
/// damaged or crafted).
pub const MAX_NS: u64 = 86_400 * 1_000_000_000;

impl Explanation {
    /// Whether every time in it is within [`MAX_NS`], its parts' sum too.
    pub fn times_fit(&self) -> bool {
        let parts = self.parts.iter().try_fold(0u64, |sum, p| {
            (p.ns <= MAX_NS).then(|| sum.checked_add(p.ns)).flatten()
        });
        self.latency_ns <= MAX_NS
            && self.expected_ns <= MAX_NS
            && parts.is_some_and(|p| p <= MAX_NS)
            && self
                .woken_by
                .as_ref()
                .is_none_or(|k| k.after_ns.unsigned_abs() <= MAX_NS)
    }
}

/// A CPU's context stack frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    Irq(i32),
    Vector(u8),
    Softirq(i32),
}

impl Frame {
    /// The frame a context is on the stack (a timer's expiry is not one:
    /// it runs inside the local timer's vector).
    fn of(c: Context) -> Option<Frame> {
        match c {
            Context::Irq(n) => Some(Frame::Irq(n)),
            Context::Vector(w) => Some(Frame::Vector(w)),
            Context::Softirq(v) => Some(Frame::Softirq(v)),
            Context::Timer => None,
        }
    }
}

/// The task current on a CPU, as the trace shows it.
#[derive(Clone, Copy, Debug)]
struct Current {
    pid: i32,
    prio: i32,
    comm: super::event::Comm,
}

impl Current {
    fn of(t: Task) -> Current {
        Current {
            pid: t.pid,
            prio: t.prio,
            comm: t.comm,
        }
    }
}

fn class(prio: i32) -> String {
    match prio {
        p if p < 0 => "deadline".into(),
        p if p < 100 => format!("real-time {}", 99 - p),
        p if p < 140 => format!("fair, nice {}", p - 120),
        p => format!("prio {p}"),
    }
}

/// `/proc/<pid>/autogroup`'s group ("autogroup 12"), while the task lives.
fn autogroup(pid: i32) -> Option<String> {
    crate::sys::procfs::cgroup::autogroup(pid).map(|n| format!("autogroup {n}"))
}

/// The task's cpu cgroup (v1 `cpu` controller, else v2), while it lives.
fn cgroup(pid: i32) -> Option<String> {
    let lines = crate::sys::procfs::cgroup::of(pid)?;
    let path = crate::sys::procfs::cgroup::cpu(&lines)?;
    Some(crate::text::clean(path).into_owned())
}

/// Reads `/proc` once per task for the parts of one or more explanations.
#[derive(Default)]
pub struct Procs {
    seen: HashMap<i32, (Option<String>, Option<String>)>,
}

impl Procs {
    fn of(&mut self, pid: i32) -> (Option<String>, Option<String>) {
        self.seen
            .entry(pid)
            .or_insert_with(|| (autogroup(pid), cgroup(pid)))
            .clone()
    }
}

/// What a segment of time on a CPU was.
fn what_of(
    stack: &[Frame],
    cur: Option<Current>,
    tid: i32,
    irq_names: &HashMap<i32, String>,
    procs: &mut Procs,
) -> What {
    match stack.last() {
        Some(Frame::Irq(n)) => What::Irq {
            irq: *n,
            name: irq_names.get(n).cloned().unwrap_or_default(),
        },
        Some(Frame::Vector(w)) => What::Vector {
            name: VECTORS.get(*w as usize).map_or("?", |v| v.1).to_string(),
        },
        Some(Frame::Softirq(v)) => What::Softirq {
            vec: *v,
            name: softirq_name(*v).into(),
        },
        None => match cur {
            None => What::Unaccounted {
                why: "the trace shows nothing on this CPU then".into(),
            },
            Some(c) if c.pid == 0 => What::Idle,
            Some(c) if c.pid == tid => What::Probe,
            Some(c) => {
                let (autogroup, cgroup) = procs.of(c.pid);
                What::Task {
                    pid: c.pid,
                    comm: comm_str(&c.comm),
                    class: class(c.prio),
                    autogroup,
                    cgroup,
                }
            }
        },
    }
}

/// The frames a CPU was already inside when its events begin (an exit
/// seen before its entry), outermost first, and the task current then
/// (the one the first switch switches out).
fn initial_state(events: &[&Event]) -> (Vec<Frame>, Option<Current>) {
    let mut depth: Vec<Frame> = Vec::new();
    let mut before: Vec<Frame> = Vec::new();
    let mut first_prev = None;
    for e in events {
        match e.kind.nesting() {
            Some(Nesting::Enter(c)) => depth.extend(Frame::of(c)),
            Some(Nesting::Exit(c)) => {
                if let Some(f) = Frame::of(c) {
                    pop_or_note(&mut depth, &mut before, f)
                }
            }
            None => {
                if let (Some(s), None) = (e.kind.switched(), &first_prev) {
                    first_prev = Some(Current::of(s.prev));
                }
            }
        }
    }
    before.reverse();
    (before, first_prev)
}

fn pop_or_note(depth: &mut Vec<Frame>, before: &mut Vec<Frame>, f: Frame) {
    if depth.pop().is_none() {
        before.push(f);
    }
}

/// Step a CPU's state over one of its events.
fn step(stack: &mut Vec<Frame>, cur: &mut Option<Current>, e: &Event) {
    match e.kind.nesting() {
        Some(Nesting::Enter(c)) => stack.extend(Frame::of(c)),
        Some(Nesting::Exit(c)) => {
            if Frame::of(c).is_some() {
                stack.pop();
            }
        }
        None => {
            if let Some(s) = e.kind.switched() {
                *cur = Some(Current::of(s.next));
            }
        }
    }
}

/// The context a CPU was in at `ts` ("task", "IRQ", "softirq", "timer").
fn context_at(events: &[&Event], ts: u64) -> &'static str {
    let (mut stack, _) = initial_state(events);
    let mut timer = 0i32;
    for e in events.iter().take_while(|e| e.ts < ts) {
        let mut none = None;
        step(&mut stack, &mut none, e);
        match e.kind.nesting() {
            Some(Nesting::Enter(Context::Timer)) => timer += 1,
            Some(Nesting::Exit(Context::Timer)) => timer -= 1,
            _ => {}
        }
    }
    if timer > 0 {
        "timer"
    } else {
        match stack.last() {
            Some(Frame::Softirq(_)) => "softirq",
            Some(_) => "IRQ",
            None => "task",
        }
    }
}

/// The CPU the task ran on, and when it was switched in (`None` when the
/// switch is not in the trace: some kernels do not trace every switch,
/// this one not those from idle on some CPUs); then the CPU is where its
/// last wake-up put it, or where it last ran.
fn where_it_ran(events: &[Event], w: &Wakeup) -> Option<(u16, Option<u64>)> {
    let before = |e: &&Event| e.ts <= w.ran;
    if let Some(e) = events
        .iter()
        .rev()
        .filter(before)
        .find(|e| e.kind.switched().is_some_and(|s| s.next.pid == w.tid))
    {
        return Some((e.cpu, Some(e.ts)));
    }
    let cpu = events.iter().rev().filter(before).find_map(|e| {
        if let Some((pid, target_cpu)) = e.kind.woken() {
            return (pid == w.tid)
                .then(|| u16::try_from(target_cpu).ok())
                .flatten();
        }
        e.kind
            .switched()
            .filter(|s| s.prev.pid == w.tid)
            .map(|_| e.cpu)
    })?;
    Some((cpu, None))
}

/// Explain `w` from `events` (every traced CPU's, in time order).
/// `lost_on(cpu)` says whether that CPU lost events in the window.
pub fn explain(
    events: &[Event],
    w: &Wakeup,
    irq_names: &HashMap<i32, String>,
    lost_on: impl Fn(u16) -> bool,
    procs: &mut Procs,
) -> Explanation {
    let names = Names::of(events);
    let mut out = Explanation {
        latency_ns: w.latency(),
        tid: w.tid,
        comm: names.comm(w.tid),
        cpu: None,
        expected_ns: w.expected,
        parts: Vec::new(),
        woken_by: None,
        migrations: Vec::new(),
        lost_events: false,
        autogroup: procs.of(w.tid).0,
    };
    let Some((cpu, switched_in)) = where_it_ran(events, w) else {
        out.parts.push(Part {
            what: What::Unaccounted {
                why: "the trace window shows neither where the task ran nor its wake-up".into(),
            },
            ns: w.latency(),
        });
        return out;
    };
    out.cpu = Some(cpu);
    out.lost_events = lost_on(cpu);
    let on_cpu: Vec<&Event> = events
        .iter()
        .filter(|e| e.cpu == cpu && e.ts <= w.ran)
        .collect();
    let ctx = Replay {
        tid: w.tid,
        irq_names,
        names: &names,
        switch_traced: switched_in.is_some(),
    };
    out.parts = parts_on_cpu(&on_cpu, w, &ctx, procs);
    let until = switched_in.unwrap_or(w.ran);
    out.woken_by = waker(events, w, until, &names);
    out.migrations = events
        .iter()
        .filter(|e| e.ts >= w.expected && e.ts <= until)
        .filter_map(|e| {
            e.kind
                .migrated()
                .filter(|m| m.0 == w.tid)
                .map(|m| (m.1, m.2))
        })
        .collect();
    out
}

/// Every task's comm and priority as the window's events give them.
pub struct Names {
    comm: HashMap<i32, super::event::Comm>,
    prio: HashMap<i32, i32>,
}

impl Names {
    fn of(events: &[Event]) -> Names {
        let mut n = Names {
            comm: HashMap::new(),
            prio: HashMap::new(),
        };
        for e in events {
            if let Some(s) = e.kind.switched() {
                for t in [s.prev, s.next] {
                    n.comm.insert(t.pid, t.comm);
                    n.prio.insert(t.pid, t.prio);
                }
            } else if let Some(t) = e.kind.waking() {
                n.comm.entry(t.pid).or_insert(t.comm);
                n.prio.entry(t.pid).or_insert(t.prio);
            }
        }
        n
    }

    fn comm(&self, pid: i32) -> String {
        self.comm.get(&pid).map(comm_str).unwrap_or_default()
    }

    /// The task `pid` as current, from what the window says of it.
    fn current(&self, pid: i32) -> Current {
        Current {
            pid,
            prio: self.prio.get(&pid).copied().unwrap_or(120),
            comm: self.comm.get(&pid).copied().unwrap_or_default(),
        }
    }
}

/// What a replay of one CPU needs besides its events.
struct Replay<'a> {
    tid: i32,
    irq_names: &'a HashMap<i32, String>,
    names: &'a Names,
    switch_traced: bool,
}

/// Replay one CPU's events and charge [expected, ran] to its states.
/// Every event names the task current when it happened (`common_pid`),
/// which corrects the state where a switch is not in the trace.
fn parts_on_cpu(on_cpu: &[&Event], w: &Wakeup, r: &Replay, procs: &mut Procs) -> Vec<Part> {
    let (e0, ran) = (w.expected, w.ran);
    let (mut stack, first_prev) = initial_state(on_cpu);
    let mut sums: Vec<(What, u64)> = Vec::new();
    let mut add = |what: What, ns: u64| {
        if ns == 0 {
            return;
        }
        match sums.iter_mut().find(|(w, _)| *w == what) {
            Some(s) => s.1 += ns,
            None => sums.push((what, ns)),
        }
    };
    // Before this CPU's first switch, the task current is the one that
    // switch switches out (nothing else switched in between).
    let mut cur: Option<Current> = first_prev;
    let mut t = e0;
    for e in on_cpu {
        if cur.is_none_or(|c| c.pid != e.pid) {
            cur = Some(r.names.current(e.pid));
        }
        if e.ts > t {
            let end = e.ts.min(ran);
            add(what_of(&stack, cur, r.tid, r.irq_names, procs), end - t);
            t = end;
        }
        step(&mut stack, &mut cur, e);
        if t >= ran {
            break;
        }
    }
    if t < ran {
        let what = if r.switch_traced || cur.is_some_and(|c| c.pid == r.tid) {
            what_of(&stack, cur, r.tid, r.irq_names, procs)
        } else {
            What::Unaccounted {
                why: "the switch to the task is not in the trace: this kernel does not trace every switch".into(),
            }
        };
        add(what, ran - t);
    }
    let mut parts: Vec<Part> = sums
        .into_iter()
        .map(|(what, ns)| Part { what, ns })
        .collect();
    parts.sort_by_key(|p| {
        (
            matches!(p.what, What::Unaccounted { .. }),
            std::cmp::Reverse(p.ns),
        )
    });
    parts
}

/// The last wake-up of the task before it was switched in, and who sent it.
fn waker(events: &[Event], w: &Wakeup, switched_in: u64, names: &Names) -> Option<Waker> {
    let e = events
        .iter()
        .rev()
        .find(|e| e.ts <= switched_in && e.kind.waking().is_some_and(|t| t.pid == w.tid))?;
    let on_cpu: Vec<&Event> = events.iter().filter(|x| x.cpu == e.cpu).collect();
    let comm = match names.comm(e.pid) {
        c if c.is_empty() && e.pid == 0 => "idle".into(),
        c => c,
    };
    Some(Waker {
        pid: e.pid,
        comm,
        cpu: e.cpu,
        context: context_at(&on_cpu, e.ts).into(),
        after_ns: e.ts as i64 - w.expected as i64,
    })
}

#[cfg(test)]
mod tests;
