//! Process mode: every task a real process, forked while kbench has one
//! thread (so no lock can be held across the fork), in a [`WorkerGroup`].

use super::task::{self, describe_exit, EXIT_OK, EXIT_SETUP};
use super::Options;
use crate::error::Interrupted;
use crate::sys::proc::ExitKind;
use crate::sys::signals::stop_point;
use crate::sys::workers::WorkerGroup;
use crate::sys::{sched, signals, time};
use anyhow::{anyhow, bail, Result};
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

fn close(fd: RawFd) {
    crate::sys::fd::close_raw(fd);
}

fn failure(role: Role, how: ExitKind) -> anyhow::Error {
    match how {
        ExitKind::Code(c) => anyhow!("hackbench {role} failed: {} ({how})", describe_exit(c)),
        ExitKind::Signal(_) => anyhow!("hackbench {role} died: {how}"),
    }
}

/// The fds every task of the run shares: where it says it is ready, where
/// it waits for the start, where receivers hear that every sender is done.
#[derive(Clone, Copy)]
struct Shared {
    ready_out: RawFd,
    wake_in: RawFd,
    done_in: RawFd,
}

pub fn run(opts: &Options) -> Result<u64> {
    let mut workers = WorkerGroup::new()?;
    let (ready_r, ready_w) = task::fdpair(opts.pipe)?;
    let (wake_r, wake_w) = task::fdpair(opts.pipe)?;
    let (done_r, done_w) = crate::sys::fd::pipe()?;
    let shared = Shared {
        ready_out: ready_w.as_raw_fd(),
        wake_in: wake_r.as_raw_fd(),
        done_in: done_r.as_raw_fd(),
    };
    let msg = task::message(opts.datasize);
    let mut buf = vec![0u8; opts.datasize];
    let mut roles: Vec<Role> = Vec::with_capacity(opts.tasks() as usize);
    // Forking tens of thousands of tasks takes a while, each fork longer
    // than the last: Ctrl-C is heard between forks (the group drops and
    // kills what exists).
    for group in 0..opts.groups {
        spawn_group(
            opts,
            group,
            shared,
            (&msg, &mut buf),
            &mut workers,
            &mut roles,
        )?;
    }
    drop(ready_w);

    wait_ready(&mut workers, &roles, ready_r.as_raw_fd(), opts.tasks())?;

    let old_policy = opts
        .fifo
        .then(|| sched::set_policy(0, sched::Policy::Fifo, 1))
        .transpose()?;
    let start = time::mono_ns();
    task::write_all(wake_w.as_raw_fd(), &[0u8])?;
    let result = wait_done(opts, &mut workers, &roles, done_w.as_raw_fd());
    let end = time::mono_ns();
    if old_policy.is_some() {
        let _ = sched::set_policy(0, sched::Policy::Other, 0);
    }
    result?;
    Ok(end - start)
}

/// Fork one group: its receivers (each with its own socket or pipe), then
/// its senders, which write to every receiver of the group.
fn spawn_group(
    opts: &Options,
    group: u32,
    shared: Shared,
    (msg, buf): (&[u8], &mut [u8]),
    workers: &mut WorkerGroup,
    roles: &mut Vec<Role>,
) -> Result<()> {
    let Shared {
        ready_out,
        wake_in,
        done_in,
    } = shared;
    let packets = opts.fds as u64 * opts.loops;
    let verify = opts.verify;
    let mut outs: Vec<OwnedFd> = Vec::with_capacity(opts.fds as usize);
    for index in 0..opts.fds {
        stop_point()?;
        let (r, w) = task::fdpair(opts.pipe)?;
        let (rin, wout) = (r.as_raw_fd(), w.as_raw_fd());
        let role = Role::Receiver { group, index };
        workers
            .spawn(roles.len(), || {
                close(wout);
                if task::ready(ready_out, wake_in).is_err() {
                    return EXIT_SETUP;
                }
                if let Err(c) = task::receive(rin, packets, buf, verify) {
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
            })
            .map_err(|e| anyhow!("hackbench {role}: {e}"))?;
        roles.push(role);
        outs.push(w);
    }
    let raw: Vec<RawFd> = outs.iter().map(|f| f.as_raw_fd()).collect();
    for index in 0..opts.fds {
        stop_point()?;
        let role = Role::Sender { group, index };
        workers
            .spawn(roles.len(), || {
                if task::ready(ready_out, wake_in).is_err() {
                    return EXIT_SETUP;
                }
                match task::send(&raw, opts.loops, msg) {
                    Ok(()) => EXIT_OK,
                    Err(c) => c,
                }
            })
            .map_err(|e| anyhow!("hackbench {role}: {e}"))?;
        roles.push(role);
    }
    Ok(())
}

/// Reap every task as it ends; with `verify`, tell the receivers once the
/// last sender is done.  The first failure or Ctrl-C ends the wait (the
/// group kills the rest when it drops).
fn wait_done(
    opts: &Options,
    workers: &mut WorkerGroup,
    roles: &[Role],
    done_out: RawFd,
) -> Result<()> {
    let mut senders_left = opts.tasks() / 2;
    let mut done_sent = false;
    while !workers.is_empty() {
        match workers.reap_one(false)? {
            None if signals::stop_requested() => return Err(Interrupted.into()),
            None => continue,
            Some((tag, ExitKind::Code(0))) => {
                if matches!(roles[tag], Role::Sender { .. }) {
                    senders_left -= 1;
                }
            }
            Some((tag, how)) => return Err(failure(roles[tag], how)),
        }
        if opts.verify && senders_left == 0 && !done_sent {
            task::write_all(done_out, &[0u8])?;
            done_sent = true;
        }
    }
    Ok(())
}

/// Read one ready byte per task, noticing early deaths and Ctrl-C.
fn wait_ready(
    workers: &mut WorkerGroup,
    roles: &[Role],
    ready_in: RawFd,
    tasks: u64,
) -> Result<()> {
    task::read_ready(ready_in, tasks, || {
        if signals::stop_requested() {
            return Err(Interrupted.into());
        }
        if let Some((tag, how)) = workers.reap_one(true)? {
            bail!("hackbench {} died before starting: {how}", roles[tag]);
        }
        Ok(())
    })
}
