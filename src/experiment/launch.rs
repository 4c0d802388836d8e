//! A child kbench: the one way an experiment runs a unit in this boot.
//!
//! A matrix's combination, a campaign's block, a bisection's unit in its
//! work tree and `decide`'s measurement are each one run of kbench's own
//! binary, as a child: its own process, so its runs are stored by the same
//! lifecycle as any other, and a crash in it cannot take the experiment
//! down.  Five places built that child by hand, each with its own choice
//! of what to pass on; this is the one builder.  The child gets the store
//! and label, the experiment's [`Tag`] and the parent's pid through the
//! environment (`session::inherited`), no stdin, and dies with its
//! parent; the parent passes a stop request on to it while it waits.

use crate::session::inherited::{ENV_EXPERIMENT, ENV_ROOT};
use crate::store::Tag;
use anyhow::{anyhow, Result};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// A child kbench being set up.
pub struct Child {
    cmd: Command,
}

impl Child {
    /// `kbench [--db DB] [--label LABEL] [-q]`, arguments to follow.
    pub fn new(db: Option<&str>, label: Option<&str>, quiet: bool) -> Result<Child> {
        let exe =
            std::env::current_exe().map_err(|e| anyhow!("finding kbench's own binary: {e}"))?;
        let mut cmd = Command::new(exe);
        if let Some(db) = db {
            cmd.arg("--db").arg(db);
        }
        if let Some(label) = label {
            cmd.arg("--label").arg(label);
        }
        if quiet {
            cmd.arg("-q");
        }
        cmd.stdin(Stdio::null());
        crate::sys::proc::on_exec(
            &mut cmd,
            crate::sys::proc::OnExec {
                die_with_parent: true,
                ..Default::default()
            },
        );
        Ok(Child { cmd })
    }

    /// More arguments.
    pub fn args<S: AsRef<std::ffi::OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.cmd.args(args);
        self
    }

    /// The experiment its runs belong to; this process is its root (the
    /// health monitor and isolation count it and its children as ours).
    pub fn tagged(mut self, tag: &Tag) -> Self {
        self.cmd
            .env(ENV_EXPERIMENT, tag.to_env())
            .env(ENV_ROOT, std::process::id().to_string());
        self
    }

    /// One more variable in its environment.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.cmd.env(key, value);
        self
    }

    /// Run it in `dir` (a bisection's work tree).
    pub fn in_dir(mut self, dir: &Path) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    /// Throw its standard output away (the parent prints its own report).
    pub fn quiet_stdout(mut self, quiet: bool) -> Self {
        if quiet {
            self.cmd.stdout(Stdio::null());
        }
        self
    }

    /// Run it to the end, passing a stop request on; its exit code
    /// (`None`: killed by a signal).
    pub fn run(mut self) -> Result<Option<i32>> {
        wait(self.cmd.spawn()?)
    }

    /// Run it to the end as [`Child::run`] does, its standard error read
    /// line by line and each line handed to `each` (under `--json` the
    /// parent relays them as events) instead of passed through.
    pub fn run_relaying(mut self, each: &(dyn Fn(&str) + Sync)) -> Result<Option<i32>> {
        use std::io::BufRead;
        self.cmd.stderr(Stdio::piped());
        let mut child = self.cmd.spawn()?;
        let err = child.stderr.take();
        std::thread::scope(|s| {
            let reader = err.map(|e| {
                s.spawn(move || {
                    // A line is kept to 64 KiB: kbench's own child writes
                    // short lines, and nothing it writes is held whole.
                    let mut r = std::io::BufReader::new(e);
                    let mut buf = Vec::new();
                    loop {
                        buf.clear();
                        match std::io::Read::take(&mut r, 64 * 1024).read_until(b'\n', &mut buf) {
                            Ok(0) | Err(_) => break,
                            Ok(_) => {
                                let line = String::from_utf8_lossy(&buf);
                                each(line.trim_end_matches(['\n', '\r']));
                            }
                        }
                    }
                })
            });
            let status = wait(child);
            if let Some(r) = reader {
                let _ = r.join();
            }
            status
        })
    }

    /// Run it with its output captured (a `--dry-run` asked of it).
    pub fn output(mut self) -> Result<Output> {
        Ok(self.cmd.output()?)
    }
}

/// Did the user stop the experiment (here, or in the child: exit 130)?
pub fn interrupted(status: Option<i32>) -> bool {
    crate::sys::signals::stop_requested() || status == Some(130)
}

/// Wait for the child, passing a stop request on while it is still ours
/// (unreaped, so its PID cannot be another process's).
pub fn wait(mut child: std::process::Child) -> Result<Option<i32>> {
    let mut passed_on = false;
    loop {
        if let Some(st) = child.try_wait()? {
            return Ok(st.code());
        }
        if crate::sys::signals::stop_requested() && !passed_on {
            crate::sys::proc::kill(child.id() as i32, libc::SIGINT);
            passed_on = true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
