//! Video, X or Custom as a background load: the same CPU pattern as the
//! simulated task, in a load process, unmeasured.  Work: periods run.

use super::account::{Account, Next};
use super::{calibrate, Kind};
use crate::sys::time::{mono_ns, sleep_until_ns};
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

/// One period of `run_us` CPU every `interval` ns, sleeping to deadlines.
fn period(a: &mut Account, deadline: &mut u64, run_us: u64, interval: u64, lpms: u64) {
    let (mut p, next) = a.begin(deadline, 0, interval, mono_ns());
    let sleep = match next {
        Next::Sleep(d) => Some(d),
        Next::Burn => {
            calibrate::burn_us(lpms, run_us);
            a.after_burn(&mut p, deadline, interval, mono_ns())
                .then_some(*deadline)
        }
    };
    if let Some(d) = sleep {
        sleep_until_ns(d);
    }
    // The load keeps no statistics: start each period afresh.
    *a = Account::default();
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
        let mut deadline = mono_ns();
        let lpms = self.loops_per_ms;
        loop {
            match self.kind {
                Kind::X => {
                    for i in 0..=100u64 {
                        period(&mut a, &mut deadline, i * 1000, (100 - i) * 1_000_000, lpms);
                        deadline += i * 1_000_000;
                        work.fetch_add(1, Relaxed);
                    }
                }
                k => {
                    let (run, interval) = k.period(self.custom).unwrap_or((0, 1));
                    period(&mut a, &mut deadline, run, interval * 1000, lpms);
                    work.fetch_add(1, Relaxed);
                }
            }
        }
    }
}
