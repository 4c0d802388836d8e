//! Numbers from users that once overflowed, wrapped or panicked: each is
//! refused with one line naming the allowed range, exit 2, nothing started.

use crate::common::{empty_dir, marked, walk, Env};

fn refused(env: &Env, args: &[&str], says: &str) {
    refused_with(env, args, 2, says);
}

/// Refused with exit `code` (2: bad input; 1: what the machine cannot
/// hold) and one line saying `says`.
fn refused_with(env: &Env, args: &[&str], code: i32, says: &str) {
    let o = env.run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: one line: {err}"
    );
}

#[test]
fn numbers_that_overflowed_are_refused_with_their_range() {
    let env = Env::new();
    // The distance overflowed the interval to 0: a busy loop at RT priority.
    refused(
        &env,
        &[
            "cyclictest",
            "-t",
            "2",
            "-d",
            "2305843009213692952",
            "-l",
            "1",
            "--no-store",
        ],
        "1 hour",
    );
    refused(
        &env,
        &["cyclictest", "-D", "1e20", "--no-store"],
        "longer than a year",
    );
    refused(
        &env,
        &["load", "cpu", "--duration", "1e20", "--no-store"],
        "longer than a year",
    );
    refused(
        &env,
        &["responsiveness", "-t", "1e20", "--no-store"],
        "longer than a year",
    );
    // Under one page, the mem load divided by zero.
    refused(
        &env,
        &[
            "load",
            "mem",
            "--size",
            "1",
            "--duration",
            "1s",
            "--no-store",
        ],
        "at least 1 MiB",
    );
    refused(&env, &["hackbench", "--cpus", "1024", "--no-store"], "1024");
}

#[test]
fn scenario_numbers_do_not_wrap_into_range() {
    let env = Env::new();
    for (key, value, says) in [
        (
            "priority",
            "4294967394",
            "priority 4294967394 is out of range",
        ),
        ("nice", "4294967276", "nice 4294967276 is out of range"),
    ] {
        let f = env.dir.path().join(format!("{key}.toml"));
        std::fs::write(
            &f,
            format!(
                "name = \"t\"\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\n{key} = {value}\n"
            ),
        )
        .unwrap();
        refused(&env, &["run", f.to_str().unwrap(), "--dry-run"], says);
    }
    let f = env.dir.path().join("settle.toml");
    std::fs::write(
        &f,
        "name = \"t\"\n[[phase]]\nname = \"p\"\nsettle = \"1e20\"\n[[phase.task]]\nkind = \"hackbench\"\n",
    )
    .unwrap();
    refused(
        &env,
        &["run", f.to_str().unwrap(), "--dry-run"],
        "longer than a year",
    );
    let f = env.dir.path().join("deep.toml");
    let deep = format!("{}1{}", "(".repeat(50_000), ")".repeat(50_000));
    std::fs::write(
        &f,
        format!("name = \"t\"\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\nargs = {{ groups = \"${{{deep}}}\" }}\n"),
    )
    .unwrap();
    refused(
        &env,
        &["run", f.to_str().unwrap(), "--dry-run"],
        "at most 1000",
    );
}

