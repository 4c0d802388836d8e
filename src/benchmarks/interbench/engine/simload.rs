//! Video, X or Custom as a background load: the same CPU pattern as the
//! simulated task, in a load process, unmeasured.  Work: periods run.

use super::account::Account;
use super::Kind;
use crate::sys::time::sleep_until_ns;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub struct Simulated {
    kind: Kind,
    loops_per_ms: u64,
    custom: (u64, u64),
}

impl Simulated {
    pub fn new(kind: Kind, loops_per_ms: u64, custom: Option<(u64, u64)>) -> Simulated {
        Simulated {
            kind,
            loops_per_ms,
            custom: custom.unwrap_or((0, 1)),
        }
    }
}

impl crate::load::Load for Simulated {
    fn name(&self) -> &'static str {
        match self.kind {
            Kind::Video => "video",
            Kind::X => "x",
            _ => "custom",
        }
    }
    fn unit(&self) -> &'static str {
        "periods"
    }
    fn describe(&self) -> String {
        format!("interbench's simulated {} as a load", self.kind.label())
    }
    fn prepare(&mut self, _dir: &Path, _progress: &mut dyn FnMut(u64, u64)) -> anyhow::Result<()> {
        Ok(())
    }
    fn workers(&self) -> usize {
        1
    }
    fn run_worker(&self, _i: usize, _dir: &Path, work: &AtomicU64) -> i32 {
        let mut a = Account::default();
        let lpms = self.loops_per_ms;
        super::pattern(
            self.kind,
            Some(self.custom),
            |deadline, run_us, interval| {
                super::period(&mut a, deadline, 0, run_us, interval, lpms, |d| {
                    if let Some(d) = d {
                        sleep_until_ns(d);
                    }
                });
                // The load keeps no statistics: each period starts afresh.
                a = Account::default();
                work.fetch_add(1, Relaxed);
                true
            },
        );
        0
    }
}
