//! Isolation with cgroup v2 cpusets.
//!
//! cgroup v2 keeps most processes in cgroups below the root (systemd's
//! slices), not in the root, so moving the root's tasks as v1 does would
//! miss them.  Instead, as `systemctl set-property <slice> AllowedCPUs=`
//! does: every top-level cgroup gets `cpuset.cpus` = the house CPUs, which
//! confines everything below it; the processes the root cgroup itself
//! holds move into a house cgroup `kbench-house-<pid>` with the same
//! CPUs; and kbench's own processes, if they live in a cgroup about to be
//! narrowed, first move to `kbench-probe-<pid>`, which keeps every CPU.
//! The cpuset controller is enabled in the root's `cgroup.subtree_control`
//! if it was not.  Partitions (`cpuset.cpus.partition` other than
//! `member`) and another kbench's cgroups are someone's deliberate layout
//! and are left alone (counted).
//!
//! Undoing it writes back each narrowed cgroup's `cpuset.cpus` as it was
//! (empty: inherit), moves the house's processes back to the root and
//! kbench's back where they came from, removes both cgroups, and takes
//! `cpuset` out of the root's `subtree_control` if kbench put it there.

use super::{begin, narrow_affinities, remove_when_empty, tids, Isolation, Record, Split};
use anyhow::{anyhow, Context, Result};
use std::path::{Path, PathBuf};

/// The v2 part of a restore record.
#[derive(serde::Serialize, serde::Deserialize, Debug, Default)]
pub(super) struct Plan {
    /// kbench added `cpuset` to the root's `cgroup.subtree_control`.
    enable_cpuset: bool,
    /// The cgroup kbench's processes moved to (every CPU).
    probe: PathBuf,
    /// kbench's processes moved there, each with the cgroup (path below
    /// the mount) it came from.
    own_moved: Vec<(i32, String)>,
    /// Top-level cgroups narrowed to the house CPUs, each with its
    /// `cpuset.cpus` before ("" when it had none: it inherited).
    narrowed: Vec<(PathBuf, String)>,
}

impl Plan {
    /// Whether this plan could have come from kbench here: its probe
    /// cgroup is kbench's, the cgroups it narrowed are top-level ones, the
    /// homes it moves processes back to lie below the mount, and the CPU
    /// lists it writes back are CPU lists.
    pub(super) fn check(&self, mount: &Path) -> Result<(), String> {
        super::own_cgroup(mount, &self.probe, "kbench-probe-")?;
        for (cg, cpus) in &self.narrowed {
            super::top_level(mount, cg)?;
            if !cpus.is_empty() && crate::sys::cpus::parse_list(cpus).is_err() {
                return Err(format!("'{cpus}' is not a CPU list"));
            }
        }
        for (pid, home) in &self.own_moved {
            let rel = Path::new(home.trim_start_matches('/'));
            let plain = rel
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if *pid <= 0 || !plain {
                return Err(format!("{home} is not a cgroup below {}", mount.display()));
            }
        }
        Ok(())
    }
}

/// The cgroup v2 mount whose root offers the cpuset controller, or why
/// there is none.
pub(super) fn mount() -> Result<PathBuf, String> {
    let mounts = crate::sys::procfs::mounts::read();
    let Some(m) = mounts
        .iter()
        .find(|m| m.fstype == "cgroup2")
        .map(|m| PathBuf::from(&m.target))
    else {
        return Err(
            "no cpuset controller: neither a cgroup v1 cpuset hierarchy nor cgroup v2 is mounted"
                .into(),
        );
    };
    let controllers = std::fs::read_to_string(m.join("cgroup.controllers")).unwrap_or_default();
    if controllers.split_whitespace().any(|c| c == "cpuset") {
        Ok(m)
    } else {
        Err(format!(
            "no cpuset controller: cgroup v2 at {} does not offer cpuset in cgroup.controllers (a kernel without CONFIG_CPUSETS, or a cgroup v1 hierarchy holds it)",
            m.display()
        ))
    }
}

/// A process's cgroup v2 path ("/" for the root), from `/proc/PID/cgroup`.
fn cgroup_of(pid: i32) -> Option<String> {
    let lines = crate::sys::procfs::cgroup::of(pid)?;
    crate::sys::procfs::cgroup::unified(&lines).map(str::to_string)
}

