//! A report to stdout, or to the file `-o` names.
//!
//! The file is written as kbench may be running as root in a folder
//! others can write (`/tmp`): into a new file of its own in the target's
//! folder (`O_CREAT | O_EXCL | O_NOFOLLOW`, a random name, so no planted
//! name or symlink is ever opened), then renamed over the target, which
//! replaces a symlink there rather than writing through it.  A reader sees
//! the old file or the whole new one, never half; a failure leaves no
//! partial file.  A folder as `-o` is refused before anything is run.

use crate::error::input;
use anyhow::Result;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Refuse `to` now if it cannot be a report's file: a folder, or a name
/// in a folder that does not exist.  Commands call it before they work.
pub fn check(to: &Path) -> Result<()> {
    if to.as_os_str() == "-" {
        return Ok(());
    }
    if to.as_os_str().is_empty() {
        return Err(input("-o needs a file name"));
    }
    if std::fs::metadata(to).is_ok_and(|m| m.is_dir()) || to.to_string_lossy().ends_with('/') {
        return Err(input(format!(
            "-o {} is a folder: name a file to write",
            to.display()
        )));
    }
    let dir = folder_of(to);
    if !std::fs::metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return Err(input(format!(
            "-o {}: the folder {} does not exist",
            to.display(),
            dir.display()
        )));
    }
    Ok(())
}

fn folder_of(to: &Path) -> PathBuf {
    match to.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Write `bytes` to `to` through a new file beside it and a rename; to
/// a device, FIFO or socket (`/dev/null`, `/dev/stdout`, a pipe a script
/// reads), which the user named to be written to and a rename would
/// replace, directly.
pub fn write_file(to: &Path, bytes: &[u8]) -> Result<()> {
    check(to)?;
    let cannot = |e: std::io::Error| input(format!("cannot write {}: {e}", to.display()));
    if std::fs::metadata(to).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(to)
            .map_err(cannot)?;
        return f.write_all(bytes).map_err(cannot);
    }
    let name = to
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = folder_of(to).join(format!(
        ".{name}.kbench-{}",
        &crate::sys::proc::random_hex128()[..16]
    ));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)
        .map_err(cannot)?;
    let done = f
        .write_all(bytes)
        .and_then(|()| f.sync_all())
        .and_then(|()| std::fs::rename(&tmp, to));
    if let Err(e) = done {
        let _ = std::fs::remove_file(&tmp);
        return Err(cannot(e));
    }
    Ok(())
}

/// Print `text`, or write it to `to`.
pub fn emit(to: Option<&Path>, text: &str) -> Result<()> {
    match to {
        Some(p) if p.as_os_str() != "-" => write_file(p, text.as_bytes()),
        _ => {
            print!("{text}");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symlink at the target is replaced, its target left as it was; a
    /// folder is refused with nothing written; no temporary file stays.
    #[test]
    fn the_target_is_replaced_never_written_through() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let out = d.path().join("report.txt");
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        write_file(&out, b"report").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "report");
        assert!(!std::fs::symlink_metadata(&out).unwrap().is_symlink());
        let e = write_file(d.path(), b"x").unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        let e = write_file(&d.path().join("absent/r"), b"x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        let mut names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["report.txt", "victim"]);
        // A device is written to, never replaced.
        write_file(Path::new("/dev/null"), b"gone").unwrap();
        let m = std::fs::metadata("/dev/null").unwrap();
        assert!(std::os::unix::fs::FileTypeExt::is_char_device(
            &m.file_type()
        ));
    }
}
