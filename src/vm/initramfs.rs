//! The guest's whole userland: an initramfs (a `newc` cpio archive, which
//! the kernel unpacks into its first root filesystem,
//! `Documentation/driver-api/early-userspace/buffer-format.rst`) holding
//! kbench itself as `/init`, what the guest is to do (`/kbench/job.json`),
//! the modules it loads, the image's config (so the guest's fingerprint
//! has one), and the `/dev/console` node the kernel opens for init's
//! standard streams before any filesystem is mounted.

use anyhow::{anyhow, Context, Result};
use cpio::newc::{Builder, ModeFileType};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where the guest finds what the host put in for it.
pub const JOB: &str = "kbench/job.json";
pub const MODULES_DIR: &str = "kbench/modules";
pub const FILES_DIR: &str = "kbench/files";

/// One file to put in.
#[derive(Clone)]
pub struct Entry {
    /// Path inside the archive, without a leading `/`.
    pub name: String,
    pub source: Source,
    pub mode: u32,
}

#[derive(Clone)]
pub enum Source {
    File(PathBuf),
    Bytes(Vec<u8>),
}

/// The archive's directories, each before what it holds.
const DIRS: &[&str] = &[
    "dev",
    "proc",
    "sys",
    "tmp",
    "run",
    "root",
    "boot",
    "etc",
    "host",
    "kbench",
    MODULES_DIR,
    FILES_DIR,
];

/// Write an initramfs with `entries` (and the directories and device
/// node every guest needs) to `out`.
pub fn write(out: &Path, entries: &[Entry]) -> Result<()> {
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
        .with_context(|| format!("creating {}", out.display()))?;
    let mut w = BufWriter::new(f);
    let mut ino = 1u32;
    let mut next = || {
        ino += 1;
        ino
    };
    for d in DIRS {
        w = dir(w, d, next())?;
    }
    // /dev/console: character device 5:1 (Documentation/admin-guide/devices.txt).
    w = Builder::new("dev/console")
        .ino(next())
        .mode(0o600)
        .rdev_major(5)
        .rdev_minor(1)
        .set_mode_file_type(ModeFileType::Char)
        .write(w, 0)
        .finish()?;
    // Folders an entry needs that the fixed ones are not (a library's
    // `lib/x86_64-linux-gnu`): the kernel unpacks a file only into a
    // folder that exists.
    let mut more: Vec<String> = Vec::new();
    for e in entries {
        let mut p = Path::new(&e.name);
        while let Some(parent) = p.parent().filter(|q| !q.as_os_str().is_empty()) {
            let d = parent.to_string_lossy().into_owned();
            if !DIRS.contains(&d.as_str()) && !more.contains(&d) {
                more.push(d);
            }
            p = parent;
        }
    }
    more.sort_by_key(|d| d.matches('/').count());
    for d in &more {
        w = dir(w, d, next())?;
    }
    for e in entries {
        w = put(w, e, next())?;
    }
    let mut w = cpio::newc::trailer(w)?;
    w.flush()?;
    w.into_inner()
        .map_err(|e| anyhow!("writing {}: {}", out.display(), e.error()))?
        .sync_all()?;
    Ok(())
}

/// A folder entry, mode 0755.
fn dir<W: Write>(w: W, name: &str, ino: u32) -> Result<W> {
    Ok(Builder::new(name)
        .ino(ino)
        .mode(0o755)
        .nlink(2)
        .set_mode_file_type(ModeFileType::Directory)
        .write(w, 0)
        .finish()?)
}

fn put<W: Write>(w: W, e: &Entry, ino: u32) -> Result<W> {
    let b = Builder::new(&e.name)
        .ino(ino)
        .mode(e.mode)
        .set_mode_file_type(ModeFileType::Regular);
    let size = |n: u64| -> Result<u32> {
        u32::try_from(n).map_err(|_| {
            anyhow!(
                "{} is over 4 GiB, more than an initramfs entry holds",
                e.name
            )
        })
    };
    match &e.source {
        Source::Bytes(bytes) => {
            let mut fw = b.write(w, size(bytes.len() as u64)?);
            fw.write_all(bytes)?;
            Ok(fw.finish()?)
        }
        Source::File(p) => {
            let mut f =
                std::fs::File::open(p).with_context(|| format!("reading {}", p.display()))?;
            let len = f.metadata()?.len();
            let mut fw = b.write(w, size(len)?);
            let copied = std::io::copy(&mut f, &mut fw)
                .with_context(|| format!("copying {} into the initramfs", p.display()))?;
            if copied != len {
                return Err(anyhow!("{} changed size while it was copied", p.display()));
            }
            Ok(fw.finish()?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_archive_reads_back_with_its_files_and_console() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("x");
        std::fs::write(&src, b"#!kbench").unwrap();
        let out = d.path().join("initrd");
        write(
            &out,
            &[
                Entry {
                    name: "init".into(),
                    source: Source::File(src),
                    mode: 0o755,
                },
                Entry {
                    name: JOB.into(),
                    source: Source::Bytes(b"{}".to_vec()),
                    mode: 0o644,
                },
            ],
        )
        .unwrap();
        let mut r = std::fs::File::open(&out).unwrap();
        let mut names = Vec::new();
        loop {
            let e = cpio::NewcReader::new(r).unwrap();
            if e.entry().is_trailer() {
                break;
            }
            names.push((
                e.entry().name().to_string(),
                e.entry().mode(),
                e.entry().file_size(),
            ));
            r = e.finish().unwrap();
        }
        assert!(names
            .iter()
            .any(|(n, m, _)| n == "dev/console" && m & 0o170000 == 0o020000));
        assert!(names
            .iter()
            .any(|(n, m, s)| n == "init" && m & 0o777 == 0o755 && *s == 8));
        assert!(names.iter().any(|(n, _, s)| n == JOB && *s == 2));
        // Directories come before what they hold.
        let pos = |x: &str| names.iter().position(|(n, _, _)| n == x).unwrap();
        assert!(pos("kbench") < pos(JOB));
        // An existing file is never overwritten.
        assert!(write(&out, &[]).is_err());
    }
}
