//! `--isolate`: keep every other process off the probe CPUs for the run,
//! as rteval does, with cpusets.
//!
//! Two backends, one per cgroup version, chosen by where the cpuset
//! controller is: a cgroup v1 cpuset hierarchy (`v1`), or the cgroup v2
//! hierarchy when its root lists `cpuset` in `cgroup.controllers` (`v2`).
//! Both leave kbench and its descendants free to use every CPU and confine
//! everything else to the other CPUs (the "house"); what each does is in
//! its module.
//!
//! Before the first change a restore record is written
//! (`restore/<pid>.json` beside the default store) that says how to undo
//! all of it, and a janitor process (`kbench restore --after PID`) waits
//! for kbench to die: after SIGKILL it undoes the isolation; after a crash
//! of the machine `kbench restore` applies every record left.  Undoing is
//! idempotent, so a record of a half-done isolation undoes the half done.
//! Where isolation is not possible (no cpuset controller, not root, one
//! CPU) it says why and the run goes on un-isolated, recorded.

mod v1;
mod v2;

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// A restore record: what to undo.  v1's fields alone are a v1 record
/// (the format records had before v2 existed); `v2` makes it a v2 one.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct Record {
    /// The hierarchy's mount point.
    mount: PathBuf,
    /// The house cpuset (v1) or cgroup (v2) to empty and remove.
    house: PathBuf,
    /// Tasks whose own CPU affinity was narrower than every CPU: moving
    /// into a cpuset and back overwrites it, so it is set again.
    #[serde(default)]
    affinity: Vec<(i32, Vec<usize>)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    v2: Option<v2::Plan>,
}

/// Where restore records live.
pub(crate) fn record_dir() -> PathBuf {
    crate::store::default_path()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir)
        .join("restore")
}

/// Write a restore record (private, atomic) into its folder, made when
/// absent.  Made again should another run's [`drop_record`] have just
/// removed it, empty, between the two steps.
pub(crate) fn write_record(file: &Path, bytes: &[u8]) -> Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    for _ in 0..3 {
        crate::sys::private::ensure_dir(dir)
            .with_context(|| format!("the restore records' folder {}", dir.display()))?;
        match crate::sys::private::write(file, bytes) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            r => {
                return r.with_context(|| format!("writing the restore record {}", file.display()))
            }
        }
    }
    anyhow::bail!(
        "writing the restore record {}: its folder keeps going",
        file.display()
    )
}

/// Remove a restore record that is done with, and its folder when that
/// holds no other: a run leaves no empty folder behind (records sit
/// beside the default store whatever store the run used).
pub(crate) fn drop_record(file: &Path) -> std::io::Result<()> {
    std::fs::remove_file(file)?;
    if let Some(dir) = file.parent() {
        // Fails, as it should, while another record is there.
        let _ = std::fs::remove_dir(dir);
    }
    Ok(())
}

/// Isolation in effect for a run.
pub struct Isolation {
    record: Record,
    record_file: PathBuf,
    janitor: Option<std::process::Child>,
    /// What is stored with the run.
    pub summary: serde_json::Value,
}

/// What `--isolate` did, or why it could not.
pub enum Outcome {
    Isolated(Box<Isolation>),
    NotPossible(String),
}

/// The CPUs of a planned isolation, and who is kbench.
struct Split {
    online: Vec<usize>,
    probe: Vec<usize>,
    house: Vec<usize>,
    own: std::collections::HashSet<i32>,
}

/// Move every other task off `probe` (default: every CPU but the first).
/// `root`: the kbench process whose descendants are kbench's own (they
/// stay where they are).
pub fn apply(probe: Option<&[usize]>, root: i32) -> Outcome {
    match try_apply(probe, root) {
        Ok(o) => o,
        Err(e) => Outcome::NotPossible(format!("{e:#}")),
    }
}

