//! schbench's threads: message threads (`message.rs`), their workers
//! (`worker.rs`) with their statistics (`stats.rs`), and the main
//! thread's once-a-second bookkeeping (`main_loop.rs`: RPS, warm-up,
//! intervals, auto-RPS).  Here: what they share.

mod main_loop;
mod message;
mod stats;
mod worker;

pub use main_loop::drive;
use message::message_thread;
use stats::{Hists, Kind, Stats};
use worker::worker;

use super::sync::{CpuLocks, Futex, WaitList};
use super::{busy_percent, new_hist, spawn_named, Observer, Options, Shared, Snapshot};
use super::{ThreadReport, HIST_MAX_NS};
use crate::sys::requests::RequestList;
use crate::sys::time::mono_ns;
use anyhow::{anyhow, Result};
use hdrhistogram::Histogram;
use std::sync::atomic::{
    AtomicI32, AtomicU64, Ordering::Acquire, Ordering::Relaxed, Ordering::Release, Ordering::SeqCst,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// In RPS mode a worker with more than this many requests queued gets no
/// more until it catches up (schbench's batch).
const MAX_PENDING: u64 = 128;

/// In RPS mode the main thread wakes with each round, as schbench's does
/// (their timers expire together and fire on one interrupt: a wake-up of
/// its own cost kbench's main and request threads 0.1-0.3 ms a 10 s run
/// more CPU than schbench's), and counts the round's RPS from what the
/// request thread noted as it began the round, so the count is exact
/// whichever of the two runs first.  Only before a second whose statistics
/// are zeroed (`-z`), or whose goal auto-RPS sets, does it wake this long
/// before the round: the zero, or the goal, must reach the workers before
/// the round's first request; more than the main thread's lateness on a
/// busy machine (1 ms was not: at 200 a second, a CI machine running the
/// tests side by side counted seconds of 211 and 189 requests); less than
/// what a round leaves of its second once its requests are done, up to
/// 95 % of what the workers can serve.
const BEFORE_ROUND_NS: u64 = 50_000_000;

/// A page both ends of a pipe-mode hand-off write in turn (the futex
/// hand-off orders them).
type Page = crate::sys::mem::HandOffPage;

/// What a worker shares with its message thread and the main thread.
struct Worker {
    futex: Futex,
    wake_ns: AtomicU64,
    /// RPS mode: requests posted to it, not yet taken.
    inbox: RequestList,
    /// RPS mode: requests posted since it last went to take them (read
    /// and bumped by the message thread without a locked add, as
    /// schbench's `pending++`).
    pending: AtomicU64,
    requests: AtomicU64,
    locks: AtomicU64,
    tid: AtomicI32,
    /// What it published for the main thread (interval printing).
    snapshot: Mutex<Slots>,
    page: Page,
}

/// A worker's publications: `live`, its statistics as it last published
/// them (on request, and in RPS mode before it sleeps); `closed`, as they
/// were when it last zeroed them, so the main thread, which zeroes right
/// after asking for a snapshot, gets every sample up to the zero even from
/// a worker that has already gone on to the next interval.
#[derive(Default)]
struct Slots {
    live: Option<Published>,
    closed: Option<Published>,
}

/// A worker's statistics as published.
struct Published {
    hists: Hists,
    /// The reset they date from: older than the main thread's last reset,
    /// they say nothing of the time since (the worker has recorded
    /// nothing since, or it would have taken the reset first).
    reset_epoch: u64,
}

/// Samples a worker keeps, besides its histograms, since it last
/// published: publishing adds them to the published histograms (a few
/// hundred records at most) instead of copying two histograms of 27,648
/// buckets each, so a worker can publish every time it goes to sleep.
/// More than this since the last publication, and it copies.
const LOG_CAP: usize = 256;

/// One message thread's shared state.
struct Message {
    futex: Futex,
    list: WaitList,
    workers: Vec<Arc<Worker>>,
    tid: AtomicI32,
    /// RPS mode: 1 + the second of the run whose round it began last (0
    /// before the first).
    round: AtomicU64,
    /// RPS mode: requests its workers had completed as that round began.
    done_before_round: AtomicU64,
}

/// A worker's result at its end.
pub struct WorkerEnd {
    pub report: ThreadReport,
    pub running_s: f64,
    hists: Hists,
}

/// A message thread's result at its end.
pub struct MessageEnd {
    pub report: ThreadReport,
    pub queued: u64,
}

/// What a message thread hands back: itself and its workers.
type MessageResult = Result<(MessageEnd, Vec<WorkerEnd>)>;

/// Everything a run's threads hand back, with the merged histograms.
pub type Ends = (
    Vec<MessageEnd>,
    Vec<WorkerEnd>,
    Histogram<u64>,
    Histogram<u64>,
);

/// Every thread of a run.
pub struct Group {
    messages: Vec<Arc<Message>>,
    handles: Vec<std::thread::JoinHandle<MessageResult>>,
}

/// Mean run-queue delay per time slice (ns) from a task's schedstat.
fn sched_delay((_, wait_ns, slices): (u64, u64, u64)) -> u64 {
    wait_ns.checked_div(slices).unwrap_or(0)
}

/// The calling thread's, read just before it ends.
fn own_sched_delay() -> Option<u64> {
    crate::sys::procfs::own_schedstat().map(sched_delay)
}

/// Another thread of this process's, while it runs.
fn sched_delay_of(tid: i32) -> Option<u64> {
    crate::sys::procfs::own_task_schedstat(tid).map(sched_delay)
}

fn affinity() -> Vec<usize> {
    crate::sys::sched::get_affinity(0).unwrap_or_default()
}

struct Ctx {
    o: Options,
    shared: Arc<Shared>,
    locks: Arc<CpuLocks>,
    shared_matrix: Arc<Vec<AtomicU64>>,
}

impl Group {
    pub fn start(o: &Options, shared: Arc<Shared>) -> Result<Group> {
        let ncpu = crate::sys::cpus::online_here()
            .iter()
            .max()
            .map_or(1, |m| m + 1);
        let (_, side_shared) = o.matrix_sides();
        let ctx = Arc::new(Ctx {
            o: o.clone(),
            shared,
            locks: Arc::new(CpuLocks::new(ncpu)),
            shared_matrix: Arc::new(
                (0..3 * side_shared * side_shared)
                    .map(|_| AtomicU64::new(0))
                    .collect(),
            ),
        });
        let page_len = o.pipe_bytes.max(1);
        let mut messages = Vec::new();
        let mut handles = Vec::new();
        for m in 0..o.message_threads {
            let msg = Arc::new(Message::new(o.workers, page_len));
            messages.push(msg.clone());
            let ctx = ctx.clone();
            handles.push(spawn_named("schbench-msg", move || {
                message_thread(m, &msg, &ctx)
            })?);
        }
        Ok(Group { messages, handles })
    }

    /// Join every thread; merge the workers' histograms.
    pub fn finish(self) -> Result<Ends> {
        for m in &self.messages {
            m.futex.post();
        }
        let mut messages = Vec::new();
        let mut workers = Vec::new();
        let mut first_err = None;
        for h in self.handles {
            match h.join() {
                Ok(Ok((m, w))) => {
                    messages.push(m);
                    workers.extend(w);
                }
                Ok(Err(e)) => {
                    first_err.get_or_insert(e);
                }
                Err(_) => {
                    first_err.get_or_insert(anyhow!("a schbench thread panicked"));
                }
            }
        }
        if let Some(e) = first_err {
            return Err(e);
        }
        let mut all = Hists::new();
        for w in &workers {
            all.add(&w.hists)?;
        }
        Ok((messages, workers, all.wakeup, all.request))
    }

    fn requests(&self) -> u64 {
        self.messages.iter().map(|m| m.completed()).sum()
    }

    /// RPS mode: requests completed before the round of `second` began,
    /// where it has begun; else (it has not: none of its requests can have
    /// completed) those completed now.  Counting at round boundaries makes
    /// each second's RPS sample whole rounds, whether the main thread runs
    /// just before the request thread or just after it.
    fn requests_before_round(&self, second: u64) -> u64 {
        self.messages
            .iter()
            .map(|m| {
                // Now first: a round not begun after this read had not
                // begun before it either.
                let now = m.completed();
                if m.round.load(Acquire) > second {
                    m.done_before_round.load(Relaxed)
                } else {
                    now
                }
            })
            .sum()
    }

    /// Ask every worker for a snapshot and merge what they give within
    /// 200 ms: a busy worker answers within a request; one asleep (in RPS
    /// mode, for the rest of its second) published before it slept.  A
    /// publication older than the last reset counts as empty.
    ///
    /// With `zero`, the statistics are zeroed right after the request
    /// (a worker publishes first, then zeroes), so no sample falls between
    /// this interval and the next.
    fn snapshot(&self, shared: &Shared, zero: bool) -> (Histogram<u64>, Histogram<u64>) {
        // Workers are never woken for this: a wake-up without a stamp
        // would be recorded as latency.
        let reset = shared.reset_epoch.load(SeqCst);
        shared.snap_epoch.fetch_add(1, SeqCst);
        if zero {
            shared.reset_epoch.fetch_add(1, SeqCst);
        }
        std::thread::sleep(Duration::from_millis(200));
        let mut all = Hists::new();
        for w in self.messages.iter().flat_map(|m| &m.workers) {
            let slots = w.snapshot.lock().unwrap_or_else(|e| e.into_inner());
            // The interval as the worker closed it, if it has zeroed since;
            // else its last publication (asleep, it is current).
            let closed = slots.closed.as_ref().filter(|p| p.reset_epoch == reset);
            let live = slots.live.as_ref().filter(|p| p.reset_epoch == reset);
            if let Some(p) = closed.or(live) {
                let _ = all.add(&p.hists);
            }
        }
        (all.wakeup, all.request)
    }

    fn sched_delays(&self) -> (u64, u64) {
        let msgs = self
            .messages
            .iter()
            .map(|m| sched_delay_of(m.tid.load(Relaxed)));
        let wks = self
            .messages
            .iter()
            .flat_map(|m| &m.workers)
            .map(|w| sched_delay_of(w.tid.load(Relaxed)));
        (super::mean_delay(msgs), super::mean_delay(wks))
    }
}

impl Message {
    fn new(workers: usize, page_len: usize) -> Message {
        Message {
            futex: Futex::new(),
            list: WaitList::new(workers),
            workers: (0..workers)
                .map(|_| {
                    Arc::new(Worker {
                        futex: Futex::new(),
                        wake_ns: AtomicU64::new(0),
                        inbox: RequestList::new(),
                        pending: AtomicU64::new(0),
                        requests: AtomicU64::new(0),
                        locks: AtomicU64::new(0),
                        tid: AtomicI32::new(0),
                        snapshot: Mutex::new(Slots::default()),
                        page: Page::new(page_len),
                    })
                })
                .collect(),
            tid: AtomicI32::new(0),
            round: AtomicU64::new(0),
            done_before_round: AtomicU64::new(0),
        }
    }

    /// Requests its workers have completed.  Acquire, paired with the
    /// workers' Release: a request of a new round seen done makes that
    /// round's start, which came before it, visible too (see
    /// [`Group::requests_before_round`]).
    fn completed(&self) -> u64 {
        self.workers.iter().map(|w| w.requests.load(Acquire)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_counts_up_to_its_round_once_the_round_has_begun() {
        let group = Group {
            messages: vec![Arc::new(Message::new(2, 1)), Arc::new(Message::new(1, 1))],
            handles: Vec::new(),
        };
        let (a, b) = (&group.messages[0], &group.messages[1]);
        a.workers[0].requests.store(7, Relaxed);
        a.workers[1].requests.store(5, Relaxed);
        b.workers[0].requests.store(3, Relaxed);
        // No round yet: what is done now.
        assert_eq!(group.requests_before_round(0), 15);
        // The first began at second 2 with 10 done, and 2 more were done
        // since (the new round's, where its requests are quick).
        a.done_before_round.store(10, Relaxed);
        a.round.store(3, Relaxed);
        assert_eq!(group.requests_before_round(2), 10 + 3);
        // Woken before that round began: all done so far is the old ones.
        assert_eq!(group.requests_before_round(3), 12 + 3);
        assert_eq!(group.requests(), 15);
    }
}
