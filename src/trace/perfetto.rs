//! A run's trace windows as Chrome trace-event JSON, the format Perfetto
//! (ui.perfetto.dev) and chrome://tracing open: one process per window,
//! one thread (lane) per CPU, complete events (`"ph": "X"`) for the tasks
//! that ran, IRQs and softirqs, instant events (`"ph": "i"`) for wake-ups,
//! and the late wake-up itself as a slice from when it was due to when it
//! ran.  Format: "Trace Event Format" (Google, 2016),
//! <https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU>.

use super::event::{softirq_name, VECTORS};
use super::reader::BEFORE_NS;
use super::stored::{StoredKind, Windows};
use serde_json::{json, Value};
use std::collections::HashMap;

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// The whole document.
pub fn document(w: &Windows, run_id: i64) -> Value {
    let mut out = Vec::new();
    for (i, win) in w.windows.iter().enumerate() {
        let pid = i as i64 + 1;
        let e = &win.explanation;
        out.push(json!({"ph": "M", "name": "process_name", "pid": pid,
            "args": {"name": format!("run {run_id}, wake-up {}: {} late ({}[{}])", i + 1, super::show::ns(e.latency_ns), e.comm, e.tid)}}));
        out.push(json!({"ph": "M", "name": "process_sort_index", "pid": pid, "args": {"sort_index": pid}}));
        for &cpu in &w.cpus {
            out.push(json!({"ph": "M", "name": "thread_name", "pid": pid, "tid": cpu, "args": {"name": format!("CPU {cpu}")}}));
        }
        let end = win.events.last().map_or(0, |x| x.t);
        lanes(&mut out, pid, win, &w.irq_names, end);
        if let Some(cpu) = e.cpu {
            out.push(
                json!({"ph": "X", "pid": pid, "tid": cpu, "name": "late wake-up",
                "cat": "probe", "ts": us(BEFORE_NS.min(e.expected_ns)), "dur": us(e.latency_ns),
                "args": {"explanation": super::show::line(e)}}),
            );
        }
    }
    json!({ "traceEvents": out, "displayTimeUnit": "ns" })
}

/// One window's lanes: tasks between switches, nested IRQ and softirq
/// slices, wake-ups as instants.
fn lanes(
    out: &mut Vec<Value>,
    pid: i64,
    win: &super::reader::Window,
    irqs: &HashMap<i32, String>,
    end: u64,
) {
    // By CPU, so the lanes' last slices come out in the same order every time.
    let mut running: std::collections::BTreeMap<u16, (u64, String, i32)> = Default::default();
    let mut open: HashMap<u16, Vec<(u64, String, &'static str)>> = HashMap::new();
    let slice = |out: &mut Vec<Value>, cpu: u16, from: u64, to: u64, name: &str, cat: &str| {
        out.push(
            json!({"ph": "X", "pid": pid, "tid": cpu, "name": name, "cat": cat,
            "ts": us(from), "dur": us(to.saturating_sub(from))}),
        );
    };
    let comms = comms_of(win);
    for e in &win.events {
        // Every event names the task current on its CPU: where a switch
        // is not in the trace, the lane follows that.
        let known = running.get(&e.cpu).map(|r| r.2);
        if known.is_some_and(|p| p != e.pid) {
            if let Some((from, name, p)) = running.remove(&e.cpu) {
                let cat = if p == 0 { "idle" } else { "task" };
                slice(out, e.cpu, from, e.t, &format!("{name}[{p}]"), cat);
            }
            let name = comms.get(&e.pid).cloned().unwrap_or_default();
            running.insert(e.cpu, (e.t, name, e.pid));
        }
        match &e.kind {
            StoredKind::Switch {
                prev_pid,
                prev_comm,
                next_pid,
                next_comm,
                ..
            } => {
                let (from, name, p) =
                    running
                        .remove(&e.cpu)
                        .unwrap_or((0, prev_comm.clone(), *prev_pid));
                let cat = if p == 0 { "idle" } else { "task" };
                slice(out, e.cpu, from, e.t, &format!("{name}[{p}]"), cat);
                running.insert(e.cpu, (e.t, next_comm.clone(), *next_pid));
            }
            StoredKind::IrqEntry { irq } => open.entry(e.cpu).or_default().push((
                e.t,
                format!("IRQ {irq} {}", irqs.get(irq).map_or("", String::as_str)),
                "irq",
            )),
            StoredKind::VectorEntry { which } => open.entry(e.cpu).or_default().push((
                e.t,
                VECTORS
                    .get(*which as usize)
                    .map_or("?", |v| v.1)
                    .to_string(),
                "irq",
            )),
            StoredKind::SoftirqEntry { vec } => open.entry(e.cpu).or_default().push((
                e.t,
                format!("softirq {}", softirq_name(*vec)),
                "softirq",
            )),
            StoredKind::IrqExit { .. }
            | StoredKind::VectorExit { .. }
            | StoredKind::SoftirqExit { .. } => {
                if let Some((from, name, cat)) = open.entry(e.cpu).or_default().pop() {
                    slice(out, e.cpu, from, e.t, &name, cat);
                }
            }
            StoredKind::Waking { target, comm, .. } => {
                out.push(json!({"ph": "i", "s": "t", "pid": pid, "tid": e.cpu,
                    "name": format!("wakes {comm}[{target}]"), "cat": "wakeup", "ts": us(e.t)}));
            }
            StoredKind::Migrate {
                target,
                orig_cpu,
                dest_cpu,
            } => {
                out.push(json!({"ph": "i", "s": "t", "pid": pid, "tid": e.cpu,
                    "name": format!("{target} migrates {orig_cpu}->{dest_cpu}"), "cat": "migrate", "ts": us(e.t)}));
            }
            _ => {}
        }
    }
    for (cpu, (from, name, p)) in running {
        let cat = if p == 0 { "idle" } else { "task" };
        slice(out, cpu, from, end, &format!("{name}[{p}]"), cat);
    }
}

/// Every task's comm as the window's events give them.
fn comms_of(win: &super::reader::Window) -> HashMap<i32, String> {
    let mut comms: HashMap<i32, String> = HashMap::new();
    for e in &win.events {
        match &e.kind {
            StoredKind::Switch {
                prev_pid,
                prev_comm,
                next_pid,
                next_comm,
                ..
            } => {
                comms.insert(*prev_pid, prev_comm.clone());
                comms.insert(*next_pid, next_comm.clone());
            }
            StoredKind::Waking { target, comm, .. } => {
                comms.entry(*target).or_insert_with(|| comm.clone());
            }
            _ => {}
        }
    }
    comms
}
