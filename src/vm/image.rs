//! A kernel image given to `kbench vm`: what can be known of it before it
//! boots, and what it needs beside it.
//!
//! An x86 bzImage (and so a Debian `vmlinuz-*`) starts with the boot
//! protocol's setup header (`Documentation/arch/x86/boot.rst`): the
//! magic `HdrS` at 0x202, the protocol version at 0x206, and at 0x20E the
//! offset (less 0x200) of a NUL-terminated string that begins with the
//! release (`uname -r`) and carries the version line (`#1 SMP
//! PREEMPT_DYNAMIC …`).  An uncompressed `vmlinux` says the same after
//! "Linux version ".  Neither read makes a file a bootable kernel: a file
//! that is neither is still tried, and its boots fail with QEMU's reason.
//!
//! Beside the image, laid out as a Debian package unpacks
//! (`dpkg -x linux-image-….deb DIR`: `DIR/boot/vmlinuz-R`,
//! `DIR/boot/config-R`, `DIR/lib/modules/R/`), as Debian's split 7.x
//! packages unpack into one folder (`linux-binary-R`, `linux-base-R`,
//! `linux-modules-R`: `DIR/usr/lib/modules/R/vmlinuz`, `config` and
//! `kernel/` beside it), or as a build tree
//! (`arch/x86/boot/bzImage` under the `.config`), kbench finds the
//! config (the guest's fingerprint reads it, since most distribution
//! kernels carry none inside) and the modules tree.

use crate::fingerprint::{KernelConfig, PreemptInfo};
use std::io::Read;
use std::path::{Path, PathBuf};

/// What kbench knows of an image before booting it.
#[derive(Clone, Debug)]
pub struct Image {
    pub path: PathBuf,
    /// `bzImage`, `vmlinux`, or why it is neither.
    pub format: Format,
    /// The release the image says it is.
    pub release: Option<String>,
    /// The image's version line (after the release).
    pub version: Option<String>,
    /// The build config found beside it.
    pub config: Option<PathBuf>,
    /// Its `lib/modules/<release>` tree, found beside it.
    pub modules: Option<PathBuf>,
    pub size: u64,
    /// SHA-256 of the whole file: which image a run booted, whatever
    /// its name.
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    BzImage { protocol: (u8, u8) },
    Vmlinux,
    Unknown(String),
}

/// The most of an image read to find its version (a bzImage's string
/// sits in its first 64 KiB; a vmlinux's anywhere in its first 64 MiB).
const SCAN_LIMIT: u64 = 64 << 20;

impl Image {
    /// Read what the file says of itself and look beside it.
    pub fn inspect(path: &Path) -> std::io::Result<Image> {
        let meta = std::fs::metadata(path)?;
        if !meta.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "is not a regular file",
            ));
        }
        let mut head = Vec::new();
        std::fs::File::open(path)?
            .take(SCAN_LIMIT)
            .read_to_end(&mut head)?;
        let (format, line) = read_version(&head);
        let (release, version) = match line {
            Some(l) => {
                let mut words = l.splitn(2, ' ');
                let r = words.next().map(str::to_string).filter(|r| plausible(r));
                (r, words.next().map(|v| v.trim().to_string()))
            }
            None => (None, None),
        };
        let (config, modules) = beside(path, release.as_deref());
        let sha256 = crate::fingerprint::sha256_file(path)?;
        Ok(Image {
            path: path.to_path_buf(),
            format,
            release,
            version,
            config,
            modules,
            size: meta.len(),
            sha256,
        })
    }

    /// The preemption model the image will boot into with `cmdline`, as
    /// the guest's fingerprint will decide it (its debugfs unread): for
    /// the label before the boot.
    pub fn expected_preempt(&self, cmdline: &str) -> PreemptInfo {
        let cfg = self.load_config();
        let mut info = crate::fingerprint::decide_preempt(
            crate::fingerprint::Debugfs::Unavailable("not booted yet".into()),
            None,
            Some(cmdline),
            cfg.as_ref(),
        );
        // No config beside it: the version line names the model where it
        // can (`PREEMPT_RT`, or a plain `PREEMPT` that is not dynamic).
        if info.mode.is_none() {
            let words: Vec<&str> = self.version.as_deref().unwrap_or("").split(' ').collect();
            if words.contains(&"PREEMPT_RT") {
                info.mode = Some("rt".into());
                info.source = "the image's version line (PREEMPT_RT)".into();
            } else if words.contains(&"PREEMPT") && !words.contains(&"PREEMPT_DYNAMIC") {
                info.mode = Some("full".into());
                info.source = "the image's version line (PREEMPT)".into();
            }
        }
        info
    }

    /// The config beside the image, parsed.
    pub fn load_config(&self) -> Option<KernelConfig> {
        let p = self.config.as_ref()?;
        KernelConfig::from_file(p)
    }

    /// `<release>/<preempt mode>`, the label the guest's runs get when
    /// none is given; `None` when the image does not say its release.
    pub fn default_label(&self, cmdline: &str) -> Option<String> {
        let r = self.release.as_ref()?;
        let mode = self.expected_preempt(cmdline).mode;
        Some(format!("{r}/{}", mode.as_deref().unwrap_or("unknown")))
    }

    /// One line for the plan: what the image is and what was found.
    pub fn describe(&self) -> String {
        let what = match &self.format {
            Format::BzImage { protocol } => {
                format!("bzImage (boot protocol {}.{:02})", protocol.0, protocol.1)
            }
            Format::Vmlinux => "vmlinux".to_string(),
            Format::Unknown(why) => format!("not a kernel image kbench recognises ({why})"),
        };
        format!(
            "{}: {what}, {} MiB, release {}; config {}; modules {}",
            self.path.display(),
            self.size >> 20,
            self.release.as_deref().unwrap_or("unknown"),
            self.config
                .as_ref()
                .map_or("none found beside it".into(), |p| p.display().to_string()),
            self.modules
                .as_ref()
                .map_or("none found beside it".into(), |p| p.display().to_string()),
        )
    }
}

