//! A worker: woken by its message thread, it stamps its wake-up, does a
//! request's work (matrix multiplications, the per-CPU lock), stamps its
//! end, and records both; what it measures is the kernel's wake-up and
//! the request's run time.

use super::*;

/// Naive multiplication of two `n`×`n` matrices into a third, in wrapping
/// u64 arithmetic, to give the request a cache footprint: on x86-64 the
/// very loop gcc makes of schbench's C (see
/// `sys::mem::multiply_like_schbench`), so a request costs what schbench's
/// does.
#[inline(never)]
pub(super) fn multiply(data: &mut [u64], n: usize) {
    crate::sys::mem::multiply_like_schbench(data, n);
}

/// The shared matrices of `--split`, written by several workers at once
/// (as schbench's are), so every element is an atomic.
pub(super) fn multiply_shared(data: &[AtomicU64], n: usize) {
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

pub(super) fn worker(index: usize, w: &Worker, msg: &Message, ctx: &Ctx, side: usize) -> WorkerEnd {
    let tid = crate::sys::sched::gettid();
    w.tid.store(tid, Relaxed);
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
    let work = Work::of(o, side);
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
            let (now, woken) = (mono_ns(), w.wake_ns.load(SeqCst));
            let delta = now.saturating_sub(woken);
            crate::trace::wakeups::note(tid, woken, now);
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
            let Some(work_start) = work.request(w, ctx, &mut data) else {
                break;
            };
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
    end(w, st, running_s)
}

/// A worker's figures once it has stopped.
fn end(w: &Worker, st: Stats, running_s: f64) -> WorkerEnd {
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

/// What one request does: its sleep, its operations on the private and
/// the shared matrices (`--split`), under the per-CPU lock unless
/// `--no-locking`.
#[derive(Clone, Copy)]
struct Work {
    ops_private: u64,
    ops_shared: u64,
    side: usize,
    side_shared: usize,
}

impl Work {
    fn of(o: &Options, side: usize) -> Work {
        let (ops_private, ops_shared) = match o.split {
            Some(p) => {
                let private = o.operations * p as u64 / 100;
                (private, o.operations - private)
            }
            None => (o.operations, 0),
        };
        let (_, side_shared) = o.matrix_sides();
        Work {
            ops_private,
            ops_shared,
            side,
            side_shared,
        }
    }

    /// Do one request's work; when it started, or `None` when a stop cut
    /// it short (a request cut short is not counted).  Inlined into the
    /// worker's loop, as it was written there.
    #[inline(always)]
    fn request(self, w: &Worker, ctx: &Ctx, data: &mut [u64]) -> Option<u64> {
        let o = &ctx.o;
        let shared = &ctx.shared;
        if o.pipe_bytes > 0 {
            return Some(mono_ns());
        }
        let work_start;
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
        // A stop cuts a request short between operations (and a wait for
        // the lock): with many workers a CPU, or many operations a
        // request, finishing it could take minutes.
        let lock = if o.locking() {
            Some(ctx.locks.lock_this_cpu(&shared.stopping)?)
        } else {
            None
        };
        let cut = 'work: {
            for _ in 0..self.ops_shared {
                if shared.stopping.load(Relaxed) {
                    break 'work true;
                }
                if self.side_shared > 0 {
                    multiply_shared(&ctx.shared_matrix, self.side_shared);
                }
            }
            for _ in 0..self.ops_private {
                if shared.stopping.load(Relaxed) {
                    break 'work true;
                }
                multiply(data, self.side);
            }
            false
        };
        if let Some(c) = lock {
            ctx.locks.unlock(c);
            if !cut {
                w.locks.fetch_add(1, Relaxed);
            }
        }
        (!cut).then_some(work_start)
    }
}
