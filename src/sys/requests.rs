//! schbench's request queue: requests allocated one by one on the heap by
//! the thread that posts them, pushed onto a worker's list with one
//! compare-and-swap each, and taken by the worker all at once with one
//! swap, then freed as it finishes each.
//!
//! Why not a counter: in RPS mode a request thread posts a second's
//! requests in one burst, and the worker it woke onto its own CPU waits out
//! the rest of that burst before it runs; its wake-up latency is that wait.
//! A counter (two atomic adds a post) made kbench's bursts half as long as
//! schbench's (122 posts in 4.4-5.1 us against 9.0-14.6 us here), and its
//! fastest wake-ups 3-4 us shorter with them.  What schbench does per post
//! (an allocation, a timestamp, a push) is what this list does.
//!
//! It lives with the system calls because it is the project's one
//! lock-free structure that owns raw pointers: nodes leave a `Box` on
//! push and return to one on take.  Only whole-list takes, never single
//! pops, so there is no ABA.
//!
//! Pushes and takes are sequentially consistent: a worker marks its futex
//! blocked and then takes, a poster pushes and then posts the futex, and
//! with anything weaker both could see the other's old value and the
//! wake-up be lost.  On x86-64 each is one locked instruction whatever the
//! ordering.

use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

/// One posted request.
pub struct Request {
    /// When it was posted (CLOCK_MONOTONIC ns).  schbench stamps each
    /// request as it allocates it and never reads the stamp; taking the
    /// time is part of what a post costs.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "written for its cost, as schbench's")
    )]
    pub posted_ns: u64,
    next: *mut Request,
}

/// A list of requests several threads may push onto and one thread takes.
pub struct RequestList {
    head: AtomicPtr<Request>,
}

impl Default for RequestList {
    fn default() -> RequestList {
        RequestList::new()
    }
}

impl RequestList {
    pub const fn new() -> RequestList {
        RequestList {
            head: AtomicPtr::new(null_mut()),
        }
    }

    /// Allocate a request stamped `posted_ns` and push it.
    pub fn push(&self, posted_ns: u64) {
        let node = Box::into_raw(Box::new(Request {
            posted_ns,
            next: null_mut(),
        }));
        let mut old = self.head.load(Ordering::Relaxed);
        loop {
            // SAFETY: `node` came from Box::into_raw above and is not yet
            // shared: no other thread can see it until the exchange below.
            unsafe { (*node).next = old };
            match self
                .head
                .compare_exchange_weak(old, node, Ordering::SeqCst, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(cur) => old = cur,
            }
        }
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.head.load(Ordering::Relaxed).is_null()
    }

    /// Take every queued request, oldest first.
    pub fn take(&self) -> Taken {
        let mut cur = self.head.swap(null_mut(), Ordering::SeqCst);
        // Reverse in place: pushes put the newest first.
        let mut rev: *mut Request = null_mut();
        let mut len = 0;
        while !cur.is_null() {
            // SAFETY: the swap made this thread the only owner of every
            // node on the list it returned; each came from Box::into_raw.
            unsafe {
                let next = (*cur).next;
                (*cur).next = rev;
                rev = cur;
                cur = next;
            }
            len += 1;
        }
        Taken { cur: rev, len }
    }
}

impl Drop for RequestList {
    fn drop(&mut self) {
        drop(self.take());
    }
}

/// Requests taken from a list, oldest first; each is freed when the
/// caller drops it, and those never reached are freed with this.
pub struct Taken {
    cur: *mut Request,
    len: usize,
}

impl Taken {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Iterator for Taken {
    type Item = Box<Request>;

    fn next(&mut self) -> Option<Box<Request>> {
        if self.cur.is_null() {
            return None;
        }
        // SAFETY: `cur` is a node this Taken owns alone (see `take`), made
        // by Box::into_raw and not yet given back.
        let node = unsafe { Box::from_raw(self.cur) };
        self.cur = node.next;
        self.len -= 1;
        Some(node)
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        for _ in self.by_ref() {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn takes_come_oldest_first_and_leave_the_list_empty() {
        let l = RequestList::new();
        assert!(l.is_empty());
        for t in 1..=5 {
            l.push(t);
        }
        assert!(!l.is_empty());
        let taken = l.take();
        assert_eq!(taken.len(), 5);
        assert_eq!(
            taken.map(|r| r.posted_ns).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        assert!(l.is_empty());
        assert!(l.take().is_empty());
    }

    #[test]
    fn every_push_from_every_thread_is_taken_once() {
        let l = Arc::new(RequestList::new());
        let taker = {
            let l = l.clone();
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                while seen.len() < 4000 {
                    seen.extend(l.take().map(|r| r.posted_ns));
                }
                seen
            })
        };
        let pushers: Vec<_> = (0..4u64)
            .map(|p| {
                let l = l.clone();
                std::thread::spawn(move || (0..1000).for_each(|k| l.push(p * 1000 + k)))
            })
            .collect();
        pushers.into_iter().for_each(|h| h.join().unwrap());
        let mut seen = taker.join().unwrap();
        // Each pusher's own requests come out in the order it pushed them.
        for p in 0..4 {
            let mine: Vec<_> = seen.iter().filter(|v| **v / 1000 == p).collect();
            assert!(
                mine.windows(2).all(|w| w[0] < w[1]),
                "pusher {p} out of order"
            );
        }
        seen.sort();
        assert_eq!(seen, (0..4000).collect::<Vec<_>>());
    }

    thread_local! {
        static FREED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    impl Drop for Request {
        fn drop(&mut self) {
            FREED.with(|f| f.set(f.get() + 1));
        }
    }

    #[test]
    fn requests_left_behind_are_freed_with_the_take_or_the_list() {
        let freed = || FREED.with(|f| f.get());
        let l = RequestList::new();
        (0..10).for_each(|t| l.push(t));
        let mut taken = l.take();
        assert_eq!(taken.next().map(|r| r.posted_ns), Some(0));
        assert_eq!((taken.len(), freed()), (9, 1));
        drop(taken);
        assert_eq!(freed(), 10);
        (0..10).for_each(|t| l.push(t));
        drop(l);
        assert_eq!(freed(), 20);
    }
}