/// Every file of a tree with its content, to see that nothing changed.
fn snapshot(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = walk(dir)
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// `job --kernel-tree` builds out of tree: the user's tree, its own
/// `.config` included, is byte for byte the same afterwards.
#[test]
fn a_kernel_build_never_writes_into_the_users_tree() {
    let env = Env::new();
    let tree = env.dir.path().join("linux");
    std::fs::create_dir(&tree).unwrap();
    // A stand-in for kbuild: honours O=, writes only there.
    std::fs::write(
        tree.join("Makefile"),
        "O ?= .\n\
         defconfig:\n\techo CONFIG_DEF=y > $(O)/.config\n\
         olddefconfig:\n\ttest -f $(O)/.config\n\
         prepare:\n\ttouch $(O)/prepared\n\
         clean:\n\trm -f $(O)/vmlinux\n\
         vmlinux:\n\techo built > $(O)/vmlinux\n",
    )
    .unwrap();
    std::fs::write(tree.join("Kconfig"), "config DEF\n").unwrap();
    std::fs::write(tree.join(".config"), "CONFIG_MINE=y\n").unwrap();
    std::fs::write(tree.join("main.c"), "int main(void) { return 0; }\n").unwrap();
    let before = snapshot(&tree);
    let cfg = env.dir.path().join("my.config");
    std::fs::write(&cfg, "CONFIG_FILE=y\n").unwrap();
    for kconfig in ["defconfig", cfg.to_str().unwrap()] {
        env.ok(&[
            "job",
            "--kernel-tree",
            tree.to_str().unwrap(),
            "--kconfig",
            kconfig,
            "--target",
            "vmlinux",
            "--runs",
            "2",
            "--no-store",
            "-q",
        ]);
        assert_eq!(
            snapshot(&tree),
            before,
            "the tree changed (kconfig {kconfig})"
        );
    }
}

/// A panic (injected in debug builds) after a temp dir was made, or with
/// a load running, leaves no file and no process: the panic unwinds
/// through every guard, and says in one line that it was a bug.  The
/// release profile unwinds too (it aborted before, so its panics left
/// temp dirs behind).
#[test]
fn a_panic_leaves_no_file_and_no_process() {
    let manifest: toml::Value = toml::from_str(include_str!("../Cargo.toml")).expect("Cargo.toml");
    assert_ne!(
        manifest["profile"]["release"]
            .get("panic")
            .and_then(|v| v.as_str()),
        Some("abort"),
        "release panics must unwind so guards run"
    );
    let env = Env::new();
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mark = format!("KBENCH_TEST_MARK={}", std::process::id());
    let (k, v) = mark.split_once('=').unwrap();
    let panics_at = |point: &str, args: &[&str]| {
        let o = env
            .cmd()
            .env("TMPDIR", &tmp)
            .env(k, v)
            .env("KBENCH_INJECT_PANIC", point)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(101), "{point}: {err}");
        assert!(err.contains("kbench: internal error"), "{point}: {err}");
    };
    panics_at(
        "job-scratch",
        &[
            "job",
            "--job-cmd",
            "true",
            "--runs",
            "1",
            "--no-store",
            "-q",
        ],
    );
    assert!(empty_dir(&tmp), "the job's scratch dir was left");

    let dir = env.dir.path().join("load");
    std::fs::create_dir(&dir).unwrap();
    let dir_s = dir.to_str().unwrap();
    panics_at(
        "load-started",
        &[
            "load",
            "io",
            "--size",
            "16M",
            "--duration",
            "5s",
            "--no-store",
            "-q",
            "--dir",
            dir_s,
        ],
    );
    assert!(
        crate::common::wait_for(5, || marked(&mark).is_empty() && empty_dir(&dir)),
        "left behind: processes {:?}, files in {}",
        marked(&mark),
        dir.display()
    );
}

/// A child killed (SIGKILL) and reaped when dropped, also when a test fails.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A mounted filesystem for a test, unmounted (and its mount point
/// removed) when dropped.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

fn mount(args: &[&str], at: &std::path::Path) -> Option<Mounted> {
    std::fs::create_dir_all(at).unwrap();
    let ok = std::process::Command::new("mount")
        .args(args)
        .arg(at)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: cannot mount {args:?} (needs root)");
        return None;
    }
    Some(Mounted(at.to_path_buf()))
}

