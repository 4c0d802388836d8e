//! Who this process is, as the password database says: its home folder,
//! for when `HOME` is unset or not absolute (a systemd unit, cron, `env
//! -i`), so that a default path never becomes relative to wherever the
//! process happened to start.

use std::ffi::CStr;
use std::path::PathBuf;

/// The home folder of the effective user from the password database
/// (`getpwuid_r`), when it has an absolute one.
pub fn home() -> Option<PathBuf> {
    let uid = super::proc::uid();
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
