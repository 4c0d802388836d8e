//! Memory the loads and benchmarks touch directly: an anonymous mapping,
//! a store the compiler must keep, and a page two threads write in turn.

use std::cell::UnsafeCell;

/// A private anonymous mapping, unmapped on drop.
pub struct AnonMap {
    base: *mut u8,
    len: usize,
}

impl AnonMap {
    /// Map `len` bytes (not yet touched, so not yet resident).
    pub fn new(len: usize) -> Option<AnonMap> {
        // SAFETY: a fresh private anonymous mapping; no existing memory is
        // named.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        (p != libc::MAP_FAILED && len > 0).then_some(AnonMap {
            base: p.cast(),
            len,
        })
    }

    /// Add one to the u64 at `offset` (rounded down to 8 bytes), through
    /// memory, so every call really touches the page.
    pub fn bump(&mut self, offset: usize) {
        let off = (offset % self.len) & !7;
        // SAFETY: off + 8 <= len (len is a multiple of the page size), the
        // mapping is ours and alive, and the address is 8-byte aligned.
        unsafe {
            let p = self.base.add(off).cast::<u64>();
            p.write_volatile(p.read_volatile().wrapping_add(1));
        }
    }
}

impl Drop for AnonMap {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly the mapping made in `new`.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// Store `v` in `slot` as a real memory write the compiler may not merge
/// or drop (schbench's C keeps its running sum's store in the loop).
#[inline(always)]
pub fn store_kept(slot: &mut u64, v: u64) {
    // SAFETY: `slot` is a valid, exclusive reference.
    unsafe { std::ptr::write_volatile(slot, v) }
}

/// A buffer two threads write in turn, ordered by a hand-off between them
/// (a futex post and wait, both SeqCst), never at the same time.
pub struct HandOffPage(UnsafeCell<Vec<u8>>);

// SAFETY: callers write only while they hold the hand-off (see `fill`),
// and the hand-off's SeqCst operations order one writer's writes before
// the other's, so writes never overlap or race.
unsafe impl Sync for HandOffPage {}

impl HandOffPage {
    pub fn new(len: usize) -> HandOffPage {
        HandOffPage(UnsafeCell::new(vec![0u8; len]))
    }

    /// Write `byte` over the first `n` bytes (at most the page's length).
    /// Only the side that holds the hand-off may call this.
    pub fn fill(&self, n: usize, byte: u8) {
        // SAFETY: see the Sync impl: one writer at a time; the slice is
        // bounds-checked.
        let v = unsafe { &mut *self.0.get() };
        let n = n.min(v.len());
        v[..n].fill(byte);
    }
}
