//! Explanations of hand-built windows: each part where it belongs, and
//! the parts summing to the latency.

use super::*;
use crate::trace::event::{Comm, Event, Kind};

fn comm(s: &str) -> Comm {
    let mut c = [0u8; 16];
    c[..s.len()].copy_from_slice(s.as_bytes());
    c
}

fn ev(ts: u64, cpu: u16, pid: i32, kind: Kind) -> Event {
    Event { ts, cpu, pid, kind }
}

fn switch(ts: u64, cpu: u16, prev: (i32, &str, i32), next: (i32, &str, i32)) -> Event {
    ev(
        ts,
        cpu,
        prev.0,
        Kind::Switch {
            prev_pid: prev.0,
            prev_prio: prev.2,
            prev_state: 0,
            prev_comm: comm(prev.1),
            next_pid: next.0,
            next_prio: next.2,
            next_comm: comm(next.1),
        },
    )
}

fn sum(e: &Explanation) -> u64 {
    e.parts.iter().map(|p| p.ns).sum()
}

/// A probe due at 1000 behind a hog that runs until 4000, with an IRQ
/// in the middle and a softirq after it; switched in at 4000, ran at 4100.
#[test]
fn a_hog_an_irq_and_a_softirq_share_the_latency() {
    let probe = 50;
    let hog = (40, "hog", 120);
    let events = vec![
        switch(500, 1, (0, "swapper/1", 120), hog),
        ev(1_000, 1, 40, Kind::TimerEntry),
        ev(
            1_010,
            1,
            40,
            Kind::Waking {
                pid: probe,
                prio: 120,
                target_cpu: 1,
                comm: comm("probe"),
            },
        ),
        ev(1_020, 1, 40, Kind::TimerExit),
        ev(2_000, 1, 40, Kind::IrqEntry { irq: 11 }),
        ev(2_300, 1, 40, Kind::IrqExit { irq: 11 }),
        ev(2_300, 1, 40, Kind::SoftirqEntry { vec: 1 }),
        ev(2_400, 1, 40, Kind::SoftirqExit { vec: 1 }),
        switch(4_000, 1, hog, (probe, "probe", 120)),
    ];
    let w = Wakeup {
        tid: probe,
        expected: 1_000,
        ran: 4_100,
    };
    let names = HashMap::from([(11, "virtio0".to_string())]);
    let e = explain(&events, &w, &names, |_| false, &mut Procs::default());
    assert_eq!(sum(&e), 3_100, "{e:?}");
    assert_eq!(e.cpu, Some(1));
    assert_eq!(e.comm, "probe");
    let part = |f: &dyn Fn(&What) -> bool| e.parts.iter().find(|p| f(&p.what)).map(|p| p.ns);
    assert_eq!(
        part(&|w| matches!(w, What::Task { pid: 40, .. })),
        Some(2_600)
    );
    assert_eq!(part(&|w| matches!(w, What::Irq { irq: 11, .. })), Some(300));
    assert_eq!(
        part(&|w| matches!(w, What::Softirq { vec: 1, .. })),
        Some(100)
    );
    assert_eq!(part(&|w| *w == What::Probe), Some(100));
    assert!(matches!(&e.parts[0].what, What::Task { class, .. } if class == "fair, nice 0"));
    let by = e.woken_by.unwrap();
    assert_eq!((by.pid, by.cpu, by.after_ns), (40, 1, 10));
    assert_eq!(by.context, "timer");
    assert_eq!(by.comm, "hog");
}

/// An IRQ already running when the window starts (its exit comes
/// first) is charged from the due time, and an idle CPU is idle.
#[test]
fn an_irq_begun_before_the_window_and_idle_time_are_charged() {
    let events = vec![
        ev(1_500, 0, 0, Kind::IrqExit { irq: 5 }),
        switch(3_000, 0, (0, "swapper/0", 120), (7, "rt", 0)),
    ];
    let w = Wakeup {
        tid: 7,
        expected: 1_000,
        ran: 3_000,
    };
    let e = explain(
        &events,
        &w,
        &HashMap::new(),
        |_| true,
        &mut Procs::default(),
    );
    assert_eq!(sum(&e), 2_000);
    assert_eq!(
        e.parts[0],
        Part {
            what: What::Idle,
            ns: 1_500
        }
    );
    assert_eq!(e.parts[1].ns, 500);
    assert!(matches!(e.parts[1].what, What::Irq { irq: 5, .. }));
    assert!(e.lost_events);
}

