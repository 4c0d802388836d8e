//! A run's trace windows as Chrome trace-event JSON, the format Perfetto
//! (ui.perfetto.dev) and chrome://tracing open: one process per window,
//! one thread (lane) per CPU, complete events (`"ph": "X"`) for the tasks
//! that ran, IRQs and softirqs, instant events (`"ph": "i"`) for wake-ups,
//! and the late wake-up itself as a slice from when it was due to when it
//! ran.  Format: "Trace Event Format" (Google, 2016),
//! <https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU>.

use super::reader::BEFORE_NS;
use super::stored::Windows;
use super::timeline::Cat;
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
        lanes(&mut out, pid, win, &w.irq_names);
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

/// One window's lanes, as complete events and instants.
fn lanes(out: &mut Vec<Value>, pid: i64, win: &super::stored::Window, irqs: &HashMap<i32, String>) {
    let (slices, instants) = super::timeline::lanes(win, irqs);
    for s in slices {
        // The probe is a task like any other to the viewer.
        let cat = match s.cat {
            Cat::Probe => "task",
            c => c.as_str(),
        };
        out.push(
            json!({"ph": "X", "pid": pid, "tid": s.cpu, "name": s.name, "cat": cat,
            "ts": us(s.from), "dur": us(s.to.saturating_sub(s.from))}),
        );
    }
    for i in instants {
        out.push(json!({"ph": "i", "s": "t", "pid": pid, "tid": i.cpu,
            "name": i.name, "cat": i.cat, "ts": us(i.t)}));
    }
}
