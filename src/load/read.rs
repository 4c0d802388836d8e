//! read: contest's read load.  A file is written once, untimed; then it
//! is read again and again, its pages dropped from the cache after every
//! pass so each read reaches the disk.  Work: MiB read.
//!
//! contest read a file the size of RAM, so that it could not stay cached.
//! kbench drops the file's pages after every pass (`posix_fadvise`
//! DONTNEED), which keeps every read on the disk whatever the size, so the
//! file defaults to [`DEFAULT_SIZE`] (or RAM, if smaller): set-up takes
//! seconds instead of minutes.  `--size` still chooses any size.

use super::size::{file_size_in, Memory};
use super::{Load, LoadOptions};
use anyhow::{Context, Result};
use std::io::{Read as _, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const BLOCK: usize = 1 << 20;

/// The read file's default size.
pub const DEFAULT_SIZE: u64 = 512 << 20;

pub struct Read {
    size: u64,
    why: String,
}

impl Read {
    pub fn new(o: &LoadOptions) -> Result<Read> {
        let dir = o.base_dir();
        let ram = Memory::read().total;
        let wanted = o.size.unwrap_or(ram.min(DEFAULT_SIZE));
        let (size, why) = file_size_in(&dir, ram, Some(wanted), "read")?;
        let why = if o.size.is_some() {
            why
        } else {
            format!(
                "{} (its pages are dropped after every pass, so every read reaches the disk; contest used the size of RAM)",
                crate::sys::size::human(size)
            )
        };
        Ok(Read { size, why })
    }
}

fn drop_pages(f: &std::fs::File) {
    crate::sys::fd::drop_cached_pages(f.as_raw_fd());
}

impl Load for Read {
    fn name(&self) -> &'static str {
        "read"
    }
    fn unit(&self) -> &'static str {
        "MiB"
    }
    fn describe(&self) -> String {
        format!("reading a file of {} over and over, uncached", self.why)
    }
    fn disk_claim(&self) -> Option<u64> {
        Some(self.size)
    }
    fn prepare(&mut self, dir: &Path, progress: &mut dyn FnMut(u64, u64)) -> Result<()> {
        let path = dir.join("read.dat");
        let mut f =
            std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        let block: Vec<u8> = (0..BLOCK).map(|i| (i % 251) as u8).collect();
        let mut left = self.size;
        while left > 0 {
            if crate::sys::signals::stop_requested() {
                return Err(crate::error::Interrupted.into());
            }
            let n = left.min(BLOCK as u64) as usize;
            f.write_all(&block[..n])
                .with_context(|| format!("writing {}", path.display()))?;
            left -= n as u64;
            progress(self.size - left, self.size);
        }
        f.sync_all()?;
        drop_pages(&f);
        Ok(())
    }
    fn workers(&self) -> usize {
        1
    }
    fn run_worker(&self, _i: usize, dir: &Path, work: &AtomicU64) -> i32 {
        let path = dir.join("read.dat");
        let mut buf = vec![0u8; BLOCK];
        loop {
            let Ok(mut f) = std::fs::File::open(&path) else {
                return 15;
            };
            loop {
                match f.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        // Count whole MiB; a short tail is counted as it fills.
                        if n == BLOCK {
                            work.fetch_add(1, Relaxed);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return 16,
                }
            }
            drop_pages(&f);
        }
    }
}
