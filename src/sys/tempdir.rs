//! Private temporary directories (mode 0700) that remove themselves.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// A directory removed, with everything in it, when dropped (or before,
/// by [`PrivateDir::remove`], once).
pub struct PrivateDir {
    path: PathBuf,
    removed: bool,
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
        Ok(PrivateDir {
            path,
            removed: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Remove it now (an owner that must order the removal before
    /// something else); the drop then leaves the path alone, which by
    /// then may name another's directory.
    pub fn remove(&mut self) {
        if !std::mem::replace(&mut self.removed, true) {
            let _ = std::fs::remove_dir_all(&self.path);
        }
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
        self.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Removed early, the directory is not removed again at the drop: a
    /// directory made at the same path since is left alone.
    #[test]
    fn removed_early_is_removed_once() {
        let parent = tempfile::tempdir().unwrap();
        let path = PrivateDir::plan(parent.path(), "t");
        let mut d = PrivateDir::create(path.clone()).unwrap();
        std::fs::write(path.join("f"), "x").unwrap();
        d.remove();
        assert!(!path.exists());
        std::fs::create_dir(&path).unwrap();
        drop(d);
        assert!(path.exists(), "a later directory at the path was removed");
        let d = PrivateDir::create(parent.path().join("u")).unwrap();
        let p = d.path().to_path_buf();
        drop(d);
        assert!(!p.exists());
    }
}
