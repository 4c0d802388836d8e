//! A pseudo-terminal for the tests of what a person reads: kbench runs
//! with a terminal of a set size on its standard input, output and error,
//! as in a shell, and the test reads every byte it wrote.  Pipes cannot
//! show what a terminal shows (colour decided by `isatty`, the width, a
//! progress bar that redraws itself), which is how escapes printed as
//! text went unseen.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// What kbench wrote to the terminal (stdout and stderr interleaved, as a
/// person sees them; `\r\n` line ends, escapes as sent), and its status.
pub struct Screen {
    pub code: i32,
    pub bytes: String,
}

impl Screen {
    /// The text with colour escapes taken out and `\r\n` made `\n`.
    pub fn plain(&self) -> String {
        strip_sgr(&self.bytes).replace("\r\n", "\n")
    }

    /// Whether any SGR (colour) escape was sent.
    pub fn coloured(&self) -> bool {
        self.bytes.contains("\x1b[3") && self.bytes.contains("\x1b[0m")
    }

    /// Whether an escape was printed as text (`\x1b` spelled out).
    pub fn escapes_as_text(&self) -> bool {
        self.bytes.contains("\\x1b") || self.bytes.contains("\\u{1b}")
    }

    /// The lines a person is left with: each `\r` returns to the line's
    /// start and what follows overwrites it; `ESC[K`/`ESC[2K` clear.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for raw in self.bytes.split("\r\n") {
            let mut line = String::new();
            for part in raw.split('\r') {
                let cleared = part.starts_with("\x1b[2K") || part.starts_with("\x1b[K");
                if cleared {
                    line.clear();
                }
                let part = strip_sgr(&part.replace("\x1b[2K", "").replace("\x1b[K", ""));
                if part.chars().count() >= line.chars().count() {
                    line = part;
                } else {
                    let tail: String = line.chars().skip(part.chars().count()).collect();
                    line = part + &tail;
                }
            }
            out.push(line);
        }
        out
    }
}

/// Colour escapes (`ESC [ … m`) removed.
pub fn strip_sgr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\x1b' && it.peek() == Some(&'[') {
            let mut seq = String::new();
            it.next();
            for d in it.by_ref() {
                seq.push(d);
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
            if seq.ends_with('m') {
                continue;
            }
            out.push('\x1b');
            out.push('[');
            out.push_str(&seq);
            continue;
        }
        out.push(c);
    }
    out
}

/// Run `cmd` on a new terminal of `cols` × 40 (with `TERM` set; the
/// caller removes `NO_COLOR` and `CLICOLOR_FORCE` unless testing them), in a session of its own
/// with the terminal as its controlling one; read until it exits.
pub fn run(mut cmd: Command, cols: u16) -> Screen {
    let mut master: libc::c_int = -1;
    let mut slave: libc::c_int = -1;
    let size = libc::winsize {
        ws_row: 40,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors into the out-parameters; the
    // name and termios pointers may be null, and `size` outlives the call.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let io = |f: &OwnedFd| Stdio::from(f.try_clone().expect("dup the terminal"));
    cmd.stdin(io(&slave)).stdout(io(&slave)).stderr(io(&slave));
    cmd.env("TERM", "xterm-256color");
    let fd = slave.as_raw_fd();
    // SAFETY: between fork and exec only async-signal-safe calls: setsid
    // and the ioctl that makes the terminal the session's.
    unsafe {
        cmd.pre_exec(move || {
            libc::setsid();
            libc::ioctl(fd, libc::TIOCSCTTY, 0);
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("spawn on the terminal");
    // The command holds its copies of the terminal until dropped: the
    // reader sees the end only when no one here holds it.
    drop(cmd);
    drop(slave);
    let mut reader = std::fs::File::from(master);
    let read = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => all.extend_from_slice(&buf[..n]),
                // EIO: every holder of the terminal's other side closed it.
                Err(_) => break,
            }
        }
        all
    });
    let status = child.wait().expect("wait");
    let bytes = read.join().expect("the reader");
    Screen {
        code: status.code().unwrap_or(-1),
        bytes: String::from_utf8_lossy(&bytes).into_owned(),
    }
}
