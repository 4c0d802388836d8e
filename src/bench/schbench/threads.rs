//! schbench's threads: message threads, their workers, and the main
//! thread's once-a-second bookkeeping (RPS, warm-up, intervals, auto-RPS).

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

/// A worker's two latency histograms (ns), recorded, zeroed, merged and
/// published together.
#[derive(Clone)]
struct Hists {
    wakeup: Histogram<u64>,
    request: Histogram<u64>,
}

#[derive(Clone, Copy)]
enum Kind {
    Wakeup,
    Request,
}

impl Hists {
    fn new() -> Hists {
        Hists {
            wakeup: new_hist(HIST_MAX_NS),
            request: new_hist(HIST_MAX_NS),
        }
    }

    fn record(&mut self, kind: Kind, ns: u64) {
        match kind {
            Kind::Wakeup => self.wakeup.saturating_record(ns),
            Kind::Request => self.request.saturating_record(ns),
        }
    }

    fn reset(&mut self) {
        self.wakeup.reset();
        self.request.reset();
    }

    /// Add another's samples (same bounds and precision: it fails only on
    /// a count past `u64`).
    fn add(&mut self, other: &Hists) -> Result<()> {
        let err = |e| anyhow!("merging histograms: {e:?}");
        self.wakeup.add(&other.wakeup).map_err(err)?;
        self.request.add(&other.request).map_err(err)
    }
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

/// Mean run-queue delay per time slice (ns) from a schedstat file:
/// "run_ns wait_ns slices".
fn sched_delay(path: &str) -> Option<u64> {
    let s = std::fs::read_to_string(path).ok()?;
    let f: Vec<u64> = s
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    Some(f.get(1)?.checked_div(*f.get(2)?).unwrap_or(0))
}

/// The calling thread's, read just before it ends.
fn own_sched_delay() -> Option<u64> {
    sched_delay("/proc/thread-self/schedstat")
}

/// Another thread of this process's, while it runs.
fn sched_delay_of(tid: i32) -> Option<u64> {
    sched_delay(&format!("/proc/self/task/{tid}/schedstat"))
}

fn affinity() -> Vec<usize> {
    crate::sys::sched::get_affinity(0).unwrap_or_default()
}

/// Naive multiplication of two `n`×`n` matrices into a third, in wrapping
/// u64 arithmetic, to give the request a cache footprint: on x86-64 the
/// very loop gcc makes of schbench's C (see
/// `sys::mem::multiply_like_schbench`), so a request costs what schbench's
/// does.
#[inline(never)]
fn multiply(data: &mut [u64], n: usize) {
    crate::sys::mem::multiply_like_schbench(data, n);
}

/// The shared matrices of `--split`, written by several workers at once
/// (as schbench's are), so every element is an atomic.
fn multiply_shared(data: &[AtomicU64], n: usize) {
    for i in 0..n {
        for j in 0..n {
            let mut acc = 0u64;
            for k in 0..n {
                let a = data[i * n + k].load(Relaxed);
                let b = data[n * n + k * n + j].load(Relaxed);
                acc = acc.wrapping_add(a.wrapping_mul(b));
            }
            data[2 * n * n + i * n + j].store(acc, Relaxed);
        }
    }
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

fn message_thread(index: usize, msg: &Arc<Message>, ctx: &Arc<Ctx>) -> MessageResult {
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
fn wake_all(msg: &Message, o: &Options) {
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

fn message_loop(msg: &Message, o: &Options, shared: &Shared) {
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
fn rps_loop(msg: &Message, shared: &Shared) -> u64 {
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

fn worker(index: usize, w: &Worker, msg: &Message, ctx: &Ctx, side: usize) -> WorkerEnd {
    w.tid.store(crate::sys::sched::gettid(), Relaxed);
    let o = &ctx.o;
    let shared = &ctx.shared;
    let rps_mode = o.rps > 0 || o.auto_rps.is_some();
    let mut st = Stats {
        hists: Hists::new(),
        reset_seen: 0,
        snap_seen: 0,
        log: Vec::with_capacity(LOG_CAP),
        overflow: false,
    };
    // Zeroed and never written but for the result, as schbench's freshly
    // mapped matrices are (its reads hit the kernel's zero page), so a
    // request costs here what it costs there.
    let mut data = vec![0u64; 3 * side * side];
    let (ops_private, ops_shared) = match o.split {
        Some(p) => {
            let private = o.operations * p as u64 / 100;
            (private, o.operations - private)
        }
        None => (o.operations, 0),
    };
    let (_, side_shared) = o.matrix_sides();
    let start = mono_ns();
    while !shared.stopping.load(Relaxed) {
        // In RPS mode, about to sleep (likely for the rest of the second,
        // when it could not answer the main thread): publish first, not
        // after the stamp below, where the time it takes would count as
        // wake-up latency if a request came meanwhile.
        if rps_mode && st.dirty() && w.inbox.is_empty() {
            st.publish(w);
        }
        // msg_and_wait: post ourselves, sleep until woken.
        let mut batch = 1usize;
        let mut taken = None;
        if o.pipe_bytes > 0 {
            w.page.fill(o.pipe_bytes, 2);
        }
        w.futex.block();
        w.wake_ns.store(mono_ns(), SeqCst);
        let mut woken = true;
        if rps_mode {
            w.pending.store(0, Relaxed);
            let t = w.inbox.take();
            if !t.is_empty() {
                w.futex.set_running();
                batch = t.len();
                taken = Some(t);
                woken = false;
            }
        } else {
            msg.list.push(index);
        }
        if woken {
            msg.futex.post();
            if !shared.stopping.load(SeqCst) {
                w.futex.wait();
            }
            let delta = mono_ns().saturating_sub(w.wake_ns.load(SeqCst));
            // A reset asked for while this worker slept applies before
            // this wake-up is counted, not after.
            st.take_reset(w, shared);
            // The last wake-up, at shutdown, is not a measurement.
            if delta > 0 && !shared.stopping.load(Relaxed) {
                st.record(Kind::Wakeup, delta);
            }
            if rps_mode {
                st.housekeeping(w, shared);
                continue;
            }
        }
        for _ in 0..batch {
            // Freed when its work is done, as schbench frees its request.
            let _request = taken.as_mut().and_then(|t| t.next());
            let work_start;
            if o.pipe_bytes > 0 {
                work_start = mono_ns();
            } else {
                if o.calibrate {
                    if o.sleep_us > 0 {
                        std::thread::sleep(Duration::from_micros(o.sleep_us));
                    }
                    work_start = mono_ns();
                } else {
                    work_start = mono_ns();
                    if o.sleep_us > 0 {
                        std::thread::sleep(Duration::from_micros(o.sleep_us));
                    }
                }
                // A stop cuts a request short between operations (and a
                // wait for the lock): with many workers a CPU, or many
                // operations a request, finishing it could take minutes.
                // A request cut short is not counted.
                let lock = if o.locking() {
                    match ctx.locks.lock_this_cpu(&shared.stopping) {
                        Some(c) => Some(c),
                        None => break,
                    }
                } else {
                    None
                };
                let cut = 'work: {
                    for _ in 0..ops_shared {
                        if shared.stopping.load(Relaxed) {
                            break 'work true;
                        }
                        if side_shared > 0 {
                            multiply_shared(&ctx.shared_matrix, side_shared);
                        }
                    }
                    for _ in 0..ops_private {
                        if shared.stopping.load(Relaxed) {
                            break 'work true;
                        }
                        multiply(&mut data, side);
                    }
                    false
                };
                if let Some(c) = lock {
                    ctx.locks.unlock(c);
                    if !cut {
                        w.locks.fetch_add(1, Relaxed);
                    }
                }
                if cut {
                    break;
                }
            }
            let now = mono_ns();
            w.requests.fetch_add(1, Release);
            let delta = now.saturating_sub(work_start);
            st.take_reset(w, shared);
            if delta > 0 {
                st.record(Kind::Request, delta);
            }
        }
        st.housekeeping(w, shared);
    }
    let running_s = mono_ns().saturating_sub(start) as f64 / 1e9;
    WorkerEnd {
        report: ThreadReport {
            tid: w.tid.load(Relaxed),
            cpus: affinity(),
            requests: w.requests.load(Relaxed),
            sched_delay_ns: own_sched_delay(),
            locks_taken: w.locks.load(Relaxed),
        },
        running_s,
        hists: st.hists,
    }
}

/// A worker's own statistics, and the epochs of the last reset and
/// snapshot it acted on.
struct Stats {
    hists: Hists,
    reset_seen: u64,
    snap_seen: u64,
    /// What was recorded since the last publication, while it fits
    /// (capacity [`LOG_CAP`], never grown: no allocation while measuring).
    log: Vec<(Kind, u64)>,
    /// More was recorded since the last publication than `log` holds.
    overflow: bool,
}

impl Stats {
    fn record(&mut self, kind: Kind, ns: u64) {
        self.hists.record(kind, ns);
        if self.log.len() < LOG_CAP {
            self.log.push((kind, ns));
        } else {
            self.overflow = true;
        }
    }

    /// Recorded since the last publication.
    fn dirty(&self) -> bool {
        self.overflow || !self.log.is_empty()
    }

    /// Between requests (never inside one): zero the statistics or publish
    /// a snapshot when the main thread asked.
    fn housekeeping(&mut self, w: &Worker, shared: &Shared) {
        self.take_reset(w, shared);
        let s = shared.snap_epoch.load(Relaxed);
        if s != self.snap_seen {
            self.snap_seen = s;
            self.publish(w);
        }
    }

    /// Zero the statistics if the main thread asked since the last time,
    /// first publishing them as the closed interval.
    fn take_reset(&mut self, w: &Worker, shared: &Shared) {
        let r = shared.reset_epoch.load(Relaxed);
        if r != self.reset_seen {
            self.publish(w);
            {
                let mut slots = w.snapshot.lock().unwrap_or_else(|e| e.into_inner());
                let slots = &mut *slots;
                // The old closed one becomes live, to be zeroed and brought
                // up to date at the next publication (its epoch is old).
                std::mem::swap(&mut slots.live, &mut slots.closed);
            }
            self.reset_seen = r;
            self.hists.reset();
            self.log.clear();
            self.overflow = false;
        }
    }

    /// Bring the published statistics up to this worker's: add what was
    /// recorded since the last publication (after zeroing them, if this
    /// worker has zeroed its own since), or copy when that did not fit.
    fn publish(&mut self, w: &Worker) {
        let mut slots = w.snapshot.lock().unwrap_or_else(|e| e.into_inner());
        let slot = &mut slots.live;
        match slot {
            Some(p) if !self.overflow => {
                if p.reset_epoch != self.reset_seen {
                    p.hists.reset();
                    p.reset_epoch = self.reset_seen;
                }
                for &(kind, ns) in &self.log {
                    p.hists.record(kind, ns);
                }
            }
            Some(p) => {
                p.hists.reset();
                // Counts this worker holds itself: adding cannot overflow.
                let _ = p.hists.add(&self.hists);
                p.reset_epoch = self.reset_seen;
            }
            None => {
                *slot = Some(Published {
                    hists: self.hists.clone(),
                    reset_epoch: self.reset_seen,
                })
            }
        }
        self.log.clear();
        self.overflow = false;
    }
}

/// The main thread's loop: once a second, count RPS, end the warm-up,
/// print intervals, zero statistics, steer auto-RPS; stop at the runtime or
/// on Ctrl-C.  Returns (RPS histogram, elapsed s, interrupted, final goal).
pub fn drive(
    o: &Options,
    shared: &Shared,
    group: &Group,
    obs: &mut dyn Observer,
) -> Result<(Histogram<u64>, f64, bool, Option<u64>)> {
    let mut rps = super::rps_hist();
    let start = shared.start_ns;
    let mut last_rps_at = start;
    // Seconds of the run are the loop's wake-ups, one a second (in RPS mode
    // with the round, or just before it: see `BEFORE_ROUND_NS`): zeroing
    // and intervals count them, so "more than N s since" cannot skip one
    // by a microsecond.
    let rps_mode = o.rps > 0 || o.auto_rps.is_some();
    let mut second = 0u64;
    let mut last_zero = 0u64;
    let mut last_interval = 0u64;
    let mut last_requests = 0u64;
    let mut warmup_done = o.warmup_s == 0;
    let mut target_hit = false;
    let mut stat_prev = None;
    let mut interrupted = false;
    let mut first = true;
    loop {
        let now = mono_ns();
        let elapsed = now.saturating_sub(start);
        let done = second >= o.runtime_s;
        let mut zero_due = o.zero_s > 0 && second >= last_zero + o.zero_s;
        if !warmup_done && o.rps == 0 && o.pipe_bytes == 0 && elapsed > o.warmup_s * 1_000_000_000 {
            warmup_done = true;
            last_zero = second;
            zero_due = false;
            shared.reset_epoch.fetch_add(1, SeqCst);
            rps.reset();
            obs.warmup_done();
        } else if o.pipe_bytes == 0 {
            let requests = if rps_mode {
                group.requests_before_round(second)
            } else {
                group.requests()
            };
            let dt = now.saturating_sub(last_rps_at).max(1) as f64 / 1e9;
            let current = (requests - last_requests) as f64 / dt;
            last_requests = requests;
            last_rps_at = now;
            // The first round, at the start, has no second behind it.
            if !first && (o.auto_rps.is_none() || target_hit) {
                rps.saturating_record(current as u64);
            }
            if o.interval_s > 0 && second >= last_interval + o.interval_s {
                last_interval = second;
                // A zero due now comes right after the snapshot request,
                // and each worker publishes before it zeroes.
                let (wakeup, request) = group.snapshot(shared, zero_due);
                if zero_due {
                    last_zero = second;
                    zero_due = false;
                }
                let (m, w) = group.sched_delays();
                obs.interval(&Snapshot {
                    elapsed_s: second,
                    wakeup,
                    request,
                    rps: rps.clone(),
                    current_rps: current,
                    msg_delay_ns: m,
                    worker_delay_ns: w,
                });
            }
        }
        if zero_due {
            last_zero = second;
            shared.reset_epoch.fetch_add(1, SeqCst);
        }
        if let Some(target) = o.auto_rps {
            if let Some(busy) = busy_percent(&mut stat_prev) {
                let goal = shared.rps_per_msg.load(Relaxed);
                let (next, hit) = super::auto_rps_step(goal, busy, target as f64);
                if hit && !target_hit {
                    target_hit = true;
                    rps.reset();
                }
                shared.rps_per_msg.store(next, Relaxed);
            }
        }
        first = false;
        obs.tick(second);
        if done {
            break;
        }
        if crate::sys::signals::stop_requested() {
            interrupted = true;
            break;
        }
        // To the next whole second of the run in one sleep, as schbench's
        // sleep(1): a main thread waking more often would keep CPUs out of
        // idle and shorten every hand-off it measures.  In RPS mode with
        // the round that starts then (see `BEFORE_ROUND_NS` for when it
        // wakes before).  Ctrl-C ends the sleep when it reaches this
        // thread, else within the second.
        second += 1;
        let zero_next = o.zero_s > 0 && second >= last_zero + o.zero_s;
        let lead = if rps_mode && (zero_next || o.auto_rps.is_some()) {
            BEFORE_ROUND_NS
        } else {
            0
        };
        crate::sys::time::sleep_until_ns(start + second * 1_000_000_000 - lead);
    }
    let elapsed_s = mono_ns().saturating_sub(start) as f64 / 1e9;
    let goal = o
        .auto_rps
        .map(|_| shared.rps_per_msg.load(Relaxed) * o.message_threads as u64);
    Ok((rps, elapsed_s, interrupted, goal))
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
