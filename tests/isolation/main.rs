//! `--isolate` moves every other process off the probe CPUs and back.  A
//! test binary of its own: cargo runs test binaries one at a time, so no
//! other test's processes are moved while these run.
//!
//! Both backends run where the machine allows: cgroup v1 where a v1 cpuset
//! hierarchy is mounted; cgroup v2 where its root offers cpuset, or, on a
//! machine like this one (cpuset bound to an otherwise unused v1
//! hierarchy), after the test unmounts that hierarchy so the controller
//! moves to v2, mounting it back afterwards (also when the test fails).

#[path = "../common/mod.rs"]
mod common;

use common::Env;
use std::path::{Path, PathBuf};

fn cpuset(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/cpuset"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn allowed(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap_or("")
        .trim()
        .to_string()
}

/// The mount point of the first `/proc/mounts` entry `pick` accepts.
fn mount_where(pick: impl Fn(&str, &str) -> bool) -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() > 3 && pick(f[2], f[3])).then(|| PathBuf::from(f[1]))
    })
}

fn v1_cpuset() -> Option<PathBuf> {
    mount_where(|t, o| t == "cgroup" && o.split(',').any(|x| x == "cpuset"))
}

fn v2_mount() -> Option<PathBuf> {
    mount_where(|t, _| t == "cgroup2")
}

fn v2_offers_cpuset(m: &Path) -> bool {
    std::fs::read_to_string(m.join("cgroup.controllers"))
        .unwrap_or_default()
        .split_whitespace()
        .any(|c| c == "cpuset")
}

/// Root, 2+ CPUs, and this test in the root cpuset.
fn possible() -> bool {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    cpus >= 2 && root && cpuset(std::process::id()) == "/"
}

fn foreign(args: &[&str]) -> std::process::Child {
    std::process::Command::new(args[0])
        .args(&args[1..])
        .spawn()
        .unwrap()
}

fn houses_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("kbench-house-") || n.starts_with("kbench-probe-"))
        .collect()
}

/// Which hierarchy a check runs on.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Version {
    V1,
    V2,
}

/// Moves the cpuset controller from its v1 hierarchy to cgroup v2 for the
/// guard's life, and back when dropped.
struct OnV2 {
    v1_at: PathBuf,
    v2: PathBuf,
}

impl OnV2 {
    /// Only when the v1 hierarchy has no cpuset of its own below the root
    /// (else someone uses it and it is not ours to unmount).
    fn switch() -> Option<OnV2> {
        let v1_at = v1_cpuset()?;
        let v2 = v2_mount()?;
        let busy = std::fs::read_dir(&v1_at)
            .ok()?
            .flatten()
            .any(|e| e.path().is_dir());
        if busy {
            return None;
        }
        // Busy (a process outside this test holds the hierarchy): it stays
        // as it is, and v2 is not exercised here.
        let unmounted = std::process::Command::new("umount")
            .arg(&v1_at)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !unmounted {
            return None;
        }
        let guard = OnV2 { v1_at, v2 };
        // The hierarchy goes, and its controller to v2, once nothing uses it.
        common::wait_for(10, || v2_offers_cpuset(&guard.v2)).then_some(guard)
    }
}

