//! Ctrl-C and SIGTERM handling: a flag, set from the handler, that every
//! long-running loop polls.
//!
//! The handler is installed without `SA_RESTART`, so blocking calls in the
//! parent (`read`, `poll`, `waitpid`, `clock_nanosleep`) return `EINTR` and
//! the caller notices the flag promptly, stops its workers and keeps what
//! finished.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
/// The stop was the plan, not an interruption: SIGUSR1, which a
/// scenario sends its background tasks when their phase ends.
static PLANNED: AtomicBool = AtomicBool::new(false);

/// The signal that stops a background task as planned.
pub const PLANNED_STOP: libc::c_int = libc::SIGUSR1;

extern "C" fn on_signal(sig: libc::c_int) {
    if sig == PLANNED_STOP {
        PLANNED.store(true, Ordering::SeqCst);
    }
    STOP.store(true, Ordering::SeqCst);
}

/// Was the stop asked for the plan's sake ([`PLANNED_STOP`])?
pub fn stop_was_planned() -> bool {
    PLANNED.load(Ordering::SeqCst)
}

/// The signals kbench handles: Ctrl-C, SIGTERM, SIGHUP, the planned stop.
const HANDLED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, PLANNED_STOP];

/// Install the handler for [`HANDLED`].
pub fn install() {
    for sig in HANDLED {
        // SAFETY: a zeroed sigaction with a valid handler and empty mask.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            sa.sa_flags = 0;
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Restore the default disposition (used in forked workers so Ctrl-C
/// kills them outright, as in rt-tests).
pub fn reset_default() {
    for sig in HANDLED {
        // SAFETY: setting a default disposition is always valid.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// Has a stop been requested?
#[inline]
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Run `f` on a thread of its own and wait for it, answering Ctrl-C at
/// once with [`crate::error::Interrupted`] (the thread is left to end with
/// the process): for long work that cannot check for a stop itself, such
/// as a parser.  When `f` returns, the process has one thread again.
pub fn interruptible<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> anyhow::Result<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    let h = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    loop {
        match rx.recv_timeout(std::time::Duration::from_millis(20)) {
            Ok(v) => {
                let _ = h.join();
                return Ok(v);
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => stop_point()?,
            // It panicked: the panic goes on here, as if `f` ran here.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match h.join() {
                Err(p) => std::panic::resume_unwind(p),
                Ok(()) => return Err(anyhow::anyhow!("a worker thread ended without an answer")),
            },
        }
    }
}

/// [`crate::error::Interrupted`] once Ctrl-C (or SIGTERM) has asked for a
/// stop: for loops that start many tasks and must hear it between them.
pub fn stop_point() -> anyhow::Result<()> {
    if stop_requested() {
        return Err(crate::error::Interrupted.into());
    }
    Ok(())
}
