//! Counters in shared anonymous memory: written by forked workers,
//! read by the parent, with no locks and no system calls.

use std::sync::atomic::AtomicU64;

/// One cache line per counter so workers do not false-share.
#[repr(C, align(64))]
pub struct Slot {
    pub value: AtomicU64,
}

/// `len` zeroed bytes mapped `MAP_SHARED | MAP_ANONYMOUS` (zeroed memory
/// is a valid `AtomicU64`, all this file puts there).
fn map_zeroed(len: usize) -> std::io::Result<*mut libc::c_void> {
    let ptr = super::mem::map_anon(len, libc::MAP_SHARED);
    if ptr == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    Ok(ptr)
}

/// `n` counters mapped `MAP_SHARED | MAP_ANONYMOUS`, inherited by forks.
pub struct SharedCounters {
    ptr: *mut Slot,
    n: usize,
}

impl SharedCounters {
    pub fn new(n: usize) -> std::io::Result<SharedCounters> {
        let n = n.max(1);
        let ptr = map_zeroed(n * std::mem::size_of::<Slot>())?;
        Ok(SharedCounters { ptr: ptr.cast(), n })
    }

    /// Counter `i` (panics when out of range: a programming error).
    pub fn get(&self, i: usize) -> &AtomicU64 {
        assert!(i < self.n, "counter {i} of {}", self.n);
        // SAFETY: in bounds of a live mapping of `n` slots.
        unsafe { &(*self.ptr.add(i)).value }
    }

    /// Sum of all counters.
    pub fn sum(&self) -> u64 {
        (0..self.n)
            .map(|i| self.get(i).load(std::sync::atomic::Ordering::Relaxed))
            .sum()
    }
}

impl Drop for SharedCounters {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly what `new` mapped.
        unsafe { libc::munmap(self.ptr.cast(), self.n * std::mem::size_of::<Slot>()) };
    }
}

/// `n` atomic words mapped `MAP_SHARED | MAP_ANONYMOUS` and never
/// unmapped: shared with every process forked after, for as long as
/// kbench lives (a process-wide ring, set up once).
pub fn leak_shared_words(n: usize) -> std::io::Result<&'static [AtomicU64]> {
    let ptr = map_zeroed(n.max(1) * std::mem::size_of::<AtomicU64>())?;
    // SAFETY: `len` bytes of a page-aligned mapping that is never unmapped.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<AtomicU64>(), n.max(1)) })
}

/// For tests: run `body` in a forked child and wait for it.  The test
/// harness is multi-threaded, so `body` may only do what is safe after a
/// fork there: atomic operations on memory, no allocation, no locks.
#[cfg(test)]
pub fn in_forked_child(body: impl FnOnce()) {
    // SAFETY: see above; the child ends with `_exit`.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        body();
        // SAFETY: _exit never returns and is async-signal-safe.
        unsafe { libc::_exit(0) };
    }
    let mut st = 0;
    // SAFETY: waiting for our own child.
    unsafe { libc::waitpid(pid, &mut st, 0) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn counters_are_shared_with_a_forked_child() {
        let c = SharedCounters::new(3).unwrap();
        c.get(1).store(5, Relaxed);
        in_forked_child(|| {
            c.get(2).fetch_add(7, Relaxed);
        });
        assert_eq!(c.sum(), 12);
    }
}
