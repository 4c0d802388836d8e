//! Who this process is, as the password database says: its home folder,
//! for when `HOME` is unset or not absolute (a systemd unit, cron, `env
//! -i`), so that a default path never becomes relative to wherever the
//! process happened to start.

use std::ffi::CStr;
use std::path::PathBuf;

/// The home folder of the effective user from the password database
/// (`getpwuid_r`), when it has an absolute one.
pub fn home() -> Option<PathBuf> {
    home_of(super::proc::uid())
}

/// The user who ran kbench through sudo (`SUDO_UID`, `SUDO_GID`), when
/// kbench runs as root for them: what kbench does in their files (git,
/// a build) it does as them, so it leaves nothing of root's there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invoker {
    pub uid: u32,
    pub gid: u32,
    pub home: Option<PathBuf>,
}

/// [`Invoker`]: `None` unless this process is root and sudo says who
/// asked (a user other than root).
pub fn invoker() -> Option<Invoker> {
    if super::proc::euid() != 0 {
        return None;
    }
    let num = |k: &str| std::env::var(k).ok()?.trim().parse::<u32>().ok();
    let uid = num("SUDO_UID").filter(|&u| u != 0)?;
    let gid = num("SUDO_GID")?;
    Some(Invoker {
        uid,
        gid,
        home: home_of(uid),
    })
}

/// A user's home folder from the password database, when absolute.
fn home_of(uid: u32) -> Option<PathBuf> {
    let mut buf = vec![0u8; 16 * 1024];
    // SAFETY: passwd is plain old data, zeroed is a valid value for it.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is to memory owned here and alive for the
    // call; buf's length is passed with it.
    let rc =
        unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr().cast(), buf.len(), &mut out) };
    if rc != 0 || out.is_null() || pw.pw_dir.is_null() {
        return None;
    }
    // SAFETY: getpwuid_r succeeded, so pw_dir points into buf at a
    // NUL-terminated string.
    let dir = unsafe { CStr::from_ptr(pw.pw_dir) };
    let p = PathBuf::from(dir.to_str().ok()?);
    p.is_absolute().then_some(p)
}
