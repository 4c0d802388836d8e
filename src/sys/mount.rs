//! Mounting a pseudo-filesystem (debugfs, securityfs) at a private point
//! for one read or write, and detaching it again.

use std::ffi::CString;
use std::path::Path;

fn cstr(s: &str) -> std::io::Result<CString> {
    CString::new(s).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
}

/// `mount -t fstype fstype target`, read-only or not.
fn mount_fs(fstype: &str, target: &Path, readonly: bool) -> std::io::Result<()> {
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
fn detach(target: &Path) {
    if let Ok(t) = cstr(&target.to_string_lossy()) {
        // SAFETY: a valid NUL-terminated string that outlives the call.
        unsafe { libc::umount2(t.as_ptr(), libc::MNT_DETACH) };
    }
}

/// Why [`with_private`] could not give a mount.
#[derive(Debug)]
pub enum Private {
    /// The temporary mount point could not be made.
    NoDir(std::io::Error),
    /// The filesystem could not be mounted there.
    NoMount(std::io::Error),
}

impl Private {
    pub fn into_io(self) -> std::io::Error {
        match self {
            Private::NoDir(e) | Private::NoMount(e) => e,
        }
    }
}

/// Mount `fstype` at a fresh temporary directory, run `f` on it, then
/// detach it and remove the directory: the machine's own mounts are left
/// as they were (debugfs and securityfs when they are not mounted).
pub fn with_private<T>(
    fstype: &str,
    readonly: bool,
    f: impl FnOnce(&Path) -> T,
) -> Result<T, Private> {
    let dir = std::env::temp_dir().join(format!(
        "kbench-{fstype}-{}-{}",
        std::process::id(),
        crate::sys::proc::random_hex128()
    ));
    std::fs::create_dir(&dir).map_err(Private::NoDir)?;
    let out = match mount_fs(fstype, &dir, readonly) {
        Ok(()) => {
            let r = f(&dir);
            detach(&dir);
            Ok(r)
        }
        Err(e) => Err(Private::NoMount(e)),
    };
    let _ = std::fs::remove_dir(&dir);
    out
}