/// Disk loads never write to tmpfs (it is RAM): an explicit `--dir` there
/// is refused with the reason, and a tmpfs `TMPDIR` sends the files to
/// `/var/tmp` instead.
#[test]
fn disk_loads_refuse_memory_filesystems() {
    let env = Env::new();
    let ram = env.dir.path().join("ram");
    let Some(_m) = mount(&["-t", "tmpfs", "-o", "size=64m", "tmpfs"], &ram) else {
        return;
    };
    let ram_s = ram.to_str().unwrap();
    for load in ["io", "read"] {
        refused(
            &env,
            &[
                "load",
                load,
                "--size",
                "16M",
                "--duration",
                "1s",
                "--no-store",
                "--dir",
                ram_s,
            ],
            "tmpfs/ramfs",
        );
    }
    let o = env
        .cmd()
        .env("TMPDIR", &ram)
        .args([
            "load",
            "io",
            "--size",
            "16M",
            "--duration",
            "1s",
            "--no-store",
        ])
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{all}");
    assert!(all.contains("/var/tmp"), "{all}");
    assert!(empty_dir(&ram));
}

/// On a small filesystem, a second load cannot count the space a running
/// load has claimed; ctar, xtar and dbench check their space too.
#[test]
fn loads_on_one_filesystem_cannot_claim_the_same_space() {
    let env = Env::new();
    let img = env.dir.path().join("fs.img");
    let f = std::fs::File::create(&img).unwrap();
    f.set_len(1700 << 20).unwrap();
    drop(f);
    let mkfs = std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F", "-m", "0"])
        .arg(&img)
        .status();
    if !mkfs.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no mkfs.ext4");
        return;
    }
    let disk = env.dir.path().join("disk");
    let Some(_m) = mount(&["-o", "loop", img.to_str().unwrap()], &disk) else {
        return;
    };
    let free = {
        let out = std::process::Command::new("df")
            .args(["-B1", "--output=avail"])
            .arg(&disk)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .nth(1)
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    // The first load takes all but 50 MiB of what may be used (1 GiB
    // stays free); a second of 100 MiB then does not fit beside it.
    let first = (free - (1 << 30) - (50 << 20)) >> 20;
    let a = quiet_load(&env, "io", &format!("{first}M"), "20s", &disk, None);
    assert!(
        crate::common::wait_for(10, || std::fs::read_dir(&disk)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("kbench-io-"))),
        "the first load never started"
    );
    let disk_s = disk.to_str().unwrap();
    let second = [
        "load",
        "read",
        "--size",
        "100M",
        "--duration",
        "1s",
        "--no-store",
        "--dir",
        disk_s,
    ];
    refused_with(&env, &second, 1, "claimed by other running loads");
    drop(a);
    // Killed with SIGKILL: its janitor removes its files and its claim.
    assert!(
        crate::common::wait_for(5, || std::fs::read_dir(&disk)
            .unwrap()
            .flatten()
            .all(|e| e.file_name() == "lost+found")),
        "the killed load's files stayed"
    );
    env.ok(&second);

    // A tree of half the free space: its archive (ctar) and archive plus
    // extracted copy (xtar) do not fit beside the 1 GiB kept free.
    let tree = env.dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    let big = std::fs::File::create(tree.join("sparse")).unwrap();
    big.set_len(free / 2 + (1 << 20)).unwrap();
    let tree_s = tree.to_str().unwrap();
    for load in ["ctar", "xtar"] {
        let args = [
            "load",
            load,
            "--duration",
            "1s",
            "--no-store",
            "-q",
            "--tree",
            tree_s,
            "--dir",
            disk_s,
        ];
        refused_with(&env, &args, 1, &format!("{load} load needs"));
    }
    if crate::common::which("dbench") {
        let args = [
            "load",
            "dbench",
            "--procs",
            "64",
            "--duration",
            "1s",
            "--no-store",
            "-q",
            "--dir",
            disk_s,
        ];
        refused_with(&env, &args, 1, "dbench load needs");
    }
}

/// `cyclictest -t 4096 -m -h 1000000` would lock tens of GiB: refused
/// with what it needs and what there is.
#[test]
fn cyclictest_memory_is_sized_before_it_is_locked() {
    let env = Env::new();
    refused_with(
        &env,
        &[
            "cyclictest",
            "-t",
            "4096",
            "-m",
            "-h",
            "1000000",
            "-D",
            "1",
            "--no-store",
        ],
        1,
        "4096 cyclictest threads with -h 1000000 locked by -m need",
    );
}

