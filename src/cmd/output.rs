//! A report to stdout, or to the file `-o` names.
//!
//! The file is written as kbench may be running as root in a folder
//! others can write (`/tmp`): into a new file of its own in the target's
//! folder, then renamed over the target, which replaces a symlink there
//! rather than writing through it ([`crate::sys::private::replace`]).  A
//! reader sees the old file or the whole new one, never half; a failure
//! leaves no partial file.  A folder, a device, a FIFO or a socket as
//! `-o`, named or behind a link, is refused before anything is run.

use crate::error::input;
use anyhow::Result;
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
    writable_target(to)?;
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

/// What sits at `to`, as far as a report may be written there: `Ok` for
/// nothing, a regular file, a link to one (replaced by the rename) or
/// `/dev/null`; refused for a device, FIFO or socket, named or behind a
/// link (root's report written onto a block device a user linked
/// `report.csv` to): `-o -` is standard output.
fn writable_target(to: &Path) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(l) = std::fs::symlink_metadata(to) else {
        return Ok(());
    };
    let what = |t: std::fs::FileType| {
        if t.is_block_device() || t.is_char_device() {
            Some("a device")
        } else if t.is_fifo() {
            Some("a FIFO")
        } else if t.is_socket() {
            Some("a socket")
        } else {
            None
        }
    };
    let (kind, via_link) = if l.file_type().is_symlink() {
        match std::fs::metadata(to) {
            Ok(m) => (what(m.file_type()), true),
            Err(_) => (None, true),
        }
    } else {
        (what(l.file_type()), false)
    };
    match kind {
        None => Ok(()),
        Some(_) if !via_link && to == Path::new("/dev/null") => Ok(()),
        Some(k) => Err(input(format!(
            "-o {}{} {k}: kbench writes reports to files (-o - writes to standard output)",
            crate::text::clean(&to.display().to_string()),
            if via_link { " is a link to" } else { " is" }
        ))),
    }
}

/// Write `bytes` to `to` through a new file beside it and a rename (a
/// link at `to` is replaced, never written through); `/dev/null`
/// directly; a device, FIFO or socket is refused ([`writable_target`]).
pub fn write_file(to: &Path, bytes: &[u8]) -> Result<()> {
    check(to)?;
    if to == Path::new("/dev/null") {
        return Ok(());
    }
    // 0644 whatever the umask (a umask of 000 made reports 0666).
    crate::sys::private::replace(to, bytes, 0o644)
        .map_err(|e| input(format!("cannot write {}: {e}", to.display())))
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
        // /dev/null takes a report and stays what it is.
        write_file(Path::new("/dev/null"), b"gone").unwrap();
        let m = std::fs::metadata("/dev/null").unwrap();
        assert!(std::os::unix::fs::FileTypeExt::is_char_device(
            &m.file_type()
        ));
        // A link to a device, a device, a FIFO: refused, nothing written.
        let link = d.path().join("report.csv");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let e = write_file(&link, b"x").unwrap_err().to_string();
        assert!(e.contains("is a link to a device"), "{e}");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        let e = write_file(Path::new("/dev/zero"), b"x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("is a device"), "{e}");
        let fifo = d.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let e = write_file(&fifo, b"x").unwrap_err().to_string();
        assert!(e.contains("is a FIFO"), "{e}");
    }
}