fn try_apply(probe: Option<&[usize]>, root: i32) -> Result<Outcome> {
    let online = crate::sys::cpus::online_here();
    if online.len() < 2 {
        return Ok(Outcome::NotPossible(
            "a single CPU: nowhere to move the other processes".into(),
        ));
    }
    if !crate::sys::proc::is_root() {
        return Ok(Outcome::NotPossible(
            "moving other processes' tasks needs root".into(),
        ));
    }
    let probe: Vec<usize> = match probe {
        Some(p) => p.to_vec(),
        None => online[1..].to_vec(),
    };
    let house: Vec<usize> = online
        .iter()
        .copied()
        .filter(|c| !probe.contains(c))
        .collect();
    if house.is_empty() {
        return Ok(Outcome::NotPossible(
            "the probe uses every CPU: none is left for the other processes".into(),
        ));
    }
    let split = Split {
        online,
        probe,
        house,
        own: own_pids(root),
    };
    if let Some(mount) = v1::mount() {
        return v1::apply(&mount, &split).map(|i| Outcome::Isolated(Box::new(i)));
    }
    match v2::mount() {
        Ok(mount) => v2::apply(&mount, &split).map(|i| Outcome::Isolated(Box::new(i))),
        Err(why) => Ok(Outcome::NotPossible(why)),
    }
}

/// The tasks among `tasks` whose affinity is narrower than every online
/// CPU, with that affinity.
fn narrow_affinities(tasks: &[i32], online: &[usize]) -> Vec<(i32, Vec<usize>)> {
    tasks
        .iter()
        .filter_map(|&t| {
            let a = crate::sys::sched::get_affinity(t).ok()?;
            (!online.iter().all(|c| a.contains(c))).then_some((t, a))
        })
        .collect()
}

/// Write the restore record and start the janitor: from here on, the
/// isolation can be undone whatever happens to this process.
fn begin(record: Record) -> Result<Isolation> {
    let record_file = record_dir().join(format!("{}.json", std::process::id()));
    write_record(&record_file, serde_json::to_string(&record)?.as_bytes())?;
    Ok(Isolation {
        record,
        record_file,
        janitor: spawn_janitor().ok(),
        summary: serde_json::Value::Null,
    })
}

/// Thread ids listed in a cpuset's `tasks` file.
fn tids(tasks: &Path) -> Vec<i32> {
    std::fs::read_to_string(tasks)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect()
}

fn tgid(tid: i32) -> Option<i32> {
    crate::sys::procfs::status::group_and_parent(tid).map(|(tgid, _)| tgid)
}

/// `root` and its descendants, by the parent chain in `/proc`.
fn own_pids(root: i32) -> std::collections::HashSet<i32> {
    let procs = crate::sys::procstat::all();
    procs
        .keys()
        .copied()
        .filter(|&p| crate::health::sample::descends(&procs, p, root))
        .collect()
}

/// A `kbench restore --after <this pid>` process, which applies this
/// process's restore records once it has died.
pub(crate) fn spawn_janitor() -> Result<std::process::Child> {
    Ok(crate::sys::janitor::spawn(&[])?)
}

/// Remove `dir`, a private folder a kbench made (`kbench-<what>-<hex>`,
/// this user's, mode 0700: nothing else is removed), once the process
/// groups recorded in it are ended and the processes that wrote into it
/// have gone (retried for a second).
pub fn remove_private_dir(dir: &Path) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let named = dir
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("kbench-"));
    let ours = |m: &std::fs::Metadata| {
        m.is_dir() && m.uid() == crate::sys::proc::euid() && m.permissions().mode() & 0o777 == 0o700
    };
    if !named || !std::fs::symlink_metadata(dir).is_ok_and(|m| ours(&m)) {
        return;
    }
    // What still works for it (a build's compilers) ends first.
    crate::sys::janitor::end_groups(dir);
    crate::sys::tempdir::remove_when_left(dir);
}

/// Undo what a record says, whichever backend wrote it; returns the
/// tasks put back.
fn undo_record(r: &Record) -> Result<u64> {
    let back = match &r.v2 {
        Some(plan) => v2::undo(r, plan)?,
        None => v1::undo(r)?,
    };
    for (tid, cpus) in &r.affinity {
        let _ = crate::sys::sched::set_affinity(*tid, cpus);
    }
    Ok(back)
}