/// A release is one word of printable ASCII, as `uname -r` gives it.
fn plausible(r: &str) -> bool {
    !r.is_empty()
        && r.len() <= 64
        && r.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-+~".contains(&b))
}

/// The format and the version string (release first), from the file's
/// first bytes.
pub fn read_version(head: &[u8]) -> (Format, Option<String>) {
    let u16_at = |at: usize| {
        head.get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    if head.get(0x202..0x206) == Some(b"HdrS") {
        let proto = u16_at(0x206).unwrap_or(0);
        let protocol = ((proto >> 8) as u8, proto as u8);
        // kernel_version is there from boot protocol 2.00 on.
        let line = u16_at(0x20E)
            .filter(|o| *o != 0)
            .map(|o| o as usize + 0x200)
            .and_then(|at| head.get(at..))
            .map(cstring);
        return (Format::BzImage { protocol }, line);
    }
    if head.starts_with(b"\x7fELF") {
        let needle = b"Linux version ";
        let line = head
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|at| cstring(&head[at + needle.len()..]));
        return (Format::Vmlinux, line);
    }
    let why = if head.is_empty() {
        "the file is empty".to_string()
    } else {
        "no x86 boot header (HdrS) and not an ELF file".to_string()
    };
    (Format::Unknown(why), None)
}

/// Printable text up to the first NUL or line end (at most 256 bytes).
fn cstring(b: &[u8]) -> String {
    let end = b
        .iter()
        .take(256)
        .position(|c| *c == 0 || *c == b'\n')
        .unwrap_or(b.len().min(256));
    String::from_utf8_lossy(&b[..end])
        .chars()
        .filter(|c| !c.is_control())
        .collect()
}

