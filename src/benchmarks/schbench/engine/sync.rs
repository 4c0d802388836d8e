//! The hand-offs schbench's threads use, as the kernel sees them: a futex
//! per thread (so a wake-up is one FUTEX_WAKE and a wait one FUTEX_WAIT,
//! nothing else), a lock-free list of workers waiting on their message
//! thread, and a per-CPU spinlock that makes preemption in the middle of
//! a request expensive.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

const BLOCKED: i32 = 0;
const RUNNING: i32 = 1;

/// A binary semaphore on a futex word.
#[repr(align(64))]
pub struct Futex(AtomicI32);

impl Futex {
    pub const fn new() -> Futex {
        Futex(AtomicI32::new(BLOCKED))
    }

    /// Mark the owner as about to wait; a post after this wakes it.
    pub fn block(&self) {
        self.0.store(BLOCKED, Ordering::SeqCst);
    }

    /// Mark the owner as running without waiting.
    pub fn set_running(&self) {
        self.0.store(RUNNING, Ordering::SeqCst);
    }

    /// Wake the owner if it is blocked (one FUTEX_WAKE only then).
    pub fn post(&self) {
        if self
            .0
            .compare_exchange(BLOCKED, RUNNING, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            crate::sys::futex::wake_one(&self.0);
        }
    }

    /// Wait until posted (returns at once if already posted), consuming
    /// the post.
    pub fn wait(&self) {
        loop {
            if self
                .0
                .compare_exchange(RUNNING, BLOCKED, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return;
            }
            // The kernel sleeps only while the word is still BLOCKED, so a
            // post between the check and the call is not lost.
            crate::sys::futex::wait_while(&self.0, BLOCKED);
        }
    }
}

/// A stack of thread indices waiting for their message thread: pushes by
/// workers, and one splice of the whole list by the message thread (no
/// single pops, so no ABA).  `next[i]` holds index + 1 of the next entry,
/// 0 for the end.
pub struct WaitList {
    head: AtomicUsize,
    next: Vec<AtomicUsize>,
}

impl WaitList {
    pub fn new(n: usize) -> WaitList {
        WaitList {
            head: AtomicUsize::new(0),
            next: (0..n).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    pub fn push(&self, i: usize) {
        let mut old = self.head.load(Ordering::Acquire);
        loop {
            self.next[i].store(old, Ordering::Relaxed);
            match self
                .head
                .compare_exchange_weak(old, i + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return,
                Err(cur) => old = cur,
            }
        }
    }

    /// Take the whole list; call `f` on each index, newest first.
    pub fn drain(&self, mut f: impl FnMut(usize)) {
        let mut cur = self.head.swap(0, Ordering::AcqRel);
        while cur != 0 {
            let i = cur - 1;
            cur = self.next[i].swap(0, Ordering::Relaxed);
            f(i);
        }
    }
}

/// One spinlock per CPU, each on its own cache line.
pub struct CpuLocks(Vec<Padded>);

#[repr(align(64))]
struct Padded(AtomicBool);

impl CpuLocks {
    pub fn new(n: usize) -> CpuLocks {
        CpuLocks(
            (0..n.max(1))
                .map(|_| Padded(AtomicBool::new(false)))
                .collect(),
        )
    }

    /// Take the lock of the CPU we run on, spinning; if we migrated while
    /// taking it, let it go and take the new CPU's.  Returns its index, or
    /// `None` once `give_up` is set: with many more workers than CPUs the
    /// holder may wait a long time for a CPU, and a run being stopped
    /// must not wait with it.
    pub fn lock_this_cpu(&self, give_up: &AtomicBool) -> Option<usize> {
        loop {
            let cpu = current_cpu() % self.0.len();
            let l = &self.0[cpu].0;
            while l
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                if give_up.load(Ordering::Relaxed) {
                    return None;
                }
                std::hint::spin_loop();
            }
            if current_cpu() % self.0.len() == cpu {
                return Some(cpu);
            }
            l.store(false, Ordering::Release);
        }
    }

    pub fn unlock(&self, cpu: usize) {
        self.0[cpu].0.store(false, Ordering::Release);
    }
}

/// The CPU this thread runs on (vDSO getcpu).
fn current_cpu() -> usize {
    crate::sys::sched::current_cpu()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_post_before_the_wait_is_not_lost() {
        let f = Futex::new();
        f.block();
        f.post();
        f.wait(); // returns at once
        let f = Arc::new(Futex::new());
        f.block();
        let g = f.clone();
        let h = std::thread::spawn(move || g.wait());
        std::thread::sleep(std::time::Duration::from_millis(20));
        f.post();
        h.join().unwrap();
    }

    #[test]
    fn the_wait_list_gives_back_every_push_once() {
        let l = Arc::new(WaitList::new(64));
        let hs: Vec<_> = (0..4)
            .map(|t| {
                let l = l.clone();
                std::thread::spawn(move || (0..16).for_each(|k| l.push(t * 16 + k)))
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
        let mut seen = Vec::new();
        l.drain(|i| seen.push(i));
        seen.sort();
        assert_eq!(seen, (0..64).collect::<Vec<_>>());
        let mut again = 0;
        l.drain(|_| again += 1);
        assert_eq!(again, 0);
    }

    #[test]
    fn cpu_locks_exclude() {
        let locks = Arc::new(CpuLocks::new(1));
        let count = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let (locks, count) = (locks.clone(), count.clone());
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        let c = locks.lock_this_cpu(&AtomicBool::new(false)).unwrap();
                        let v = count.load(Ordering::Relaxed);
                        count.store(v + 1, Ordering::Relaxed);
                        locks.unlock(c);
                    }
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(count.load(Ordering::Relaxed), 4000);
    }

    #[test]
    fn a_waiter_for_a_held_lock_gives_up_when_told() {
        let locks = CpuLocks::new(1);
        let never = AtomicBool::new(false);
        let held = locks.lock_this_cpu(&never).unwrap();
        assert_eq!(locks.lock_this_cpu(&AtomicBool::new(true)), None);
        locks.unlock(held);
        assert_eq!(locks.lock_this_cpu(&never), Some(0));
    }
}
