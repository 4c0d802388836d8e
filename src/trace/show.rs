//! Explanations as a person reads them: one line per wake-up with its
//! largest parts, then who woke it.
//!
//! `17.1 ms late on CPU 1 (cyclictest[812]): 16.9 ms behind cpu-hog[4311]
//! (fair, nice 0, autogroup 12), 0.1 ms IRQ 11 virtio0, 0.05 ms softirq
//! TIMER; woken by swapper/1[0] on CPU 1 (timer) after 0.01 ms`

use super::explain::{Explanation, Part, What};

/// A duration in the unit that reads best.
pub fn ns(n: u64) -> String {
    let f = n as f64;
    if n >= 1_000_000 {
        format!("{:.1} ms", f / 1e6)
    } else if n >= 1_000 {
        format!("{:.1} us", f / 1e3)
    } else {
        format!("{n} ns")
    }
}

/// What a part is, in a few words.
pub fn what(w: &What) -> String {
    match w {
        What::Irq { irq, name } if name.is_empty() => format!("IRQ {irq}"),
        What::Irq { irq, name } => format!("IRQ {irq} {name}"),
        What::Vector { name } => name.clone(),
        What::Softirq { name, .. } => format!("softirq {name}"),
        What::Task {
            pid,
            comm,
            class,
            autogroup,
            cgroup,
        } => {
            let mut extra = vec![class.clone()];
            extra.extend(autogroup.clone());
            if let Some(c) = cgroup.as_ref().filter(|c| c.as_str() != "/") {
                extra.push(format!("cgroup {c}"));
            }
            format!("behind {comm}[{pid}] ({})", extra.join(", "))
        }
        What::Idle => "CPU idle (waking from idle)".into(),
        What::Probe => "the task itself, switched in".into(),
        What::Unaccounted { why } => format!("unaccounted: {why}"),
    }
}

/// Parts shown on a line; the rest are summed as "other".
const SHOWN: usize = 4;

fn parts_text(parts: &[Part]) -> String {
    let mut out: Vec<String> = parts
        .iter()
        .take(SHOWN)
        .map(|p| format!("{} {}", ns(p.ns), what(&p.what)))
        .collect();
    let rest: u64 = parts.iter().skip(SHOWN).map(|p| p.ns).sum();
    if rest > 0 {
        out.push(format!("{} other", ns(rest)));
    }
    out.join(", ")
}

/// "a timer", "an IRQ", "a softirq".
fn an(context: &str) -> String {
    match context {
        "IRQ" => "an IRQ".into(),
        c => format!("a {c}"),
    }
}

/// One wake-up in one line.
pub fn line(e: &Explanation) -> String {
    let cpu = e
        .cpu
        .map_or("an unknown CPU".to_string(), |c| format!("CPU {c}"));
    let mut s = format!(
        "{} late on {cpu} ({}[{}]): {}",
        ns(e.latency_ns),
        if e.comm.is_empty() { "task" } else { &e.comm },
        e.tid,
        parts_text(&e.parts)
    );
    if let Some(w) = &e.woken_by {
        let after = if w.after_ns >= 0 {
            format!("after {}", ns(w.after_ns as u64))
        } else {
            format!("{} early", ns(w.after_ns.unsigned_abs()))
        };
        let task = if w.comm.is_empty() {
            format!("pid {}", w.pid)
        } else {
            format!("{}[{}]", w.comm, w.pid)
        };
        // In IRQ or timer context the waker is the interrupt, not the
        // task it interrupted.
        let who = match w.context.as_str() {
            "task" => format!("{task} on CPU {}", w.cpu),
            _ if w.pid == 0 => format!("{} on CPU {} (idle)", an(&w.context), w.cpu),
            c => format!("{} on CPU {} (interrupting {task})", an(c), w.cpu),
        };
        s.push_str(&format!("; woken by {who} {after}"));
    }
    if !e.migrations.is_empty() {
        let m: Vec<String> = e
            .migrations
            .iter()
            .map(|(a, b)| format!("{a}->{b}"))
            .collect();
        s.push_str(&format!("; migrated {}", m.join(", ")));
    }
    if e.lost_events {
        s.push_str("; the kernel lost events here, so parts may be missing");
    }
    s
}

/// The lines after a measuring command's figures: the `n` worst, and how
/// the trace went.
pub fn summary(settings: &serde_json::Value, n: usize) -> String {
    let mut s = String::new();
    if settings["traced"] != serde_json::Value::Bool(true) {
        if let Some(r) = settings["reason"].as_str() {
            s.push_str(&format!("not traced: {r}\n"));
        }
        return s;
    }
    let mut outliers: Vec<Explanation> =
        serde_json::from_value(settings["outliers"].clone()).unwrap_or_default();
    let stored = outliers.len();
    outliers.retain(Explanation::times_fit);
    let damaged = stored - outliers.len();
    let kept = outliers.len();
    s.push_str(&format!(
        "trace: CPUs {}, {} events read, {} lost, reader {:.2} % of a CPU; {} worst wake-ups explained{}\n",
        settings["cpus"].as_str().unwrap_or("?"),
        settings["events_read"],
        settings["lost_events"],
        settings["reader_cpu_percent"].as_f64().unwrap_or(0.0),
        kept,
        if kept > n {
            format!(" ({n} shown; kbench runs show ID for all)")
        } else if settings["wakeups_sent"] == 0 {
            " (no probe sent its wake-ups)".into()
        } else {
            String::new()
        }
    ));
    for e in outliers.iter().take(n) {
        s.push_str(&format!("  {}\n", line(e)));
    }
    if damaged > 0 {
        s.push_str(&format!(
            "  ({damaged} stored explanation(s) left out: they hold times beyond a day, so the record is damaged)\n"
        ));
    }
    s
}
