//! io and io_other: contest's I/O loads, streaming zeros into a file the
//! size of RAM (as the disk allows); when it is full the file is truncated
//! and written again, as contest's `dd if=/dev/zero of=F bs=1M` in a loop
//! did (each dd opens with O_TRUNC, so the kernel frees and reallocates
//! the blocks, which an overwrite in place would not do).  io_other does
//! the same in a second location.  Work: MiB written.

use super::size::{file_size_in, Memory};
use super::{Load, LoadOptions};
use anyhow::Result;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const BLOCK: usize = 1 << 20;

pub struct Io {
    name: &'static str,
    dir: PathBuf,
    size: u64,
    why: String,
}

impl Io {
    pub fn new(name: &'static str, dir: &Path, o: &LoadOptions) -> Result<Io> {
        if !dir.is_dir() {
            return Err(crate::error::input(format!(
                "{name} load: {} is not a directory{}",
                dir.display(),
                if name == "io_other" {
                    " (give --io-other-dir DIR, ideally on another disk)"
                } else {
                    ""
                }
            )));
        }
        let (size, why) = file_size_in(dir, Memory::read().total, o.size, name)?;
        Ok(Io {
            name,
            dir: dir.to_path_buf(),
            size,
            why,
        })
    }
}

impl Load for Io {
    fn name(&self) -> &'static str {
        self.name
    }
    fn unit(&self) -> &'static str {
        "MiB"
    }
    fn describe(&self) -> String {
        format!(
            "writing zeros to a file of {} in {}",
            self.why,
            self.dir.display()
        )
    }
    fn location(&self) -> Option<PathBuf> {
        Some(self.dir.clone())
    }
    fn prepare(&mut self, _dir: &Path, _progress: &mut dyn FnMut(u64, u64)) -> Result<()> {
        Ok(())
    }
    fn disk_claim(&self) -> Option<u64> {
        Some(self.size)
    }
    fn workers(&self) -> usize {
        1
    }
    fn run_worker(&self, _i: usize, dir: &Path, work: &AtomicU64) -> i32 {
        let path = dir.join(format!("{}.dat", self.name));
        let buf = vec![0u8; BLOCK];
        loop {
            // One pass of `dd`: open with truncation, write the size, close.
            let Ok(mut f) = std::fs::File::create(&path) else {
                return 13;
            };
            let mut written = 0u64;
            while written < self.size {
                if f.write_all(&buf).is_err() {
                    return 14;
                }
                work.fetch_add(1, Relaxed);
                written += BLOCK as u64;
            }
        }
    }
}
