//! Thin safe wrappers over the Linux calls the standard library lacks.
//!
//! Everything that touches `libc` directly lives here, so the benchmarks read
//! as plain Rust and every `unsafe` block sits next to the one call it needs.

pub mod cpus;
pub mod dirfd;
pub mod fd;
pub mod futex;
pub mod guest;
pub mod hooks;
pub mod janitor;
pub mod kvm;
pub mod limits;
pub mod mem;
pub mod mount;
pub mod private;
pub mod proc;
pub mod procfs;
pub mod procstat;
pub mod requests;
pub mod sched;
pub mod sched_account;
pub mod sched_ext;
pub mod shared;
pub mod signals;
pub mod size;
pub mod spin;
pub mod tempdir;
pub mod time;
pub mod user;
pub mod workers;

/// The last OS error as an `std::io::Error`.
pub fn last_err() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// Map a `-1` return to the OS error.
pub fn check(ret: libc::c_int) -> std::io::Result<libc::c_int> {
    if ret < 0 {
        Err(last_err())
    } else {
        Ok(ret)
    }
}
