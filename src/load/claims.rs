//! Disk space claimed by the loads that are running, so two loads on one
//! filesystem (two tasks of a scenario, or two kbench processes) cannot
//! both count the same free space.
//!
//! A load sizes itself from the filesystem's free space less what other
//! live loads have claimed there ([`space`]), then claims its size
//! ([`claim`]) under a lock on the claims folder, checking again, so two
//! loads starting at the same moment cannot both take the last gigabyte.
//! A claim is a small file naming the filesystem, the claiming process
//! (pid and start time, so a reused pid is not taken for it) and the
//! bytes; it goes when the load stops, the load's janitor removes it when
//! kbench is killed, and a claim whose process is gone is ignored and
//! removed by the next load.
//!
//! Memory filesystems are refused here too: a file on tmpfs or ramfs is
//! RAM, so an io or read load there is a memory load that can meet the
//! OOM killer (Fedora, Arch and Debian 13 mount `/tmp` as tmpfs).

use crate::error::{input, resource};
use crate::sys::size::human;
use anyhow::{Context, Result};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Free space on a disk filesystem, after other loads' claims.
#[derive(Clone, Copy, Debug)]
pub struct Space {
    /// Available bytes less what live loads have claimed.
    pub free: u64,
    /// The filesystem's size.
    pub size: u64,
    /// What live loads have claimed on it.
    pub claimed: u64,
    /// Its device (`st_dev`), which claims name.
    pub dev: u64,
}

/// Kept free on a filesystem: the larger of 1 GiB and 5 % of it.
pub fn margin(fs_size: u64) -> u64 {
    (1u64 << 30).max(fs_size / 20)
}

/// Where claims are kept ([`crate::sys::private::runtime_dir`]).
fn claims_dir() -> PathBuf {
    crate::sys::private::runtime_dir("claims")
}

/// Refuse a memory filesystem for a load's files.
fn refuse_memory_fs(dir: &Path, what: &str) -> Result<()> {
    if crate::sys::fd::is_memory_fs(dir) {
        return Err(input(format!(
            "{what} load: {} is on tmpfs/ramfs (memory), so its files would take RAM, not the disk: pass --dir on a disk filesystem (such as /var/tmp)",
            dir.display()
        )));
    }
    Ok(())
}

/// Free space for a load's files in `dir`: refused on a memory
/// filesystem; other live loads' claims on the same filesystem taken off.
pub fn space(dir: &Path, what: &str) -> Result<Space> {
    space_in(&claims_dir(), dir, what, None)
}

/// [`space`] with the claims kept in `folder`, not counting the claim file
/// `except` (our own, while claiming).
fn space_in(folder: &Path, dir: &Path, what: &str, except: Option<&Path>) -> Result<Space> {
    refuse_memory_fs(dir, what)?;
    let shown = |e: std::io::Error| input(format!("{}: {e}", dir.display()));
    let (avail, size) = crate::sys::fd::statvfs(dir).map_err(shown)?;
    let dev = std::fs::metadata(dir).map_err(shown)?.dev();
    let claimed: u64 = live_claims(folder, except)
        .into_iter()
        .filter(|c| c.dev == dev)
        .map(|c| c.bytes)
        .sum();
    Ok(Space {
        free: avail.saturating_sub(claimed),
        size,
        claimed,
        dev,
    })
}

/// One claim file, read.
struct Held {
    dev: u64,
    bytes: u64,
}

