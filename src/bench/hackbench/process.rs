//! Process mode: every task a real process, forked while kbench has one
//! thread (so no lock can be held across the fork), in a process group of
//! its own so the parent can wait for and kill exactly its workers.

use super::task::{self, describe_exit, EXIT_OK, EXIT_SETUP};
use super::Options;
use crate::error::Interrupted;
use crate::sys::proc::{self, ExitKind};
use crate::sys::{sched, signals, time};
use anyhow::{anyhow, bail, Result};
use std::collections::HashMap;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

#[derive(Clone, Copy, Debug)]
enum Role {
    Sender { group: u32, index: u32 },
    Receiver { group: u32, index: u32 },
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Role::Sender { group, index } => write!(f, "sender {index} of group {group}"),
            Role::Receiver { group, index } => write!(f, "receiver {index} of group {group}"),
        }
    }
}

/// The workers of one run; dropping it kills and reaps whatever is left,
/// so no error path leaves a process behind.
struct Workers {
    pgid: libc::pid_t,
    live: HashMap<libc::pid_t, Role>,
    senders_left: u64,
}

impl Workers {
    fn kill_all(&mut self) {
        if self.pgid > 0 {
            proc::kill(-self.pgid, libc::SIGKILL);
        }
        for &pid in self.live.keys() {
            proc::kill(pid, libc::SIGKILL);
        }
    }

    /// Reap one worker of our group; `None` on EINTR.
    fn reap_one(&mut self) -> Result<Option<(Role, ExitKind)>> {
        let mut status = 0;
        // SAFETY: status is a valid out-pointer.
        let pid = unsafe { libc::waitpid(-self.pgid, &mut status, 0) };
        if pid < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                return Ok(None);
            }
            bail!("waiting for hackbench workers: {e}");
        }
        let role = self
            .live
            .remove(&pid)
            .ok_or_else(|| anyhow!("reaped unknown process {pid}"))?;
        if matches!(role, Role::Sender { .. }) {
            self.senders_left -= 1;
        }
        Ok(Some((role, proc::exit_kind(status))))
    }

    fn reap_all_quietly(&mut self) {
        while !self.live.is_empty() {
            let mut status = 0;
            // SAFETY: as above.
            let pid = unsafe { libc::waitpid(-self.pgid, &mut status, 0) };
            if pid < 0 {
                if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                break;
            }
            self.live.remove(&pid);
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        if !self.live.is_empty() {
            self.kill_all();
            self.reap_all_quietly();
        }
    }
}

/// Fork one worker running `body`; the child never returns.
fn spawn(
    workers: &mut Workers,
    parent: libc::pid_t,
    role: Role,
    body: impl FnOnce() -> i32,
) -> Result<()> {
    // SAFETY: checked single-threaded by `run` before the first fork.
    let pid = unsafe { proc::fork() }.map_err(|e| anyhow!("fork for hackbench {role}: {e}"))?;
    if pid == 0 {
        signals::reset_default();
        proc::die_with_parent(parent);
        // SAFETY: joining (or creating, for the first) our workers' group.
        unsafe { libc::setpgid(0, workers.pgid) };
        proc::child_exit(body());
    }
    if workers.pgid == 0 {
        workers.pgid = pid;
    }
    // SAFETY: also set from the parent so there is no race with waitpid(-pgid).
    unsafe { libc::setpgid(pid, workers.pgid) };
    workers.live.insert(pid, role);
    Ok(())
}

fn close(fd: RawFd) {
    // SAFETY: closing an fd this process owns (in a child, its inherited copy).
    unsafe { libc::close(fd) };
}

fn failure(role: Role, how: ExitKind) -> anyhow::Error {
    match how {
        ExitKind::Code(c) => anyhow!("hackbench {role} failed: {} ({how})", describe_exit(c)),
        ExitKind::Signal(_) => anyhow!("hackbench {role} died: {how}"),
    }
}