/// No switch to the task in the window: all of it unaccounted, said so.
#[test]
fn a_window_without_the_task_is_unaccounted_not_guessed() {
    let events = vec![switch(10, 0, (0, "swapper/0", 120), (9, "other", 120))];
    let w = Wakeup {
        tid: 7,
        expected: 0,
        ran: 100,
    };
    let e = explain(
        &events,
        &w,
        &HashMap::new(),
        |_| false,
        &mut Procs::default(),
    );
    assert_eq!(e.cpu, None);
    assert_eq!(sum(&e), 100);
    assert!(matches!(e.parts[0].what, What::Unaccounted { .. }));
    // Events on the CPU begin after the due time: the task current
    // before them is the first switch's previous task (a real-time one).
    let events = vec![
        ev(50, 0, 3, Kind::SoftirqEntry { vec: 9 }),
        ev(60, 0, 3, Kind::SoftirqExit { vec: 9 }),
        switch(80, 0, (3, "x", 0), (7, "rt", 0)),
    ];
    let e = explain(
        &events,
        &w,
        &HashMap::new(),
        |_| false,
        &mut Procs::default(),
    );
    assert_eq!(sum(&e), 100);
    let t = e
        .parts
        .iter()
        .find(|p| matches!(p.what, What::Task { pid: 3, .. }))
        .unwrap();
    assert_eq!(t.ns, 70, "{e:?}");
    assert!(matches!(&t.what, What::Task { class, .. } if class == "real-time 99"));
}

/// Random event streams: never a panic, parts always sum to the latency.
#[test]
fn generated_windows_always_sum() {
    let mut seed = 0x6b62_656e_6368_u64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for _ in 0..2_000 {
        let mut events = Vec::new();
        let mut ts = 0;
        for _ in 0..rnd(40) {
            ts += rnd(100);
            let cpu = rnd(2) as u16;
            let pid = rnd(4) as i32;
            let kind = match rnd(7) {
                0 => Kind::IrqEntry { irq: rnd(3) as i32 },
                1 => Kind::IrqExit { irq: rnd(3) as i32 },
                2 => Kind::SoftirqEntry {
                    vec: rnd(10) as i32,
                },
                3 => Kind::SoftirqExit {
                    vec: rnd(10) as i32,
                },
                4 => Kind::Waking {
                    pid: rnd(4) as i32,
                    prio: 120,
                    target_cpu: 0,
                    comm: comm("w"),
                },
                _ => Kind::Switch {
                    prev_pid: pid,
                    prev_prio: rnd(140) as i32 - 1,
                    prev_state: 0,
                    prev_comm: comm("a"),
                    next_pid: rnd(4) as i32,
                    next_prio: 120,
                    next_comm: comm("b"),
                },
            };
            events.push(ev(ts, cpu, pid, kind));
        }
        let expected = rnd(2_000);
        let w = Wakeup {
            tid: rnd(4) as i32,
            expected,
            ran: expected + rnd(2_000),
        };
        let e = explain(
            &events,
            &w,
            &HashMap::new(),
            |_| false,
            &mut Procs::default(),
        );
        assert_eq!(sum(&e), w.latency(), "{events:?} {w:?} {e:?}");
    }
}

/// This kernel does not trace switches from idle on some CPUs: the task
/// is found where its wake-up put it, the time the trace shows is
/// charged, and the rest is unaccounted, said so.
#[test]
fn a_switch_from_idle_missing_from_the_trace_is_unaccounted() {
    let events = vec![
        switch(100, 1, (7, "probe", 120), (0, "swapper/1", 120)),
        ev(1_000, 1, 0, Kind::VectorEntry { which: 0 }),
        ev(
            1_010,
            1,
            0,
            Kind::Waking {
                pid: 7,
                prio: 120,
                target_cpu: 1,
                comm: comm("probe"),
            },
        ),
        ev(
            1_020,
            1,
            0,
            Kind::Wakeup {
                pid: 7,
                target_cpu: 1,
            },
        ),
        ev(1_100, 1, 0, Kind::VectorExit { which: 0 }),
    ];
    let w = Wakeup {
        tid: 7,
        expected: 900,
        ran: 1_150,
    };
    let e = explain(
        &events,
        &w,
        &HashMap::new(),
        |_| false,
        &mut Procs::default(),
    );
    assert_eq!(e.cpu, Some(1));
    assert_eq!(e.comm, "probe");
    assert_eq!(sum(&e), 250);
    let part = |f: &dyn Fn(&What) -> bool| e.parts.iter().find(|p| f(&p.what)).map(|p| p.ns);
    assert_eq!(part(&|w| *w == What::Idle), Some(100));
    assert_eq!(part(&|w| matches!(w, What::Vector { .. })), Some(100));
    assert_eq!(part(&|w| matches!(w, What::Unaccounted { .. })), Some(50));
    assert_eq!(e.woken_by.unwrap().context, "IRQ");
}
