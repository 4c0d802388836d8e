//! QEMU, started for one boot: its command line, and the process that
//! must not outlive kbench.
//!
//! The guest gets nothing it was not given (`-nodefaults`, no network,
//! no display): two serial ports (`ttyS0` the console, written to a file
//! kbench reads for the last lines of a boot that failed; `ttyS1` the
//! result channel), a QMP socket (to find the vCPU threads and to ask
//! for a quit), and, when asked, the host's root shared read-only over
//! virtio 9p.  `-no-reboot` turns the guest's reboot (a panic with
//! `panic=-1`, or init ending) into QEMU's exit, so every boot ends.

use anyhow::{anyhow, Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A QEMU binary and what it says of itself.
#[derive(Clone, Debug)]
pub struct Qemu {
    pub binary: PathBuf,
    /// Its `--version` line.
    pub version: String,
}

/// The 9p mount tag under which the host's root is shared.
pub const ROOT_TAG: &str = "kbench-root";

/// The QEMU system emulator for this machine's architecture: `given`, or
/// the one on `PATH`.
pub fn find(given: Option<&Path>) -> Result<Qemu> {
    let name = match std::env::consts::ARCH {
        "x86_64" => "qemu-system-x86_64",
        other => {
            return Err(crate::error::input(format!(
                "kbench vm boots x86-64 kernels; this machine is {other}"
            )))
        }
    };
    let binary = match given {
        Some(p) => p.to_path_buf(),
        None => std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                crate::error::resource(format!(
                    "kbench vm needs QEMU ({name}): apt-get install qemu-system-x86, or give --qemu PATH"
                ))
            })?,
    };
    let out = std::process::Command::new(&binary)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .with_context(|| format!("running {} --version", binary.display()))?;
    let version = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    if !out.status.success() || !version.starts_with("QEMU emulator version") {
        return Err(crate::error::input(format!(
            "{} does not answer --version as QEMU does",
            binary.display()
        )));
    }
    Ok(Qemu { binary, version })
}

/// One boot's machine.
pub struct Launch<'a> {
    pub accel: &'a str,
    pub cpus: u32,
    pub memory_mib: u64,
    pub kernel: &'a Path,
    pub initrd: &'a Path,
    pub append: &'a str,
    pub console: &'a Path,
    pub result: &'a Path,
    pub qmp: &'a Path,
    pub share_root: bool,
    /// Back guest memory with hugetlbfs here (`-mem-path`).
    pub hugepages: Option<&'a Path>,
}

/// QEMU's arguments for `l`.
pub fn args(l: &Launch) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |s: &str| a.push(s.into());
    for s in [
        "-nodefaults",
        "-no-user-config",
        "-display",
        "none",
        "-no-reboot",
    ] {
        push(s);
    }
    push("-machine");
    push("pc");
    push("-accel");
    push(l.accel);
    push("-cpu");
    push(if l.accel == "kvm" { "host" } else { "max" });
    push("-smp");
    push(&l.cpus.to_string());
    push("-m");
    push(&format!("{}M", l.memory_mib));
    if let Some(h) = l.hugepages {
        push("-mem-path");
        a.push(h.into());
        a.push("-mem-prealloc".into());
    }
    let mut file = |flag: &str, prefix: &str, p: &Path| {
        a.push(flag.into());
        let mut v = OsString::from(prefix);
        v.push(p);
        a.push(v);
    };
    file("-kernel", "", l.kernel);
    file("-initrd", "", l.initrd);
    file("-serial", "file:", l.console);
    file("-serial", "file:", l.result);
    a.push("-qmp".into());
    let mut q = OsString::from("unix:");
    q.push(l.qmp);
    q.push(",server=on,wait=off");
    a.push(q);
    a.push("-append".into());
    a.push(l.append.into());
    if l.share_root {
        a.push("-virtfs".into());
        a.push(
            format!(
                "local,path=/,mount_tag={ROOT_TAG},security_model=none,readonly=on,multidevs=remap"
            )
            .into(),
        );
    }
    a
}

/// Start QEMU for `l`: in its own process group (kbench stops it, a
/// terminal's Ctrl-C does not), killed if kbench dies, its own messages
/// to `log`.
pub fn spawn(q: &Qemu, l: &Launch, log: &Path) -> Result<std::process::Child> {
    let out = std::fs::OpenOptions::new()
        .create_new(true)
        .write(true)
        .open(log)
        .with_context(|| format!("creating {}", log.display()))?;
    let mut cmd = std::process::Command::new(&q.binary);
    cmd.args(args(l))
        .stdin(std::process::Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    crate::sys::proc::on_exec(
        &mut cmd,
        crate::sys::proc::OnExec {
            die_with_parent: true,
            own_group: true,
            ..Default::default()
        },
    );
    cmd.spawn()
        .map_err(|e| anyhow!("starting {}: {e}", q.binary.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guest_gets_two_serial_ports_and_nothing_else_unasked() {
        let p = Path::new("/t/x");
        let l = Launch {
            accel: "tcg",
            cpus: 1,
            memory_mib: 1024,
            kernel: p,
            initrd: p,
            append: "console=ttyS0 -- vm-guest",
            console: Path::new("/t/console"),
            result: Path::new("/t/result"),
            qmp: Path::new("/t/qmp"),
            share_root: false,
            hugepages: None,
        };
        let a: Vec<String> = args(&l)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        let j = a.join(" ");
        assert!(
            j.contains("-serial file:/t/console -serial file:/t/result"),
            "{j}"
        );
        assert!(j.contains("-accel tcg -cpu max -smp 1 -m 1024M"), "{j}");
        assert!(j.starts_with("-nodefaults"));
        assert!(!j.contains("virtfs"));
        // The command line stays one argument, whatever it holds.
        assert!(a.contains(&"console=ttyS0 -- vm-guest".to_string()));
        let shared = Launch {
            share_root: true,
            accel: "kvm",
            ..l
        };
        let j = args(&shared)
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(j.contains("-cpu host") && j.contains("readonly=on"), "{j}");
    }
}
