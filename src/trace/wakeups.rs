//! How a probe tells the tracer about its wake-ups, from inside its
//! measured loop: [`note`] with the task, when it should have run and when
//! it ran.  Untraced, that is one relaxed load and a compare (the bar is
//! `u64::MAX`); traced, only a wake-up at or over the bar (the worst kept
//! so far, or the threshold) goes further, into a fixed ring of slots
//! allocated at compile time: no allocation, no lock, no system call.
//!
//! The ring is Dmitry Vyukov's bounded MPMC queue, used here with many
//! producers (the probe's threads) and one consumer (the trace reader):
//! each slot's sequence number says whether it is free for the producer
//! that claimed its position or full for the consumer
//! (<https://www.1024cores.net/home/lock-free-algorithms/queues/bounded-mpmc-queue>).
//! A wake-up that finds the ring full is counted as dropped, never waited
//! for.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::*};

/// Slots in the ring: the reader drains it every few milliseconds, and
/// only wake-ups over the bar enter.
const SLOTS: usize = 1024;

struct Slot {
    seq: AtomicU64,
    tid: AtomicI64,
    expected: AtomicU64,
    ran: AtomicU64,
}

impl Slot {
    const fn new(i: usize) -> Slot {
        Slot {
            seq: AtomicU64::new(i as u64),
            tid: AtomicI64::new(0),
            expected: AtomicU64::new(0),
            ran: AtomicU64::new(0),
        }
    }
}

static RING: [Slot; SLOTS] = {
    let mut r = [const { Slot::new(0) }; SLOTS];
    let mut i = 0;
    while i < SLOTS {
        r[i] = Slot::new(i);
        i += 1;
    }
    r
};
static HEAD: AtomicU64 = AtomicU64::new(0);
static TAIL: AtomicU64 = AtomicU64::new(0);
/// A wake-up this late or later is sent; `u64::MAX` when nothing traces.
static BAR_NS: AtomicU64 = AtomicU64::new(u64::MAX);
static DROPPED: AtomicU64 = AtomicU64::new(0);
static NOTED: AtomicU64 = AtomicU64::new(0);

/// One wake-up the probe saw: task `tid` should have run at `expected`
/// and ran at `ran` (CLOCK_MONOTONIC ns, the trace's clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wakeup {
    pub tid: i32,
    pub expected: u64,
    pub ran: u64,
}

impl Wakeup {
    pub fn latency(&self) -> u64 {
        self.ran.saturating_sub(self.expected)
    }
}

/// Tell the tracer about a wake-up.  Called from measured loops.
#[inline(always)]
pub fn note(tid: i32, expected: u64, ran: u64) {
    if ran.saturating_sub(expected) >= BAR_NS.load(Relaxed) {
        push(tid, expected, ran);
    }
}

#[cold]
#[inline(never)]
fn push(tid: i32, expected: u64, ran: u64) {
    NOTED.fetch_add(1, Relaxed);
    let mut pos = HEAD.load(Relaxed);
    loop {
        let slot = &RING[pos as usize % SLOTS];
        let seq = slot.seq.load(Acquire);
        if seq == pos {
            match HEAD.compare_exchange_weak(pos, pos + 1, Relaxed, Relaxed) {
                Ok(_) => {
                    slot.tid.store(tid as i64, Relaxed);
                    slot.expected.store(expected, Relaxed);
                    slot.ran.store(ran, Relaxed);
                    slot.seq.store(pos + 1, Release);
                    return;
                }
                Err(p) => pos = p,
            }
        } else if seq < pos {
            DROPPED.fetch_add(1, Relaxed);
            return;
        } else {
            pos = HEAD.load(Relaxed);
        }
    }
}

/// The reader's side: take every wake-up sent so far.
pub fn drain(out: &mut Vec<Wakeup>) {
    loop {
        let pos = TAIL.load(Relaxed);
        let slot = &RING[pos as usize % SLOTS];
        if slot.seq.load(Acquire) != pos + 1 {
            return;
        }
        out.push(Wakeup {
            tid: slot.tid.load(Relaxed) as i32,
            expected: slot.expected.load(Relaxed),
            ran: slot.ran.load(Relaxed),
        });
        TAIL.store(pos + 1, Relaxed);
        slot.seq.store(pos + SLOTS as u64, Release);
    }
}

/// Set the bar: wake-ups at least this late are sent (`u64::MAX`: none).
pub fn set_bar(ns: u64) {
    BAR_NS.store(ns, Relaxed);
}

/// Start listening: the bar at `ns`, the counters at zero, the ring empty.
pub fn open(ns: u64) {
    let mut sink = Vec::new();
    drain(&mut sink);
    DROPPED.store(0, Relaxed);
    NOTED.store(0, Relaxed);
    set_bar(ns);
}

/// Stop listening; (sent, dropped because the ring was full).
pub fn close() -> (u64, u64) {
    set_bar(u64::MAX);
    (NOTED.load(Relaxed), DROPPED.load(Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test drives the one global ring (tests run in threads).
    #[test]
    fn wakeups_over_the_bar_arrive_and_a_full_ring_drops() {
        note(1, 0, 1_000_000); // untraced: nothing
        let mut got = Vec::new();
        drain(&mut got);
        assert!(got.is_empty());
        open(100);
        note(1, 0, 50); // under the bar
        note(2, 10, 210);
        std::thread::scope(|s| {
            for t in 0..4 {
                s.spawn(move || {
                    for i in 0..100u64 {
                        note(10 + t, i, i + 1000);
                    }
                });
            }
        });
        drain(&mut got);
        assert_eq!(got.len(), 401);
        assert_eq!(
            got[0],
            Wakeup {
                tid: 2,
                expected: 10,
                ran: 210
            }
        );
        assert_eq!(got[0].latency(), 200);
        for i in 0..(SLOTS as u64 + 5) {
            note(3, 0, 500 + i);
        }
        let (sent, dropped) = close();
        assert_eq!(dropped, 5);
        assert_eq!(sent, 401 + SLOTS as u64 + 5);
        got.clear();
        drain(&mut got);
        assert_eq!(got.len(), SLOTS);
        note(1, 0, u64::MAX - 1); // closed again
        got.clear();
        drain(&mut got);
        assert!(got.is_empty());
    }
}
