//! Thread mode: every task a thread of this process, sharing its fds, as
//! rt-tests `-T` does.  Each thread reports completion with one byte on a
//! pipe so the parent can notice Ctrl-C and failures while it waits.

use super::task::{self, describe_exit, EXIT_OK, EXIT_SETUP};
use super::Options;
use crate::error::Interrupted;
use crate::sys::{sched, signals, time};
use anyhow::{anyhow, bail, Result};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::Arc;

/// Completion byte: the high bit marks a sender, the rest is the exit code.
const SENDER_BIT: u8 = 0x80;

/// Thread stacks: the loops need little beyond their buffers (on the heap).
const STACK: usize = 128 * 1024;

/// The fds every thread of the run shares: where it says it is ready,
/// where it waits for the start, where receivers hear that every sender
/// is done, and where each says it has finished.
#[derive(Clone, Copy)]
struct Shared {
    ready_out: RawFd,
    wake_in: RawFd,
    done_in: RawFd,
    fin_out: RawFd,
}

impl Shared {
    /// Say this thread has finished, with its exit code.
    fn finish(self, code: i32, sender: bool) {
        let b = (code as u8 & 0x7f) | if sender { SENDER_BIT } else { 0 };
        let _ = task::write_all(self.fin_out, &[b]);
    }
}

/// The threads, and every socket or pipe they use (which must stay open
/// until all are joined).
struct Threads {
    keep: Vec<OwnedFd>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

pub fn run(opts: &Options) -> Result<u64> {
    let (ready_r, ready_w) = task::fdpair(opts.pipe)?;
    let (wake_r, wake_w) = task::fdpair(opts.pipe)?;
    let (done_r, done_w) = crate::sys::fd::pipe()?;
    let (fin_r, fin_w) = crate::sys::fd::pipe()?;
    let shared = Shared {
        ready_out: ready_w.as_raw_fd(),
        wake_in: wake_r.as_raw_fd(),
        done_in: done_r.as_raw_fd(),
        fin_out: fin_w.as_raw_fd(),
    };
    let msg: Arc<Vec<u8>> = Arc::new(task::message(opts.datasize));
    let mut threads = Threads {
        keep: Vec::with_capacity(2 * opts.tasks() as usize),
        handles: Vec::with_capacity(opts.tasks() as usize),
    };
    for _group in 0..opts.groups {
        spawn_group(opts, shared, &msg, &mut threads)?;
    }

    let tasks = opts.tasks();
    task::read_ready(ready_r.as_raw_fd(), tasks, || {
        if signals::stop_requested() {
            return Err(Interrupted.into());
        }
        Ok(())
    })?;

    let old_policy = opts
        .fifo
        .then(|| sched::set_policy(0, sched::Policy::Fifo, 1))
        .transpose()?;
    let start = time::mono_ns();
    task::write_all(wake_w.as_raw_fd(), &[0u8])?;
    if let Err(e) = wait_finished(opts, fin_r.as_raw_fd(), done_w.as_raw_fd()) {
        if old_policy.is_some() {
            let _ = sched::set_policy(0, sched::Policy::Other, 0);
        }
        // Blocked threads cannot be cancelled; they end with the process,
        // which the caller ends promptly.  Their fds must stay open until then.
        std::mem::forget(threads.keep);
        return Err(e);
    }
    for h in threads.handles {
        if h.join().is_err() {
            bail!("a hackbench thread panicked");
        }
    }
    let end = time::mono_ns();
    if old_policy.is_some() {
        let _ = sched::set_policy(0, sched::Policy::Other, 0);
    }
    drop(threads.keep);
    Ok(end - start)
}

/// Start one group's threads: its receivers (each with its own socket or
/// pipe), then its senders, which write to every receiver of the group.
fn spawn_group(
    opts: &Options,
    shared: Shared,
    msg: &Arc<Vec<u8>>,
    threads: &mut Threads,
) -> Result<()> {
    let spawn = |f: Box<dyn FnOnce() + Send>| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(move || {
                crate::sys::sched_account::thread_started();
                f()
            })
            .map_err(|e| anyhow!("creating a hackbench thread: {e}"))
    };
    let Shared {
        ready_out,
        wake_in,
        done_in,
        ..
    } = shared;
    let packets = opts.fds as u64 * opts.loops;
    let (verify, loops, datasize) = (opts.verify, opts.loops, opts.datasize);
    let mut outs: Vec<RawFd> = Vec::with_capacity(opts.fds as usize);
    for _ in 0..opts.fds {
        let (r, w) = task::fdpair(opts.pipe)?;
        let rin = r.as_raw_fd();
        outs.push(w.as_raw_fd());
        threads.keep.push(r);
        threads.keep.push(w);
        threads.handles.push(spawn(Box::new(move || {
            let mut buf = vec![0u8; datasize];
            if task::ready(ready_out, wake_in).is_err() {
                return shared.finish(EXIT_SETUP, false);
            }
            let mut code = match task::receive(rin, packets, &mut buf, verify) {
                Ok(()) => EXIT_OK,
                Err(c) => c,
            };
            if code == EXIT_OK && verify {
                let _ = task::wait_readable(done_in, -1);
                code = task::nothing_extra(rin).err().unwrap_or(EXIT_OK);
            }
            shared.finish(code, false);
        }))?);
    }
    let outs = Arc::new(outs);
    for _ in 0..opts.fds {
        let (outs, msg) = (outs.clone(), msg.clone());
        threads.handles.push(spawn(Box::new(move || {
            if task::ready(ready_out, wake_in).is_err() {
                return shared.finish(EXIT_SETUP, true);
            }
            let code = task::send(&outs, loops, &msg).err().unwrap_or(EXIT_OK);
            shared.finish(code, true);
        }))?);
    }
    Ok(())
}

/// Read the finished bytes until every thread has said it is done; with
/// `verify`, tell the receivers once the last sender is.  The first
/// failure or Ctrl-C ends the wait.
fn wait_finished(opts: &Options, fin_in: RawFd, done_out: RawFd) -> Result<()> {
    let mut one = [0u8; 256];
    let tasks = opts.tasks();
    let senders = tasks / 2;
    let (mut finished, mut senders_done) = (0u64, 0u64);
    while finished < tasks {
        if signals::stop_requested() {
            return Err(Interrupted.into());
        }
        if !task::wait_readable(fin_in, 200)? {
            continue;
        }
        let n = crate::sys::fd::read(fin_in, &mut one).unwrap_or(0);
        let mut failure = None;
        for &b in one.iter().take(n) {
            finished += 1;
            let code = (b & 0x7f) as i32;
            if b & SENDER_BIT != 0 {
                senders_done += 1;
            }
            if code != EXIT_OK && failure.is_none() {
                let who = if b & SENDER_BIT != 0 {
                    "sender"
                } else {
                    "receiver"
                };
                failure = Some(anyhow!(
                    "hackbench {who} thread failed: {}",
                    describe_exit(code)
                ));
            }
        }
        if let Some(f) = failure {
            return Err(f);
        }
        if opts.verify && senders_done == senders {
            task::write_all(done_out, &[0u8])?;
            senders_done += 1; // send the done byte once
        }
    }
    Ok(())
}
