//! Files only their owner may have written: the restore records that a
//! janitor or `kbench restore` applies as whoever runs it (often root).
//! They are written mode 0600 through a temporary file and a rename (as
//! every file kbench writes for a user is: [`replace`]), and
//! read only when they are regular files (no symlink followed) owned by
//! the user reading them and writable by nobody else, so a record another
//! user planted, or could have changed, is refused with the reason rather
//! than obeyed.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Where kbench keeps its `what` (claims, plans' locks) on this machine:
/// `/run/kbench/WHAT` as root (cleared at boot), else under
/// `$XDG_RUNTIME_DIR`, else the temp dir.  Whichever it is must be this
/// user's and writable by nobody else ([`ensure_dir`] checks): another
/// user who made `/tmp/kbench-WHAT-<uid>` first could otherwise plant
/// what is read there, or hold its locks.
pub fn runtime_dir(what: &str) -> std::path::PathBuf {
    if super::proc::is_root() {
        return std::path::PathBuf::from("/run/kbench").join(what);
    }
    std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|v| !v.is_empty())
        .map(|d| std::path::PathBuf::from(d).join("kbench").join(what))
        .unwrap_or_else(|| {
            std::env::temp_dir().join(format!("kbench-{what}-{}", super::proc::uid()))
        })
}

/// Make `dir` (mode 0700 when new) and check that it is this user's and
/// writable by nobody else.
pub fn ensure_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let m = std::fs::symlink_metadata(dir)?;
    check_owner(dir, &m, true)
}

/// Write `bytes` to `path` (mode 0600) through a new file and a rename
/// ([`replace`]), so a reader sees the whole record or none.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(path, bytes, 0o600)
}

/// Put `bytes` at `path` as a new file of mode `mode` (whatever the
/// umask): written into a file of its own beside it (a random name,
/// `O_CREAT | O_EXCL | O_NOFOLLOW`, so no planted name or link is ever
/// opened), then renamed over `path`, which replaces a link there rather
/// than writing through it.  A reader sees the old file or the whole new
/// one; a failure leaves no file behind.  Every file kbench writes for a
/// user goes through here: records, reports (`-o`), systemd units.
pub fn replace(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.kbench-{}",
        &super::proc::random_hex128()[..16]
    ));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)?;
    let done = f
        .write_all(bytes)
        .and_then(|()| f.set_permissions(std::fs::Permissions::from_mode(mode)))
        .and_then(|()| f.sync_all())
        .and_then(|()| std::fs::rename(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// The text of `path` if it is a regular file this user owns that nobody
/// else can write (and its folder likewise); else why not.
pub fn read(path: &Path) -> std::io::Result<String> {
    if let Some(dir) = path.parent() {
        check_owner(dir, &std::fs::symlink_metadata(dir)?, true)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                refused(path, "is a symbolic link")
            } else {
                e
            }
        })?;
    let m = f.metadata()?;
    check_owner(path, &m, false)?;
    if m.len() > 1 << 20 {
        return Err(refused(path, "is over 1 MiB, larger than any record"));
    }
    let mut text = String::new();
    f.read_to_string(&mut text)?;
    Ok(text)
}

/// Whether a file others may have planted commands in (a store holding a
/// campaign's or a bisection's plan) can be trusted to run them as this
/// user: it, and every folder above it up to `/`, owned by this user or
/// root and writable by no one else (a folder writable by others could
/// swap the file, or plant a journal SQLite would replay into it).
/// `Err(why not)`.
pub fn trusted(path: &Path) -> std::result::Result<(), String> {
    let me = super::proc::euid();
    let abs = std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let m = match std::fs::symlink_metadata(&abs) {
        Ok(m) => m,
        // No file, no command in it: opening it says there is no store.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{}: {e}", abs.display())),
    };
    if !m.is_file() {
        return Err(format!("{} is not a regular file", abs.display()));
    }
    let mut at: Option<&Path> = Some(&abs);
    let mut depth = 0;
    while let Some(p) = at {
        let m = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if m.uid() != me && m.uid() != 0 {
            return Err(format!(
                "{} belongs to user {}, neither you (user {me}) nor root",
                p.display(),
                m.uid()
            ));
        }
        // A sticky folder further up (/tmp) lets no one else rename or
        // remove what is ours below it; the file and its own folder
        // must be writable by no one else at all.
        let sticky = m.permissions().mode() & 0o1000 != 0;
        if m.permissions().mode() & 0o022 != 0 && !(depth >= 2 && sticky) {
            return Err(format!(
                "{} can be written by others (mode {:o})",
                p.display(),
                m.permissions().mode() & 0o7777
            ));
        }
        at = p.parent();
        depth += 1;
    }
    Ok(())
}

fn refused(path: &Path, why: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        format!("{} {why}", path.display()),
    )
}

fn check_owner(path: &Path, m: &std::fs::Metadata, dir: bool) -> std::io::Result<()> {
    let me = super::proc::euid();
    if dir && !m.is_dir() {
        return Err(refused(path, "is not a folder"));
    }
    if !dir && !m.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    if m.uid() != me {
        return Err(refused(
            path,
            &format!(
                "belongs to user {}, not to user {me} who runs this",
                m.uid()
            ),
        ));
    }
    if m.permissions().mode() & 0o022 != 0 {
        return Err(refused(
            path,
            &format!(
                "can be written by others (mode {:o})",
                m.permissions().mode() & 0o7777
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_private_and_others_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("restore");
        ensure_dir(&dir).unwrap();
        let f = dir.join("1.json");
        write(&f, b"{}").unwrap();
        let m = std::fs::metadata(&f).unwrap();
        assert_eq!(m.permissions().mode() & 0o777, 0o600);
        assert_eq!(read(&f).unwrap(), "{}");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o646)).unwrap();
        let e = read(&f).unwrap_err().to_string();
        assert!(e.contains("can be written by others"), "{e}");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.join("2.json");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        let e = read(&link).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = read(&f).unwrap_err().to_string();
        assert!(e.contains("restore can be written by others"), "{e}");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        if super::super::proc::is_root() {
            // A record another user wrote is refused, whatever it says.
            let other = dir.join("3.json");
            write(&other, b"{}").unwrap();
            std::os::unix::fs::chown(&other, Some(65534), None).unwrap();
            let e = read(&other).unwrap_err().to_string();
            assert!(e.contains("belongs to user 65534"), "{e}");
        }
    }
}
