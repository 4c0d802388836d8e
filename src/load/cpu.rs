//! cpu: N busy processes doing integer arithmetic (the seed's prime
//! workers are one flavour of this).  Work: millions of loop iterations.

use super::Load;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub struct Cpu {
    n: usize,
}

impl Cpu {
    pub fn new(n: usize) -> Cpu {
        Cpu { n: n.max(1) }
    }
}

impl Load for Cpu {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn unit(&self) -> &'static str {
        "Mloops"
    }
    fn describe(&self) -> String {
        format!("{} busy processes", self.n)
    }
    fn prepare(&mut self, _dir: &Path, _progress: &mut dyn FnMut(u64, u64)) -> anyhow::Result<()> {
        Ok(())
    }
    fn workers(&self) -> usize {
        self.n
    }
    fn run_worker(&self, i: usize, _dir: &Path, work: &AtomicU64) -> i32 {
        let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ i as u64;
        loop {
            for _ in 0..1_000_000 {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
            }
            std::hint::black_box(x);
            work.fetch_add(1, Relaxed);
        }
    }
}
