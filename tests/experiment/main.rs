//! `kbench matrix` and `kbench campaign`, end to end.  A test binary of its
//! own: a matrix changes machine-wide knobs (autogroup, THP), which would
//! disturb the other tests (the scenario autogroup test among them); cargo
//! runs test binaries one at a time.  The matrix tests share one lock, as
//! they change the same knobs.

#[path = "../common/mod.rs"]
mod common;

use common::{wait_for, Env};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

static KNOBS: Mutex<()> = Mutex::new(());

const AUTOGROUP: &str = "/proc/sys/kernel/sched_autogroup_enabled";
const THP: &str = "/sys/kernel/mm/transparent_hugepage/enabled";

fn read(p: &str) -> String {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn thp_mode() -> String {
    let t = read(THP);
    t.split('[')
        .nth(1)
        .and_then(|r| r.split(']').next())
        .unwrap_or("")
        .to_string()
}

/// Root, and both knobs present and writable here?
fn possible() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    root && Path::new(AUTOGROUP).exists()
        && Path::new(THP).exists()
        && std::fs::write(AUTOGROUP, read(AUTOGROUP)).is_ok()
}

/// If a test fails while a matrix runs, stop it (Ctrl-C restores the
/// knobs) rather than leave it changing the machine's knobs.
struct StopOnPanic(u32);

impl Drop for StopOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() && common::alive(self.0) {
            unsafe { libc::kill(self.0 as i32, libc::SIGINT) };
            wait_for(15, || !common::alive(self.0));
        }
    }
}

/// The knobs as they are now.
/// The start of a test that sets knobs: `None` (saying why) where they
/// cannot be set; else the knobs' lock, held for the test, and the knobs
/// as they were.
fn knob_test() -> Option<(MutexGuard<'static, ()>, (String, String))> {
    if !possible() {
        eprintln!("skipped: needs root and writable autogroup/THP knobs");
        return None;
    }
    let g = KNOBS.lock().unwrap_or_else(|e| e.into_inner());
    Some((g, knobs_now()))
}

fn knobs_now() -> (String, String) {
    (read(AUTOGROUP), thp_mode())
}

/// A small hackbench, a few hundredths of a second.
const SMALL: &[&str] = &["hackbench", "-g", "1", "-f", "2", "-l", "20"];

fn matrix_args<'a>(extra: &[&'a str], cmd: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["--label", "m", "matrix", "--knob", "autogroup=0,1"];
    a.extend_from_slice(extra);
    a.push("--");
    a.extend_from_slice(cmd);
    a
}

