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
    /// Open `path` as a directory (itself not a symlink).
    pub fn open(path: &str) -> io::Result<Dir> {
        let p = cstr(path)?;
        // SAFETY: a NUL-terminated path; the fd returned is ours.
        let fd = unsafe {
            libc::open(
                p.as_ptr(),
                libc::O_DIRECTORY | libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW,
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

    /// Open `rel` below this directory with `flags` (close-on-exec added),
    /// one component at a time with `O_NOFOLLOW`: no symlink is followed
    /// and no `..` or absolute path climbs out (what
    /// `openat2(RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH)` gives, on every
    /// kernel), so a folder swapped for a link between two calls is an
    /// error, never another file opened.
    pub fn open_at(&self, rel: &str, flags: i32) -> io::Result<OwnedFd> {
        let parts: Vec<&str> = rel.split('/').collect();
        if parts
            .iter()
            .any(|p| p.is_empty() || *p == "." || *p == "..")
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{rel:?} is not a plain path below the folder"),
            ));
        }
        let (last, dirs) = parts.split_last().expect("split gives one part");
        let mut held: Option<OwnedFd> = None;
        for d in dirs {
            let at = held.as_ref().map_or(self.0.as_raw_fd(), AsRawFd::as_raw_fd);
            held = Some(open_one(at, d, libc::O_DIRECTORY | libc::O_RDONLY)?);
        }
        let at = held.as_ref().map_or(self.0.as_raw_fd(), AsRawFd::as_raw_fd);
        open_one(at, last, flags)
    }

    /// The filesystem magic of this directory (`statfs(2)`'s `f_type`).
    pub fn fs_magic(&self) -> io::Result<i64> {
        // SAFETY: statfs is plain data; zeroed is a valid value to fill.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: a valid fd and a statfs to write into.
        super::check(unsafe { libc::fstatfs(self.0.as_raw_fd(), &mut st) })?;
        Ok(st.f_type as i64)
    }

    /// The subdirectory `rel`, opened.
    pub fn sub(&self, rel: &str) -> io::Result<Dir> {
        self.open_at(rel, libc::O_DIRECTORY | libc::O_RDONLY)
            .map(Dir)
    }

    /// Whether `rel` exists below this directory.
    pub fn exists(&self, rel: &str) -> bool {
        self.open_at(rel, libc::O_PATH).is_ok()
    }

    /// Read all of the small file `rel` (a control or format file, up to
    /// 256 KiB).  With large reads: some tracefs files answer a small
    /// first read and then end-of-file (`events/header_page`).  Opened
    /// non-blocking and only a regular file is read, so a FIFO planted in
    /// its place cannot hang the reader.
    pub fn read(&self, rel: &str) -> io::Result<String> {
        let fd = self.open_at(rel, libc::O_RDONLY | libc::O_NONBLOCK)?;
        regular(&fd, rel)?;
        let mut buf = vec![0u8; 256 << 10];
        let mut len = 0;
        while len < buf.len() {
            match super::fd::read(fd.as_raw_fd(), &mut buf[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        buf.truncate(len);
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    /// Write `text` to the control file `rel` in one write, as tracefs
    /// wants (its error, such as EINVAL for a bad value, as it is); only
    /// to a regular file.
    pub fn write(&self, rel: &str, text: &str) -> io::Result<()> {
        let fd = self.open_at(rel, libc::O_WRONLY | libc::O_TRUNC | libc::O_NONBLOCK)?;
        regular(&fd, rel)?;
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

    #[cfg(test)]
    pub fn raw(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// Open the one component `name` below `at` with `flags`, no-follow and
/// close-on-exec.
fn open_one(at: RawFd, name: &str, flags: i32) -> io::Result<OwnedFd> {
    let p = cstr(name)?;
    // SAFETY: a valid dirfd and a NUL-terminated name.
    let fd = unsafe { libc::openat(at, p.as_ptr(), flags | libc::O_NOFOLLOW | libc::O_CLOEXEC) };
    super::check(fd)?;
    // SAFETY: just opened, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Refuse what is not a regular file (tracefs' control files are).
fn regular(fd: &OwnedFd, rel: &str) -> io::Result<()> {
    // SAFETY: stat is plain data; zeroed is a valid value to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid fd and a stat to write into.
    super::check(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{rel} is not a regular file"),
        ));
    }
    Ok(())
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
        got.rmdir("sub").unwrap();
        assert!(!got.exists("sub"));
        drop(a);
        assert!(recv_fd(b.as_raw_fd()).unwrap().is_none());
    }

    /// A folder swapped for a symlink, a link as the last step, `..` and
    /// an absolute path are each refused; nothing outside is written.
    #[test]
    fn no_symlink_is_followed_and_nothing_climbs_out() {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("target"), "kept").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("inst")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("target"), d.path().join("link")).unwrap();
        std::fs::write(d.path().join("plain"), "x").unwrap();
        let dir = Dir::open(d.path().to_str().unwrap()).unwrap();
        for rel in [
            "inst/target",
            "link",
            "../x",
            "/etc/passwd",
            "a//b",
            "./plain",
        ] {
            assert!(dir.write(rel, "0").is_err(), "{rel} written");
            assert!(dir.read(rel).is_err(), "{rel} read");
        }
        assert!(dir.sub("inst").is_err());
        assert!(Dir::open(d.path().join("inst").to_str().unwrap()).is_err());
        assert_eq!(
            std::fs::read_to_string(outside.path().join("target")).unwrap(),
            "kept"
        );
        assert_eq!(dir.read("plain").unwrap(), "x");
    }

    /// A FIFO where a control file should be is refused at once, neither
    /// read (which would wait for a writer) nor written.
    #[test]
    fn a_fifo_in_place_of_a_control_file_is_refused_without_waiting() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("header_page");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let dir = Dir::open(d.path().to_str().unwrap()).unwrap();
        let e = dir.read("header_page").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert!(dir.write("header_page", "1").is_err());
    }
}
