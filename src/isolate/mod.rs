//! `--isolate`: keep every other process off the probe CPUs for the run,
//! as rteval does, with cpusets.
//!
//! A cpuset `kbench-house-<pid>` holding the other CPUs is made beside the
//! root cpuset, and every task of the root cpuset that is not kbench's
//! moves into it; kbench's own stay in the root and may use every CPU.
//! Tasks already in some other cpuset are someone else's configuration and
//! are left alone (counted).  Kernel threads bound to a CPU cannot move
//! (counted).  Undoing it moves every task of the house cpuset back to the
//! root and removes the house.
//!
//! Before the first task moves, a restore record naming the house is
//! written (`restore/<pid>.json` beside the default store), and a janitor
//! process (`kbench restore --after PID`) waits for kbench to die: after
//! SIGKILL it undoes the isolation; after a crash of the machine's kbench
//! `kbench restore` applies every record left.  cgroup v1's cpuset
//! hierarchy is used; where only cgroup v2 has cpusets, isolation says it
//! is not done here and the run goes on un-isolated, recorded.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// A restore record: the house cpuset to empty into the root and remove.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct Record {
    mount: PathBuf,
    house: PathBuf,
    /// Tasks whose own CPU affinity was narrower than every CPU: moving
    /// into a cpuset and back overwrites it, so it is set again.
    #[serde(default)]
    affinity: Vec<(i32, Vec<usize>)>,
}

/// Where restore records live.
pub(crate) fn record_dir() -> PathBuf {
    crate::store::default_path()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir)
        .join("restore")
}

/// The cgroup v1 cpuset mount point, from `/proc/mounts`.
fn cpuset_mount() -> Option<PathBuf> {
    let m = std::fs::read_to_string("/proc/mounts").ok()?;
    m.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.get(2) == Some(&"cgroup") && f.get(3)?.split(',').any(|o| o == "cpuset"))
            .then(|| PathBuf::from(f[1]))
    })
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
    Isolated(Isolation),
    NotPossible(String),
}

/// Move every other task off `probe` (default: every CPU but the first).
pub fn apply(probe: Option<&[usize]>) -> Outcome {
    match try_apply(probe) {
        Ok(o) => o,
        Err(e) => Outcome::NotPossible(format!("{e:#}")),
    }
}

