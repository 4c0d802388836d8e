//! process: contest's process load, a unidirectional ring of N = 4×ncpu
//! processes joined by pipes, with M ≪ N chunks of data passed around it.
//! Work: laps (chunks passing process 0).

use super::Load;
use anyhow::Result;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const CHUNK: usize = 4096;

pub struct Ring {
    n: usize,
    chunks: usize,
    /// `pipes[i]` carries data from process i to process i+1 (mod n).
    pipes: Vec<(OwnedFd, OwnedFd)>,
}

impl Ring {
    pub fn new(n: usize) -> Ring {
        let n = n.max(2);
        Ring {
            n,
            chunks: (n / 4).max(1),
            pipes: Vec::new(),
        }
    }
}

impl Load for Ring {
    fn name(&self) -> &'static str {
        "process"
    }
    fn unit(&self) -> &'static str {
        "laps"
    }
    fn describe(&self) -> String {
        format!(
            "a ring of {} processes joined by pipes, {} chunks of {CHUNK} bytes circulating",
            self.n, self.chunks
        )
    }
    fn prepare(&mut self, _dir: &Path, _progress: &mut dyn FnMut(u64, u64)) -> Result<()> {
        self.pipes = (0..self.n)
            .map(|_| crate::sys::fd::pipe())
            .collect::<std::io::Result<_>>()?;
        Ok(())
    }
    fn workers(&self) -> usize {
        self.n
    }
    fn run_worker(&self, i: usize, _dir: &Path, work: &AtomicU64) -> i32 {
        let input = self.pipes[(i + self.n - 1) % self.n].0.as_raw_fd();
        let output = self.pipes[i].1.as_raw_fd();
        // Close every other pipe end so the ring is the only path.
        for (k, (r, w)) in self.pipes.iter().enumerate() {
            if k != (i + self.n - 1) % self.n {
                crate::sys::fd::close_raw(r.as_raw_fd());
            }
            if k != i {
                crate::sys::fd::close_raw(w.as_raw_fd());
            }
        }
        let mut buf = vec![0x5au8; CHUNK];
        if i == 0 {
            for _ in 0..self.chunks {
                if crate::sys::fd::write_all(output, &buf).is_err() {
                    return 10;
                }
            }
        }
        loop {
            if !matches!(crate::sys::fd::read_full(input, &mut buf), Ok(true)) {
                return 11;
            }
            if i == 0 {
                work.fetch_add(1, Relaxed);
            }
            if crate::sys::fd::write_all(output, &buf).is_err() {
                return 10;
            }
        }
    }
}
