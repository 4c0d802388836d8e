//! list: contest's `ls -lRa /` load, walking a tree with an lstat of
//! every entry, again and again, staying on one filesystem (so /proc and
//! /sys are not walked).  Work: entries listed.

use super::walk::{walk_with, Options};
use super::Load;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub struct List {
    root: PathBuf,
}

impl List {
    pub fn new(root: PathBuf) -> List {
        List { root }
    }
}

impl Load for List {
    fn name(&self) -> &'static str {
        "list"
    }
    fn unit(&self) -> &'static str {
        "entries"
    }
    fn describe(&self) -> String {
        format!(
            "listing {} with an lstat of every entry, repeatedly",
            self.root.display()
        )
    }
    fn prepare(&mut self, _dir: &Path, _progress: &mut dyn FnMut(u64, u64)) -> Result<()> {
        super::walk::check_root(&self.root).map_err(crate::error::input)
    }
    fn workers(&self) -> usize {
        1
    }
    fn run_worker(&self, _i: usize, _dir: &Path, work: &AtomicU64) -> i32 {
        let opts = Options {
            path: self.root.clone(),
            one_filesystem: true,
            stat_every_entry: true,
        };
        loop {
            walk_with(&opts, false, &mut || {
                work.fetch_add(1, Relaxed);
            });
        }
    }
}
