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