/// The config and modules tree beside an image of `release`.
fn beside(image: &Path, release: Option<&str>) -> (Option<PathBuf>, Option<PathBuf>) {
    let dir = image.parent().unwrap_or(Path::new("."));
    let mut config = None;
    let mut modules = None;
    if let Some(r) = release {
        // Debian's split packages (7.x): DIR/usr/lib/modules/R/vmlinuz
        // (linux-binary-R) with `config` beside it (linux-base-R) and the
        // modules' `kernel/` tree (linux-modules-R).
        if dir.file_name().is_some_and(|n| n == r) {
            let c = dir.join("config");
            if c.is_file() {
                config = Some(c);
            }
            if dir.join("kernel").is_dir() {
                modules = Some(dir.to_path_buf());
            }
        }
        // DIR/boot/vmlinuz-R: DIR/boot/config-R, DIR/lib/modules/R (or
        // DIR/usr/lib/modules/R, merged /usr).
        let c = dir.join(format!("config-{r}"));
        if config.is_none() && c.is_file() {
            config = Some(c);
        }
        let root = if dir.file_name().is_some_and(|n| n == "boot") {
            dir.parent().unwrap_or(Path::new("/"))
        } else {
            dir
        };
        for tree in ["lib/modules", "usr/lib/modules"] {
            let m = root.join(tree).join(r);
            if modules.is_none() && m.join("kernel").is_dir() {
                modules = Some(m);
            }
        }
    }
    // A build tree: arch/<arch>/boot/bzImage under .config.
    if config.is_none() {
        let tree = dir.ancestors().nth(3);
        if let Some(c) = tree.map(|t| t.join(".config")).filter(|c| c.is_file()) {
            config = Some(c);
        }
    }
    (config, modules)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bzimage(version: &str) -> Vec<u8> {
        let mut b = vec![0u8; 0x1000];
        b[0x202..0x206].copy_from_slice(b"HdrS");
        b[0x206..0x208].copy_from_slice(&0x020fu16.to_le_bytes());
        b[0x20E..0x210].copy_from_slice(&(0x800u16 - 0x200).to_le_bytes());
        b[0x800..0x800 + version.len()].copy_from_slice(version.as_bytes());
        b
    }

    #[test]
    fn a_bzimage_says_its_release_and_model() {
        let (f, line) = read_version(&bzimage(
            "6.1.0-57-rt-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_RT Debian 6.1.192-3",
        ));
        assert_eq!(f, Format::BzImage { protocol: (2, 15) });
        assert!(line.unwrap().starts_with("6.1.0-57-rt-amd64 (debian"));
        let (f, line) = read_version(b"garbage that is no kernel");
        assert!(matches!(f, Format::Unknown(_)));
        assert_eq!(line, None);
        let mut elf = b"\x7fELF....".to_vec();
        elf.extend_from_slice(b"Linux version 6.12.0 (me@box) #3 SMP PREEMPT\0");
        let (f, line) = read_version(&elf);
        assert_eq!(f, Format::Vmlinux);
        assert_eq!(line.as_deref(), Some("6.12.0 (me@box) #3 SMP PREEMPT"));
    }

    #[test]
    fn debians_split_packages_give_config_and_modules() {
        let d = tempfile::tempdir().unwrap();
        let r = "7.3.4+deb13-amd64";
        let dir = d.path().join(format!("usr/lib/modules/{r}"));
        std::fs::create_dir_all(dir.join("kernel")).unwrap();
        let img = dir.join("vmlinuz");
        std::fs::write(
            &img,
            bzimage(&format!(
                "{r} (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC"
            )),
        )
        .unwrap();
        std::fs::write(dir.join("config"), "CONFIG_SCHED_CLASS_EXT=y\n").unwrap();
        let i = Image::inspect(&img).unwrap();
        assert_eq!(i.release.as_deref(), Some(r));
        assert_eq!(i.config.as_deref(), Some(dir.join("config").as_path()));
        assert_eq!(i.modules.as_deref(), Some(dir.as_path()));
    }

    #[test]
    fn an_unpacked_debian_package_gives_config_and_modules() {
        let d = tempfile::tempdir().unwrap();
        let r = "6.1.0-57-amd64";
        std::fs::create_dir_all(d.path().join("boot")).unwrap();
        std::fs::create_dir_all(d.path().join(format!("lib/modules/{r}/kernel"))).unwrap();
        let img = d.path().join(format!("boot/vmlinuz-{r}"));
        std::fs::write(
            &img,
            bzimage(&format!("{r} (x@y) #1 SMP PREEMPT_DYNAMIC Debian")),
        )
        .unwrap();
        std::fs::write(
            d.path().join(format!("boot/config-{r}")),
            "CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_HZ=250\n",
        )
        .unwrap();
        let i = Image::inspect(&img).unwrap();
        assert_eq!(i.release.as_deref(), Some(r));
        assert!(i.config.is_some() && i.modules.is_some(), "{i:?}");
        assert_eq!(
            i.default_label("console=ttyS0").as_deref(),
            Some("6.1.0-57-amd64/voluntary")
        );
        assert_eq!(
            i.default_label("console=ttyS0 preempt=full").as_deref(),
            Some("6.1.0-57-amd64/full")
        );
        // A release that is not one printable word is not believed.
        assert!(!plausible("6.1 evil"));
        assert!(!plausible("\u{1b}[31m"));
    }
}
