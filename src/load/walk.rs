//! The walk of a tree that coldwalk times and the list load repeats:
//! every directory read, entry types from the directory itself (`d_type`),
//! an `lstat` only where the filesystem gives no type (or for every entry
//! when asked, as `ls -lR`), symlinks never followed, optionally on one
//! filesystem.  Errors inside the tree are counted, not fatal.  It lives
//! with the loads because a load repeats it; `benchmarks::coldwalk` times it.

use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What to walk and how.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    pub path: PathBuf,
    pub one_filesystem: bool,
    /// `lstat` every entry (like `ls -lR`), not only untyped ones.
    pub stat_every_entry: bool,
}

/// Counts and time of one walk.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Outcome {
    /// Every entry seen below the root (not counting the root).
    pub entries: u64,
    pub dirs: u64,
    pub files: u64,
    pub symlinks: u64,
    pub other: u64,
    /// Unreadable directories and entries that vanished or could not be stat'ed.
    pub errors: u64,
    pub wall_s: f64,
    pub caches_dropped: bool,
    /// Ctrl-C stopped the walk part way (the counts are what was seen).
    pub interrupted: bool,
}

impl Outcome {
    pub fn entries_per_s(&self) -> f64 {
        self.entries as f64 / self.wall_s.max(1e-9)
    }
}

/// Walk `opts.path` (caches already dropped or not, as the caller did).
pub fn walk(opts: &Options, caches_dropped: bool) -> Outcome {
    walk_with(opts, caches_dropped, &mut || {})
}

/// [`walk`], calling `on_entry` for every entry seen (the list load
/// counts its work this way).
pub fn walk_with(opts: &Options, caches_dropped: bool, on_entry: &mut dyn FnMut()) -> Outcome {
    let start = std::time::Instant::now();
    let mut out = Outcome {
        caches_dropped,
        ..Default::default()
    };
    let root_dev = if opts.one_filesystem {
        std::fs::symlink_metadata(&opts.path).ok().map(|m| m.dev())
    } else {
        None
    };
    let mut stack: Vec<PathBuf> = vec![opts.path.clone()];
    while let Some(dir) = stack.pop() {
        // One atomic load a directory: a long walk stops on Ctrl-C.
        if crate::sys::signals::stop_requested() {
            out.interrupted = true;
            break;
        }
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(_) => {
                out.errors += 1;
                continue;
            }
        };
        for entry in rd {
            let Ok(entry) = entry else {
                out.errors += 1;
                continue;
            };
            out.entries += 1;
            on_entry();
            let ft = if opts.stat_every_entry {
                entry.metadata().map(|m| m.file_type())
            } else {
                // d_type from the directory; std falls back to lstat when unknown.
                entry.file_type()
            };
            let Ok(ft) = ft else {
                out.errors += 1;
                continue;
            };
            if ft.is_dir() {
                out.dirs += 1;
                let path = entry.path();
                if let Some(dev) = root_dev {
                    match std::fs::symlink_metadata(&path) {
                        Ok(m) if m.dev() != dev => continue,
                        Ok(_) => {}
                        Err(_) => {
                            out.errors += 1;
                            continue;
                        }
                    }
                }
                stack.push(path);
            } else if ft.is_file() {
                out.files += 1;
            } else if ft.is_symlink() {
                out.symlinks += 1;
            } else {
                out.other += 1;
            }
        }
    }
    out.wall_s = start.elapsed().as_secs_f64();
    out
}

/// Check the starting path: it must exist and be a directory.
pub fn check_root(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(format!("{} is not a directory", path.display())),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}
