//! Can this machine's `/dev/kvm` make a virtual machine?  The two ioctls
//! QEMU itself starts with (KVM API, `Documentation/virt/kvm/api.rst`):
//! `KVM_GET_API_VERSION` must say 12, and `KVM_CREATE_VM` must give a VM.
//! Whether that VM can run an ordinary kernel is a question for the
//! caller (a software backend can create VMs that only run guests made
//! for it).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// `_IO(KVMIO, 0x00)` and `_IO(KVMIO, 0x01)`, KVMIO = 0xAE.
const KVM_GET_API_VERSION: libc::c_ulong = 0xAE00;
const KVM_CREATE_VM: libc::c_ulong = 0xAE01;
/// The only stable KVM API version there has ever been.
const KVM_API_VERSION: libc::c_int = 12;

/// Open `/dev/kvm` and make (then drop) one VM; `Err` says which step
/// failed and the OS's reason.
pub fn can_create_vm(dev: &std::path::Path) -> Result<(), String> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dev)
        .map_err(|e| format!("{} cannot be opened: {e}", dev.display()))?;
    // SAFETY: the fd is open for the call; the ioctl takes no argument.
    let v = unsafe { libc::ioctl(f.as_raw_fd(), KVM_GET_API_VERSION, 0) };
    if v != KVM_API_VERSION {
        return Err(format!(
            "{} speaks KVM API {v}, not {KVM_API_VERSION}",
            dev.display()
        ));
    }
    // SAFETY: as above; machine type 0 is the default.
    let vm = unsafe { libc::ioctl(f.as_raw_fd(), KVM_CREATE_VM, 0) };
    if vm < 0 {
        return Err(format!(
            "{} cannot create a VM: {}",
            dev.display(),
            io::Error::last_os_error()
        ));
    }
    // SAFETY: KVM_CREATE_VM returned a new fd that nothing else owns.
    drop(unsafe { OwnedFd::from_raw_fd(vm) });
    Ok(())
}
