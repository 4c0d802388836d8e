//! Memory the loads and benchmarks touch directly: an anonymous mapping,
//! schbench's matrix loop, and a page two threads write in turn.

use std::cell::UnsafeCell;

/// A private anonymous mapping, unmapped on drop.
pub struct AnonMap {
    base: *mut u8,
    len: usize,
}

/// A fresh anonymous read-write mapping of `len` bytes, private or shared
/// (`MAP_PRIVATE` / `MAP_SHARED`); `MAP_FAILED` when it cannot be had.
pub(super) fn map_anon(len: usize, kind: libc::c_int) -> *mut libc::c_void {
    // SAFETY: a fresh anonymous mapping; no existing memory is named.
    unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            kind | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    }
}

impl AnonMap {
    /// Map `len` bytes (not yet touched, so not yet resident).
    pub fn new(len: usize) -> Option<AnonMap> {
        let p = map_anon(len, libc::MAP_PRIVATE);
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

/// schbench's `do_some_math`: `c = a × b` for the three `n × n` matrices
/// laid out one after the other in `data`, at the cost of schbench's own
/// loop.  On x86-64 the inner loop is the eight instructions gcc -O2 makes
/// of schbench's C (`objdump -d schbench`, `do_some_math`): load `a`,
/// multiply by `b` from memory, step both pointers, add to the running sum,
/// store it to `c` (gcc cannot prove `c` does not alias `a` or `b`), compare,
/// branch.  Left to itself LLVM unrolls that loop by two, which made a
/// request about 30 % cheaper than schbench's in calibration mode (and the
/// safe-indexing version, with a bounds check per step, 9 % dearer).
pub fn multiply_like_schbench(data: &mut [u64], n: usize) {
    let nn = n.checked_mul(n).expect("matrix side fits");
    assert!(data.len() >= 3 * nn, "three {n}x{n} matrices");
    if n == 0 {
        return;
    }
    let base = data.as_mut_ptr();
    // SAFETY: every address touched is within the 3·n·n elements of
    // `data` (asserted): row i of `a` is [i·n, i·n + n), column j of `b`
    // is n·n + k·n + j for k < n, and c[i·n + j] is 2·n·n + i·n + j; the
    // slice is exclusively borrowed for the call; u64 has no invalid values.
    unsafe {
        let (a, b, c) = (base, base.add(nn), base.add(2 * nn));
        for i in 0..n {
            for j in 0..n {
                let out = c.add(i * n + j);
                out.write_volatile(0);
                inner(a.add(i * n), b.add(j), out, n);
            }
        }
    }
}

/// One element: `*out = Σ_k row[k]·col[k·n]`, the sum stored every step.
///
/// # Safety
/// `row..row+n`, `col + k·n` for k < n and `out` must be valid, and `n > 0`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn inner(row: *const u64, col: *const u64, out: *mut u64, n: usize) {
    // SAFETY: the caller's contract; the loop reads row[0..n] and
    // col[k·n], writes *out, and runs at least once (n > 0).
    unsafe {
        core::arch::asm!(
            // The loop starts on a 64-byte boundary, so its 26 bytes never
            // straddle two: straddling made the same loop 1.2x (256 KiB
            // footprint) to 1.8x (16 KiB) slower on this project's AMD EPYC
            // VM, in schbench's own build as much as in a test of this one,
            // and where it falls would otherwise depend on unrelated code.
            ".p2align 6",
            "2:",
            "mov {t}, qword ptr [{a}]",
            "imul {t}, qword ptr [{b}]",
            "add {a}, 8",
            "add {b}, {stride}",
            "add {acc}, {t}",
            "mov qword ptr [{out}], {acc}",
            "cmp {a}, {end}",
            "jne 2b",
            a = inout(reg) row => _,
            b = inout(reg) col => _,
            stride = in(reg) n * 8,
            acc = inout(reg) 0u64 => _,
            t = out(reg) _,
            out = in(reg) out,
            end = in(reg) row.add(n),
            options(nostack),
        );
    }
}

/// Elsewhere, the same loop in Rust (the compiler may unroll it).
///
/// # Safety
/// As for the x86-64 version.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn inner(row: *const u64, col: *const u64, out: *mut u64, n: usize) {
    let mut acc = 0u64;
    for k in 0..n {
        // SAFETY: the caller's contract.
        unsafe {
            acc = acc.wrapping_add(row.add(k).read().wrapping_mul(col.add(k * n).read()));
            out.write_volatile(acc);
        }
    }
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

#[cfg(test)]
mod tests {
    /// The hand-written loop computes the product (checked against a plain
    /// triple loop on non-zero matrices).
    #[test]
    fn multiply_like_schbench_multiplies() {
        for n in [1usize, 2, 5, 17] {
            let mut data: Vec<u64> = (0..3 * n * n)
                .map(|i| (i as u64 * 2654435761) % 1000)
                .collect();
            let (a, b) = (data[..n * n].to_vec(), data[n * n..2 * n * n].to_vec());
            super::multiply_like_schbench(&mut data, n);
            for i in 0..n {
                for j in 0..n {
                    let want = (0..n).fold(0u64, |s, k| {
                        s.wrapping_add(a[i * n + k].wrapping_mul(b[k * n + j]))
                    });
                    assert_eq!(data[2 * n * n + i * n + j], want, "n {n} at {i},{j}");
                }
            }
        }
    }
}
