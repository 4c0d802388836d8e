//! A group of forked worker processes: real processes in a process group
//! of their own, so the parent waits for and kills exactly its workers.
//!
//! Workers are forked while kbench has a single thread (checked), die with
//! the parent (`PR_SET_PDEATHSIG`), take Ctrl-C's default action, and are
//! killed and reaped when the group is dropped, so no error path leaves one
//! behind.

use super::proc::{self, ExitKind};
use anyhow::{anyhow, bail, Result};
use std::collections::HashMap;

pub struct WorkerGroup {
    pgid: libc::pid_t,
    parent: libc::pid_t,
    /// pid → caller's tag for the worker.
    live: HashMap<libc::pid_t, usize>,
}

impl WorkerGroup {
    /// A new, empty group; fails if kbench already has threads.
    pub fn new() -> Result<WorkerGroup> {
        let threads = proc::thread_count();
        if threads > 1 {
            bail!("worker processes must be forked from a single-threaded kbench (found {threads} threads)");
        }
        Ok(WorkerGroup {
            pgid: 0,
            parent: std::process::id() as libc::pid_t,
            live: HashMap::new(),
        })
    }

    /// The group's process-group id (0 before the first worker).
    pub fn pgid(&self) -> libc::pid_t {
        self.pgid
    }

    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// Fork a worker running `body`; its return value is the exit status.
    /// The child never returns into the caller.
    pub fn spawn(&mut self, tag: usize, body: impl FnOnce() -> i32) -> Result<libc::pid_t> {
        self.fork(tag, true, body)
    }

    /// Fork a janitor: like a worker, but it does not die with kbench (its
    /// body waits for that, with `proc::sleep_until_parent_dies`, and then
    /// cleans up).  A worker's parent-death SIGKILL, or its exit when
    /// kbench is already gone by the time it first runs, would skip the
    /// cleanup exactly when it is needed.
    pub fn spawn_janitor(&mut self, tag: usize, body: impl FnOnce() -> i32) -> Result<libc::pid_t> {
        self.fork(tag, false, body)
    }

    fn fork(
        &mut self,
        tag: usize,
        dies_with_parent: bool,
        body: impl FnOnce() -> i32,
    ) -> Result<libc::pid_t> {
        // SAFETY: `new` checked the process is single-threaded, and workers
        // are only forked from the thread that made the group.
        let pid = unsafe { proc::fork() }.map_err(|e| anyhow!("fork: {e}"))?;
        if pid == 0 {
            super::signals::reset_default();
            if dies_with_parent {
                proc::die_with_parent(self.parent);
            }
            // SAFETY: joining (or, for the first, creating) the group.
            unsafe { libc::setpgid(0, self.pgid) };
            let code = body();
            // Its scheduling counters outlive it (see sched_account).
            super::sched_account::process_exiting();
            proc::child_exit(code);
        }
        if self.pgid == 0 {
            self.pgid = pid;
        }
        // SAFETY: also from the parent, so waitpid(-pgid) never races.
        unsafe { libc::setpgid(pid, self.pgid) };
        self.live.insert(pid, tag);
        Ok(pid)
    }

    /// Reap one worker: `Ok(None)` on EINTR or, with `nohang`, when none
    /// has exited.
    pub fn reap_one(&mut self, nohang: bool) -> Result<Option<(usize, ExitKind)>> {
        if self.live.is_empty() {
            return Ok(None);
        }
        let mut status = 0;
        let flags = if nohang { libc::WNOHANG } else { 0 };
        // SAFETY: status is a valid out-pointer.
        let pid = unsafe { libc::waitpid(-self.pgid, &mut status, flags) };
        if pid < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                return Ok(None);
            }
            bail!("waiting for workers: {e}");
        }
        if pid == 0 {
            return Ok(None);
        }
        let tag = self
            .live
            .remove(&pid)
            .ok_or_else(|| anyhow!("reaped unknown process {pid}"))?;
        Ok(Some((tag, proc::exit_kind(status))))
    }

    /// Send `sig` to every live worker.
    pub fn signal_all(&self, sig: i32) {
        if self.pgid > 0 && !self.live.is_empty() {
            proc::kill(-self.pgid, sig);
        }
    }

    /// Kill every worker and reap them all.
    pub fn kill_and_reap(&mut self) {
        self.signal_all(libc::SIGKILL);
        while !self.live.is_empty() {
            match self.reap_one(false) {
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
}

impl Drop for WorkerGroup {
    fn drop(&mut self) {
        if !self.live.is_empty() {
            self.kill_and_reap();
        }
    }
}