pub fn run(opts: &Options) -> Result<u64> {
    if proc::thread_count() > 1 {
        bail!(
            "hackbench process mode must fork from a single-threaded kbench (found {} threads)",
            proc::thread_count()
        );
    }
    let (ready_r, ready_w) = task::fdpair(opts.pipe)?;
    let (wake_r, wake_w) = task::fdpair(opts.pipe)?;
    let (done_r, done_w) = task::fdpair(true)?;
    let parent = std::process::id() as libc::pid_t;
    let msg = task::message(opts.datasize);
    let mut buf = vec![0u8; opts.datasize];
    let mut workers = Workers {
        pgid: 0,
        live: HashMap::with_capacity(opts.tasks() as usize),
        senders_left: 0,
    };
    let (ready_out, wake_in, done_in) =
        (ready_w.as_raw_fd(), wake_r.as_raw_fd(), done_r.as_raw_fd());
    let packets = opts.fds as u64 * opts.loops;
    let verify = opts.verify;

    for group in 0..opts.groups {
        let mut outs: Vec<OwnedFd> = Vec::with_capacity(opts.fds as usize);
        for index in 0..opts.fds {
            let (r, w) = task::fdpair(opts.pipe)?;
            let (rin, wout) = (r.as_raw_fd(), w.as_raw_fd());
            spawn(
                &mut workers,
                parent,
                Role::Receiver { group, index },
                || {
                    close(wout);
                    if task::ready(ready_out, wake_in).is_err() {
                        return EXIT_SETUP;
                    }
                    if let Err(c) = task::receive(rin, packets, &mut buf, verify) {
                        return c;
                    }
                    if verify {
                        // Wait until every sender has finished, then look for excess.
                        let _ = task::wait_readable(done_in, -1);
                        if let Err(c) = task::nothing_extra(rin) {
                            return c;
                        }
                    }
                    EXIT_OK
                },
            )?;
            outs.push(w);
        }
        let raw: Vec<RawFd> = outs.iter().map(|f| f.as_raw_fd()).collect();
        for index in 0..opts.fds {
            spawn(&mut workers, parent, Role::Sender { group, index }, || {
                if task::ready(ready_out, wake_in).is_err() {
                    return EXIT_SETUP;
                }
                match task::send(&raw, opts.loops, &msg) {
                    Ok(()) => EXIT_OK,
                    Err(c) => c,
                }
            })?;
            workers.senders_left += 1;
        }
        drop(outs);
    }
    drop(ready_w);

    wait_ready(&mut workers, ready_r.as_raw_fd(), opts.tasks())?;

    let old_policy = opts
        .fifo
        .then(|| sched::set_policy(0, sched::Policy::Fifo, 1))
        .transpose()?;
    let start = time::mono_ns();
    task::write_all(wake_w.as_raw_fd(), &[0u8])?;
    let mut done_sent = false;
    let mut result = Ok(());
    while !workers.live.is_empty() {
        match workers.reap_one()? {
            None if signals::stop_requested() => {
                result = Err(Interrupted.into());
                break;
            }
            None => continue,
            Some((_, ExitKind::Code(0))) => {}
            Some((role, how)) => {
                result = Err(failure(role, how));
                break;
            }
        }
        if verify && workers.senders_left == 0 && !done_sent {
            task::write_all(done_w.as_raw_fd(), &[0u8])?;
            done_sent = true;
        }
    }
    let end = time::mono_ns();
    if old_policy.is_some() {
        let _ = sched::set_policy(0, sched::Policy::Other, 0);
    }
    result?;
    Ok(end - start)
}

/// Read one ready byte per task, noticing early deaths and Ctrl-C.
fn wait_ready(workers: &mut Workers, ready_in: RawFd, tasks: u64) -> Result<()> {
    let mut got = 0u64;
    let mut buf = [0u8; 512];
    while got < tasks {
        if signals::stop_requested() {
            return Err(Interrupted.into());
        }
        if task::wait_readable(ready_in, 200)? {
            let want = ((tasks - got) as usize).min(buf.len());
            // SAFETY: reading into a local buffer of at least `want` bytes.
            let n = unsafe { libc::read(ready_in, buf.as_mut_ptr().cast(), want) };
            if n > 0 {
                got += n as u64;
            }
            continue;
        }
        // Nothing for 200 ms: has a worker died before getting ready?
        let mut status = 0;
        // SAFETY: status is a valid out-pointer.
        let pid = unsafe { libc::waitpid(-workers.pgid, &mut status, libc::WNOHANG) };
        if pid > 0 {
            let role = workers
                .live
                .remove(&pid)
                .map_or("worker".to_string(), |r| r.to_string());
            bail!(
                "hackbench {role} died before starting: {}",
                proc::exit_kind(status)
            );
        }
    }
    Ok(())
}
