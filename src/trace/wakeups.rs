//! How a probe tells the tracer about its wake-ups, from inside its
//! measured loop: [`note`] with the task, when it should have run and when
//! it ran.  Untraced, that is one relaxed load and a compare (the bar is
//! `u64::MAX`); traced, only a wake-up at or over the bar (the worst kept
//! so far, or the threshold) goes further, into a fixed ring of slots:
//! no allocation, no lock, no system call.  The ring is a static of
//! kbench's, or (after [`share`], for probes that fork their workers and
//! a reader in a child process) one mapping shared with every fork.
//!
//! The ring is Dmitry Vyukov's bounded MPMC queue, used here with many
//! producers (the probe's threads) and one consumer (the trace reader):
//! each slot's sequence number says whether it is free for the producer
//! that claimed its position or full for the consumer
//! (<https://www.1024cores.net/home/lock-free-algorithms/queues/bounded-mpmc-queue>).
//! A wake-up that finds the ring full is counted as dropped, never waited
//! for.

use std::sync::atomic::{AtomicU64, Ordering::*};
use std::sync::OnceLock;

/// Slots in the ring: the reader drains it every few milliseconds, and
/// only wake-ups over the bar enter.
const SLOTS: usize = 1024;

/// The ring is words, all atomic, so that it can live in memory shared
/// with forked probes as well as in a static: the head, the tail, the bar
/// (a wake-up this late or later is sent; `u64::MAX` when nothing
/// traces), the dropped and noted counts, then per slot its sequence
/// number, task, expected and ran times.
const HEAD: usize = 0;
const TAIL: usize = 1;
const BAR: usize = 2;
const DROPPED: usize = 3;
const NOTED: usize = 4;
const SLOT0: usize = 5;
const WORDS: usize = SLOT0 + 4 * SLOTS;

/// The ring of a process that does not fork its probes.
static LOCAL: [AtomicU64; WORDS] = {
    let mut r = [const { AtomicU64::new(0) }; WORDS];
    r[BAR] = AtomicU64::new(u64::MAX);
    let mut i = 0;
    while i < SLOTS {
        r[SLOT0 + 4 * i] = AtomicU64::new(i as u64);
        i += 1;
    }
    r
};

/// Once [`share`] has run, the ring in shared anonymous memory that
/// forked probes and a forked reader also see.
static SHARED: OnceLock<Result<&'static [AtomicU64], i32>> = OnceLock::new();

fn ring() -> &'static [AtomicU64] {
    match SHARED.get() {
        Some(Ok(r)) => r,
        _ => &LOCAL,
    }
}

fn slot(r: &[AtomicU64], pos: u64) -> &[AtomicU64] {
    let at = SLOT0 + 4 * (pos as usize % SLOTS);
    &r[at..at + 4]
}

/// Move the ring into memory shared with every process forked from now
/// on (a probe whose wake-ups come from forked workers, a reader in a
/// child process).  Done once; the mapping lives as long as kbench.
pub fn share() -> std::io::Result<()> {
    let r = SHARED.get_or_init(|| {
        let r = crate::sys::shared::leak_shared_words(WORDS)
            .map_err(|e| e.raw_os_error().unwrap_or(0))?;
        r[BAR].store(u64::MAX, Relaxed);
        for i in 0..SLOTS {
            r[SLOT0 + 4 * i].store(i as u64, Relaxed);
        }
        Ok(r)
    });
    r.map(|_| ()).map_err(std::io::Error::from_raw_os_error)
}

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
    let r = ring();
    if ran.saturating_sub(expected) >= r[BAR].load(Relaxed) {
        push(r, tid, expected, ran);
    }
}

#[cold]
#[inline(never)]
fn push(r: &[AtomicU64], tid: i32, expected: u64, ran: u64) {
    r[NOTED].fetch_add(1, Relaxed);
    let mut pos = r[HEAD].load(Relaxed);
    loop {
        let s = slot(r, pos);
        let seq = s[0].load(Acquire);
        if seq == pos {
            match r[HEAD].compare_exchange_weak(pos, pos + 1, Relaxed, Relaxed) {
                Ok(_) => {
                    s[1].store(tid as u32 as u64, Relaxed);
                    s[2].store(expected, Relaxed);
                    s[3].store(ran, Relaxed);
                    s[0].store(pos + 1, Release);
                    return;
                }
                Err(p) => pos = p,
            }
        } else if seq < pos {
            r[DROPPED].fetch_add(1, Relaxed);
            return;
        } else {
            pos = r[HEAD].load(Relaxed);
        }
    }
}

/// The reader's side: take every wake-up sent so far.
pub fn drain(out: &mut Vec<Wakeup>) {
    let r = ring();
    loop {
        let pos = r[TAIL].load(Relaxed);
        let s = slot(r, pos);
        if s[0].load(Acquire) != pos + 1 {
            return;
        }
        out.push(Wakeup {
            tid: s[1].load(Relaxed) as u32 as i32,
            expected: s[2].load(Relaxed),
            ran: s[3].load(Relaxed),
        });
        r[TAIL].store(pos + 1, Relaxed);
        s[0].store(pos + SLOTS as u64, Release);
    }
}

/// Set the bar: wake-ups at least this late are sent (`u64::MAX`: none).
pub fn set_bar(ns: u64) {
    ring()[BAR].store(ns, Relaxed);
}

/// Start listening: the bar at `ns`, the counters at zero, the ring empty.
pub fn open(ns: u64) {
    let mut sink = Vec::new();
    drain(&mut sink);
    ring()[DROPPED].store(0, Relaxed);
    ring()[NOTED].store(0, Relaxed);
    set_bar(ns);
}

/// Stop listening; (sent, dropped because the ring was full).
pub fn close() -> (u64, u64) {
    set_bar(u64::MAX);
    (ring()[NOTED].load(Relaxed), ring()[DROPPED].load(Relaxed))
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

        // Shared: a forked child's wake-ups reach the parent.
        share().unwrap();
        open(100);
        crate::sys::shared::in_forked_child(|| {
            note(77, 5, 500);
            note(78, 5, 50); // under the bar
        });
        drain(&mut got);
        assert_eq!(
            got,
            vec![Wakeup {
                tid: 77,
                expected: 5,
                ran: 500
            }]
        );
        assert_eq!(close(), (1, 0));
    }
}
