//! KVM or TCG, and whether the figures a guest gives measure its kernel.
//!
//! KVM runs a guest's instructions on the CPU; TCG, QEMU's software
//! emulator, translates every one of them, so a guest's latencies and
//! throughput under TCG are the emulator's (here: a PREEMPT_RT kernel
//! showed no latency advantage at all under TCG).  KVM is usable only
//! when the CPU has hardware virtualisation (`vmx` or `svm` among its
//! flags) served by the hardware backends (`kvm_intel`, `kvm_amd`) and
//! `/dev/kvm` makes a VM.  A `/dev/kvm` can exist without that: a
//! software backend such as `kvm_pvm` makes VMs that run only kernels
//! built for it, and an ordinary kernel hangs there at its first switch
//! to protected mode.  When kbench itself runs in a virtual machine (the
//! CPU's `hypervisor` flag), KVM guests are nested, their every exit
//! passing through two hypervisors: kbench marks those figures emulated
//! too.

use serde::Serialize;
use std::path::Path;

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wanted {
    Auto,
    Kvm,
    Tcg,
}

/// The accelerator chosen, and what it means for the figures.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Choice {
    /// `kvm` or `tcg`.
    pub accel: &'static str,
    /// Why this one (and why not KVM, when not).
    pub why: String,
    /// Set when the figures measure the emulator (or a nested
    /// hypervisor) rather than the kernel: the reason.
    pub emulated: Option<String>,
}

/// The reason figures under TCG are not the kernel's.
pub const TCG_REASON: &str =
    "the figures measure the emulator, not the kernel (QEMU TCG translates every guest instruction)";

/// Why KVM cannot run an ordinary guest kernel here, or `Ok`.
pub fn kvm_usable(root: &Path) -> Result<(), String> {
    let dev = root.join("dev/kvm");
    if !dev.exists() {
        return Err(
            "there is no /dev/kvm (no KVM module loaded, or no hardware virtualisation)".into(),
        );
    }
    let cpuinfo =
        std::fs::read_to_string(crate::sys::procfs::under(root, "cpuinfo")).unwrap_or_default();
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    let hw = flags.contains(&"vmx") || flags.contains(&"svm");
    let module = |m: &str| root.join("sys/module").join(m).exists();
    if module("kvm_pvm") && !module("kvm_intel") && !module("kvm_amd") {
        return Err("/dev/kvm is served by kvm_pvm, a software backend that runs only kernels built as PVM guests (an ordinary kernel hangs at boot there)".into());
    }
    if !hw {
        return Err(
            "the CPU has no hardware virtualisation (no vmx or svm flag in /proc/cpuinfo)".into(),
        );
    }
    if !module("kvm_intel") && !module("kvm_amd") {
        return Err("neither kvm_intel nor kvm_amd is loaded".into());
    }
    if root == Path::new("/") {
        crate::sys::kvm::can_create_vm(&dev).map_err(|e| {
            if e.contains("Permission denied") {
                format!("{e}: run as root, or join the kvm group")
            } else {
                e
            }
        })?;
    }
    Ok(())
}

/// Is this machine itself a virtual machine (the CPU's hypervisor flag)?
fn nested(root: &Path) -> bool {
    std::fs::read_to_string(crate::sys::procfs::under(root, "cpuinfo"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("flags"))
        .is_some_and(|l| l.split_whitespace().any(|f| f == "hypervisor"))
}

/// Choose the accelerator: `Err` is the one line a user gets for
/// `--accel kvm` where KVM does not work.
pub fn choose(wanted: Wanted, root: &Path) -> Result<Choice, String> {
    let kvm = kvm_usable(root);
    let tcg = |why: String| Choice {
        accel: "tcg",
        why,
        emulated: Some(TCG_REASON.into()),
    };
    match (wanted, kvm) {
        (Wanted::Tcg, _) => Ok(tcg("--accel tcg".into())),
        (Wanted::Kvm, Err(why)) => Err(format!("--accel kvm: KVM cannot be used here: {why}")),
        (Wanted::Auto, Err(why)) => Ok(tcg(format!("KVM cannot be used here: {why}"))),
        (_, Ok(())) => Ok(Choice {
            accel: "kvm",
            why: "KVM works here".into(),
            emulated: nested(root).then(|| {
                "nested virtualisation: this machine is itself a virtual machine, so every exit of the guest passes through two hypervisors and the figures are theirs as much as the kernel's".to_string()
            }),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(flags: &str, modules: &[&str], kvm: bool) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::create_dir_all(d.path().join("dev")).unwrap();
        std::fs::write(
            d.path().join("proc/cpuinfo"),
            format!("processor\t: 0\nflags\t\t: {flags}\n"),
        )
        .unwrap();
        for m in modules {
            std::fs::create_dir_all(d.path().join("sys/module").join(m)).unwrap();
        }
        if kvm {
            std::fs::write(d.path().join("dev/kvm"), "").unwrap();
        }
        d
    }

    #[test]
    fn kvm_is_chosen_only_where_it_can_run_a_kernel() {
        // This machine's kind: a /dev/kvm from kvm_pvm, no vmx.
        let pvm = machine("fpu sse2 hypervisor", &["kvm", "kvm_pvm"], true);
        let c = choose(Wanted::Auto, pvm.path()).unwrap();
        assert_eq!(c.accel, "tcg");
        assert!(c.why.contains("kvm_pvm"), "{}", c.why);
        assert!(c.emulated.as_deref().unwrap().contains("emulator"));
        let e = choose(Wanted::Kvm, pvm.path()).unwrap_err();
        assert!(e.starts_with("--accel kvm: KVM cannot be used here"), "{e}");
        // No /dev/kvm at all.
        let none = machine("fpu vmx", &[], false);
        assert!(choose(Wanted::Kvm, none.path())
            .unwrap_err()
            .contains("no /dev/kvm"));
        // No vmx/svm.
        let nohw = machine("fpu", &["kvm", "kvm_intel"], true);
        assert!(choose(Wanted::Kvm, nohw.path())
            .unwrap_err()
            .contains("no vmx or svm"));
        // Hardware KVM on bare metal: not emulated; inside a VM: nested.
        let metal = machine("fpu vmx", &["kvm", "kvm_intel"], true);
        let c = choose(Wanted::Auto, metal.path()).unwrap();
        assert_eq!((c.accel, c.emulated.is_none()), ("kvm", true));
        let l1 = machine("fpu vmx hypervisor", &["kvm", "kvm_intel"], true);
        let c = choose(Wanted::Auto, l1.path()).unwrap();
        assert!(c.emulated.unwrap().starts_with("nested virtualisation"));
        // TCG when asked, whatever the machine.
        assert_eq!(choose(Wanted::Tcg, metal.path()).unwrap().accel, "tcg");
    }
}
