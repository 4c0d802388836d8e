//! Raw file-descriptor I/O for worker processes and hot loops: pipes,
//! full writes and readiness waits, with EINTR handled.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// A close-on-exec pipe `(read end, write end)`.
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: fds is a valid 2-element out-array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both fds were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `write` all of `buf`, retrying on EINTR and short writes.
#[inline]
pub fn write_all(fd: RawFd, buf: &[u8]) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: the pointer/length pair stays within buf.
        let n = unsafe { libc::write(fd, buf[done..].as_ptr().cast(), buf.len() - done) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        done += n as usize;
    }
    Ok(())
}

/// Wait until `fd` is readable.  With a timeout, `Ok(false)` on timeout
/// or EINTR; with `-1`, EINTR is retried.
pub fn wait_readable(fd: RawFd, timeout_ms: i32) -> io::Result<bool> {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: p is a valid pollfd.
        let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                if timeout_ms >= 0 {
                    return Ok(false);
                }
                continue;
            }
            return Err(e);
        }
        return Ok(n > 0);
    }
}

/// Make `fd` non-blocking.
pub fn set_nonblocking(fd: RawFd) {
    // SAFETY: F_GETFL/F_SETFL on an fd the caller owns.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK);
    }
}

/// One `read(2)` into `buf`, retried when a signal interrupts it: the
/// bytes read, 0 at end of file.  The one EINTR-safe read every caller
/// uses.
pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        // SAFETY: the pointer and length describe `buf`, which outlives the call.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Fill `buf` from `fd`: `Ok(true)` when full, `Ok(false)` at end of file
/// before that.
pub fn read_full(fd: RawFd, buf: &mut [u8]) -> io::Result<bool> {
    let mut done = 0;
    while done < buf.len() {
        match read(fd, &mut buf[done..])? {
            0 => return Ok(false),
            n => done += n,
        }
    }
    Ok(true)
}

/// Close a raw fd this process owns (in a forked child: its inherited
/// copy, which leaves the parent's open).
pub fn close_raw(fd: RawFd) {
    // SAFETY: closing a descriptor has no memory effects; a bad fd is EBADF.
    unsafe { libc::close(fd) };
}

/// A connected AF_UNIX stream socketpair, close-on-exec.
pub fn socketpair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: fds is a valid 2-element out-array.
    let ret = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if ret < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both fds were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Ask the kernel to drop a file's cached pages (advisory).
pub fn drop_cached_pages(fd: RawFd) {
    // SAFETY: an advisory call on an fd; no memory is passed.
    unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// `statvfs(3)` of the filesystem holding `path`.
fn statvfs_raw(path: &std::path::Path) -> io::Result<libc::statvfs> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: an all-zero statvfs is a valid out-buffer.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid C string and out-pointer.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

/// `(available bytes, filesystem bytes)` of the filesystem holding `path`.
pub fn statvfs(path: &std::path::Path) -> io::Result<(u64, u64)> {
    let st = statvfs_raw(path)?;
    Ok((st.f_bavail * st.f_frsize, st.f_blocks * st.f_frsize))
}

/// The filesystem type (`statfs` `f_type`, a `*_MAGIC` of `linux/magic.h`)
/// of the filesystem holding `path`.
pub fn fs_type(path: &std::path::Path) -> io::Result<i64> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: an all-zero statfs is a valid out-buffer.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid C string and out-pointer.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.f_type as i64)
}

/// Is the filesystem holding `path` memory, not disk (tmpfs or ramfs)?
pub fn is_memory_fs(path: &std::path::Path) -> bool {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    matches!(fs_type(path), Ok(TMPFS_MAGIC | RAMFS_MAGIC))
}

/// Is the filesystem holding `path` mounted read-only?
pub fn is_readonly_fs(path: &std::path::Path) -> bool {
    statvfs_raw(path).is_ok_and(|st| st.f_flag & libc::ST_RDONLY != 0)
}