/// The claims of live processes; claims of processes that are gone are
/// removed on the way.  `except` is a claim file not to count (our own).
fn live_claims(dir: &Path, except: Option<&Path>) -> Vec<Held> {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let me = crate::sys::proc::euid();
    let mut out = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        // Only this user's own claims count (another's is not read).
        let mine = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.uid() == me);
        if Some(path.as_path()) == except || !mine {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let f: Vec<u64> = text
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        match f[..] {
            [dev, pid, start, bytes] if crate::sys::proc::start_time(pid as u32) == Some(start) => {
                out.push(Held { dev, bytes })
            }
            // A claim being written has no content yet: leave it.
            _ if text.is_empty() => {}
            _ => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    out
}

/// A claim on disk space, released when dropped.
pub struct Claim {
    path: PathBuf,
}

impl Drop for Claim {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A fresh claim file's path (not yet written), so a janitor can be told
/// it before the claim exists.
pub fn plan() -> PathBuf {
    claims_dir().join(format!(
        "{}-{}",
        std::process::id(),
        &crate::sys::proc::random_hex128()[..12]
    ))
}

/// Claim `bytes` in `dir` for a load, at `path` (from [`plan`]): under the
/// claims folder's lock, the free space less other claims must still hold
/// them and the margin, else the load is refused (as it is on a memory
/// filesystem).
pub fn claim(path: PathBuf, dir: &Path, bytes: u64, what: &str) -> Result<Claim> {
    let folder = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    crate::sys::private::ensure_dir(&folder).map_err(|e| {
        resource(format!(
            "{what} load: the claims folder {}: {e} (remove it, or set XDG_RUNTIME_DIR to a folder of your own)",
            folder.display()
        ))
    })?;
    let lock =
        std::fs::File::open(&folder).with_context(|| format!("opening {}", folder.display()))?;
    lock.lock()
        .with_context(|| format!("locking {}", folder.display()))?;
    let s = space_in(&folder, dir, what, Some(&path))?;
    let keep = margin(s.size);
    if s.free < bytes.saturating_add(keep) {
        return Err(resource(format!(
            "{what} load needs {} in {} but only {} is free there{}, and {} must stay free",
            human(bytes),
            dir.display(),
            human(s.free),
            if s.claimed > 0 {
                format!(" after {} claimed by other running loads", human(s.claimed))
            } else {
                String::new()
            },
            human(keep)
        )));
    }
    let pid = std::process::id();
    let start = crate::sys::proc::start_time(pid).unwrap_or(0);
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .and_then(|mut f| f.write_all(format!("{} {pid} {start} {bytes}\n", s.dev).as_bytes()))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(Claim { path })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_of_live_processes_count_and_dead_ones_go() {
        let dir = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let start = crate::sys::proc::start_time(me).unwrap();
        std::fs::write(dir.path().join("live"), format!("7 {me} {start} 100\n")).unwrap();
        // Our pid with another start time: a reused pid, not the claimer.
        std::fs::write(
            dir.path().join("reused"),
            format!("7 {me} {} 50\n", start + 1),
        )
        .unwrap();
        std::fs::write(dir.path().join("garbage"), "not a claim\n").unwrap();
        std::fs::write(dir.path().join("writing"), "").unwrap();
        let held = live_claims(dir.path(), None);
        assert_eq!(held.len(), 1);
        assert_eq!((held[0].dev, held[0].bytes), (7, 100));
        assert!(!dir.path().join("reused").exists());
        assert!(!dir.path().join("garbage").exists());
        assert!(dir.path().join("writing").exists());
        assert!(live_claims(dir.path(), Some(&dir.path().join("live"))).is_empty());
    }

    #[test]
    fn a_claim_that_does_not_fit_is_refused_and_one_that_does_is_released() {
        // On a disk (claims refuse tmpfs, which /tmp may be).
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let (avail, _) = crate::sys::fd::statvfs(dir.path()).unwrap();
        let folder = tempfile::tempdir().unwrap();
        let e = claim(folder.path().join("big"), dir.path(), avail, "io")
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("io load needs") && e.contains("must stay free"),
            "{e}"
        );
        assert!(!folder.path().join("big").exists());
        let c = claim(folder.path().join("small"), dir.path(), 1 << 20, "io").unwrap();
        assert_eq!(live_claims(folder.path(), None).len(), 1);
        drop(c);
        assert!(live_claims(folder.path(), None).is_empty());
    }

    /// A claims folder others can write, or one another user made, is
    /// refused with the reason (anyone could plant claims in it); a claim
    /// file another user wrote is not counted.
    #[test]
    fn a_claims_folder_that_is_not_ours_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let folder = tempfile::tempdir().unwrap();
        let shared = folder.path().join("claims");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = claim(shared.join("c"), dir.path(), 1 << 20, "io")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("can be written by others"), "{e}");
        if crate::sys::proc::is_root() {
            std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o700)).unwrap();
            std::os::unix::fs::chown(&shared, Some(65534), None).unwrap();
            let e = claim(shared.join("c"), dir.path(), 1 << 20, "io")
                .err()
                .unwrap()
                .to_string();
            assert!(e.contains("belongs to user 65534"), "{e}");
            std::os::unix::fs::chown(&shared, Some(0), None).unwrap();
            let me = std::process::id();
            let start = crate::sys::proc::start_time(me).unwrap();
            let planted = shared.join("planted");
            std::fs::write(&planted, format!("7 {me} {start} 100\n")).unwrap();
            std::os::unix::fs::chown(&planted, Some(65534), None).unwrap();
            assert!(
                live_claims(&shared, None).is_empty(),
                "another user's claim counted"
            );
        }
    }
}