/// More threads than the CPUs they run on can wake (64 a CPU, 128 at
/// least) are refused as a mistake of the command line: their latency
/// would be their own queueing.
#[test]
fn cyclictest_refuses_more_threads_than_its_cpus_can_wake() {
    let env = Env::new();
    refused_with(
        &env,
        &[
            "cyclictest",
            "-t",
            "4096",
            "-a",
            "0",
            "-D",
            "1",
            "--no-store",
        ],
        2,
        "4096 threads on 1 CPU: at most 128",
    );
    env.ok(&[
        "cyclictest",
        "-t",
        "128",
        "-a",
        "0",
        "-D",
        "100ms",
        "--no-store",
        "-q",
    ]);
}

/// `kill -9` of kbench while the read load is still writing its file
/// (set-up, before any worker runs): the janitor, forked before the first
/// byte, removes it.
#[test]
fn a_load_killed_during_set_up_leaves_no_file() {
    let env = Env::new();
    let dir = env.dir.path().join("load");
    std::fs::create_dir(&dir).unwrap();
    let kb = quiet_load(&env, "read", "1G", "5s", &dir, None);
    let file_appeared =
        crate::common::wait_for(20, || walk(&dir).iter().any(|p| p.ends_with("read.dat")));
    assert!(file_appeared, "the read load never started writing");
    drop(kb); // SIGKILL, mid-write
    assert!(
        crate::common::wait_for(5, || empty_dir(&dir)),
        "left after kill -9 during set-up: {:?}",
        walk(&dir)
    );
}

/// `kill -9` of kbench at random moments around a load's start (before
/// the janitor exists, while it is being forked, during set-up, while
/// running): nothing is ever left.  The janitor no longer dies with kbench
/// before it has armed its own wait, and is forked before the first file.
#[test]
fn a_load_killed_at_any_moment_leaves_nothing() {
    let env = Env::new();
    let dir = env.dir.path().join("load");
    std::fs::create_dir(&dir).unwrap();
    let mark = format!("KBENCH_KILL_MARK={}", std::process::id());
    let (k, v) = mark.split_once('=').unwrap();
    // Spread the kills over the first ~400 ms, where start-up and set-up are.
    for i in 0..24u64 {
        let kb = quiet_load(&env, "read", "64M", "5s", &dir, Some((k, v)));
        std::thread::sleep(std::time::Duration::from_millis((i * 37) % 400));
        drop(kb);
    }
    assert!(
        crate::common::wait_for(10, || empty_dir(&dir) && marked(&mark).is_empty()),
        "left after kill -9: files {:?}, processes {:?}",
        walk(&dir),
        marked(&mark)
    );
}

