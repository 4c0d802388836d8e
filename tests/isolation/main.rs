//! `--isolate` moves every other process off the probe CPUs and back.  A
//! test binary of its own: cargo runs test binaries one at a time, so no
//! other test's processes are moved while these run.

#[path = "../common/mod.rs"]
mod common;

use common::Env;

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

/// Can this machine isolate (root, a cgroup v1 cpuset mount, 2+ CPUs)?
fn possible() -> bool {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let v1 = mounts.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.get(2) == Some(&"cgroup")
            && f.get(3)
                .is_some_and(|o| o.split(',').any(|x| x == "cpuset"))
    });
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let in_root = cpuset(std::process::id()) == "/";
    v1 && cpus >= 2 && root && in_root
}

fn foreign(args: &[&str]) -> std::process::Child {
    std::process::Command::new(args[0])
        .args(&args[1..])
        .spawn()
        .unwrap()
}

#[test]
fn isolation_moves_other_processes_off_and_back_also_after_kill_9() {
    let env = Env::new();
    if !possible() {
        // Where it cannot isolate, kbench says so and runs un-isolated.
        let out = env.run(&["testbench", "--isolate", "--no-store"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && err.contains("not isolated:"),
            "{err}"
        );
        eprintln!("skipped the isolation itself: needs root, a cgroup v1 cpuset mount and 2 CPUs");
        return;
    }
    // One foreign process with every CPU, one narrowed to CPU 1 by taskset.
    let mut wide = foreign(&["sleep", "60"]);
    let mut narrow = foreign(&["taskset", "-c", "1", "sleep", "60"]);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let (w, n) = (wide.id(), narrow.id());
    let before = (cpuset(w), allowed(w), cpuset(n), allowed(n));
    assert_eq!(
        before.0, "/",
        "the test expects to start in the root cpuset"
    );
    for kill in [false, true] {
        let kb = env.spawn(&["testbench", "--seconds", "3", "--isolate", "--label", "iso"]);
        std::thread::sleep(std::time::Duration::from_millis(1500));
        assert!(
            cpuset(w).starts_with("/kbench-house-"),
            "during: {}",
            cpuset(w)
        );
        assert_eq!(allowed(w), "0", "during: only the house CPU");
        if kill {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(kb.id() as i32, libc::SIGKILL) };
            let _ = kb.wait_with_output();
            assert!(
                common::wait_for(10, || cpuset(w) == "/"),
                "the janitor put it back: {}",
                cpuset(w)
            );
        } else {
            let out = kb.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let after = (cpuset(w), allowed(w), cpuset(n), allowed(n));
        assert_eq!(after, before, "kill -9: {kill}");
        let left: Vec<_> = std::fs::read_dir("/sys/fs/cgroup/cpuset")
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("kbench-house-"))
            .collect();
        assert!(left.is_empty(), "a house cpuset was left");
    }
    // A scenario with `isolate = true` isolates for all its phases, and
    // its tasks record it.
    let f = env.dir.path().join("iso.toml");
    std::fs::write(
        &f,
        "name = \"iso\"\nisolate = true\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"testbench\"\nargs = { seconds = 3 }\n",
    )
    .unwrap();
    let kb = env.spawn(&["run", f.to_str().unwrap(), "--label", "isoscen"]);
    std::thread::sleep(std::time::Duration::from_millis(2000));
    assert!(
        cpuset(w).starts_with("/kbench-house-"),
        "scenario: {}",
        cpuset(w)
    );
    let out = kb.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!((cpuset(w), allowed(w), cpuset(n), allowed(n)), before);
    let last = env.json(&["runs", "list", "--last", "1"]);
    let id = last["runs"][0]["id"].as_i64().unwrap().to_string();
    assert_eq!(
        env.json(&["runs", "show", &id])["settings"]["isolation"]["isolated"],
        true
    );
    // After a crash: a record left behind is applied by `kbench restore`.
    let home = env.dir.path().join("home");
    let rdir = home.join(".local/share/kbench/restore");
    std::fs::create_dir_all(&rdir).unwrap();
    let house = std::path::Path::new("/sys/fs/cgroup/cpuset/kbench-house-test");
    std::fs::create_dir(house).unwrap();
    std::fs::write(house.join("cpuset.cpus"), "0").unwrap();
    std::fs::write(house.join("cpuset.mems"), "0").unwrap();
    std::fs::write(house.join("tasks"), w.to_string()).unwrap();
    assert_eq!(cpuset(w), "/kbench-house-test");
    std::fs::write(
        rdir.join("1.json"),
        format!(
            "{{\"mount\": \"/sys/fs/cgroup/cpuset\", \"house\": \"{}\"}}",
            house.display()
        ),
    )
    .unwrap();
    let out = env
        .cmd()
        .arg("restore")
        .env("HOME", &home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("restored: 1 tasks back"),
        "{text}"
    );
    assert_eq!(cpuset(w), "/");
    assert!(!house.exists() && std::fs::read_dir(&rdir).unwrap().next().is_none());
    let again = env
        .cmd()
        .arg("restore")
        .env("HOME", &home)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to restore"));
    let _ = wide.kill();
    let _ = narrow.kill();
    let _ = wide.wait();
    let _ = narrow.wait();
    let v = env.json(&["runs", "list", "--benchmark", "testbench"]);
    let id = v["runs"][0]["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    let iso = &show["settings"]["isolation"];
    assert_eq!(iso["isolated"], true, "{show}");
    assert!(iso["tasks_moved"].as_u64().unwrap() >= 2, "{iso}");
    let n = std::thread::available_parallelism().unwrap().get();
    let want = if n == 2 {
        "1".to_string()
    } else {
        format!("1-{}", n - 1)
    };
    assert_eq!(iso["probe_cpus"], want.as_str(), "{iso}");
    assert_eq!(iso["house_cpus"], "0", "{iso}");
}
