//! The HTML report's picture of a late wake-up: its trace window as a
//! small timeline, a lane per traced CPU, each slice coloured by what it
//! was (the late task, other tasks, idle, IRQs and system vectors,
//! softirqs; interrupts drawn as a thinner bar over what they
//! interrupted), the span from when the task was due to when it ran
//! shaded on its CPU, and every slice named in its tooltip.

use super::svg::escape;
use crate::trace::reader::BEFORE_NS;
use crate::trace::stored::Window;
use crate::trace::timeline::{lanes, Cat};
use std::collections::HashMap;
use std::fmt::Write;

fn fill(c: Cat) -> &'static str {
    match c {
        Cat::Probe => "#0969da",
        Cat::Task => "#e36209",
        Cat::Idle => "#d0d7de",
        Cat::Irq => "#8250df",
        Cat::Softirq => "#bf3989",
    }
}

/// The colours' key, once above the timelines.
pub fn legend() -> String {
    let mut s = String::from("<p class=\"legend\">");
    for (c, what) in [
        (Cat::Probe, "the late task"),
        (Cat::Task, "other tasks"),
        (Cat::Idle, "idle"),
        (Cat::Irq, "IRQ handlers and system vectors"),
        (Cat::Softirq, "softirqs"),
    ] {
        let _ = write!(
            s,
            "<span style=\"display:inline-block;width:12px;height:12px;background:{}\"></span> {what} &nbsp; ",
            fill(c)
        );
    }
    s.push_str("<span style=\"display:inline-block;width:12px;height:12px;background:#ffd33d;opacity:.5\"></span> from when the task was due (dashed) to when it ran</p>");
    s
}

/// One window as an SVG: CPUs `cpus` as lanes.
pub fn svg(win: &Window, cpus: &[usize], irqs: &HashMap<i32, String>) -> String {
    let (w, left, lane, top) = (900.0_f64, 60.0_f64, 22.0_f64, 6.0_f64);
    let e = &win.explanation;
    let due = BEFORE_NS.min(e.expected_ns);
    let end = win
        .events
        .last()
        .map_or(due + e.latency_ns, |x| x.t)
        .max(due + e.latency_ns)
        .max(1);
    let x = |t: u64| left + (t.min(end) as f64 / end as f64) * (w - left - 10.0);
    let h = top + lane * cpus.len() as f64 + 22.0;
    let y_of = |cpu: u16| {
        cpus.iter()
            .position(|&c| c == cpu as usize)
            .map(|i| top + lane * i as f64)
    };
    let mut s = format!(
        "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-size=\"11\">"
    );
    for (i, c) in cpus.iter().enumerate() {
        let y = top + lane * i as f64;
        let _ = write!(
            s,
            "<text x=\"4\" y=\"{:.1}\">CPU {c}</text><rect x=\"{left}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#f6f8fa\"/>",
            y + lane * 0.65,
            w - left - 10.0,
            lane - 4.0
        );
    }
    let (slices, _) = lanes(win, irqs);
    for sl in slices.iter().filter(|sl| x(sl.to) - x(sl.from) >= 0.2) {
        let Some(y) = y_of(sl.cpu) else { continue };
        let (dy, hh) = if sl.depth == 0 {
            (0.0, lane - 4.0)
        } else {
            (2.0 + 2.0 * sl.depth as f64, 6.0)
        };
        let _ = write!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{hh:.1}\" fill=\"{}\" stroke=\"#fff\" stroke-width=\".6\"><title>{} {}</title></rect>",
            x(sl.from),
            y + dy,
            (x(sl.to) - x(sl.from)).max(0.5),
            fill(sl.cat),
            escape(&sl.name),
            crate::trace::show::ns(sl.to.saturating_sub(sl.from))
        );
    }
    // Over the slices: the span from due to ran, shaded, with a line at
    // each end.
    if let Some(y) = e.cpu.and_then(y_of) {
        let (x0, x1) = (x(due), x(due + e.latency_ns));
        let _ = write!(
            s,
            "<rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#ffd33d\" opacity=\".45\"><title>{}</title></rect>\
<line x1=\"{x0:.1}\" x2=\"{x0:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#222\" stroke-dasharray=\"3,2\"/>\
<line x1=\"{x1:.1}\" x2=\"{x1:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#222\"/>",
            y - 2.0,
            (x1 - x0).max(1.0),
            lane,
            escape(&crate::trace::show::line(e)),
            y - 3.0,
            y + lane - 2.0,
            y - 3.0,
            y + lane - 2.0
        );
    }
    // A time axis: the window's span, from its start.
    let ya = top + lane * cpus.len() as f64 + 12.0;
    let _ = write!(
        s,
        "<text x=\"{left}\" y=\"{ya:.1}\">0</text><text x=\"{:.1}\" y=\"{ya:.1}\" text-anchor=\"end\">{}</text></svg>",
        w - 10.0,
        crate::trace::show::ns(end)
    );
    s
}
