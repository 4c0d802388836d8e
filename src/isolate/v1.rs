//! Isolation with a cgroup v1 cpuset hierarchy.
//!
//! A cpuset `kbench-house-<pid>` holding the other CPUs is made beside the
//! root cpuset, and every task of the root cpuset that is not kbench's
//! moves into it; kbench's own stay in the root and may use every CPU.
//! Tasks already in some other cpuset are someone else's configuration and
//! are left alone (counted).  Kernel threads bound to a CPU cannot move
//! (counted).  Undoing it moves every task of the house back to the root
//! and removes the house.

use super::{begin, narrow_affinities, remove_when_empty, tgid, tids, Isolation, Record, Split};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The cgroup v1 cpuset mount point, from `/proc/mounts`.
pub(super) fn mount() -> Option<PathBuf> {
    crate::sys::procfs::mounts::read()
        .into_iter()
        .find(|m| m.fstype == "cgroup" && m.has_option("cpuset"))
        .map(|m| PathBuf::from(m.target))
}

pub(super) fn apply(mount: &Path, s: &Split) -> Result<Isolation> {
    let tasks: Vec<i32> = tids(&mount.join("tasks"))
        .into_iter()
        .filter(|t| !s.own.contains(&tgid(*t).unwrap_or(*t)))
        .collect();
    let dir = mount.join(format!("kbench-house-{}", std::process::id()));
    let mut iso = begin(Record {
        mount: mount.to_path_buf(),
        house: dir.clone(),
        affinity: narrow_affinities(&tasks, &s.online),
        v2: None,
    })?;
    let setup = || -> Result<(u64, u64)> {
        std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let mems = std::fs::read_to_string(mount.join("cpuset.mems"))?;
        std::fs::write(
            dir.join("cpuset.cpus"),
            crate::sys::cpus::format_list(&s.house),
        )?;
        std::fs::write(dir.join("cpuset.mems"), mems.trim())?;
        let (mut moved, mut stuck) = (0, 0);
        for &tid in &tasks {
            match std::fs::write(dir.join("tasks"), tid.to_string()) {
                Ok(()) => moved += 1,
                Err(_) => stuck += 1,
            }
        }
        Ok((moved, stuck))
    };
    match setup() {
        Ok((moved, stuck)) => {
            iso.summary = serde_json::json!({
                "isolated": true, "cgroup": "v1",
                "probe_cpus": crate::sys::cpus::format_list(&s.probe),
                "house_cpus": crate::sys::cpus::format_list(&s.house), "tasks_moved": moved,
                "tasks_not_movable": stuck, "kbench_processes": s.own.len(),
                "tasks_in_other_cpusets": count_other_cpusets(mount, &dir),
                "janitor": iso.janitor.is_some(),
            });
            Ok(iso)
        }
        Err(e) => {
            iso.undo();
            Err(e.context("setting up the house cpuset"))
        }
    }
}

/// Tasks in cpusets other than the root and the house.
fn count_other_cpusets(mount: &Path, house: &Path) -> u64 {
    let mut n = 0;
    let mut stack = vec![mount.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() && p != house {
                n += tids(&p.join("tasks")).len() as u64;
                stack.push(p);
            }
        }
    }
    n
}

/// Empty the house into the root cpuset and remove it.
pub(super) fn undo(r: &Record) -> Result<u64> {
    let move_back = || {
        tids(&r.house.join("tasks"))
            .into_iter()
            .filter(|tid| std::fs::write(r.mount.join("tasks"), tid.to_string()).is_ok())
            .count() as u64
    };
    remove_when_empty(&r.house, move_back).ok_or_else(|| {
        anyhow::anyhow!(
            "{} still has tasks; `kbench restore` retries",
            r.house.display()
        )
    })
}
