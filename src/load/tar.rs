//! ctar and xtar: contest's tar loads.  ctar archives a source tree again
//! and again; xtar extracts an archive of it (made once, untimed) again
//! and again, removing each copy.  Both run the system's GNU tar.  Work:
//! archives made or extracted.

use super::runner::tool;
use super::Load;
use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Create,
    Extract,
}

pub struct Tar {
    mode: Mode,
    tree: PathBuf,
    /// Bytes of the tree's files: an archive takes about that much.
    tree_bytes: u64,
}

/// The bytes of every file under `dir`, symlinks not followed, rounded
/// up to 4 KiB blocks (what they take on disk once extracted; also what
/// a bisection's built work tree takes).
pub(crate) fn tree_bytes(dir: &Path) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(_) => {
                    let len = e.metadata().map(|m| m.len()).unwrap_or(0);
                    total = total.saturating_add(len.div_ceil(4096) * 4096 + 512);
                }
                Err(_) => {}
            }
        }
    }
    total
}

impl Tar {
    pub fn new(mode: Mode, tree: PathBuf) -> Tar {
        let tree_bytes = tree_bytes(&tree);
        Tar {
            mode,
            tree,
            tree_bytes,
        }
    }

    /// `tar cf ARCHIVE -C PARENT NAME`; GNU tar's status 1 ("some files
    /// changed while read") is fine for a load.
    fn create(&self, archive: &Path) -> Result<()> {
        let parent = self.tree.parent().unwrap_or(Path::new("/"));
        let name = self
            .tree
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("."));
        let st = tool("tar")
            .arg("cf")
            .arg(archive)
            .arg("-C")
            .arg(parent)
            .arg(name)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| anyhow!("running tar: {e} (apt-get install tar)"))?;
        match st.code() {
            Some(0) | Some(1) => Ok(()),
            _ => Err(anyhow!("tar cf {} failed: {st}", archive.display())),
        }
    }
}

impl Load for Tar {
    fn name(&self) -> &'static str {
        match self.mode {
            Mode::Create => "ctar",
            Mode::Extract => "xtar",
        }
    }
    fn unit(&self) -> &'static str {
        "archives"
    }
    fn describe(&self) -> String {
        match self.mode {
            Mode::Create => format!("archiving {} with tar, repeatedly", self.tree.display()),
            Mode::Extract => format!(
                "extracting an archive of {} with tar, repeatedly",
                self.tree.display()
            ),
        }
    }
    fn prepare(&mut self, dir: &Path, _progress: &mut dyn FnMut(u64, u64)) -> Result<()> {
        if self.mode == Mode::Extract {
            self.create(&dir.join("tree.tar"))
                .map_err(|e| crate::error::input(format!("xtar load: {e:#}")))?;
        } else {
            // Fail now, not in the worker, when tar is missing.
            tool("tar")
                .arg("--version")
                .stdout(Stdio::null())
                .status()
                .map_err(|e| {
                    crate::error::input(format!(
                        "ctar load: tar not found ({e}): apt-get install tar"
                    ))
                })?;
        }
        Ok(())
    }
    /// ctar: one archive at a time; xtar: the archive and one copy of
    /// the tree extracted from it.
    fn disk_claim(&self) -> Option<u64> {
        Some(match self.mode {
            Mode::Create => self.tree_bytes,
            Mode::Extract => self.tree_bytes.saturating_mul(2),
        })
    }
    fn workers(&self) -> usize {
        1
    }
    fn run_worker(&self, _i: usize, dir: &Path, work: &AtomicU64) -> i32 {
        loop {
            let ok = match self.mode {
                Mode::Create => self.create(&dir.join("out.tar")).is_ok(),
                Mode::Extract => {
                    let x = dir.join("x");
                    let _ = std::fs::remove_dir_all(&x);
                    std::fs::create_dir(&x).is_ok()
                        && tool("tar")
                            .arg("xf")
                            .arg(dir.join("tree.tar"))
                            .arg("-C")
                            .arg(&x)
                            .stdout(Stdio::null())
                            .stderr(Stdio::null())
                            .status()
                            .is_ok_and(|s| s.success())
                }
            };
            if !ok {
                return 30;
            }
            work.fetch_add(1, Relaxed);
        }
    }
}
