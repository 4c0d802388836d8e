//! A message thread: it wakes its workers (closed loop: each worker
//! posts itself and sleeps; RPS mode: requests posted to each in rounds
//! of a second) and hears Ctrl-C for them.

use super::*;

pub(super) fn message_thread(index: usize, msg: &Arc<Message>, ctx: &Arc<Ctx>) -> MessageResult {
    msg.tid.store(crate::sys::sched::gettid(), Relaxed);
    let o = &ctx.o;
    if let Some(w) = &o.worker_cpus {
        // Workers inherit this before the message thread pins itself.
        crate::sys::sched::set_affinity(0, w)
            .map_err(|e| anyhow!("pinning workers to {w:?}: {e}"))?;
    }
    let (side, _) = o.matrix_sides();
    let mut handles = Vec::new();
    for (i, w) in msg.workers.iter().enumerate() {
        let (w, msg, ctx) = (w.clone(), msg.clone(), ctx.clone());
        handles.push(spawn_named("schbench-worker", move || {
            worker(i, &w, &msg, &ctx, side)
        })?);
    }
    if let Some(cpus) = &o.message_cpus {
        let cpu = cpus[index % cpus.len()];
        crate::sys::sched::set_affinity(0, &[cpu])
            .map_err(|e| anyhow!("pinning message thread {index} to CPU {cpu}: {e}"))?;
    }
    let cpus = affinity();
    let queued = if o.rps > 0 || o.auto_rps.is_some() {
        rps_loop(msg, &ctx.shared)
    } else {
        message_loop(msg, o, &ctx.shared);
        0
    };
    let delay = own_sched_delay();
    let mut ends = Vec::new();
    for w in &msg.workers {
        w.futex.post();
    }
    for h in handles {
        ends.push(
            h.join()
                .map_err(|_| anyhow!("a schbench worker panicked"))?,
        );
    }
    Ok((
        MessageEnd {
            report: ThreadReport {
                tid: msg.tid.load(Relaxed),
                cpus,
                requests: 0,
                sched_delay_ns: delay,
                locks_taken: 0,
            },
            queued,
        },
        ends,
    ))
}

/// Wake every waiting worker, stamping the time first (once for the whole
/// list, so a waker that gives its slice away shows up as latency; per
/// worker in pipe mode, after its copy).
pub(super) fn wake_all(msg: &Message, o: &Options) {
    let now = mono_ns();
    msg.list.drain(|i| {
        let w = &msg.workers[i];
        if o.pipe_bytes > 0 {
            w.page.fill(o.pipe_bytes, 1);
            w.wake_ns.store(mono_ns(), SeqCst);
        } else {
            w.wake_ns.store(now, SeqCst);
        }
        w.futex.post();
    });
}

pub(super) fn message_loop(msg: &Message, o: &Options, shared: &Shared) {
    loop {
        msg.futex.block();
        wake_all(msg, o);
        if shared.stopping.load(SeqCst) {
            wake_all(msg, o);
            break;
        }
        msg.futex.wait();
    }
}

/// RPS mode: queue the goal's requests each second, round-robin.  Rounds
/// start a whole number of seconds into the run, so the main thread can
/// wake with each and count whole rounds, from the count noted as each
/// begins (schbench sleeps the rest of each second from its round's start,
/// and its rounds drift later by each wake-up's lateness: 0.05-0.9 ms a
/// second here).
pub(super) fn rps_loop(msg: &Message, shared: &Shared) -> u64 {
    let mut next = 0usize;
    let mut queued = 0u64;
    let mut round_at = shared.start_ns;
    while !shared.stopping.load(SeqCst) {
        if round_at >= shared.deadline_ns {
            // The run is over; the main thread is about to say so.  A round
            // started now would add a second of requests to the count.
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        // Noted for the main thread's count before the first post.
        msg.done_before_round.store(msg.completed(), Relaxed);
        let second = round_at.saturating_sub(shared.start_ns) / 1_000_000_000;
        msg.round.store(second + 1, Release);
        let goal = shared.rps_per_msg.load(Relaxed);
        for _ in 0..goal {
            if shared.stopping.load(Relaxed) {
                break;
            }
            let now = mono_ns();
            let w = &msg.workers[next % msg.workers.len()];
            next += 1;
            if w.pending.load(SeqCst) > MAX_PENDING {
                std::thread::sleep(Duration::from_micros(100));
                continue;
            }
            w.pending.store(w.pending.load(Relaxed) + 1, Relaxed);
            w.inbox.push(mono_ns());
            queued += 1;
            w.wake_ns.store(now, Release);
            w.futex.post();
        }
        // The rest of the second in one sleep (again if a signal cut it
        // short).  A round that ran past its second (workers so far behind
        // that posts waited on them) starts the next at once, as
        // schbench's, counted from the second it is in: rounds it missed
        // are not made up afterwards in a burst of extra ones.
        round_at += 1_000_000_000;
        let now = mono_ns();
        if now > round_at {
            round_at += (now - round_at) / 1_000_000_000 * 1_000_000_000;
        }
        while !shared.stopping.load(Relaxed) && mono_ns() < round_at {
            crate::sys::time::sleep_until_ns(round_at);
        }
    }
    queued
}
