//! mem: contest's memory load, touching a large region again and again in
//! a pattern that defeats caches and prefetchers (pages visited with a
//! large prime step).  Sized from free memory so it never meets the OOM
//! killer.  Work: MiB touched.

use super::size::{mem_size, Memory};
use super::{Load, LoadOptions};
use anyhow::Result;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const PAGE: usize = 4096;
/// A prime step over pages, so consecutive touches land far apart.
const STEP: usize = 1_000_003;

/// Smallest mem load: a region of at least a few pages to walk.
const MIN_MEM: u64 = 1 << 20;

pub struct Mem {
    size: u64,
    why: String,
}

impl Mem {
    pub fn new(o: &LoadOptions) -> Result<Mem> {
        if let Some(s) = o.size.filter(|s| *s < MIN_MEM) {
            return Err(crate::error::input(format!(
                "mem load of {s} bytes is too small: at least 1 MiB"
            )));
        }
        let (size, why) = mem_size(&Memory::read(), o.size)?;
        Ok(Mem { size, why })
    }
}

impl Load for Mem {
    fn name(&self) -> &'static str {
        "mem"
    }
    fn unit(&self) -> &'static str {
        "MiB"
    }
    fn describe(&self) -> String {
        format!("touching {}", self.why)
    }
    fn prepare(&mut self, _dir: &Path, _progress: &mut dyn FnMut(u64, u64)) -> Result<()> {
        Ok(())
    }
    fn workers(&self) -> usize {
        1
    }
    fn run_worker(&self, _i: usize, _dir: &Path, work: &AtomicU64) -> i32 {
        let len = self.size as usize;
        let Some(mut map) = crate::sys::mem::AnonMap::new(len) else {
            return 12;
        };
        let pages = len / PAGE;
        let step = if pages.is_multiple_of(STEP) {
            STEP + 2
        } else {
            STEP
        };
        let mut idx = 0usize;
        let mut n = 0u64;
        loop {
            map.bump(idx * PAGE + (n as usize % 64) * 8);
            idx = (idx + step) % pages;
            n += 1;
            if n.is_multiple_of(256) {
                work.fetch_add(1, Relaxed);
            }
        }
    }
}
