//! Reading or writing one file of a pseudo-filesystem (debugfs,
//! securityfs) that is not mounted, without mounting anything the rest of
//! the machine can see.
//!
//! A child process enters a mount namespace of its own (`unshare
//! CLONE_NEWNS`, then makes every mount private so nothing propagates
//! back), mounts the filesystem at its usual place there
//! (`/sys/kernel/debug`), does the one read or write, sends the result
//! over a pipe and exits; its namespace, and the mount, die with it.  The
//! host's mount table never changes, so no other process can see, use or
//! race for the mount, and a kbench killed half-way leaves nothing mounted.

use std::io;
use std::os::fd::{AsRawFd, RawFd};

use super::dirfd::cstr;
use std::ffi::CString;

/// Two native-endian i32s on the stack (no allocation in the child).
fn pair(a: i32, b: i32) -> [u8; 8] {
    let mut m = [0u8; 8];
    m[..4].copy_from_slice(&a.to_ne_bytes());
    m[4..].copy_from_slice(&b.to_ne_bytes());
    m
}

/// What to do with the file.
pub enum Op<'a> {
    Read,
    Write(&'a [u8]),
}

/// The most a read returns (these are one-line control files).
const MAX_READ: usize = 64 << 10;

/// Mount `fstype` at `mountpoint` in a private mount namespace, then read
/// or write `mountpoint/rel`.  Returns what was read (empty for a write).
/// Errors are the failing step's OS error.
pub fn in_private_namespace(
    fstype: &str,
    mountpoint: &str,
    rel: &str,
    op: Op<'_>,
) -> io::Result<Vec<u8>> {
    // Everything the child touches is allocated before the fork: after a
    // fork from a process that may have threads, the child only makes
    // system calls.
    let plan = Plan {
        fs: cstr(fstype)?,
        target: cstr(mountpoint)?,
        file: cstr(&format!("{mountpoint}/{rel}"))?,
        root: cstr("/")?,
        write: match op {
            Op::Read => None,
            Op::Write(b) => Some(b),
        },
    };
    let mut buf = vec![0u8; MAX_READ];
    let (rx, tx) = super::fd::pipe()?;
    // SAFETY: the child (`Plan::child`) calls only async-signal-safe
    // system calls (unshare, mount, open, read, write, _exit) on memory
    // allocated before the fork, so it is sound even if kbench has other
    // threads.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        plan.child(tx.as_raw_fd(), &mut buf);
    }
    drop(tx);
    let mut got = Vec::new();
    let read = std::io::Read::read_to_end(&mut std::fs::File::from(rx), &mut got);
    super::proc::reap(pid);
    read?;
    answer(got, fstype)
}

/// What the child does, prepared before the fork.
struct Plan<'a> {
    fs: CString,
    target: CString,
    file: CString,
    root: CString,
    write: Option<&'a [u8]>,
}

impl Plan<'_> {
    /// The child: enter a private mount namespace, mount, do the one read
    /// or write, report (step, errno) and the bytes read on `out`, exit.
    fn child(&self, out: RawFd, buf: &mut [u8]) -> ! {
        let fail = |step: i32| -> ! {
            let e = io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            let msg = pair(step, e);
            // SAFETY: writing a stack buffer to our pipe, then exiting.
            unsafe {
                libc::write(out, msg.as_ptr().cast(), msg.len());
                libc::_exit(1)
            }
        };
        let readonly = if self.write.is_some() {
            0
        } else {
            libc::MS_RDONLY
        };
        // SAFETY: plain system calls on NUL-terminated strings and a
        // buffer that outlive them (the child ends with _exit).
        unsafe {
            if libc::unshare(libc::CLONE_NEWNS) != 0 {
                fail(1);
            }
            let private = libc::MS_REC | libc::MS_PRIVATE;
            let null = std::ptr::null();
            if libc::mount(null, self.root.as_ptr(), null, private, null.cast()) != 0 {
                fail(1);
            }
            let fs = self.fs.as_ptr();
            if libc::mount(fs, self.target.as_ptr(), fs, readonly, null.cast()) != 0 {
                fail(2);
            }
            let flags = if self.write.is_some() {
                libc::O_WRONLY
            } else {
                libc::O_RDONLY
            };
            let fd = libc::open(self.file.as_ptr(), flags | libc::O_CLOEXEC);
            if fd < 0 {
                fail(3);
            }
            let mut len = 0usize;
            match self.write {
                Some(b) => {
                    if libc::write(fd, b.as_ptr().cast(), b.len()) < 0 {
                        fail(3);
                    }
                }
                None => loop {
                    let n = libc::read(fd, buf.as_mut_ptr().add(len).cast(), buf.len() - len);
                    if n < 0 {
                        fail(3);
                    }
                    if n == 0 || len + n as usize == buf.len() {
                        len += n.max(0) as usize;
                        break;
                    }
                    len += n as usize;
                },
            }
            let ok = pair(0, 0);
            libc::write(out, ok.as_ptr().cast(), ok.len());
            libc::write(out, buf.as_ptr().cast(), len);
            libc::_exit(0)
        }
    }
}

