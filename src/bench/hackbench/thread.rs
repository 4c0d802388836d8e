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

pub fn run(opts: &Options) -> Result<u64> {
    let (ready_r, ready_w) = task::fdpair(opts.pipe)?;
    let (wake_r, wake_w) = task::fdpair(opts.pipe)?;
    let (done_r, done_w) = crate::sys::fd::pipe()?;
    let (fin_r, fin_w) = crate::sys::fd::pipe()?;
    let (ready_out, wake_in, done_in, fin_out) = (
        ready_w.as_raw_fd(),
        wake_r.as_raw_fd(),
        done_r.as_raw_fd(),
        fin_w.as_raw_fd(),
    );
    let packets = opts.fds as u64 * opts.loops;
    let verify = opts.verify;
    let loops = opts.loops;
    let msg: Arc<Vec<u8>> = Arc::new(task::message(opts.datasize));
    // Every socket/pipe lives here until all threads are joined.
    let mut keep: Vec<OwnedFd> = Vec::with_capacity(2 * opts.tasks() as usize);
    let mut handles = Vec::with_capacity(opts.tasks() as usize);
    let spawn = |f: Box<dyn FnOnce() + Send>| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(f)
            .map_err(|e| anyhow!("creating a hackbench thread: {e}"))
    };
    let finish = move |code: i32, sender: bool| {
        let b = (code as u8 & 0x7f) | if sender { SENDER_BIT } else { 0 };
        let _ = task::write_all(fin_out, &[b]);
    };

    for _group in 0..opts.groups {
        let mut outs: Vec<RawFd> = Vec::with_capacity(opts.fds as usize);
        for _ in 0..opts.fds {
            let (r, w) = task::fdpair(opts.pipe)?;
            let rin = r.as_raw_fd();
            outs.push(w.as_raw_fd());
            keep.push(r);
            keep.push(w);
            let datasize = opts.datasize;
            handles.push(spawn(Box::new(move || {
                let mut buf = vec![0u8; datasize];
                if task::ready(ready_out, wake_in).is_err() {
                    return finish(EXIT_SETUP, false);
                }
                let mut code = match task::receive(rin, packets, &mut buf, verify) {
                    Ok(()) => EXIT_OK,
                    Err(c) => c,
                };
                if code == EXIT_OK && verify {
                    let _ = task::wait_readable(done_in, -1);
                    code = task::nothing_extra(rin).err().unwrap_or(EXIT_OK);
                }
                finish(code, false);
            }))?);
        }
        let outs = Arc::new(outs);
        for _ in 0..opts.fds {
            let (outs, msg) = (outs.clone(), msg.clone());
            handles.push(spawn(Box::new(move || {
                if task::ready(ready_out, wake_in).is_err() {
                    return finish(EXIT_SETUP, true);
                }
                let code = task::send(&outs, loops, &msg).err().unwrap_or(EXIT_OK);
                finish(code, true);
            }))?);
        }
    }

    let tasks = opts.tasks();
    task::read_ready(ready_r.as_raw_fd(), tasks, || {
        if signals::stop_requested() {
            return Err(Interrupted.into());
        }
        Ok(())
    })?;
    let mut one = [0u8; 256];

    let old_policy = opts
        .fifo
        .then(|| sched::set_policy(0, sched::Policy::Fifo, 1))
        .transpose()?;
    let start = time::mono_ns();
    task::write_all(wake_w.as_raw_fd(), &[0u8])?;
    let mut finished = 0u64;
    let mut senders_done = 0u64;
    let senders = tasks / 2;
    let mut failure = None;
    while finished < tasks {
        if signals::stop_requested() {
            failure = Some(Err(Interrupted.into()));
            break;
        }
        if !task::wait_readable(fin_r.as_raw_fd(), 200)? {
            continue;
        }
        let n = crate::sys::fd::read(fin_r.as_raw_fd(), &mut one).unwrap_or(0);
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
                failure = Some(Err(anyhow!(
                    "hackbench {who} thread failed: {}",
                    describe_exit(code)
                )));
            }
        }
        if failure.is_some() {
            break;
        }
        if verify && senders_done == senders {
            task::write_all(done_w.as_raw_fd(), &[0u8])?;
            senders_done += 1; // send the done byte once
        }
    }
    if let Some(f) = failure {
        if old_policy.is_some() {
            let _ = sched::set_policy(0, sched::Policy::Other, 0);
        }
        // Blocked threads cannot be cancelled; they end with the process,
        // which the caller ends promptly.  Their fds must stay open until then.
        std::mem::forget(keep);
        return f;
    }
    for h in handles {
        if h.join().is_err() {
            bail!("a hackbench thread panicked");
        }
    }
    let end = time::mono_ns();
    if old_policy.is_some() {
        let _ = sched::set_policy(0, sched::Policy::Other, 0);
    }
    drop(keep);
    Ok(end - start)
}