/// A quiet `load KIND` of `size` into `dir` for `duration`, killed when
/// dropped; with `mark` set in its environment.
fn quiet_load(
    env: &Env,
    kind: &str,
    size: &str,
    duration: &str,
    dir: &std::path::Path,
    mark: Option<(&str, &str)>,
) -> Killed {
    let mut c = env.cmd();
    if let Some((k, v)) = mark {
        c.env(k, v);
    }
    Killed(
        c.args([
            "load",
            kind,
            "--duration",
            duration,
            "--no-store",
            "-q",
            "--size",
            size,
        ])
        .arg("--dir")
        .arg(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap(),
    )
}

/// `kbench restore` applies only what kbench could have changed, and only
/// records this user wrote: crafted records that would write any file,
/// escape debugfs or move tasks into any folder are refused, one line
/// each, and nothing is written; a record others can write is refused.
#[test]
fn restore_refuses_records_kbench_could_not_have_written() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let data = env.dir.path().join("data");
    let rdir = data.join("kbench/restore");
    std::fs::create_dir_all(&rdir).unwrap();
    let victim = env.dir.path().join("victim");
    let fake_cgroup = env.dir.path().join("cg");
    std::fs::create_dir(&fake_cgroup).unwrap();
    let put = |name: &str, body: serde_json::Value| {
        let p = rdir.join(name);
        std::fs::write(&p, body.to_string()).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        p
    };
    let restore = || {
        env.cmd()
            .env("XDG_DATA_HOME", &data)
            .arg("restore")
            .output()
            .unwrap()
    };
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        (
            "knobs-999999991.json",
            serde_json::json!({"knobs": [{"name": "x", "location": {"File": victim}, "original": "owned"}]}),
            "is not a file under /proc/sys or /sys",
        ),
        (
            "knobs-999999992.json",
            serde_json::json!({"knobs": [{"name": "x", "location": {"Debugfs": "../../../tmp/x"}, "original": "1"}]}),
            "is not a plain path inside debugfs",
        ),
        (
            "knobs-999999993.json",
            serde_json::json!({"knobs": [{"name": "x", "location": {"PerCpu": ["/proc/sys/kernel/sched_autogroup_enabled"]}, "original": "1"}]}),
            "is not a CPU's cpufreq governor",
        ),
        (
            "999999994.json",
            serde_json::json!({"mount": fake_cgroup, "house": fake_cgroup.join("kbench-house-1")}),
            "refused",
        ),
    ];
    for (name, body, says) in &cases {
        let p = put(name, body.clone());
        let out = restore();
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {text} {err}");
        assert!(
            text.lines()
                .any(|l| l.starts_with("refused: ") && l.contains(says)),
            "{name}: {text}"
        );
        assert!(err.contains("1 restore record(s) refused"), "{name}: {err}");
        assert!(p.exists(), "{name}: a refused record stays");
        std::fs::remove_file(&p).unwrap();
    }
    assert!(!victim.exists(), "no file was created");
    assert_eq!(
        std::fs::read_dir(&fake_cgroup).unwrap().count(),
        0,
        "nothing moved into a folder"
    );
    // A record that others can write is refused whatever it says.
    let p = put(
        "knobs-999999995.json",
        serde_json::json!({"knobs": [{"name": "autogroup", "location": {"File": "/proc/sys/kernel/sched_autogroup_enabled"}, "original": "1"}]}),
    );
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = restore();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("can be written by others"), "{text}");
    assert_eq!(out.status.code(), Some(2));
}