/// Top-level cgroups to narrow, with their `cpuset.cpus` now; and how many
/// are left alone.
fn top_level(mount: &Path) -> (Vec<(PathBuf, String)>, u64) {
    let (mut take, mut alone) = (Vec::new(), 0);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(mount)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        let name = d.file_name().map(|n| n.to_string_lossy().into_owned());
        let partition = std::fs::read_to_string(d.join("cpuset.cpus.partition"))
            .map(|p| p.trim().to_string())
            .unwrap_or_else(|_| "member".into());
        if name.is_some_and(|n| n.starts_with("kbench-")) || partition != "member" {
            alone += 1;
            continue;
        }
        let cpus = std::fs::read_to_string(d.join("cpuset.cpus")).unwrap_or_default();
        take.push((d, cpus.trim().to_string()));
    }
    (take, alone)
}

fn write(path: &Path, value: &str) -> Result<()> {
    // A cgroup file takes one write; an empty value needs its newline (a
    // write of nothing never reaches the kernel's handler).
    std::fs::write(path, format!("{value}\n"))
        .with_context(|| format!("writing {value:?} to {}", path.display()))
}

pub(super) fn apply(mount: &Path, s: &Split) -> Result<Isolation> {
    let me = std::process::id();
    let root_procs: Vec<i32> = tids(&mount.join("cgroup.procs"))
        .into_iter()
        .filter(|p| !s.own.contains(p))
        .collect();
    let mut own: Vec<i32> = s.own.iter().copied().collect();
    // kbench itself first: its cgroup is where later strays go back to.
    own.sort_by_key(|&p| (p != me as i32, p));
    let own_moved: Vec<(i32, String)> = own
        .iter()
        .filter_map(|&p| cgroup_of(p).filter(|c| c != "/").map(|c| (p, c)))
        .collect();
    let (narrowed, left_alone) = top_level(mount);
    let subtree = std::fs::read_to_string(mount.join("cgroup.subtree_control")).unwrap_or_default();
    let plan = Plan {
        enable_cpuset: !subtree.split_whitespace().any(|c| c == "cpuset"),
        probe: mount.join(format!("kbench-probe-{me}")),
        own_moved,
        narrowed,
    };
    let others: Vec<i32> = crate::sys::procstat::all()
        .keys()
        .copied()
        .filter(|p| !s.own.contains(p))
        .flat_map(crate::sys::procfs::tasks)
        .collect();
    let house = mount.join(format!("kbench-house-{me}"));
    let mut iso = begin(Record {
        mount: mount.to_path_buf(),
        house: house.clone(),
        affinity: narrow_affinities(&others, &s.online),
        v2: Some(plan),
    })?;
    let house_list = crate::sys::cpus::format_list(&s.house);
    let plan = iso.record.v2.as_ref().expect("a v2 record");
    let setup = || -> Result<(u64, u64, u64, u64)> {
        if plan.enable_cpuset {
            write(&mount.join("cgroup.subtree_control"), "+cpuset")?;
        }
        if !plan.own_moved.is_empty() {
            std::fs::create_dir(&plan.probe)
                .with_context(|| format!("creating {}", plan.probe.display()))?;
            for (pid, from) in &plan.own_moved {
                // A kbench process that ended since is no longer there to
                // move; one that cannot move would be confined: stop.
                if let Err(e) = write(&plan.probe.join("cgroup.procs"), &pid.to_string()) {
                    if crate::sys::procfs::alive(*pid) {
                        return Err(anyhow!(
                            "moving kbench's process {pid} out of {from}: {e:#}"
                        ));
                    }
                }
            }
        }
        std::fs::create_dir(&house).with_context(|| format!("creating {}", house.display()))?;
        write(&house.join("cpuset.cpus"), &house_list)?;
        let (mut moved, mut stuck) = (0, 0);
        for &pid in &root_procs {
            match write(&house.join("cgroup.procs"), &pid.to_string()) {
                Ok(()) => moved += 1,
                Err(_) => stuck += 1,
            }
        }
        let (mut narrowed, mut not) = (0, 0);
        for (cg, _) in &plan.narrowed {
            match write(&cg.join("cpuset.cpus"), &house_list) {
                Ok(()) => narrowed += 1,
                Err(_) => not += 1,
            }
        }
        Ok((moved, stuck, narrowed, not))
    };
    match setup() {
        Ok((moved, stuck, narrowed, not)) => {
            iso.summary = serde_json::json!({
                "isolated": true, "cgroup": "v2",
                "probe_cpus": crate::sys::cpus::format_list(&s.probe),
                "house_cpus": house_list, "tasks_moved": moved,
                "tasks_not_movable": stuck, "kbench_processes": s.own.len(),
                "kbench_processes_moved": plan.own_moved.len(),
                "cgroups_narrowed": narrowed, "cgroups_not_narrowed": not,
                "cgroups_left_alone": left_alone,
                "janitor": iso.janitor.is_some(),
            });
            Ok(iso)
        }
        Err(e) => {
            iso.undo();
            Err(e.context("setting up cgroup v2 cpusets"))
        }
    }
}

