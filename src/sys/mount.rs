//! Mounting a filesystem read-only at a private point, and detaching it.

use std::ffi::CString;
use std::path::Path;

fn cstr(s: &str) -> std::io::Result<CString> {
    CString::new(s).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
}

/// `mount -t fstype -o ro fstype target`.
pub fn mount_readonly(fstype: &str, target: &Path) -> std::io::Result<()> {
    mount_fs(fstype, target, true)
}

/// `mount -t fstype fstype target`, read-only or not.
pub fn mount_fs(fstype: &str, target: &Path, readonly: bool) -> std::io::Result<()> {
    let t = cstr(&target.to_string_lossy())?;
    let f = cstr(fstype)?;
    // SAFETY: valid NUL-terminated strings that outlive the call; no data.
    let r = unsafe {
        libc::mount(
            f.as_ptr(),
            t.as_ptr(),
            f.as_ptr(),
            if readonly { libc::MS_RDONLY } else { 0 },
            std::ptr::null(),
        )
    };
    super::check(r).map(|_| ())
}

/// Lazily detach whatever is mounted at `target`.
pub fn detach(target: &Path) {
    if let Ok(t) = cstr(&target.to_string_lossy()) {
        // SAFETY: a valid NUL-terminated string that outlives the call.
        unsafe { libc::umount2(t.as_ptr(), libc::MNT_DETACH) };
    }
}