/// `kill -9` of `kbench run` at moments spread over a scenario's start,
/// its tasks' run (a probe beside a load that writes files) and its end:
/// its own scratch folders, its tasks' files and claims and every process
/// go.  Before, 8 of 8 such kills left `kbench-run-*` and
/// `kbench-scenario-*`; later, about 1 kill in 11 near the end left a
/// scenario's or a load's folder.
#[test]
fn a_scenario_killed_at_any_moment_leaves_nothing() {
    let env = Env::new();
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let sc = env.dir.path().join("s.toml");
    std::fs::write(
        &sc,
        r#"name = "killed"
[[phase]]
name = "p"
[[phase.task]]
kind = "hackbench"
role = "probe"
args = { loops = 2000, groups = 1, fds = 2, runs = "2" }
[[phase.task]]
kind = "load"
role = "background"
args = { name = "io", size = "16M", duration = "30s" }
"#,
    )
    .unwrap();
    // Its own mark: the load kill test marks its processes by the same pid.
    let mark = format!("KBENCH_SCENARIO_KILL_MARK={}", std::process::id());
    let (k, v) = mark.split_once('=').unwrap();
    let start = || {
        env.cmd()
            .env("TMPDIR", &tmp)
            .env(k, v)
            .args(["run", sc.to_str().unwrap(), "-q"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    // One whole run, to place kills around its end too: a scenario's end
    // drops its folders and stops its load, and a kill there once left
    // both (the janitor ended before the folder went).
    let t = std::time::Instant::now();
    assert!(start().wait().unwrap().success());
    let whole = t.elapsed();
    let mut moments: Vec<std::time::Duration> = (0..8u64)
        .map(|i| std::time::Duration::from_millis(100 + i * 150))
        .collect();
    moments.extend((0..32u32).map(|i| whole * (140 + 3 * i) / 200));
    for at in moments {
        let kb = Killed(start());
        std::thread::sleep(at);
        drop(kb);
    }
    assert!(
        crate::common::wait_for(15, || empty_dir(&tmp) && marked(&mark).is_empty()),
        "left after kill -9 of kbench run: files {:?}, processes {:?}",
        walk(&tmp),
        marked(&mark)
    );
}

/// `kill -9` of `job`, `contest` and `responsiveness` at moments spread
/// over their set-up and measurement: their scratch folders go (their
/// janitor removes them) and no process of theirs runs on, the compilers
/// a build started included.  Before, 9 of 9 such kills left the folders
/// and `make`/`cc` ran on for 2-4 s.
#[test]
fn a_job_contest_or_responsiveness_killed_leaves_nothing() {
    let env = Env::new();
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mark = format!("KBENCH_JOB_KILL_MARK={}", std::process::id());
    let (k, v) = mark.split_once('=').unwrap();
    let commands: [&[&str]; 3] = [
        &[
            "job",
            "--job-size",
            "small",
            "--runs",
            "3",
            "--no-store",
            "-q",
        ],
        &[
            "contest",
            "--loads",
            "noload",
            "--job-size",
            "small",
            "--runs",
            "1",
            "--no-store",
            "-q",
        ],
        &["responsiveness", "-t", "20", "--no-store", "-q"],
    ];
    for args in commands {
        for i in 0..3u64 {
            let kb = Killed(
                env.cmd()
                    .env("TMPDIR", &tmp)
                    .env(k, v)
                    .args(args)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap(),
            );
            std::thread::sleep(std::time::Duration::from_millis(300 + i * 700));
            drop(kb);
        }
        assert!(
            crate::common::wait_for(15, || empty_dir(&tmp) && marked(&mark).is_empty()),
            "left after kill -9 of kbench {}: files {:?}, processes {:?}",
            args[0],
            walk(&tmp),
            marked(&mark)
        );
    }
}

/// `-o` through a link to a device (a user links `report.csv` in a folder
/// of theirs to a block device root may write): refused, exit 2, one
/// line, nothing written, the link left as it was.
#[test]
fn output_never_goes_through_a_link_to_a_device() {
    let env = Env::new();
    env.ok(&["--label", "a", "testbench"]);
    env.ok(&["--label", "b", "testbench", "--value", "2"]);
    let link = env.dir.path().join("report.csv");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    for args in [
        vec![
            "compare", "--label", "a", "--label", "b", "--format", "csv", "-o",
        ],
        vec!["--label", "a", "--label", "b", "track", "-o"],
    ] {
        let mut a = args.clone();
        let l = link.to_str().unwrap();
        a.push(l);
        let err = env.fails(&a, 2);
        assert!(err.contains("is a link to a device"), "{a:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    }
}

/// The variables a parent kbench passes its children are taken only from
/// a parent kbench: forged ones (knobs in the fingerprint, a root pid that
/// hides outside load from the health check) are ignored, and said.
#[test]
fn internal_variables_only_from_a_real_parent() {
    let env = Env::new();
    let out = env
        .cmd()
        .args(["--label", "f", "testbench"])
        .env("KBENCH_ROOT_PID", "1")
        .env(
            "KBENCH_EXPERIMENT",
            r#"{"kind":"matrix","id":"forged","knobs":{"forged.knob":"1"}}"#,
        )
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ignoring KBENCH_EXPERIMENT, KBENCH_ROOT_PID"),
        "{err}"
    );
    let runs = env.json(&["runs", "list"]);
    let id = runs["runs"][0]["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    assert!(show["settings"]["experiment"].is_null(), "{show}");
    assert!(!show.to_string().contains("forged"), "{show}");
}
