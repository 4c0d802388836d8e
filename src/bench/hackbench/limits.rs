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