#[test]
fn matrix_interleaves_labels_and_restores() {
    let Some((_knobs, before)) = knob_test() else {
        return;
    };
    let env = Env::new();
    // Two knobs of two values each, then the rounds, seed and command.
    let matrix = |rest: &[&str]| {
        let mut a = vec![
            "--label",
            "m",
            "matrix",
            "--knob",
            "autogroup=0,1",
            "--knob",
            "thp=always,never",
        ];
        a.extend_from_slice(rest);
        a.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    // The order is reproducible from its seed, and only from it.
    let plan = |seed: &str| {
        let a = matrix(&[
            "--rounds",
            "4",
            "--seed",
            seed,
            "--dry-run",
            "--",
            "hackbench",
        ]);
        env.ok(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    assert_eq!(plan("7"), plan("7"));
    assert_ne!(plan("7"), plan("8"));
    assert_eq!(knobs_now(), before, "a dry run changes nothing");

    // Restore records sit beside the default store (here in `data`),
    // whatever store the runs go to; none is left, nor its folder.
    let data = env.dir.path().join("data");
    let out = env
        .cmd()
        .env("XDG_DATA_HOME", &data)
        .arg("--json")
        .args(matrix(&[
            "--rounds",
            "2",
            "--seed",
            "11",
            "-q",
            "--",
            "hackbench",
            "-g",
            "1",
            "-f",
            "2",
            "-l",
            "20",
        ]))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(knobs_now(), before, "originals back after success");
    assert!(
        !data.join("kbench/restore").exists(),
        "the restore record and its folder went"
    );
    let order: Vec<String> = v["experiment"]["order"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| {
            b.as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(order.len(), 8);
    for block in v["experiment"]["order"].as_array().unwrap() {
        let mut b: Vec<&str> = block
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        b.sort_unstable();
        assert_eq!(
            b,
            vec![
                "m/autogroup=0/thp=always",
                "m/autogroup=0/thp=never",
                "m/autogroup=1/thp=always",
                "m/autogroup=1/thp=never"
            ],
            "every round visits every combination once"
        );
    }
    // The runs were made in the planned order, each with its knobs read back.
    let runs = env.json(&["runs", "list"]);
    let runs = runs["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 8);
    let mut made: Vec<(f64, String, i64)> = runs
        .iter()
        .map(|r| {
            (
                r["started"].as_f64().unwrap(),
                r["label"].as_str().unwrap().to_string(),
                r["id"].as_i64().unwrap(),
            )
        })
        .collect();
    made.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(made.iter().map(|m| m.1.clone()).collect::<Vec<_>>(), order);
    for (_, label, id) in &made {
        let show = env.json(&["runs", "show", &id.to_string()]);
        let fp = &show["fingerprint"];
        let ag = label
            .split("autogroup=")
            .nth(1)
            .unwrap()
            .split('/')
            .next()
            .unwrap();
        let thp = label.split("thp=").nth(1).unwrap();
        assert_eq!(fp["knobs"]["autogroup"], ag, "{show}");
        assert_eq!(fp["knobs"]["thp"], thp, "{show}");
        assert_eq!(fp["sched_knobs"]["sched_autogroup_enabled"], ag);
        assert_eq!(fp["thp_enabled"], thp);
        assert_eq!(show["settings"]["experiment"]["seed"], 11);
        assert_eq!(show["settings"]["experiment"]["kind"], "matrix");
    }
    // The comparison across settings came out of compare's machinery.
    let groups = v["comparison"]["groups"].as_array().unwrap();
    assert!(!groups.is_empty());
    assert_eq!(v["comparison"]["baseline"], "m/autogroup=0/thp=always");
}

#[test]
fn matrix_restores_after_failure_interrupt_and_kill() {
    let Some((_knobs, before)) = knob_test() else {
        return;
    };
    let env = Env::new();
    let data = env.dir.path().join("data");

    // A knob the kernel will not write is refused before anything runs.
    let err = env.fails(&matrix_args(&["--knob", "kernel.osrelease=a,b"], SMALL), 1);
    assert!(
        err.contains("kernel.osrelease") && err.contains("refused"),
        "{err}"
    );
    let err = env.fails(&matrix_args(&["--knob", "/etc/passwd=a,b"], SMALL), 2);
    assert!(err.contains("/proc/sys and /sys"), "{err}");
    // On a kernel whose lockdown closes debugfs, the preempt knob says so.
    if std::fs::read_to_string("/sys/kernel/debug/sched/preempt")
        .is_err_and(|e| e.kind() == std::io::ErrorKind::PermissionDenied)
    {
        let err = env.fails(&matrix_args(&["--knob", "preempt=none,full"], SMALL), 1);
        assert!(err.contains("lockdown"), "{err}");
    }
    assert_eq!(knobs_now(), before);
    assert!(
        !env.db().exists()
            || env.json(&["runs", "list"])["runs"]
                .as_array()
                .unwrap()
                .is_empty()
    );

    // The command fails in the second combination: originals back, exit 1.
    let out = env
        .cmd()
        .args(matrix_args(&["--rounds", "1", "-q"], SMALL))
        .env("KBENCH_INJECT_FAILURE", "1")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed"));
    assert_eq!(knobs_now(), before, "originals back after a failure");

    let long = ["hackbench", "-g", "1", "-f", "2", "-l", "2000000"];
    let started = |kb: &std::process::Child| {
        let pid = kb.id();
        wait_for(20, || {
            common::children(pid).iter().any(|c| {
                std::fs::read_to_string(format!("/proc/{c}/cmdline"))
                    .unwrap_or_default()
                    .contains("hackbench")
            })
        })
    };
    // Ctrl-C: the run is stopped and the originals come back.
    let kb = env.spawn(&matrix_args(&[], &long));
    let _stop = StopOnPanic(kb.id());
    assert!(started(&kb));
    common::interrupt(kb);
    assert_eq!(knobs_now(), before, "originals back after Ctrl-C");

    // kill -9: the janitor restores.
    let mut kb = env
        .cmd()
        .args(matrix_args(&[], &long))
        .env("XDG_DATA_HOME", &data)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _stop = StopOnPanic(kb.id());
    assert!(started(&kb));
    unsafe { libc::kill(kb.id() as i32, libc::SIGKILL) };
    kb.wait().unwrap();
    assert!(
        wait_for(20, || knobs_now() == before),
        "the janitor restores after kill -9: {:?} vs {before:?}",
        knobs_now()
    );
    assert!(wait_for(10, || std::fs::read_dir(
        data.join("kbench/restore")
    )
    .map_or(true, |mut d| d.next().is_none())));

    // A crash (kbench and its janitor gone): `kbench restore` repairs it.
    // THP's two other modes, so the first combination surely changes it.
    let others: Vec<&str> = ["always", "madvise", "never"]
        .into_iter()
        .filter(|m| *m != before.1)
        .collect();
    let thp = format!("thp={}", others.join(","));
    let mut args = vec!["matrix", "--knob", &thp, "--"];
    args.extend_from_slice(&long);
    let mut kb = env
        .cmd()
        .args(&args)
        .env("XDG_DATA_HOME", &data)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _stop2 = StopOnPanic(kb.id());
    assert!(started(&kb));
    // The janitor is `kbench restore --after PID` (named kbench-restore
    // once it runs; its command line says so from its exec on).
    let janitor_of = |pid: u32| {
        common::children(pid).into_iter().find(|c| {
            std::fs::read_to_string(format!("/proc/{c}/cmdline"))
                .is_ok_and(|a| a.contains("restore\0--after\0"))
        })
    };
    assert!(
        wait_for(20, || janitor_of(kb.id()).is_some()),
        "a janitor beside the matrix"
    );
    let janitor = janitor_of(kb.id()).unwrap();
    // Killed only once it waits (its name is set just before it does).
    assert!(wait_for(20, || {
        std::fs::read_to_string(format!("/proc/{janitor}/comm"))
            .is_ok_and(|n| n.trim() == "kbench-restore")
    }));
    unsafe { libc::kill(janitor as i32, libc::SIGKILL) };
    unsafe { libc::kill(kb.id() as i32, libc::SIGKILL) };
    kb.wait().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_ne!(
        thp_mode(),
        before.1,
        "the crash left the first value in effect"
    );
    assert!(data
        .join(format!("kbench/restore/knobs-{}.json", kb.id()))
        .exists());
    let out = env
        .cmd()
        .arg("restore")
        .env("XDG_DATA_HOME", &data)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("restored: thp="),
        "{said}"
    );
    assert_eq!(knobs_now(), before, "kbench restore repaired the crash");
}

/// Run `campaign step` as the system `release` in a fresh boot.
fn step(env: &Env, name: &str, release: &str, boot: &str) -> std::process::Output {
    let id = format!(r#"{{"release":"{release}","cmdline":"ro quiet","boot_id":"{boot}"}}"#);
    env.cmd()
        .args(["campaign", "step", name])
        .env("KBENCH_TEST_IDENTITY", id)
        .output()
        .unwrap()
}

fn status(env: &Env, name: &str) -> serde_json::Value {
    env.json(&["campaign", "status", name])["campaigns"][0].clone()
}

#[test]
fn campaign_runs_its_plan_across_simulated_reboots() {
    let env = Env::new();
    let log = env.dir.path().join("reboots.log");
    let units = env.dir.path().join("units");
    std::fs::create_dir(&units).unwrap();
    let reboot = format!("echo {{label}} >> {}", log.display());
    env.ok(&[
        "campaign",
        "init",
        "ab",
        "--boot",
        "A=release=test-a",
        "--boot",
        "B=release=test-b,cmdline=quiet",
        "--rounds",
        "3",
        "--reboot",
        &reboot,
        "--",
        "hackbench",
        "-g",
        "1",
        "-f",
        "2",
        "-l",
        "50000",
        "--runs",
        "6",
    ]);
    let err = env.fails(
        &[
            "campaign",
            "init",
            "ab",
            "--boot",
            "A=release=x",
            "--boot",
            "B=release=y",
            "--reboot",
            "true",
            "--",
            "hackbench",
        ],
        2,
    );
    assert!(err.contains("already exists"), "{err}");
    env.ok(&[
        "campaign",
        "install-service",
        "ab",
        "--unit-dir",
        units.to_str().unwrap(),
    ]);
    let unit = units.join("kbench-campaign-ab.service");
    let text = std::fs::read_to_string(&unit).unwrap();
    assert!(
        text.contains("campaign step ab") && text.contains("--db"),
        "{text}"
    );

    let plan = status(&env, "ab");
    let order: Vec<usize> = plan["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(order, vec![0, 1, 1, 0, 0, 1], "A B B A A B");
    let labels = ["A", "B"];

    // Block 1 on the right boot.
    let out = step(&env, "ab", "test-a", "boot-1");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The same boot again: refused, a block needs its own boot.
    let out = step(&env, "ab", "test-b", "boot-1");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("boot of its own"));
    // A boot into the wrong kernel pauses, stores nothing.
    let runs_before = env.json(&["runs", "list"])["runs"]
        .as_array()
        .unwrap()
        .len();
    let out = step(&env, "ab", "test-c", "boot-2");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("paused"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(status(&env, "ab")["paused"]
        .as_str()
        .unwrap()
        .contains("test-c"));
    assert_eq!(
        env.json(&["runs", "list"])["runs"]
            .as_array()
            .unwrap()
            .len(),
        runs_before
    );

    // Block 2 killed midway (power cut): the next boot runs it again.
    let id = r#"{"release":"test-b","cmdline":"ro quiet","boot_id":"boot-3"}"#;
    let mut kb = env
        .cmd()
        .args(["campaign", "step", "ab"])
        .env("KBENCH_TEST_IDENTITY", id)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_for(30, || {
        env.json(&["runs", "list", "--label", "B"])["runs"]
            .as_array()
            .is_some_and(|r| !r.is_empty())
    }));
    unsafe { libc::kill(kb.id() as i32, libc::SIGKILL) };
    kb.wait().unwrap();
    assert_eq!(status(&env, "ab")["history"][1]["status"], "running");

    let mut boot = 4;
    while status(&env, "ab")["next"].as_u64().unwrap() < 6 {
        let next = order[status(&env, "ab")["next"].as_u64().unwrap() as usize];
        let out = step(
            &env,
            "ab",
            &format!("test-{}", labels[next].to_lowercase()),
            &format!("boot-{boot}"),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        boot += 1;
    }
    let s = status(&env, "ab");
    assert!(s["paused"].is_null());
    assert!(!unit.exists(), "the last step removes the unit");
    let rebooted: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(
        rebooted,
        vec!["B", "B", "A", "A", "B"],
        "each block boots the next"
    );
    // Every block has its own boot; the cut block's partial runs are gone.
    let runs = env.json(&["runs", "list"])["runs"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(runs.len(), 36, "6 blocks x 6 runs");
    let c = env.json(&[
        "compare", "--label", "A", "--label", "B", "--metric", "time",
    ]);
    let m = &c["groups"][0]["metrics"][0];
    for l in m["labels"].as_array().unwrap() {
        assert_eq!(l["summary"]["n"], 3, "boots are the unit: {l}");
        assert_eq!(l["boots"]["runs"], 18);
    }
    assert!(c["warnings"].to_string().contains("the boot is the unit"));
    let out = step(&env, "ab", "test-a", "boot-99");
    assert!(String::from_utf8_lossy(&out.stdout).contains("complete"));
}

#[test]
fn bad_experiments_are_one_line_and_exit_2() {
    let env = Env::new();
    let init = "campaign init c --boot a=release=1";
    let lines = [
        "matrix -- hackbench".to_string(),
        "matrix --knob autogroup=0 -- hackbench".into(),
        "matrix --knob nonsense=1,2 -- hackbench".into(),
        "matrix --knob autogroup=0,1 --rounds 0 -- hackbench".into(),
        "matrix --knob autogroup=0,1 --rounds auto -- run quick".into(),
        "matrix --knob autogroup=0,1 -- hackbench --label x".into(),
        "matrix --knob autogroup=0,1 -- compare".into(),
        "matrix --knob autogroup=0,1 -- hackbench -g 0".into(),
        "matrix --knob autogroup=0,1 --knob kernel.sched_autogroup_enabled=0,1 -- hackbench".into(),
        "matrix --knob autogroup=0,1".into(),
        format!("{init} -- hackbench"),
        format!("{init} --boot b=release=2"),
        format!("{init} --boot a=release=2 -- hackbench"),
        format!("{init} --boot b=colour=2 -- hackbench"),
        format!("{init} --boot b=release=2 -- hackbench"),
        format!("{init} --boot b=release=2 --rounds 0 -- hackbench"),
        "campaign step nosuch".into(),
        "campaign status nosuch".into(),
        "campaign step ../../etc".into(),
    ];
    let mut cases: Vec<Vec<&str>> = lines.iter().map(|l| l.split(' ').collect()).collect();
    cases.push(vec![
        "campaign",
        "init",
        "bad name",
        "--boot",
        "a=release=1",
        "--boot",
        "b=release=2",
        "--",
        "hackbench",
    ]);
    for args in &cases {
        let err = env.fails(args, 2);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

/// The medians of a curve's points for one label, by point.
fn curve_medians(curve: &serde_json::Value, label_end: &str) -> Vec<(String, f64)> {
    curve["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let l = p["labels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["label"].as_str().unwrap().ends_with(label_end))
                .unwrap_or_else(|| panic!("no label {label_end} in {p}"));
            (
                p["x"].as_str().unwrap().to_string(),
                l["summary"]["median"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_sweep_interleaves_its_points_and_reads_as_a_curve() {
    let env = Env::new();
    let cmd = ["hackbench", "-P", "-f", "2", "-l", "300"];
    let sweep = |extra: &[&str]| {
        let mut a = vec![
            "--label",
            "s",
            "matrix",
            "--vary",
            "groups=1,2,4",
            "--rounds",
            "3",
            "--seed",
            "5",
        ];
        a.extend_from_slice(extra);
        a.push("--");
        a.extend_from_slice(&cmd);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let plan = env.ok(&sweep(&["--dry-run"])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    let order: Vec<String> = plan
        .lines()
        .filter_map(|l| l.split_once(": "))
        .filter(|(r, _)| r.starts_with("round "))
        .flat_map(|(_, rest)| {
            rest.split(", ")
                .map(|c| c.rsplit('=').next().unwrap().to_string())
        })
        .collect();
    assert_eq!(order.len(), 9, "{plan}");
    let doc: serde_json::Value = serde_json::from_str(
        &env.ok(&[
            &["--json"][..],
            &sweep(&["-q"])
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        ]
        .concat()),
    )
    .unwrap();
    // Nine runs, in the planned order, each with its point in its
    // parameters (not in its label).
    let list = env.json(&["runs", "list"]);
    let runs = list["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 9, "{list}");
    let mut stored: Vec<(i64, String)> = runs
        .iter()
        .map(|r| {
            let id = r["id"].as_i64().unwrap();
            let show = env.json(&["runs", "show", &id.to_string()]);
            assert_eq!(show["label"], "s");
            (id, show["params"]["groups"].to_string())
        })
        .collect();
    stored.sort();
    let ran: Vec<String> = stored.into_iter().map(|x| x.1).collect();
    assert_eq!(ran, order, "the runs follow the seeded plan");
    let curve = &doc["curves"][0];
    assert_eq!(curve["key"], "groups", "{doc}");
    let m = curve_medians(curve, "s");
    assert_eq!(
        m.iter().map(|p| p.0.as_str()).collect::<Vec<_>>(),
        ["1", "2", "4"]
    );
    assert!(m[2].1 > m[0].1, "four groups take longer than one: {m:?}");
    // The same table from the stored runs.
    // (A long title wraps, continued with two spaces.)
    let text = env
        .ok(&["compare", "--curve", "groups"])
        .replace("\n  ", " ");
    assert!(
        text.starts_with("hackbench time by groups (s, lower is better)"),
        "{text}"
    );
    assert_eq!(
        text.lines().nth(1).map(|l| l.split_whitespace().next()),
        Some(Some("groups"))
    );
    let rows: Vec<&str> = text.lines().skip(2).take_while(|l| !l.is_empty()).collect();
    assert_eq!(rows.len(), 3, "{text}");
    // A bad sweep is refused at once, in one line.
    for (vary, why) in [
        ("groups=4..1", "runs backwards"),
        ("groups=1..8:x1", "must be 2 or more"),
        ("grups=1,2", "--vary grups=1"),
        ("groups=1", "at least two points"),
    ] {
        let e = env.fails(&["matrix", "--vary", vary, "--", "hackbench"], 2);
        assert!(e.contains(why), "{vary}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{vary}: {e}");
    }
    // Three 64-point sweeps (262,144 combinations) are refused by their
    // count, before one is built or checked.
    let e = env.fails(
        &[
            "matrix",
            "--vary",
            "groups=1..64",
            "--vary",
            "fds=1..64",
            "--vary",
            "loops=1..64",
            "--",
            "hackbench",
        ],
        2,
    );
    assert!(e.contains("262144 combinations: at most 64"), "{e}");
    let e = env.fails(&["compare", "--curve", "fds"], 2);
    assert!(e.contains("no runs differ only in fds"), "{e}");
    // The HTML curve in a real browser.
    if common::have_chromium() {
        let html = env.ok(&["compare", "--curve", "groups", "--format", "html"]);
        let probe_html = html.replace(
            "</body>",
            "<script>window.addEventListener('load',()=>{const c=document.querySelector('svg.curve');\
const d=document.createElement('pre');d.id='kbench-curve';d.textContent=c?c.querySelectorAll('circle').length:0;\
document.body.appendChild(d);});</script></body>",
        );
        let (probe, console) = common::in_chromium(env.dir.path(), "curve.html", &probe_html);
        assert_eq!(probe["empty"], 0, "{probe}");
        assert!(probe["svgs"].as_u64().unwrap_or(0) >= 1, "{probe}");
        assert!(console.is_empty(), "{console:?}");
        assert!(html.contains("<svg class=\"curve\""), "a curve is drawn");
    }
}

#[test]
fn a_sweep_beside_a_knob_has_a_verdict_per_point_in_one_family() {
    let Some((_knobs, before)) = knob_test() else {
        return;
    };
    let env = Env::new();
    let out = env.ok(&[
        "--json",
        "--label",
        "k",
        "-q",
        "matrix",
        "--knob",
        "autogroup=0,1",
        "--vary",
        "groups=1,2",
        "--rounds",
        "3",
        "--metric",
        "time",
        "--",
        "hackbench",
        "-P",
        "-f",
        "2",
        "-l",
        "200",
    ]);
    assert_eq!(knobs_now(), before);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let curve = &doc["curves"][0];
    let points = curve["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{curve}");
    let mut family = 0;
    for p in points {
        let other = p["labels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["label"] == "k/autogroup=1")
            .unwrap_or_else(|| panic!("{p}"));
        let v = &other["versus"];
        assert!(v["verdict"].is_string(), "{v}");
        let (p, adj) = (
            v["p_value"].as_f64().unwrap(),
            v["p_adjusted"].as_f64().unwrap(),
        );
        assert!(adj >= p, "adjusted over the curve: {v}");
        family += 1;
    }
    // One metric, two points: the family is the curve.
    assert_eq!(family, 2);
    let text = env.ok(&[
        "compare",
        "--curve",
        "groups",
        "--metric",
        "time",
        "--baseline",
        "k/autogroup=0",
    ]);
    assert!(
        text.lines()
            .any(|l| l.starts_with("autogroup=1 against autogroup=0: ")),
        "{text}"
    );
}

/// The autogroup experiment as a user runs it: a schbench probe beside
/// eight CPU hogs in a session of their own, autogroup off and on, three
/// interleaved rounds.  Its closing report and `compare` of its labels fit
/// 120 columns and state each group's parameters once, in the benchmark's
/// own spelling; the hogs' work is compared beside the probe's figures;
/// every background run stopped as planned is complete; and the HTML
/// report, in headless Chromium, shows the scoreboard within the window
/// with no cell's text wrapped.
#[test]
fn the_autogroup_experiment_reads_at_a_glance() {
    let Some((_knobs, before)) = knob_test() else {
        return;
    };
    let env = Env::new();
    let f = common::hogs_beside_schbench(env.dir.path(), "autogroup", 8, false);
    let f = f.as_str();
    let closing = env.ok(&[
        "--label",
        "ag",
        "matrix",
        "--knob",
        "autogroup=0,1",
        "--rounds",
        "3",
        "--",
        "run",
        f,
    ]);
    assert_eq!(knobs_now(), before);
    let compare = env.ok(&["compare"]);
    for report in [&closing, &compare] {
        let wide: Vec<&str> = report.lines().filter(|l| l.chars().count() > 120).collect();
        assert!(wide.is_empty(), "past 120 columns: {wide:#?}\n{report}");
        // Each group's parameters once, as its command line, defaults
        // left out; rows carry just the metric.
        let probe = "schbench -t 1 -r 2 · scenario task probe";
        let hogs = "load cpu --procs 8";
        assert_eq!(report.matches(probe).count(), 1, "{report}");
        assert!(report.contains(hogs), "{report}");
        assert!(
            !report.contains("footprint_kb") && !report.contains("message_threads"),
            "{report}"
        );
        assert!(
            report
                .lines()
                .any(|l| l.trim_start().starts_with("wakeup_p99_us ")),
            "{report}"
        );
        // The hogs' work is a metric of the comparison.
        let board: String = report
            .lines()
            .skip_while(|l| !l.starts_with(hogs))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            board.contains("  work "),
            "the hogs' work on the scoreboard: {report}"
        );
    }
    // The hogs stopped as planned when the probe ended: complete, their
    // work counted.
    let runs = env.json(&["runs", "list"]);
    let loads: Vec<&serde_json::Value> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["benchmark"] == "load")
        .collect();
    assert!(loads.len() >= 6, "{runs}");
    assert!(loads.iter().all(|r| r["status"] == "complete"), "{runs}");
    // The HTML report as a person sees it.
    let html = env.ok(&["compare", "--format", "html"]);
    if common::have_chromium() {
        let (probe, console) = common::in_chromium(env.dir.path(), "autogroup.html", &html);
        assert!(probe["scoreboard"].as_u64().unwrap_or(0) >= 10, "{probe}");
        assert_eq!(
            probe["wrapped"],
            serde_json::json!([]),
            "no cell wraps: {probe}"
        );
        assert!(
            probe["scoreboard_right"].as_f64() <= probe["view_width"].as_f64(),
            "the scoreboard fits the window: {probe}"
        );
        assert!(
            probe["page_width"].as_f64() <= probe["view_width"].as_f64(),
            "nothing on the page is wider than the window: {probe}"
        );
        assert!(console.is_empty(), "{console:?}");
    }
}

/// A campaign of two boots and one round whose command takes a few
/// seconds, planned in `env`.
fn slow_campaign(env: &Env, name: &str) {
    env.campaign(
        name,
        &[],
        "true",
        &["testbench", "--seconds", "2", "--runs", "2"],
    );
}

/// Two steps at once (the unit's and one typed by hand): the second is
/// refused while the first runs its block, and every block runs once.
#[test]
fn two_steps_at_once_never_skip_a_block() {
    let env = Env::new();
    slow_campaign(&env, "two");
    let id = r#"{"release":"test-a","cmdline":"ro","boot_id":"boot-1"}"#;
    let first = env
        .cmd()
        .args(["campaign", "step", "two"])
        .env("KBENCH_TEST_IDENTITY", id)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for(30, || status(&env, "two")["history"]
        .as_array()
        .is_some_and(|h| !h.is_empty())));
    let second = env
        .cmd()
        .args(["campaign", "step", "two"])
        .env("KBENCH_TEST_IDENTITY", id)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(err.contains("being driven by another kbench"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // --wait waits for the first, then finds its block done on this boot.
    let waited = env
        .cmd()
        .args(["campaign", "step", "two", "--wait"])
        .env("KBENCH_TEST_IDENTITY", id)
        .output()
        .unwrap();
    let out = first.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let werr = String::from_utf8_lossy(&waited.stderr);
    assert!(werr.contains("waiting for it"), "{werr}");
    // Then it finds this boot is A's, with B's block next: nothing runs.
    assert!(werr.contains("expects boot 'B'"), "{werr}");
    let s = status(&env, "two");
    assert_eq!(s["next"], 1, "{s}");
    assert_eq!(s["history"].as_array().unwrap().len(), 1, "{s}");
    assert_eq!(s["history"][0]["status"], "done");
    // The next boot runs B, and the campaign is complete with both.
    let out = step(&env, "two", "test-b", "boot-2");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let labels: Vec<String> = status(&env, "two")["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(labels, ["A", "B"]);
}

/// A boot that does not come up: after the reboot into B the machine
/// comes back on A (a panic, no root, the firmware's default).  Each such
/// boot is counted lost; while `--retries` lasts the step boots B again
/// and runs nothing, and past it the campaign stops with why instead of
/// rebooting for ever.  B coming up at last runs its block.
#[test]
fn a_lost_boot_is_counted_retried_and_bounded() {
    let env = Env::new();
    let log = env.dir.path().join("reboots.log");
    let reboot = format!("echo {{label}} >> {}", log.display());
    env.campaign(
        "l",
        &["--retries", "1"],
        &reboot,
        &["testbench", "--value", "1", "--seconds", "0.1"],
    );
    let reboots = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let out = step(&env, "l", "test-a", "boot-1");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(reboots(), 1);
    // Back on A: lost once, booted again, nothing run.
    let out = step(&env, "l", "test-a", "boot-2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("boot 'B' was lost") && err.contains("retry 1 of 1"),
        "{err}"
    );
    assert_eq!(reboots(), 2);
    let s = status(&env, "l");
    assert_eq!(s["next"], 1);
    assert_eq!(s["lost"].as_array().unwrap().len(), 1, "{s}");
    assert_eq!(s["lost"][0]["boot_id"], "boot-2");
    assert_eq!(s["history"].as_array().unwrap().len(), 1, "{s}");
    // Lost again: past the bound, the campaign stops and says why.
    let out = step(&env, "l", "test-a", "boot-3");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("was lost 2 times in a row"), "{err}");
    assert_eq!(reboots(), 2, "no reboot past the bound");
    let s = status(&env, "l");
    assert!(
        s["paused"].as_str().unwrap().contains("lost 2 times"),
        "{s}"
    );
    assert_eq!(s["lost"].as_array().unwrap().len(), 2, "{s}");
    let text = env.ok(&["campaign", "status", "l"]);
    assert!(text.contains("2 boots lost"), "{text}");
    // The same boot again is a plain wrong boot: paused, nothing counted.
    let out = step(&env, "l", "test-a", "boot-3");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(status(&env, "l")["lost"].as_array().unwrap().len(), 2);
    // B at last: its block runs, and the campaign is complete.
    let out = step(&env, "l", "test-b", "boot-4");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = status(&env, "l");
    assert_eq!(s["next"], 2, "{s}");
    assert!(s["paused"].is_null(), "{s}");
}

/// `campaign init --aa`: the first boot again as `A/aa` in every round;
/// the last step prints A against its twin as the boot-to-boot noise
/// floor.
#[test]
fn campaign_aa_boots_the_first_again_and_prints_its_noise_floor() {
    let env = Env::new();
    env.campaign(
        "aa",
        &["--aa", "--rounds", "2"],
        "true",
        &["testbench", "--runs", "3"],
    );
    let s = status(&env, "aa");
    let labels: Vec<&str> = s["boots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["A", "A/aa", "B"]);
    let releases = ["test-a", "test-a", "test-b"];
    let mut last = String::new();
    for n in 0..6 {
        let next = s["order"][n].as_u64().unwrap() as usize;
        let out = step(&env, "aa", releases[next], &format!("boot-{n}"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        last = String::from_utf8_lossy(&out.stdout).into_owned();
    }
    assert!(last.contains("complete: 6 blocks"), "{last}");
    assert!(
        last.contains("A/A calibration: boot 'A' against itself (A/aa)"),
        "{last}"
    );
    assert!(last.contains("the kernel against itself"), "{last}");
}

/// `campaign abort`: the unit removed, the plan abandoned, its runs kept;
/// a later step runs nothing.  A plan that names another file as its
/// unit never has it removed, and a plan whose order names a boot it has
/// not is refused, not a panic.
#[test]
fn abort_keeps_the_runs_and_removes_only_its_own_unit() {
    let env = Env::new();
    slow_campaign(&env, "ab");
    let units = env.dir.path().join("units");
    std::fs::create_dir(&units).unwrap();
    // A link planted at the unit's name is replaced, not written through.
    let victim = env.dir.path().join("victim");
    std::fs::write(&victim, "keep me\n").unwrap();
    std::os::unix::fs::symlink(&victim, units.join("kbench-campaign-ab.service")).unwrap();
    let old = unsafe { libc::umask(0) };
    let out = env
        .cmd()
        .args([
            "campaign",
            "install-service",
            "ab",
            "--unit-dir",
            units.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    unsafe { libc::umask(old) };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    let unit = units.join("kbench-campaign-ab.service");
    let meta = std::fs::symlink_metadata(&unit).unwrap();
    assert!(meta.is_file());
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o644,
        "whatever the umask"
    );
    let out = step(&env, "ab", "test-a", "boot-1");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = env.ok(&["campaign", "abort", "ab"]);
    assert!(said.contains("abandoned after 1 of 2 blocks"), "{said}");
    assert!(!unit.exists(), "abort removes the unit");
    assert!(status(&env, "ab")["abandoned"].is_number());
    let runs = env.json(&["runs", "list", "--label", "A"])["runs"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(runs, 2, "its runs are kept");
    let out = step(&env, "ab", "test-b", "boot-2");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("abandoned"));
    assert_eq!(
        env.json(&["runs", "list", "--label", "B"])["runs"]
            .as_array()
            .map_or(0, |r| r.len()),
        0
    );

    // A plan in the store that names a file of someone else as its unit,
    // or a boot it does not have.
    slow_campaign(&env, "cd");
    let db = rusqlite::Connection::open(env.db()).unwrap();
    let body: String = db
        .query_row("SELECT body FROM documents WHERE name = 'cd'", [], |r| {
            r.get(0)
        })
        .unwrap();
    let mut plan: serde_json::Value = serde_json::from_str(&body).unwrap();
    plan["service"] = serde_json::json!(victim);
    plan["next"] = serde_json::json!(2);
    db.execute(
        "UPDATE documents SET body = ?1 WHERE name = 'cd'",
        [plan.to_string()],
    )
    .unwrap();
    let out = step(&env, "cd", "test-a", "boot-3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("left alone"));
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "keep me\n",
        "never removed"
    );
    plan["order"] = serde_json::json!([0, 99]);
    plan["next"] = serde_json::json!(1);
    db.execute(
        "UPDATE documents SET body = ?1 WHERE name = 'cd'",
        [plan.to_string()],
    )
    .unwrap();
    for args in [
        &["campaign", "step", "cd"][..],
        &["campaign", "status", "cd"][..],
    ] {
        let err = env.fails(args, 2);
        assert!(err.contains("names boot 99"), "{err}");
    }
    let out = env.cmd().args(["campaign", "status"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// kexec reuses the running command line: boots that differ only by
/// cmdline= are refused for it.  With HOME unset the unit names an
/// absolute store.
#[test]
fn kexec_plans_are_honest_and_units_name_absolute_stores() {
    let env = Env::new();
    let err = env.fails(
        &[
            "campaign",
            "init",
            "k",
            "--boot",
            "a=release=6.1.0-1-amd64,cmdline=preempt=full,entry=/boot/vmlinuz-6.1.0-1-amd64",
            "--boot",
            "b=release=6.1.0-1-amd64,cmdline=preempt=none,entry=/boot/vmlinuz-6.1.0-1-amd64",
            "--reboot",
            "kexec",
            "--",
            "testbench",
        ],
        2,
    );
    assert!(err.contains("differ by cmdline="), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // The same two boots by release only are fine.
    env.ok(&[
        "campaign",
        "init",
        "k2",
        "--boot",
        "a=release=6.1.0-1-amd64,entry=/boot/vmlinuz-6.1.0-1-amd64",
        "--boot",
        "b=release=6.1.0-1-rt-amd64,entry=/boot/vmlinuz-6.1.0-1-rt-amd64",
        "--reboot",
        "kexec",
        "--",
        "testbench",
    ]);
    // No HOME, no KBENCH_DB: the default store, named absolutely.
    let units = env.dir.path().join("units");
    std::fs::create_dir(&units).unwrap();
    let home = tempfile::tempdir().unwrap();
    let xdg = home.path().join("data");
    let run = |args: &[&str]| {
        env.cmd()
            .env_remove("KBENCH_DB")
            .env_remove("HOME")
            .env("XDG_DATA_HOME", &xdg)
            .current_dir(home.path())
            .args(args)
            .output()
            .unwrap()
    };
    let o = run(&[
        "campaign",
        "init",
        "h",
        "--boot",
        "a=release=x",
        "--boot",
        "b=release=y",
        "--reboot",
        "true",
        "--",
        "testbench",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&[
        "campaign",
        "install-service",
        "h",
        "--unit-dir",
        units.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(units.join("kbench-campaign-h.service")).unwrap();
    let db = text
        .split_whitespace()
        .skip_while(|w| *w != "--db")
        .nth(1)
        .unwrap()
        .to_string();
    assert!(db.starts_with('/'), "{text}");
    assert!(db.ends_with("kbench/results.db"), "{text}");
}

/// A campaign plan in a store another user owns, or in a folder others
/// can write, is a command anyone could have planted: root's step runs
/// nothing from it (the reboot command would have run as root).
#[test]
fn a_plan_in_a_store_others_can_write_runs_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let marker = env.dir.path().join("ran");
    env.campaign(
        "p",
        &[],
        &format!("touch {}", marker.display()),
        &["testbench"],
    );
    let db = env.db();
    let chown = |uid: u32| {
        std::os::unix::fs::chown(&db, Some(uid), None).unwrap();
    };
    if unsafe { libc::geteuid() } == 0 {
        chown(65534);
        let out = step(&env, "p", "test-a", "boot-1");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("runs no command from this store"), "{err}");
        assert!(err.contains("belongs to user 65534"), "{err}");
        assert!(!marker.exists(), "the planted command ran");
        chown(0);
    }
    // A folder others can write, as a store's folder.
    let folder = env.dir.path();
    let old = std::fs::metadata(folder).unwrap().permissions().mode();
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = step(&env, "p", "test-a", "boot-1");
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(old)).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("can be written by others"), "{err}");
    assert!(!marker.exists());
    // Trusted again: the block runs and the reboot command with it.
    let out = step(&env, "p", "test-a", "boot-1");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(marker.exists());
}

/// Puts THP back as it was, whatever the test does.
struct ThpBack(String);

impl Drop for ThpBack {
    fn drop(&mut self) {
        let _ = std::fs::write(THP, &self.0);
    }
}

/// The same machine each boot: a block of B run after THP changed
/// differs from B's first block; with `--strict` the campaign pauses on
/// it, naming the field, and `status` counts the block; the block's runs
/// are kept and the next step goes on.
#[test]
fn a_block_on_a_changed_system_is_flagged_and_strict_pauses() {
    let Some((_knobs, _)) = knob_test() else {
        return;
    };
    let env = Env::new();
    let before = thp_mode();
    let _back = ThpBack(before.clone());
    env.campaign(
        "s",
        &["--strict", "--rounds", "2"],
        "true",
        &["testbench", "--runs", "2"],
    );
    for (release, boot) in [("test-a", "a1"), ("test-b", "b1")] {
        let o = step(&env, "s", release, boot);
        assert!(o.status.success(), "{o:?}");
    }
    let other = if before == "never" { "always" } else { "never" };
    std::fs::write(THP, other).unwrap();
    let o = step(&env, "s", "test-b", "b2");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("paused (--strict): block 3")
            && err.contains(&format!("THP: {before} → {other}")),
        "{err}"
    );
    let text = env.ok(&["campaign", "status", "s"]);
    assert!(text.contains("1 block on a changed system"), "{text}");
    assert!(
        text.contains("its system differs from B's first block"),
        "{text}"
    );
    assert_eq!(status(&env, "s")["next"], 3, "the block is kept as done");
    std::fs::write(THP, &before).unwrap();
    let o = step(&env, "s", "test-a", "a2");
    assert!(o.status.success(), "{o:?}");
    assert_eq!(status(&env, "s")["next"], 4);
}

/// `--rounds auto:6`: B's blocks run a job twice as long as A's, so at a
/// look (after round 3 or 5) every label is decided and the campaign ends
/// there, before its 12 blocks, saying why.
#[test]
fn campaign_rounds_auto_stops_once_decided() {
    let env = Env::new();
    env.campaign(
        "au",
        &["--rounds", "auto:6"],
        "true",
        &["job", "--job-cmd", "sh -c \"sleep $D\"", "--runs", "3"],
    );
    assert_eq!(status(&env, "au")["order"].as_array().unwrap().len(), 12);
    let mut said = String::new();
    for n in 0..12 {
        let s = status(&env, "au");
        let order = s["order"].as_array().unwrap().clone();
        let next = s["next"].as_u64().unwrap() as usize;
        if next >= order.len() {
            break;
        }
        let (release, delay) = if order[next] == 0 {
            ("test-a", "0.05")
        } else {
            ("test-b", "0.10")
        };
        let id = format!(r#"{{"release":"{release}","cmdline":"ro quiet","boot_id":"b{n}"}}"#);
        let o = env
            .cmd()
            .args(["campaign", "step", "au"])
            .env("KBENCH_TEST_IDENTITY", id)
            .env("D", delay)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        said += &String::from_utf8_lossy(&o.stdout);
    }
    // Stopped at a look (after round 3 or 5 here), before the cap.
    let s = status(&env, "au");
    let done = s["next"].as_u64().unwrap();
    assert!(done == 6 || done == 10, "{done}: {said}");
    assert_eq!(s["order"].as_array().unwrap().len() as u64, done, "{said}");
    assert!(
        said.contains(&format!(
            "decided after {} rounds on time: B: worse",
            done / 2
        )) && said.contains(&format!("complete: {done} blocks")),
        "{said}"
    );
}

/// `--rounds auto:5` where the second value of a knob (the kernel's NIS
/// domain name, which nothing else reads) makes the job ten times as long:
/// the matrix stops at a look (round 3 or the cap, 5), says why once (in
/// its closing line; the engine's own line counts only the units) and puts
/// the knob back.
#[test]
fn a_matrix_that_decides_stops_at_its_look_and_says_why_once() {
    let Some((_one, _)) = knob_test() else { return };
    let env = Env::new();
    let before = read("/proc/sys/kernel/domainname");
    let job = "sh -c \"grep -q kbb /proc/sys/kernel/domainname && sleep 0.2 || sleep 0.02\"";
    let o = env.run(&[
        "--label",
        "d",
        "matrix",
        "--knob",
        "kernel.domainname=kba,kbb",
        "--rounds",
        "auto:5",
        "--",
        "job",
        "--job-cmd",
        job,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(read("/proc/sys/kernel/domainname"), before);
    let both = format!("{}{err}", String::from_utf8_lossy(&o.stdout));
    let said = both.split_whitespace().collect::<Vec<_>>().join(" ");
    let n = env.json(&["runs", "list"])["runs"]
        .as_array()
        .unwrap()
        .len();
    assert!(n == 6 || n == 10, "{n} runs: {said}");
    assert_eq!(
        said.matches(&format!("decided after {} rounds on time", n / 2))
            .count(),
        1,
        "{said}"
    );
    assert!(said.contains(&format!("stopped after {n} units")), "{said}");
}
