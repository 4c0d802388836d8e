//! Private futex calls on an atomic word: the hand-off schbench's threads
//! use, so a wake-up is one FUTEX_WAKE and a wait one FUTEX_WAIT.

use std::sync::atomic::AtomicI32;

fn futex(word: &AtomicI32, op: libc::c_int, val: i32) {
    // SAFETY: the word is a live AtomicI32 borrowed for the call; a private
    // futex needs nothing else, and no timeout or second word is passed.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            op | libc::FUTEX_PRIVATE_FLAG,
            val,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<i32>(),
            0,
        );
    }
}

/// Wake one thread waiting on `word`.
pub fn wake_one(word: &AtomicI32) {
    futex(word, libc::FUTEX_WAKE, 1);
}

/// Sleep while `word` holds `val` (returns at once if it does not, or on
/// any wake-up or signal: callers re-check).
pub fn wait_while(word: &AtomicI32, val: i32) {
    futex(word, libc::FUTEX_WAIT, val);
}
