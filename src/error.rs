//! Errors a user can fix, kept apart from internal failures.
//!
//! Anything that is the user's to change (a bad flag value, a CPU that does
//! not exist, a missing privilege) is a [`UserError`]; `main` maps it to a
//! one-line message and its own exit code.  Everything else travels as
//! `anyhow::Error` with context naming the file or command involved.

use std::fmt;

/// Exit code for bad input, as clap uses for usage errors.
pub const EXIT_USAGE: i32 = 2;
/// Exit code of `compare --fail-on` when its condition holds.
pub const EXIT_GATE: i32 = 3;
/// Exit code when the run was stopped by Ctrl-C / SIGTERM.
pub const EXIT_INTERRUPTED: i32 = 130;

static FAILURE_EXIT: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Make every failure of this process exit `code`, whatever it is (a
/// broken pipe, a panic): `kbench decide`'s 0 and 1 are verdicts that `git
/// bisect run` acts on, so nothing but a verdict may exit with them.
pub fn failures_exit(code: i32) {
    FAILURE_EXIT.store(code, std::sync::atomic::Ordering::Relaxed);
}

/// The exit code every failure takes, when one was set.
pub fn failure_exit() -> Option<i32> {
    let c = FAILURE_EXIT.load(std::sync::atomic::Ordering::Relaxed);
    (c != 0).then_some(c)
}

/// A failure the user can fix; the message says what and how.
#[derive(Debug)]
pub enum UserError {
    /// Bad input: a flag value, a path, a CPU list (exit 2).
    Input(String),
    /// A missing privilege or capability (exit 1), with how to get it.
    Privilege(String),
    /// The machine cannot host what was asked (limits, space, memory).
    Resource(String),
}

impl fmt::Display for UserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UserError::Input(m) | UserError::Privilege(m) | UserError::Resource(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for UserError {}

impl UserError {
    pub fn exit_code(&self) -> i32 {
        match self {
            UserError::Input(_) => EXIT_USAGE,
            UserError::Privilege(_) | UserError::Resource(_) => 1,
        }
    }
}

/// Shorthand for a bad-input error wrapped in `anyhow`.
pub fn input(msg: impl Into<String>) -> anyhow::Error {
    UserError::Input(msg.into()).into()
}

/// Shorthand for a privilege error wrapped in `anyhow`.
pub fn privilege(msg: impl Into<String>) -> anyhow::Error {
    UserError::Privilege(msg.into()).into()
}

/// Shorthand for a resource error wrapped in `anyhow`.
pub fn resource(msg: impl Into<String>) -> anyhow::Error {
    UserError::Resource(msg.into()).into()
}

/// The run was interrupted (Ctrl-C); what finished has been kept.
#[derive(Debug)]
pub struct Interrupted;

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// A restore record `kbench restore` will not apply (another user's, one
/// others could have changed, or one naming what kbench never changes):
/// said, and left where it is.
#[derive(Debug)]
pub struct Refused(pub String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "refused: {}", self.0)
    }
}

impl std::error::Error for Refused {}

/// `compare --fail-on` found what it was told to fail on; the report has
/// been written in full, this says why the exit status is not 0.
#[derive(Debug)]
pub struct GateFailed(pub String);

impl fmt::Display for GateFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GateFailed {}

/// A command whose exit status is its answer (`kbench decide`: 1 for
/// "like bad", 125 for "cannot tell"), with a line to say, if any.
#[derive(Debug)]
pub struct Exit {
    pub code: i32,
    pub message: Option<String>,
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exit {}", self.code)
    }
}

impl std::error::Error for Exit {}