fn try_apply(probe: Option<&[usize]>) -> Result<Outcome> {
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
    let Some(mount) = cpuset_mount() else {
        return Ok(Outcome::NotPossible(
            "no cgroup v1 cpuset hierarchy mounted (cgroup v2 cpusets are not used by kbench yet)"
                .into(),
        ));
    };
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
    let own = own_pids();
    let tasks: Vec<i32> = tids(&mount.join("tasks"))
        .into_iter()
        .filter(|t| !own.contains(&tgid(*t).unwrap_or(*t)))
        .collect();
    let affinity: Vec<(i32, Vec<usize>)> = tasks
        .iter()
        .filter_map(|&t| {
            let a = crate::sys::sched::get_affinity(t).ok()?;
            (!online.iter().all(|c| a.contains(c))).then_some((t, a))
        })
        .collect();
    let dir = mount.join(format!("kbench-house-{}", std::process::id()));
    std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let record = Record {
        mount: mount.clone(),
        house: dir.clone(),
        affinity,
    };
    let rdir = record_dir();
    std::fs::create_dir_all(&rdir)?;
    let record_file = rdir.join(format!("{}.json", std::process::id()));
    std::fs::write(&record_file, serde_json::to_string(&record)?)?;
    let mut iso = Isolation {
        record,
        record_file,
        janitor: spawn_janitor().ok(),
        summary: serde_json::Value::Null,
    };
    let setup = || -> Result<(u64, u64, u64)> {
        let mems = std::fs::read_to_string(mount.join("cpuset.mems"))?;
        std::fs::write(
            dir.join("cpuset.cpus"),
            crate::sys::cpus::format_list(&house),
        )?;
        std::fs::write(dir.join("cpuset.mems"), mems.trim())?;
        let (mut moved, mut stuck) = (0, 0);
        let mine = own.len() as u64;
        for &tid in &tasks {
            match std::fs::write(dir.join("tasks"), tid.to_string()) {
                Ok(()) => moved += 1,
                Err(_) => stuck += 1,
            }
        }
        Ok((moved, stuck, mine))
    };
    match setup() {
        Ok((moved, stuck, mine)) => {
            let elsewhere = count_other_cpusets(&mount, &dir);
            iso.summary = serde_json::json!({
                "isolated": true, "probe_cpus": crate::sys::cpus::format_list(&probe),
                "house_cpus": crate::sys::cpus::format_list(&house), "tasks_moved": moved,
                "tasks_not_movable": stuck, "kbench_processes": mine,
                "tasks_in_other_cpusets": elsewhere, "janitor": iso.janitor.is_some(),
            });
            Ok(Outcome::Isolated(iso))
        }
        Err(e) => {
            iso.undo();
            Err(e.context("setting up the house cpuset"))
        }
    }
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
    std::fs::read_to_string(format!("/proc/{tid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))?
        .trim()
        .parse()
        .ok()
}

/// kbench and its descendants (the scenario runner's, when it set the
/// root), by the parent chain in `/proc`.
fn own_pids() -> std::collections::HashSet<i32> {
    let root = crate::health::root_pid();
    let procs = crate::health::sample::processes();
    procs
        .keys()
        .copied()
        .filter(|&p| crate::health::sample::descends(&procs, p, root))
        .collect()
}

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

/// A `kbench restore --after <this pid>` process, which applies this
/// process's restore records once it has died.
pub(crate) fn spawn_janitor() -> Result<std::process::Child> {
    let mut c = std::process::Command::new(std::env::current_exe()?);
    c.args(["restore", "--after", &std::process::id().to_string()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    Ok(c.spawn()?)
}

/// Empty the house into the root cpuset and remove it.
fn undo_record(r: &Record) -> Result<u64> {
    let mut back = 0;
    for _ in 0..5 {
        for tid in tids(&r.house.join("tasks")) {
            if std::fs::write(r.mount.join("tasks"), tid.to_string()).is_ok() {
                back += 1;
            }
        }
        if std::fs::remove_dir(&r.house).is_ok() || !r.house.exists() {
            for (tid, cpus) in &r.affinity {
                let _ = crate::sys::sched::set_affinity(*tid, cpus);
            }
            return Ok(back);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    anyhow::bail!(
        "{} still has tasks; `kbench restore` retries",
        r.house.display()
    )
}

impl Isolation {
    /// Undo the isolation, now.
    pub fn undo(&mut self) {
        if undo_record(&self.record).is_ok() {
            let _ = std::fs::remove_file(&self.record_file);
        }
        if let Some(mut j) = self.janitor.take() {
            let _ = j.kill();
            let _ = j.wait();
        }
    }
}

impl Drop for Isolation {
    fn drop(&mut self) {
        self.undo();
    }
}

/// `kbench restore`: apply every restore record left (after `--after PID`
/// dies, for the janitor).  Records of a kbench that is still running are
/// its own business and are left alone.
pub fn restore(after: Option<i32>) -> Result<()> {
    use crate::experiment::restore as knobs;
    if let Some(pid) = after {
        crate::sys::proc::set_name("kbench-restore");
        crate::sys::proc::sleep_until_parent_dies(pid);
        let file = record_dir().join(format!("{pid}.json"));
        if let Ok(t) = std::fs::read_to_string(&file) {
            if let Ok(r) = serde_json::from_str::<Record>(&t) {
                if undo_record(&r).is_ok() {
                    let _ = std::fs::remove_file(&file);
                }
            }
        }
        let file = knobs::file_of(pid as u32);
        if file.exists() {
            let _ = knobs::undo_file(&file);
        }
        return Ok(());
    }
    let mut done = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(record_dir())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let owner = name
            .trim_start_matches("knobs-")
            .trim_end_matches(".json")
            .parse::<i32>()
            .ok();
        if let Some(pid) = owner.filter(|p| kbench_alive(*p)) {
            println!(
                "skipped: {} belongs to kbench {pid}, which is still running and restores it itself",
                path.display()
            );
            continue;
        }
        if knobs::is_record(&name) {
            println!("{}", knobs::undo_file(&path)?);
            done += 1;
            continue;
        }
        let t = std::fs::read_to_string(&path)?;
        let r: Record = serde_json::from_str(&t)
            .with_context(|| format!("{} is not a restore record", path.display()))?;
        let back = undo_record(&r)?;
        std::fs::remove_file(&path)?;
        println!(
            "restored: {} tasks back from {} (removed)",
            back,
            r.house.display()
        );
        done += 1;
    }
    if done == 0 {
        println!("nothing to restore");
    }
    Ok(())
}

/// Is `pid` a live kbench process (not a zombie)?
fn kbench_alive(pid: i32) -> bool {
    if pid == std::process::id() as i32 {
        return false;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let comm = stat
        .split_once('(')
        .and_then(|(_, r)| r.rsplit_once(')'))
        .map(|(c, rest)| (c.to_string(), rest.trim_start().chars().next()));
    matches!(comm, Some((c, Some(state))) if c.starts_with("kbench") && state != 'Z')
}
