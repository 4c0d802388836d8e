//! Refuse, before starting anything, a run the machine's limits cannot hold.

use super::Options;
use crate::error::resource;
use crate::sys::limits;
use anyhow::Result;

/// File descriptors one process needs at its peak, with headroom for
/// stdio, the store and the ready/wake pipes.
pub fn fds_needed(opts: &Options) -> u64 {
    let per_group = 2 * opts.fds as u64;
    let held = if opts.threads {
        per_group * opts.groups as u64
    } else {
        per_group
    };
    held + 32
}

pub fn check(opts: &Options) -> Result<()> {
    let need_fds = fds_needed(opts);
    let have = limits::raise_nofile(need_fds);
    if have < need_fds {
        return Err(resource(format!(
            "hackbench needs {need_fds} open files per process but the limit is {have}: raise it with `ulimit -n {need_fds}` or use fewer groups/fds"
        )));
    }
    let tasks = opts.tasks();
    let pid_max = limits::pid_max();
    if tasks + 64 > pid_max {
        return Err(resource(format!(
            "hackbench needs {tasks} tasks but kernel.pid_max is {pid_max}: raise /proc/sys/kernel/pid_max or use fewer groups/fds"
        )));
    }
    // Each task costs the kernel and its sockets about 173 KiB here (4000
    // tasks took 680 MiB of MemAvailable); 256 KiB leaves room.  More than
    // memory can hold would meet the OOM killer long before the run.
    const TASK_BYTES: u64 = 256 << 10;
    let mem = crate::load::size::Memory::read();
    if tasks.saturating_mul(TASK_BYTES) > mem.usable() {
        return Err(resource(format!(
            "hackbench needs {tasks} tasks, about {} of memory, but {} is available (keeping {} free): use fewer groups/fds",
            crate::sys::size::human(tasks.saturating_mul(TASK_BYTES)),
            crate::sys::size::human(mem.usable()),
            crate::sys::size::human(mem.margin())
        )));
    }
    let threads_max = limits::threads_max();
    if tasks + 64 > threads_max {
        return Err(resource(format!(
            "hackbench needs {tasks} tasks but kernel.threads-max is {threads_max}: raise /proc/sys/kernel/threads-max or use fewer groups/fds"
        )));
    }
    if let Some(left) = limits::cgroup_pids_left() {
        if tasks + 8 > left {
            return Err(resource(format!(
                "hackbench needs {tasks} tasks but this cgroup's pids.max allows only {left} more: raise pids.max or use fewer groups/fds"
            )));
        }
    }
    if !crate::sys::proc::is_root() && !opts.threads {
        let nproc = limits::nproc();
        if tasks + 64 > nproc {
            return Err(resource(format!(
                "hackbench needs {tasks} processes but `ulimit -u` is {nproc}: raise it or use --threads or fewer groups/fds"
            )));
        }
    }
    Ok(())
}
