//! read: contest's read load.  A file the size of RAM (as the disk
//! allows) is written once, untimed; then it is read again and again, its
//! pages dropped from the cache after every pass so each read reaches the
//! disk.  Work: MiB read.

use super::size::{file_size, statvfs, Memory};
use super::{Load, LoadOptions};
use anyhow::{Context, Result};
use std::io::{Read as _, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const BLOCK: usize = 1 << 20;

pub struct Read {
    size: u64,
    why: String,
}

impl Read {
    pub fn new(o: &LoadOptions) -> Result<Read> {
        let dir = o.base_dir();
        let (free, fs) = statvfs(&dir)?;
        let (size, why) = file_size(Memory::read().total, free, fs, o.size, "read")?;
        Ok(Read { size, why })
    }
}

fn drop_pages(f: &std::fs::File) {
    // SAFETY: advisory call on an fd we own.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
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
    fn prepare(&mut self, dir: &Path) -> Result<()> {
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