/// Undo a v2 isolation, as far as it went; returns the processes put back.
pub(super) fn undo(r: &Record, plan: &Plan) -> Result<u64> {
    for (cg, cpus) in &plan.narrowed {
        // A cgroup removed meanwhile has nothing left to restore.
        if cg.exists() {
            let _ = write(&cg.join("cpuset.cpus"), cpus);
        }
    }
    let root_procs = r.mount.join("cgroup.procs");
    let to_root = || {
        tids(&r.house.join("cgroup.procs"))
            .into_iter()
            .filter(|p| write(&root_procs, &p.to_string()).is_ok())
            .count() as u64
    };
    let house = remove_when_empty(&r.house, to_root);
    // kbench's processes go back where they came from; one started since
    // goes where kbench itself came from; the root if that is gone.
    let home_of = |pid: i32| -> PathBuf {
        let rel = plan
            .own_moved
            .iter()
            .find(|(p, _)| *p == pid)
            .or(plan.own_moved.first())
            .map_or("/", |(_, c)| c.as_str());
        r.mount.join(rel.trim_start_matches('/'))
    };
    let to_homes = || {
        tids(&plan.probe.join("cgroup.procs"))
            .into_iter()
            .filter(|&p| {
                write(&home_of(p).join("cgroup.procs"), &p.to_string())
                    .or_else(|_| write(&root_procs, &p.to_string()))
                    .is_ok()
            })
            .count() as u64
    };
    let probe = remove_when_empty(&plan.probe, to_homes);
    if plan.enable_cpuset {
        // Refused while some cgroup below still uses it (systemd may have
        // enabled it meanwhile): then it stays, as that cgroup needs it.
        let _ = write(&r.mount.join("cgroup.subtree_control"), "-cpuset");
    }
    match (house, probe) {
        (Some(a), Some(b)) => Ok(a + b),
        _ => Err(anyhow!(
            "{} or {} still has processes; `kbench restore` retries",
            r.house.display(),
            plan.probe.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_without_v2_is_a_v1_record_and_v2_round_trips() {
        let v1: Record =
            serde_json::from_str(r#"{"mount": "/m", "house": "/m/kbench-house-1"}"#).unwrap();
        assert!(v1.v2.is_none() && v1.affinity.is_empty());
        let r = Record {
            mount: "/sys/fs/cgroup".into(),
            house: "/sys/fs/cgroup/kbench-house-7".into(),
            affinity: vec![(12, vec![1])],
            v2: Some(Plan {
                enable_cpuset: true,
                probe: "/sys/fs/cgroup/kbench-probe-7".into(),
                own_moved: vec![(7, "/user.slice/session-1.scope".into())],
                narrowed: vec![("/sys/fs/cgroup/system.slice".into(), String::new())],
            }),
        };
        let back: Record = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        let p = back.v2.unwrap();
        assert!(p.enable_cpuset);
        assert_eq!(
            p.own_moved,
            vec![(7, "/user.slice/session-1.scope".to_string())]
        );
        assert_eq!(p.narrowed[0].1, "");
    }

    #[test]
    fn top_level_cgroups_skip_partitions_and_kbench_s_own() {
        let d = tempfile::tempdir().unwrap();
        for (name, cpus, partition) in [
            ("system.slice", "", None),
            ("user.slice", "0-3", Some("member")),
            ("rt.slice", "2-3", Some("isolated")),
            ("kbench-house-9", "0", None),
        ] {
            let p = d.path().join(name);
            std::fs::create_dir(&p).unwrap();
            std::fs::write(p.join("cpuset.cpus"), format!("{cpus}\n")).unwrap();
            if let Some(x) = partition {
                std::fs::write(p.join("cpuset.cpus.partition"), format!("{x}\n")).unwrap();
            }
        }
        std::fs::write(d.path().join("cgroup.procs"), "1\n").unwrap();
        let (take, alone) = top_level(d.path());
        let names: Vec<_> = take
            .iter()
            .map(|(p, c)| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    c.clone(),
                )
            })
            .collect();
        assert_eq!(
            names,
            vec![
                ("system.slice".to_string(), String::new()),
                ("user.slice".to_string(), "0-3".to_string())
            ]
        );
        assert_eq!(alone, 2);
    }
}