/// Empty a cpuset or cgroup with `empty_it` (which returns the tasks it
/// moved) and remove it, retrying while its last tasks leave (an exiting
/// task lingers a moment): the tasks moved once it is gone, `None` if it
/// stays.
fn remove_when_empty(dir: &Path, mut empty_it: impl FnMut() -> u64) -> Option<u64> {
    let mut moved = 0;
    for _ in 0..5 {
        moved += empty_it();
        if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
            return Some(moved);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    None
}

impl Isolation {
    /// Undo the isolation, now.
    pub fn undo(&mut self) {
        if undo_record(&self.record).is_ok() {
            let _ = drop_record(&self.record_file);
        }
        crate::sys::janitor::end(self.janitor.take());
    }
}

impl Drop for Isolation {
    fn drop(&mut self) {
        self.undo();
    }
}

/// Undo the isolation record `pid` left, if any (the janitor, once `pid`
/// has died); the record goes once undone.
pub fn undo_left_by(pid: i32) {
    let file = record_dir().join(format!("{pid}.json"));
    if let Ok(r) = read_record(&file) {
        if undo_record(&r).is_ok() {
            let _ = drop_record(&file);
        }
    }
}

/// The isolation record at `path`, if this user wrote it (nobody else
/// could have changed it) and it undoes only what kbench's isolation
/// does: the house and probe cgroups kbench makes directly below the real
/// cpuset mount, top-level cgroups' `cpuset.cpus`, tasks moved back.
fn read_record(path: &Path) -> Result<Record> {
    read_checked(path, Record::check)
}

/// A restore record of either kind at `path`: read only if this user
/// wrote it and nobody else could have changed it, parsed, and passed by
/// `check` (that it names only what kbench changes); else
/// [`crate::error::Refused`] with the reason.
pub(crate) fn read_checked<T: serde::de::DeserializeOwned>(
    path: &Path,
    check: impl Fn(&T) -> Result<(), String>,
) -> Result<T> {
    use crate::error::Refused;
    let t = crate::sys::private::read(path).map_err(|e| Refused(e.to_string()))?;
    let r: T = serde_json::from_str(&t)
        .with_context(|| format!("{} is not a restore record", path.display()))?;
    check(&r).map_err(|why| Refused(format!("{}: {why}", path.display())))?;
    Ok(r)
}

impl Record {
    /// Whether this record could have come from kbench's isolation here.
    fn check(&self) -> Result<(), String> {
        let mount = match &self.v2 {
            None => v1::mount().ok_or("no cgroup v1 cpuset hierarchy is mounted")?,
            Some(_) => v2::mount()?,
        };
        if self.mount != mount {
            return Err(format!(
                "its cgroup mount {} is not the cpuset mount {}",
                self.mount.display(),
                mount.display()
            ));
        }
        own_cgroup(&mount, &self.house, "kbench-house-")?;
        if let Some(plan) = &self.v2 {
            plan.check(&mount)?;
        }
        if self.affinity.iter().any(|(t, _)| *t <= 0) {
            return Err("a task id in it is not a task".into());
        }
        Ok(())
    }
}

/// `path` is `mount/<prefix><pid>`: a cgroup kbench makes, directly below
/// the mount, reached by no `..` and no symlink.
fn own_cgroup(mount: &Path, path: &Path, prefix: &str) -> Result<(), String> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let pid = name.strip_prefix(prefix).unwrap_or("");
    if path.parent() != Some(mount) || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{} is not a cgroup kbench makes ({}{prefix}<pid>)",
            path.display(),
            mount.join("").display()
        ));
    }
    top_level(mount, path)
}

/// `path` is a cgroup directly below `mount` (no `..`, no symlink).
fn top_level(mount: &Path, path: &Path) -> Result<(), String> {
    let plain = path.components().all(|c| {
        matches!(
            c,
            std::path::Component::RootDir | std::path::Component::Normal(_)
        )
    });
    if path.parent() != Some(mount) || !plain {
        return Err(format!(
            "{} is not a cgroup directly below {}",
            path.display(),
            mount.display()
        ));
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_dir() => Err(format!("{} is not a cgroup folder", path.display())),
        _ => Ok(()),
    }
}

/// Undo the isolation record at `path` and remove it; says what it did.
pub fn undo_file(path: &Path) -> Result<String> {
    let r = read_record(path)?;
    let back = undo_record(&r)?;
    drop_record(path)?;
    Ok(format!(
        "restored: {} tasks back from {} (removed)",
        back,
        r.house.display()
    ))
}
