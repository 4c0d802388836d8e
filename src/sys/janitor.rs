//! The janitor: a `kbench restore --after <pid>` process that sleeps until
//! this kbench has died and then undoes what SIGKILL left (restore
//! records, trace instances, private folders, process groups).  Its own
//! process group, so `kill -9 -PGID` of kbench's group (a shell's job
//! control, a supervisor) does not take it too.
//!
//! [`Scratch`] is a private folder that goes with this process however it
//! ends: dropped, it is removed; killed, its janitor removes it, after
//! ending the process groups started for it ([`watch_group`]): a build's
//! `make` dies with kbench (its parent-death signal), but the compilers
//! it started would run on for seconds.

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The file in a scratch folder listing its process groups, a line each:
/// `PGID START` (the leader's start time, so a reused pid is told apart).
const GROUPS: &str = ".kbench-groups";

/// Start a janitor for this process that also removes the folders `dirs`
/// once it has died.
pub fn spawn(dirs: &[&Path]) -> std::io::Result<Child> {
    let mut c = Command::new(std::env::current_exe()?);
    c.args(["restore", "--after", &std::process::id().to_string()]);
    for d in dirs {
        c.arg("--remove").arg(d);
    }
    std::os::unix::process::CommandExt::process_group(&mut c, 0);
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
}

/// End a janitor that is no longer needed (what it guards is already
/// undone): killed and reaped.
pub fn end(janitor: Option<Child>) {
    if let Some(mut j) = janitor {
        let _ = j.kill();
        let _ = j.wait();
    }
}

/// Record that process group `pgid` (a job started in its own group, its
/// leader `pgid`) works for the scratch folder `dir`.
pub fn watch_group(dir: &Path, pgid: libc::pid_t) {
    use std::io::Write;
    let Some(start) = super::proc::start_time(pgid as u32) else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(dir.join(GROUPS))
    {
        let _ = writeln!(f, "{pgid} {start}");
    }
}

/// For the janitor: SIGKILL every process still in a group recorded in
/// `dir` that started no earlier than the group's leader (so a process
/// that took a reused pid later is never touched).
pub fn end_groups(dir: &Path) {
    let Ok(text) = std::fs::read_to_string(dir.join(GROUPS)) else {
        return;
    };
    let groups: Vec<(i32, u64)> = text
        .lines()
        .filter_map(|l| {
            let (g, s) = l.split_once(' ')?;
            Some((g.parse().ok()?, s.trim().parse().ok()?))
        })
        .filter(|&(g, _)| g > 1)
        .collect();
    if groups.is_empty() {
        return;
    }
    for pid in super::procstat::pids() {
        let Some((pgrp, start)) = super::proc::group_and_start(pid) else {
            continue;
        };
        if groups.iter().any(|&(g, s)| g == pgrp && start >= s) {
            super::proc::kill(pid, libc::SIGKILL);
        }
    }
}

/// A private folder in the temp dir that goes with this process however
/// it ends.  The janitor is told the folder before the folder is made, so
/// no moment leaves it behind.
pub struct Scratch {
    dir: super::tempdir::PrivateDir,
    janitor: Option<Child>,
}

impl Scratch {
    pub fn in_tmp(what: &str) -> std::io::Result<Scratch> {
        let path = super::tempdir::PrivateDir::plan(&std::env::temp_dir(), what);
        let janitor = spawn(&[&path])?;
        let dir = super::tempdir::PrivateDir::create(path.clone()).map_err(|e| {
            std::io::Error::new(e.kind(), format!("creating {}: {e}", path.display()))
        })?;
        Ok(Scratch {
            dir,
            janitor: Some(janitor),
        })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Scratch {
    /// The folder first, then its janitor: a SIGKILL between the two finds
    /// the folder gone.  The fields' own order (janitor ended, then the
    /// folder's drop) left a window in which a kill kept the folder for
    /// good.
    fn drop(&mut self) {
        self.dir.remove();
        end(self.janitor.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded group's processes are ended; one that started before
    /// the recorded leader (a pid reused) is not.
    #[test]
    fn recorded_groups_end_and_older_processes_are_left() {
        use std::os::unix::process::CommandExt;
        let d = tempfile::tempdir().unwrap();
        let mut job = Command::new("sleep")
            .arg("60")
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = job.id() as i32;
        watch_group(d.path(), pid);
        let mut other = Command::new("sleep")
            .arg("60")
            .process_group(0)
            .spawn()
            .unwrap();
        let opid = other.id() as i32;
        // The other group recorded as if its leader started after it.
        let start = super::super::proc::start_time(opid as u32).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(d.path().join(GROUPS))
            .map(|mut f| {
                std::io::Write::write_all(
                    &mut f,
                    format!("{opid} {}\n", start + 1_000_000).as_bytes(),
                )
            })
            .unwrap()
            .unwrap();
        end_groups(d.path());
        let st = job.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&st),
            Some(libc::SIGKILL)
        );
        assert!(
            other.try_wait().unwrap().is_none(),
            "an older process was killed"
        );
        let _ = other.kill();
        let _ = other.wait();
    }
}
