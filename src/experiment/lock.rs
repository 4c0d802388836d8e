//! One driver per plan: a designed experiment's plan (a campaign, a
//! bisection) is a store document, and two processes that drive the same
//! one ruin it: two `campaign step`s a few seconds apart (the unit's and
//! one typed by hand) each took the other's running block for a cut one,
//! measured at once and said "complete" with a label never run; a
//! `bisect --resume` took over a bisection still running.  So a process
//! holds an exclusive lock for the plan while it drives it.
//!
//! The lock is `flock` on a file of this machine's runtime folder
//! (`/run/kbench/plans` as root, cleared at boot; else under
//! `$XDG_RUNTIME_DIR` or the temp dir, a folder this user owns and no one
//! else may write), named by a hash of the store, the plan's kind and its
//! id.  The kernel drops it when its holder dies however it dies (a power
//! cut, SIGKILL), so a plan left by a dead process is taken over as
//! before, and one whose driver lives is refused with its pid.

use crate::error::{input, resource};
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::io::{Read, Seek, Write};
use std::path::PathBuf;

/// The lock, held until dropped; its file goes with it.
#[derive(Debug)]
pub struct PlanLock {
    file: std::fs::File,
    path: PathBuf,
}

impl Drop for PlanLock {
    fn drop(&mut self) {
        // Removed while still locked: a process waiting on this file
        // finds, once it has the lock, that the path is no longer its
        // file and opens it anew (see `hold`).
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// Whether `path` still names the file `f` has open.
fn still_there(f: &std::fs::File, path: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (f.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

fn folder() -> PathBuf {
    crate::sys::private::runtime_dir("plans")
}

/// The store as a lock key: a PostgreSQL URL as given, a file by its
/// absolute path (the default store's when none is given).
pub fn store_key(db: Option<&str>) -> String {
    match db.filter(|s| !s.trim().is_empty()) {
        Some(d) if crate::store::is_postgres(d) => d.to_string(),
        Some(d) => std::path::absolute(d)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| d.to_string()),
        None => crate::store::default_path().display().to_string(),
    }
}

/// The lock file of plan `id` of `kind` in `store` (its description).
fn path(store: &str, kind: &str, id: &str) -> PathBuf {
    let mut h = Sha256::new();
    for part in [store, kind, id] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let hex: String = h.finalize()[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    folder().join(format!("{kind}-{hex}.lock"))
}

/// Take the lock of plan `id` (`what` names it in messages, e.g.
/// "campaign x"); with `wait`, wait for the process that holds it,
/// else refuse at once.
pub fn hold(
    front: &crate::session::Front,
    kind: &str,
    id: &str,
    what: &str,
    wait: bool,
) -> Result<PlanLock> {
    let key = store_key(front.db());
    hold_at(&key, kind, id, what, wait, &|l| front.note(l))
}

/// [`hold`] under a store's key, `say` told when it waits.
fn hold_at(
    store: &str,
    kind: &str,
    id: &str,
    what: &str,
    wait: bool,
    say: &dyn Fn(&str),
) -> Result<PlanLock> {
    let p = path(store, kind, id);
    let dir = p
        .parent()
        .unwrap_or(std::path::Path::new("/"))
        .to_path_buf();
    crate::sys::private::ensure_dir(&dir).map_err(|e| {
        resource(format!(
            "{what}: the plans' lock folder {}: {e} (remove it, or set XDG_RUNTIME_DIR to a folder of your own)",
            dir.display()
        ))
    })?;
    let mut said = false;
    loop {
        let mut f = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&p)
                .with_context(|| format!("opening {}", p.display()))?
        };
        match f.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = f.read_to_string(&mut holder);
                let holder = holder.trim();
                let by = if holder.is_empty() {
                    String::new()
                } else {
                    format!(" (pid {})", crate::text::clean(holder))
                };
                if !wait {
                    return Err(input(format!(
                        "{what} is being driven by another kbench{by}: it was left alone (wait for it, or give --wait)"
                    )));
                }
                if !said {
                    say(&format!(
                        "kbench: {what} is being driven by another kbench{by}: waiting for it"
                    ));
                    said = true;
                }
                f.lock()
                    .with_context(|| format!("locking {}", p.display()))?;
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(anyhow::anyhow!("locking {}: {e}", p.display()))
            }
        }
        if !still_there(&f, &p) {
            // Its holder removed it as it let go: take the new one.
            continue;
        }
        f.set_len(0)?;
        f.rewind()?;
        let _ = write!(f, "{}", std::process::id());
        return Ok(PlanLock { file: f, path: p });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time() {
        let id = crate::sys::proc::random_hex128();
        let a = hold_at("test-store", "test", &id, "plan t", false, &|_| {}).unwrap();
        let err = hold_at("test-store", "test", &id, "plan t", false, &|_| {}).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("being driven by another kbench"), "{msg}");
        assert!(msg.contains(&std::process::id().to_string()), "{msg}");
        // Another plan, or the same id in another store, is free.
        let _b = hold_at(
            "test-store",
            "test",
            &format!("{id}x"),
            "plan u",
            false,
            &|_| {},
        )
        .unwrap();
        let _c = hold_at("other-store", "test", &id, "plan t", false, &|_| {}).unwrap();
        drop(a);
        assert!(
            !path("test-store", "test", &id).exists(),
            "the file goes with the lock"
        );
        let again = hold_at("test-store", "test", &id, "plan t", false, &|_| {}).unwrap();
        // A waiter gets it when the holder lets go.
        let waiter = std::thread::spawn({
            let id = id.clone();
            move || hold_at("test-store", "test", &id, "plan t", true, &|_| {}).map(|_| ())
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        drop(again);
        waiter.join().unwrap().unwrap();
    }
}
