//! Lock-free per-thread counters for the live display: the measuring
//! thread stores with relaxed atomics, the display thread reads them.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering::Relaxed};

#[derive(Default, Debug)]
pub struct LiveStat {
    pub tid: AtomicI32,
    pub cycles: AtomicU64,
    pub act_ns: AtomicU64,
    pub min_ns: AtomicU64,
    pub max_ns: AtomicU64,
    pub sum_ns: AtomicU64,
}

/// One [`LiveStat`] per thread.
#[derive(Debug)]
pub struct Live {
    pub stats: Vec<LiveStat>,
}

impl Live {
    pub fn new(n: usize) -> Live {
        Live {
            stats: (0..n)
                .map(|_| {
                    let s = LiveStat::default();
                    s.min_ns.store(u64::MAX, Relaxed);
                    s
                })
                .collect(),
        }
    }
}

/// The figures of cyclictest's per-thread line, times in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineStats {
    pub tid: i32,
    pub cycles: u64,
    pub min_ns: u64,
    pub act_ns: u64,
    pub avg_ns: u64,
    pub max_ns: u64,
}

impl LiveStat {
    /// A snapshot for display (fields may be a sample apart).
    pub fn snapshot(&self) -> LineStats {
        let c = self.cycles.load(Relaxed);
        LineStats {
            tid: self.tid.load(Relaxed),
            cycles: c,
            min_ns: if c == 0 { 0 } else { self.min_ns.load(Relaxed) },
            act_ns: self.act_ns.load(Relaxed),
            avg_ns: self.sum_ns.load(Relaxed).checked_div(c).unwrap_or(0),
            max_ns: self.max_ns.load(Relaxed),
        }
    }
}