impl Drop for OnV2 {
    fn drop(&mut self) {
        let _ = std::fs::write(self.v2.join("cgroup.subtree_control"), "-cpuset\n");
        let back = common::wait_for(10, || {
            std::process::Command::new("mount")
                .args(["-t", "cgroup", "-o", "cpuset", "cgroup"])
                .arg(&self.v1_at)
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
        assert!(
            back,
            "could not mount the cgroup v1 cpuset hierarchy back at {}",
            self.v1_at.display()
        );
    }
}

#[test]
fn isolation_moves_other_processes_off_and_back_also_after_kill_9() {
    let env = Env::new();
    if !possible() || (v1_cpuset().is_none() && !v2_mount().is_some_and(|m| v2_offers_cpuset(&m))) {
        // Where it cannot isolate, kbench says so and runs un-isolated.
        let out = env.run(&["testbench", "--isolate", "--no-store"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && err.contains("not isolated:"),
            "{err}"
        );
        eprintln!("skipped the isolation itself: needs root, 2 CPUs and a cpuset controller");
        return;
    }
    let mut ran = Vec::new();
    if let Some(v1) = v1_cpuset() {
        exercise(&env, Version::V1, &v1);
        ran.push("v1");
        match OnV2::switch() {
            Some(g) => {
                exercise(&env, Version::V2, &g.v2.clone());
                ran.push("v2 (v1 cpuset unmounted for it, then mounted back)");
                drop(g);
                assert!(v1_cpuset().is_some());
            }
            None => eprintln!(
                "cgroup v2 isolation not exercised: the v1 cpuset hierarchy is in use (has cpusets, or `umount` says it is busy)"
            ),
        }
    } else {
        let v2 = v2_mount().unwrap();
        exercise(&env, Version::V2, &v2);
        ran.push("v2");
    }
    eprintln!("isolation exercised with cgroup {}", ran.join(" and "));
}

/// Everything the issue asks of isolation, on one hierarchy mounted at `m`.
fn exercise(env: &Env, v: Version, m: &Path) {
    let tag = format!("{v:?}").to_lowercase();
    // One foreign process with every CPU, one narrowed to CPU 1 by taskset,
    // and on v2 one in a top-level cgroup of its own (as systemd's slices).
    let mut wide = foreign(&["sleep", "60"]);
    let mut narrow = foreign(&["taskset", "-c", "1", "sleep", "60"]);
    let mut sliced = foreign(&["sleep", "60"]);
    let slice = m.join("kbtest-iso.slice");
    if v == Version::V2 {
        std::fs::create_dir(&slice).unwrap();
        std::fs::write(slice.join("cgroup.procs"), sliced.id().to_string()).unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let (w, n, s) = (wide.id(), narrow.id(), sliced.id());
    let state = || {
        (
            cpuset(w),
            allowed(w),
            cpuset(n),
            allowed(n),
            cpuset(s),
            allowed(s),
        )
    };
    let before = state();
    assert_eq!(
        before.0, "/",
        "the test expects to start in the root cpuset"
    );
    let all = before.1.clone();
    // On v2, kbench itself starts in a top-level cgroup of its own, as in a
    // login session's scope: isolation must move it out before narrowing.
    let kb_slice = m.join("kbtest-kb.slice");
    if v == Version::V2 {
        std::fs::create_dir(&kb_slice).unwrap();
    }
    for kill in [false, true] {
        let args = ["testbench", "--seconds", "3", "--isolate", "--label", &tag];
        let kb = match v {
            Version::V1 => env.spawn(&args),
            Version::V2 => spawn_in(env, &args, &kb_slice),
        };
        std::thread::sleep(std::time::Duration::from_millis(1500));
        assert!(
            cpuset(w).starts_with("/kbench-house-"),
            "{tag} during: {}",
            cpuset(w)
        );
        assert_eq!(allowed(w), "0", "{tag} during: only the house CPU");
        if v == Version::V2 {
            assert_eq!(cpuset(s), "/kbtest-iso.slice");
            assert_eq!(
                allowed(s),
                "0",
                "v2 during: the slice is narrowed to the house CPU"
            );
            assert!(
                cpuset(kb.id()).starts_with("/kbench-probe-"),
                "v2 during: kbench moved out of its narrowed cgroup: {}",
                cpuset(kb.id())
            );
            assert_eq!(allowed(kb.id()), all, "v2 during: kbench keeps every CPU");
        }
        if kill {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(kb.id() as i32, libc::SIGKILL) };
            let _ = kb.wait_with_output();
            assert!(
                common::wait_for(10, || cpuset(w) == "/" && allowed(s) == all),
                "{tag}: the janitor put it back: {} {}",
                cpuset(w),
                allowed(s)
            );
        } else {
            let out = kb.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(state(), before, "{tag}, kill -9: {kill}");
        assert!(
            houses_in(m).is_empty(),
            "{tag}: a house or probe cgroup was left"
        );
        if v == Version::V2 {
            let cpus = std::fs::read_to_string(slice.join("cpuset.cpus")).unwrap_or_default();
            assert_eq!(cpus.trim(), "", "v2: the slice inherits again");
        }
    }
    // A scenario with `isolate = true` isolates for all its phases, and
    // its tasks record it.
    let f = env.dir.path().join("iso.toml");
    std::fs::write(
        &f,
        "name = \"iso\"\nisolate = true\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"testbench\"\nargs = { seconds = 3 }\n",
    )
    .unwrap();
    let label = format!("scen{tag}");
    let kb = env.spawn(&["run", f.to_str().unwrap(), "--label", &label]);
    std::thread::sleep(std::time::Duration::from_millis(2000));
    assert!(
        cpuset(w).starts_with("/kbench-house-"),
        "{tag} scenario: {}",
        cpuset(w)
    );
    let out = kb.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(state(), before);
    let last = env.json(&["runs", "list", "--last", "1"]);
    let id = last["runs"][0]["id"].as_i64().unwrap().to_string();
    let iso = &env.json(&["runs", "show", &id])["settings"]["isolation"];
    assert_eq!(iso["isolated"], true, "{iso}");
    assert_eq!(iso["cgroup"], tag.as_str(), "{iso}");
    after_a_crash(env, v, m, w, &slice);
    assert_eq!(state(), before);
    for c in [&mut wide, &mut narrow, &mut sliced] {
        let _ = c.kill();
        let _ = c.wait();
    }
    if v == Version::V2 {
        std::fs::remove_dir(&slice).unwrap();
        assert!(
            tids_in(&kb_slice).is_empty(),
            "kbench's processes went back and ended"
        );
        std::fs::remove_dir(&kb_slice).unwrap();
    }
    let runs = env.json(&["runs", "list", "--label", &tag]);
    let id = runs["runs"][0]["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    let iso = &show["settings"]["isolation"];
    assert_eq!(iso["isolated"], true, "{show}");
    assert!(iso["tasks_moved"].as_u64().unwrap() >= 2, "{iso}");
    if v == Version::V2 {
        assert!(iso["cgroups_narrowed"].as_u64().unwrap() >= 1, "{iso}");
    }
    let n = std::thread::available_parallelism().unwrap().get();
    let want = if n == 2 {
        "1".to_string()
    } else {
        format!("1-{}", n - 1)
    };
    assert_eq!(iso["probe_cpus"], want.as_str(), "{iso}");
    assert_eq!(iso["house_cpus"], "0", "{iso}");
}

/// `kbench args…` started inside the v2 cgroup `cg` (it moves itself
/// there between fork and exec: "0" names the writer).
fn spawn_in(env: &Env, args: &[&str], cg: &Path) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let procs = std::ffi::CString::new(cg.join("cgroup.procs").to_str().unwrap()).unwrap();
    let mut c = env.cmd();
    c.args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // SAFETY: only open, write and close between fork and exec, on a path
    // made before the fork.
    unsafe {
        c.pre_exec(move || {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
            if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                return Err(std::io::Error::last_os_error());
            }
            libc::close(fd);
            Ok(())
        });
    }
    c.spawn().expect("spawn kbench in a cgroup")
}

fn tids_in(cg: &Path) -> Vec<String> {
    std::fs::read_to_string(cg.join("cgroup.procs"))
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// A record left by a kbench that died with the machine is applied by
/// `kbench restore`, once.
fn after_a_crash(env: &Env, v: Version, m: &Path, w: u32, slice: &Path) {
    let home = env.dir.path().join("home");
    let rdir = home.join(".local/share/kbench/restore");
    std::fs::create_dir_all(&rdir).unwrap();
    // Named as kbench names its cgroups (`kbench-house-<pid>`): restore
    // refuses a record that names any other.
    let house = m.join("kbench-house-999999");
    std::fs::create_dir(&house).unwrap();
    let record = match v {
        Version::V1 => {
            std::fs::write(house.join("cpuset.cpus"), "0").unwrap();
            std::fs::write(house.join("cpuset.mems"), "0").unwrap();
            std::fs::write(house.join("tasks"), w.to_string()).unwrap();
            serde_json::json!({ "mount": m, "house": house })
        }
        Version::V2 => {
            // What kbench does, by hand: cpuset enabled in the root, the
            // slice narrowed, the process in the house.
            std::fs::write(m.join("cgroup.subtree_control"), "+cpuset\n").unwrap();
            std::fs::write(slice.join("cpuset.cpus"), "0\n").unwrap();
            std::fs::write(house.join("cpuset.cpus"), "0\n").unwrap();
            std::fs::write(house.join("cgroup.procs"), w.to_string()).unwrap();
            serde_json::json!({ "mount": m, "house": house, "v2": {
                "enable_cpuset": true, "probe": m.join("kbench-probe-999999"),
                "own_moved": [], "narrowed": [[slice, ""]] } })
        }
    };
    assert_eq!(cpuset(w), "/kbench-house-999999");
    std::fs::write(rdir.join("1.json"), record.to_string()).unwrap();
    let out = env
        .cmd()
        .arg("restore")
        .env("HOME", &home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("restored: 1 tasks back"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(cpuset(w), "/");
    // The record went, and with it its folder, now empty.
    assert!(!house.exists() && !rdir.exists());
    if v == Version::V2 {
        let cpus = std::fs::read_to_string(slice.join("cpuset.cpus")).unwrap_or_default();
        assert_eq!(cpus.trim(), "", "the slice inherits again");
    }
    let again = env
        .cmd()
        .arg("restore")
        .env("HOME", &home)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to restore"));
}