/// The parent's reading of the child's report: the bytes read, the file's
/// own error as it is, or which step of the mount failed.
fn answer(mut got: Vec<u8>, fstype: &str) -> io::Result<Vec<u8>> {
    if got.len() < 8 {
        return Err(io::Error::other("the mount helper ended without an answer"));
    }
    let step = i32::from_ne_bytes(got[0..4].try_into().unwrap_or_default());
    let errno = i32::from_ne_bytes(got[4..8].try_into().unwrap_or_default());
    match step {
        0 => Ok(got.split_off(8)),
        // The file's own error (absent, refused by lockdown) as it is.
        3 => Err(io::Error::from_raw_os_error(errno)),
        _ => Err(io::Error::new(
            io::Error::from_raw_os_error(errno).kind(),
            format!(
                "{} {fstype} in a private mount namespace: {}",
                if step == 1 {
                    "cannot make"
                } else {
                    "cannot mount"
                },
                io::Error::from_raw_os_error(errno)
            ),
        )),
    }
}

/// Mount `fstype` at `mountpoint` in a child's private mount namespace and
/// return that mount's root, held open: everything below it is then
/// reached relative to the descriptor (see [`super::dirfd::Dir`]), though
/// the mount is in no namespace once the child has exited.  For a
/// filesystem the host has not mounted (tracefs on a machine that never
/// mounted it): the host's mount table never changes.
pub fn open_private(fstype: &str, mountpoint: &str) -> io::Result<super::dirfd::Dir> {
    let fs = cstr(fstype)?;
    let target = cstr(mountpoint)?;
    let root = cstr("/")?;
    let (parent_end, child_end) = super::fd::socketpair()?;
    // SAFETY: the child calls only async-signal-safe system calls
    // (unshare, mount, open, sendmsg, _exit) on memory allocated before
    // the fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        let out = child_end.as_raw_fd();
        // SAFETY: plain system calls on NUL-terminated strings that
        // outlive them; the child ends with _exit.
        unsafe {
            let null = std::ptr::null();
            let private = libc::MS_REC | libc::MS_PRIVATE;
            let ok = libc::unshare(libc::CLONE_NEWNS) == 0
                && libc::mount(null, root.as_ptr(), null, private, null.cast()) == 0
                && libc::mount(fs.as_ptr(), target.as_ptr(), fs.as_ptr(), 0, null.cast()) == 0;
            let fd = if ok {
                libc::open(target.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY)
            } else {
                -1
            };
            if fd < 0 {
                let e = io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO);
                let msg = pair(e, 0);
                libc::write(out, msg.as_ptr().cast(), msg.len());
                libc::_exit(1)
            }
            let sent = super::dirfd::send_fd(out, fd).is_ok();
            libc::_exit(if sent { 0 } else { 1 })
        }
    }
    drop(child_end);
    let got = super::dirfd::recv_fd(parent_end.as_raw_fd());
    super::proc::reap(pid);
    match got? {
        Some(fd) => Ok(super::dirfd::Dir::from_fd(fd)),
        None => {
            let mut m = [0u8; 8];
            let n = super::fd::read(parent_end.as_raw_fd(), &mut m).unwrap_or(0);
            let errno = if n >= 4 {
                i32::from_ne_bytes(m[0..4].try_into().unwrap_or_default())
            } else {
                libc::EIO
            };
            Err(io::Error::new(
                io::Error::from_raw_os_error(errno).kind(),
                format!(
                    "cannot mount {fstype} in a private mount namespace: {}",
                    io::Error::from_raw_os_error(errno)
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As root: debugfs is read through a private namespace, and the
    /// host's mount table is the same before and after.
    #[test]
    fn a_private_mount_is_never_seen_by_the_host() {
        if !crate::sys::proc::is_root() {
            eprintln!("skipped: needs root");
            return;
        }
        let mounts = || std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        let before = mounts();
        // Any file of securityfs will do; what matters is the mount table.
        let r = in_private_namespace("securityfs", "/sys/kernel/security", "lsm", Op::Read);
        let after = mounts();
        assert_eq!(before, after, "the host's mounts changed");
        if let Ok(text) = r {
            assert!(!text.is_empty());
        }
        let e = in_private_namespace(
            "securityfs",
            "/sys/kernel/security",
            "no-such-file",
            Op::Read,
        )
        .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound, "{e}");
        assert_eq!(mounts(), before);
    }
}
