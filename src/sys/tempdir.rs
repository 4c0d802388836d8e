//! Private temporary directories (mode 0700) that remove themselves.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// A directory removed, with everything in it, when dropped.
pub struct PrivateDir {
    path: PathBuf,
}

impl PrivateDir {
    /// A fresh `<parent>/kbench-<what>-<random>` path, not created yet (so
    /// a janitor can be told it first).
    pub fn plan(parent: &Path, what: &str) -> PathBuf {
        parent.join(format!(
            "kbench-{what}-{}",
            &super::proc::random_hex128()[..12]
        ))
    }

    /// Create `path` (mode 0700; it must not exist).
    pub fn create(path: PathBuf) -> std::io::Result<PrivateDir> {
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(PrivateDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// For a janitor, once kbench has died: remove `dir` after the processes
/// that wrote into it (killed by their own parent-death signal) have had
/// a moment to go, retrying for about a second while they still hold it.
pub fn remove_when_left(dir: &Path) {
    std::thread::sleep(std::time::Duration::from_millis(300));
    for _ in 0..5 {
        if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
