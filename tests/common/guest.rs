//! The Debian guest the reboot and LAVA tests boot: built once by
//! `tests/reboot/image.sh` (debootstrap, systemd, kexec-tools, Debian's
//! 6.1 standard and PREEMPT_RT kernels) and cached (`KBENCH_TEST_GUEST`,
//! else `/var/cache/kbench-test-guest`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The guest's root folder and its two kernels.
pub struct Guest {
    pub root: PathBuf,
    pub std: String,
    pub rt: String,
}

fn build() -> Result<Guest, String> {
    for tool in ["qemu-system-x86_64", "debootstrap", "mkfs.ext4", "debugfs"] {
        if !super::which(tool) {
            return Err(format!("no {tool} (.ci/run installs it)"));
        }
    }
    let cache = std::env::var_os("KBENCH_TEST_GUEST")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/cache/kbench-test-guest"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reboot/image.sh");
    eprintln!("the guest: {} (built once, minutes)", cache.display());
    let out = Command::new("bash")
        .arg(&script)
        .arg(&cache)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("{}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!("{} failed", script.display()));
    }
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let mut std = None;
    let mut rt = None;
    for e in std::fs::read_dir(root.join("boot")).map_err(|e| e.to_string())? {
        let name = e.map_err(|e| e.to_string())?.file_name();
        let Some(r) = name.to_str().and_then(|n| n.strip_prefix("vmlinuz-")) else {
            continue;
        };
        if r.ends_with("-rt-amd64") {
            rt = Some(r.to_string());
        } else if r.ends_with("-amd64") {
            std = Some(r.to_string());
        }
    }
    Ok(Guest {
        std: std.ok_or("the guest has no standard kernel")?,
        rt: rt.ok_or("the guest has no PREEMPT_RT kernel")?,
        root,
    })
}

/// The guest, built once; `None` (said) where this machine cannot, which
/// CI must be able to.
pub fn guest() -> Option<&'static Guest> {
    static G: OnceLock<Result<Guest, String>> = OnceLock::new();
    match G.get_or_init(build) {
        Ok(g) => Some(g),
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must build the guest: {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// Run debugfs `commands` on a disk image (`write`: read-write); its output.
pub fn debugfs(image: &Path, write: bool, commands: &str) -> String {
    let mut c = Command::new("debugfs");
    if write {
        c.arg("-w");
    }
    let mut child = c
        .arg("-f")
        .arg("-")
        .arg(image)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(commands.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "debugfs: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A disk image of the guest's folder (`mkfs.ext4 -d`, no loop device)
/// with kbench put in at /usr/local/bin/kbench, and `more` debugfs
/// commands run on it.
pub fn disk(g: &Guest, image: &Path, more: &str) {
    let mk = Command::new("mkfs.ext4")
        .args(["-q", "-F", "-L", "kbench", "-d"])
        .arg(&g.root)
        .arg(image)
        .arg("4G")
        .output()
        .unwrap();
    assert!(mk.status.success(), "mkfs.ext4: {mk:?}");
    let kbench = env!("CARGO_BIN_EXE_kbench");
    debugfs(
        image,
        true,
        &format!("cd /usr/local/bin\nwrite {kbench} kbench\nsif kbench mode 0100755\n{more}"),
    );
}
