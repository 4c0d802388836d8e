//! The sender and receiver loops and the fd plumbing they share.
//!
//! The hot loops do nothing but `write`/`read` on preallocated buffers:
//! no allocation, no locks, no formatting.

use std::io;
use std::os::fd::{OwnedFd, RawFd};

/// Exit codes of a worker process, mapped to messages by the parent.
pub const EXIT_OK: i32 = 0;
pub const EXIT_WRITE: i32 = 10;
pub const EXIT_READ: i32 = 11;
pub const EXIT_CONTENT: i32 = 12;
pub const EXIT_EXTRA: i32 = 13;
pub const EXIT_SETUP: i32 = 14;

/// What an exit code means.
pub fn describe_exit(code: i32) -> &'static str {
    match code {
        EXIT_WRITE => "a write failed (its receiver went away?)",
        EXIT_READ => "a read failed or hit end of file before all messages arrived",
        EXIT_CONTENT => "a message arrived with the wrong content",
        EXIT_EXTRA => "more data arrived than was sent to it",
        EXIT_SETUP => "setup failed",
        _ => "unexpected exit",
    }
}

/// A connected pair `(read end, write end)`: a pipe, or an AF_UNIX stream
/// socketpair used one way, as rt-tests does.
pub fn fdpair(pipe: bool) -> io::Result<(OwnedFd, OwnedFd)> {
    if pipe {
        return crate::sys::fd::pipe();
    }
    crate::sys::fd::socketpair()
}

pub use crate::sys::fd::{wait_readable, write_all};

/// Tell the parent we are ready, then wait for the go signal.
pub fn ready(ready_out: RawFd, wake: RawFd) -> io::Result<()> {
    write_all(ready_out, &[0u8])?;
    wait_readable(wake, -1).map(|_| ())
}

/// Read one ready byte per task from `fd`; every 200 ms without progress
/// `idle` runs (to notice Ctrl-C or a worker that died) and may fail.
pub fn read_ready(
    fd: RawFd,
    tasks: u64,
    mut idle: impl FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut got = 0u64;
    let mut buf = [0u8; 512];
    while got < tasks {
        if wait_readable(fd, 200)? {
            let want = ((tasks - got) as usize).min(buf.len());
            let n = crate::sys::fd::read(fd, &mut buf[..want])?;
            if n > 0 {
                got += n as u64;
                // Tens of thousands of tasks say ready for a while:
                // `idle` hears Ctrl-C and deaths between reads too.
                idle()?;
            } else {
                // End of file: every task closed its end, so none is left to
                // say ready.  Let `idle` name a death it can see; else say so.
                idle()?;
                anyhow::bail!(
                    "the tasks ended before all were ready ({got} of {tasks} said ready)"
                );
            }
        } else {
            idle()?;
        }
    }
    Ok(())
}

/// The byte pattern of every message: byte `j` is `j mod 251`.
pub fn message(datasize: usize) -> Vec<u8> {
    (0..datasize).map(|j| (j % 251) as u8).collect()
}

/// Send `loops` rounds of `msg` to every fd in `outs`.
pub fn send(outs: &[RawFd], loops: u64, msg: &[u8]) -> Result<(), i32> {
    for _ in 0..loops {
        for &fd in outs {
            if write_all(fd, msg).is_err() {
                return Err(EXIT_WRITE);
            }
        }
    }
    Ok(())
}

/// Largest message the kernel writes atomically into a pipe (POSIX
/// `PIPE_BUF`).  Bigger messages from several senders may interleave, so
/// their content cannot be checked per message, only their byte count.
pub const PIPE_BUF: usize = 4096;

/// Read `packets` messages of `buf.len()` bytes; with `verify`, check
/// each against [`message`]'s pattern when messages are atomic.
pub fn receive(fd: RawFd, packets: u64, buf: &mut [u8], verify: bool) -> Result<(), i32> {
    let len = buf.len();
    let check_content = verify && len <= PIPE_BUF;
    for _ in 0..packets {
        if !matches!(crate::sys::fd::read_full(fd, buf), Ok(true)) {
            return Err(EXIT_READ);
        }
        if check_content && buf.iter().enumerate().any(|(j, &b)| b != (j % 251) as u8) {
            return Err(EXIT_CONTENT);
        }
    }
    Ok(())
}

/// After the quota: is anything more waiting on `fd`?  Called once every
/// sender has finished, so whatever is there was sent in excess.
pub fn nothing_extra(fd: RawFd) -> Result<(), i32> {
    if !wait_readable(fd, 0).unwrap_or(false) {
        return Ok(());
    }
    let mut b = [0u8; 1];
    // The fd was found readable, so this read cannot block.
    if crate::sys::fd::read(fd, &mut b).is_ok_and(|n| n > 0) {
        Err(EXIT_EXTRA)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// Every task gone before it said ready: the ready pipe is at its end.
    /// This used to spin at 100 % CPU forever, ignoring Ctrl-C.
    #[test]
    fn a_ready_pipe_at_its_end_fails_the_run() {
        let (r, w) = crate::sys::fd::pipe().unwrap();
        write_all(w.as_raw_fd(), &[0u8]).unwrap();
        drop(w);
        let mut idles = 0;
        let err = read_ready(r.as_raw_fd(), 4, || {
            idles += 1;
            Ok(())
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("1 of 4"), "{err}");
        // Once after the byte read, once at the end to look for a death.
        assert_eq!(idles, 2, "the caller got to look for a death first");
        let (r, w) = crate::sys::fd::pipe().unwrap();
        drop(w);
        let err = read_ready(r.as_raw_fd(), 2, || anyhow::bail!("sender died: SIGKILL"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("SIGKILL"), "a death it can name wins: {err}");
    }
}
