//! A directory held open by its descriptor, and the calls relative to it
//! (`openat`, `mkdirat`, `unlinkat`), for a pseudo-filesystem reached
//! through a mount only kbench can see (see `mount::open_private`): every
//! path under it is opened relative to the descriptor, so it works after
//! the mount has left every namespace.  Also passing a descriptor over a
//! Unix socket (SCM_RIGHTS), which is how a child that mounted privately
//! hands its directory to the parent.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// An open directory.
#[derive(Debug)]
pub struct Dir(OwnedFd);

/// `s` as a C string; a NUL inside is an InvalidInput error.
pub(super) fn cstr(s: &str) -> io::Result<CString> {
    CString::new(s).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
}

impl Dir {
    /// Open `path` as a directory.
    pub fn open(path: &str) -> io::Result<Dir> {
        let p = cstr(path)?;
        // SAFETY: a NUL-terminated path; the fd returned is ours.
        let fd = unsafe {
            libc::open(
                p.as_ptr(),
                libc::O_DIRECTORY | libc::O_RDONLY | libc::O_CLOEXEC,
            )
        };
        super::check(fd)?;
        // SAFETY: just opened, owned by nobody else.
        Ok(Dir(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Take ownership of a directory fd (one received from a child).
    pub fn from_fd(fd: OwnedFd) -> Dir {
        Dir(fd)
    }

    /// Open `rel` below this directory with `flags` (close-on-exec added).
    pub fn open_at(&self, rel: &str, flags: i32) -> io::Result<OwnedFd> {
        let p = cstr(rel)?;
        // SAFETY: a valid dirfd and NUL-terminated relative path.
        let fd = unsafe { libc::openat(self.0.as_raw_fd(), p.as_ptr(), flags | libc::O_CLOEXEC) };
        super::check(fd)?;
        // SAFETY: just opened, owned by nobody else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// The subdirectory `rel`, opened.
    pub fn sub(&self, rel: &str) -> io::Result<Dir> {
        self.open_at(rel, libc::O_DIRECTORY | libc::O_RDONLY)
            .map(Dir)
    }

    /// Whether `rel` exists below this directory.
    pub fn exists(&self, rel: &str) -> bool {
        let Ok(p) = cstr(rel) else { return false };
        // SAFETY: a valid dirfd and NUL-terminated relative path.
        unsafe { libc::faccessat(self.0.as_raw_fd(), p.as_ptr(), libc::F_OK, 0) == 0 }
    }

    /// Read all of the small file `rel` (a control or format file, up to
    /// 256 KiB).  With large reads: some tracefs files answer a small
    /// first read and then end-of-file (`events/header_page`).
    pub fn read(&self, rel: &str) -> io::Result<String> {
        let fd = self.open_at(rel, libc::O_RDONLY)?;
        let mut buf = vec![0u8; 256 << 10];
        let mut len = 0;
        while len < buf.len() {
            match super::fd::read(fd.as_raw_fd(), &mut buf[len..])? {
                0 => break,
                n => len += n,
            }
        }
        buf.truncate(len);
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    /// Write `text` to the control file `rel` in one write, as tracefs
    /// wants (its error, such as EINVAL for a bad value, as it is).
    pub fn write(&self, rel: &str, text: &str) -> io::Result<()> {
        let fd = self.open_at(rel, libc::O_WRONLY | libc::O_TRUNC)?;
        super::fd::write_all(fd.as_raw_fd(), text.as_bytes())
    }

    /// Make the directory `rel` (mode 0700).
    pub fn mkdir(&self, rel: &str) -> io::Result<()> {
        let p = cstr(rel)?;
        // SAFETY: a valid dirfd and NUL-terminated relative path.
        super::check(unsafe { libc::mkdirat(self.0.as_raw_fd(), p.as_ptr(), 0o700) }).map(|_| ())
    }

    /// Remove the empty directory `rel` (for tracefs, an instance).
    pub fn rmdir(&self, rel: &str) -> io::Result<()> {
        let p = cstr(rel)?;
        // SAFETY: a valid dirfd and NUL-terminated relative path.
        super::check(unsafe { libc::unlinkat(self.0.as_raw_fd(), p.as_ptr(), libc::AT_REMOVEDIR) })
            .map(|_| ())
    }

    /// The names in this directory (`.` and `..` left out).
    pub fn names(&self) -> io::Result<Vec<String>> {
        let path = format!("/proc/self/fd/{}", self.0.as_raw_fd());
        Ok(std::fs::read_dir(path)?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect())
    }

    #[cfg(test)]
    pub fn raw(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// Send `fd` over the Unix socket `sock` with one byte of data.  Only
/// async-signal-safe calls on stack memory: usable in a forked child.
pub fn send_fd(sock: RawFd, fd: RawFd) -> io::Result<()> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // Room for one cmsghdr carrying one int, aligned as cmsghdr wants.
    let mut space = [0u64; 4];
    // SAFETY: msghdr is plain data; zeroed is a valid empty header.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space.as_mut_ptr().cast();
    // SAFETY: CMSG_SPACE is arithmetic on a constant.
    msg.msg_controllen = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    // SAFETY: msg_control points at `space`, large enough for the header
    // CMSG_FIRSTHDR returns and its one int of data.
    unsafe {
        let c = libc::CMSG_FIRSTHDR(&msg);
        (*c).cmsg_level = libc::SOL_SOCKET;
        (*c).cmsg_type = libc::SCM_RIGHTS;
        (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as usize;
        std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<RawFd>(), fd);
    }
    // SAFETY: msg and everything it points to live across the call.
    let n = unsafe { libc::sendmsg(sock, &msg, 0) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Receive one descriptor sent by [`send_fd`]; `None` when the peer closed
/// without sending one.
pub fn recv_fd(sock: RawFd) -> io::Result<Option<OwnedFd>> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut space = [0u64; 4];
    // SAFETY: msghdr is plain data; zeroed is a valid empty header.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&space);
    // SAFETY: msg and its buffers live across the call.
    let n = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel filled msg_control; CMSG_FIRSTHDR checks its
    // length and returns null when there is no header.
    unsafe {
        let c = libc::CMSG_FIRSTHDR(&msg);
        if n == 0 || c.is_null() || (*c).cmsg_type != libc::SCM_RIGHTS {
            return Ok(None);
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<RawFd>());
        Ok(Some(OwnedFd::from_raw_fd(fd)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_travels_over_a_socket_and_works_relative() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("f"), "hello").unwrap();
        let dir = Dir::open(d.path().to_str().unwrap()).unwrap();
        let (a, b) = super::super::fd::socketpair().unwrap();
        send_fd(a.as_raw_fd(), dir.raw()).unwrap();
        let got = Dir::from_fd(recv_fd(b.as_raw_fd()).unwrap().unwrap());
        assert_eq!(got.read("f").unwrap(), "hello");
        got.mkdir("sub").unwrap();
        assert!(got.exists("sub"));
        got.write("f", "bye").unwrap();
        assert_eq!(std::fs::read_to_string(d.path().join("f")).unwrap(), "bye");
        assert!(got.write("absent", "x").is_err(), "write never creates");
        let mut names = got.names().unwrap();
        names.sort();
        assert!(names.contains(&"sub".to_string()), "{names:?}");
        got.rmdir("sub").unwrap();
        assert!(!got.exists("sub"));
        drop(a);
        assert!(recv_fd(b.as_raw_fd()).unwrap().is_none());
    }
}
