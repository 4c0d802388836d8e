//! What kbench needs when it is the first process of a guest kernel
//! (`kbench vm` boots an image with kbench as its `/init`): mounting the
//! kernel's filesystems, loading modules from files, a raw serial line
//! for the result, reaping orphans, and powering the machine off.
//!
//! Each is one system call with its error; nothing here is used on a
//! host.

use super::dirfd::cstr;
use std::io;
use std::os::fd::AsRawFd;

/// `mount(2)` of `fstype` from `source` at `target` with `flags` and
/// filesystem options `data`.
pub fn mount(source: &str, target: &str, fstype: &str, flags: u64, data: &str) -> io::Result<()> {
    let (src, tgt, fs, opts) = (cstr(source)?, cstr(target)?, cstr(fstype)?, cstr(data)?);
    // SAFETY: every pointer is a NUL-terminated string that outlives the call.
    let r = unsafe {
        libc::mount(
            src.as_ptr(),
            tgt.as_ptr(),
            fs.as_ptr(),
            flags as libc::c_ulong,
            opts.as_ptr().cast(),
        )
    };
    super::check(r).map(|_| ())
}

/// Read-only and no set-uid, for mounts a guest only reads.
pub const MS_RDONLY: u64 = libc::MS_RDONLY;
/// A bind mount.
pub const MS_BIND: u64 = libc::MS_BIND;

/// Load the kernel module in `file` (`finit_module(2)`), with no
/// parameters.  `EEXIST` (already loaded or built in) is not an error.
pub fn load_module(file: &std::path::Path) -> io::Result<()> {
    let f = std::fs::File::open(file)?;
    let params = cstr("")?;
    // SAFETY: the fd is open for the call; params is a NUL-terminated string.
    let r = unsafe {
        libc::syscall(
            libc::SYS_finit_module,
            f.as_raw_fd(),
            params.as_ptr(),
            0 as libc::c_int,
        )
    };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EEXIST) {
            return Ok(());
        }
        return Err(e);
    }
    Ok(())
}

/// Put a terminal (a serial port) in raw mode: bytes pass unchanged (no
/// newline translation, no echo, no flow control characters).
pub fn raw_terminal(fd: &impl AsRawFd) -> io::Result<()> {
    // SAFETY: termios is plain data, filled by tcgetattr before use.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: the fd is open; t points to a termios.
    super::check(unsafe { libc::tcgetattr(fd.as_raw_fd(), &mut t) })?;
    // SAFETY: t is a valid termios.
    unsafe { libc::cfmakeraw(&mut t) };
    // SAFETY: the fd is open; t is a valid termios.
    super::check(unsafe { libc::tcsetattr(fd.as_raw_fd(), libc::TCSANOW, &t) }).map(|_| ())
}

/// Wait until everything written to a terminal has been sent.
pub fn drain(fd: &impl AsRawFd) -> io::Result<()> {
    // SAFETY: the fd is open.
    super::check(unsafe { libc::tcdrain(fd.as_raw_fd()) }).map(|_| ())
}

/// Set the machine's host name.
pub fn set_hostname(name: &str) -> io::Result<()> {
    // SAFETY: the pointer and length describe `name`'s bytes.
    super::check(unsafe { libc::sethostname(name.as_ptr().cast(), name.len()) }).map(|_| ())
}

/// Reap one child that has ended, if any: its pid and wait status.  As
/// the first process, kbench inherits every orphan of the guest.
pub fn reap_any(block: bool) -> Option<(libc::pid_t, libc::c_int)> {
    let mut status = 0;
    let flags = if block { 0 } else { libc::WNOHANG };
    // SAFETY: status is a valid int to write.
    let pid = unsafe { libc::waitpid(-1, &mut status, flags) };
    (pid > 0).then_some((pid, status))
}

/// As a machine's first process: SIGKILL every other process.  Does
/// nothing in any other process (on a host, `kill(-1)` would end every
/// process the user may signal).
pub fn kill_all_but_init() {
    if std::process::id() == 1 {
        // SAFETY: plain syscall; pid -1 is every process but the caller and init.
        unsafe { libc::kill(-1, libc::SIGKILL) };
    }
}

/// Flush every filesystem and power the machine off.  Returns only on
/// failure (not the first process, or no privilege).
pub fn power_off() -> io::Error {
    // SAFETY: sync and reboot take no pointers.
    unsafe {
        libc::sync();
        libc::reboot(libc::RB_POWER_OFF);
    }
    io::Error::last_os_error()
}

/// The running kernel's release (`uname -r`).
pub fn release() -> Option<String> {
    // SAFETY: utsname is plain data, filled by uname.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: u points to a utsname.
    if unsafe { libc::uname(&mut u) } < 0 {
        return None;
    }
    let bytes: Vec<u8> = u
        .release
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8(bytes).ok()
}
