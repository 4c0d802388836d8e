//! Background loads: each starts, makes progress, stops, and leaves no
//! process and no file; refusals; a killed kbench leaves nothing behind.

use crate::common::{alive, children, interrupt, orphans, registered_loads, wait_for, Env};
use std::process::Stdio;

fn oom_kills() -> u64 {
    std::fs::read_to_string("/proc/vmstat")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("oom_kill ")?.trim().parse().ok())
        .unwrap_or(0)
}

fn have(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok()
}

/// Run `load` for `secs` with its files in a fresh folder; return the report.
fn run_load(env: &Env, load: &str, extra: &[&str]) -> serde_json::Value {
    let dir = env.dir.path().join(format!("files-{load}"));
    std::fs::create_dir(&dir).unwrap();
    let mut args = vec![
        "load",
        load,
        "--duration",
        "1500ms",
        "--dir",
        dir.to_str().unwrap(),
        "--no-store",
    ];
    args.extend_from_slice(extra);
    let v = env.json(&args);
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{load} left files behind: {left:?}");
    v
}

#[test]
fn every_load_makes_progress_and_cleans_up() {
    let env = Env::new();
    let other = env.dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let tree = env.dir.path().join("tree");
    for d in ["a/b", "c"] {
        std::fs::create_dir_all(tree.join(d)).unwrap();
    }
    for f in ["a/x.c", "a/b/y.h", "c/z.c"] {
        std::fs::write(tree.join(f), "int main(void) { return 0; }\n".repeat(50)).unwrap();
    }
    let before = oom_kills();
    let mut loads: Vec<(&str, Vec<&str>)> = vec![
        ("cpu", vec!["--procs", "1"]),
        ("process", vec![]),
        ("mem", vec!["--size", "32M"]),
        ("io", vec!["--size", "32M"]),
        (
            "io_other",
            vec!["--size", "32M", "--io-other-dir", other.to_str().unwrap()],
        ),
        ("read", vec!["--size", "16M"]),
        ("list", vec!["--tree", tree.to_str().unwrap()]),
        ("ctar", vec!["--tree", tree.to_str().unwrap()]),
        ("xtar", vec!["--tree", tree.to_str().unwrap()]),
    ];
    loads.push(("dbench", vec!["--procs", "2"]));
    // Every load the registry lists is tried: a new one cannot be left out.
    let mut tried: Vec<&str> = loads.iter().map(|(l, _)| *l).collect();
    let mut listed = registered_loads(&env);
    tried.sort_unstable();
    listed.sort_unstable();
    assert_eq!(
        tried, listed,
        "the loads tried here and those kbench lists differ"
    );
    if !have("dbench") {
        eprintln!("dbench not installed: its load is not tried (apt-get install dbench)");
        loads.retain(|(l, _)| *l != "dbench");
    }
    for (load, extra) in &loads {
        let v = run_load(&env, load, extra);
        let r = &v["report"];
        assert_eq!(r["load"], *load);
        assert!(r["work"].as_f64().unwrap() > 0.0, "{load} did no work: {v}");
        assert!(r["cpu_s"].as_f64().unwrap() >= 0.0);
        assert!(!r["unit"].as_str().unwrap().is_empty());
        assert!(
            wait_for(5, || orphans().is_empty()),
            "{load} left a process: {:?}",
            orphans()
        );
    }
    let left: Vec<_> = std::fs::read_dir(&other).unwrap().collect();
    assert!(left.is_empty(), "io_other left files: {left:?}");
    assert_eq!(oom_kills(), before, "a load met the OOM killer");
}

#[test]
fn refusals_are_clear() {
    let env = Env::new();
    let err = env.fails(&["load", "nonsense", "--no-store"], 2);
    assert!(
        err.contains("unknown load 'nonsense'") && err.contains("dbench"),
        "{err}"
    );
    let err = env.fails(&["load", "mem", "--size", "100T", "--no-store"], 1);
    assert!(err.contains("does not fit"), "{err}");
    let err = env.fails(&["load", "io", "--size", "1000T", "--no-store"], 1);
    assert!(err.contains("does not fit"), "{err}");
    let err = env.fails(
        &["load", "ctar", "--tree", "/nonexistent/tree", "--no-store"],
        2,
    );
    assert!(err.contains("--tree"), "{err}");
    let err = env.fails(
        &[
            "load",
            "io_other",
            "--io-other-dir",
            "/nonexistent/dir",
            "--no-store",
        ],
        2,
    );
    assert!(err.contains("--io-other-dir"), "{err}");
    let err = env.fails(&["load", "cpu", "--size", "lots", "--no-store"], 2);
    assert!(err.contains("not a size"), "{err}");
    let err = env.fails(&["load", "cpu", "--duration", "0", "--no-store"], 2);
    assert!(err.contains("greater than zero"), "{err}");
    // Thousands of hogs would fork behind each other past any Ctrl-C.
    let err = env.fails(&["load", "cpu", "--procs", "4096", "--no-store"], 2);
    assert!(err.contains("16 a CPU"), "{err}");
    let out = env
        .cmd()
        .env("PATH", "/nonexistent")
        .args(["load", "dbench", "--no-store"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("dbench not found: apt-get install dbench")
    );
}

#[test]
fn a_killed_kbench_leaves_no_load_process_and_no_file() {
    let env = Env::new();
    let dir = env.dir.path().join("files");
    std::fs::create_dir(&dir).unwrap();
    for (load, extra) in [("io", vec!["--size", "32M"]), ("process", vec![])] {
        let mut kb = env
            .cmd()
            .args([
                "load",
                load,
                "--duration",
                "1h",
                "--dir",
                dir.to_str().unwrap(),
                "--no-store",
                "-q",
            ])
            .args(&extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        assert!(
            wait_for(30, || children(kb.id()).len() >= 2),
            "{load} started"
        );
        let mut procs = children(kb.id());
        for p in procs.clone() {
            procs.extend(children(p));
        }
        assert!(
            std::fs::read_dir(&dir).unwrap().count() > 0,
            "{load} made its folder"
        );
        kb.kill().unwrap();
        kb.wait().unwrap();
        assert!(
            wait_for(15, || procs.iter().all(|&p| !alive(p))),
            "{load} processes outlived kbench"
        );
        assert!(
            wait_for(15, || std::fs::read_dir(&dir).unwrap().count() == 0),
            "{load} files outlived kbench"
        );
    }
}

#[test]
fn ctrl_c_stops_the_load_and_keeps_the_report() {
    let env = Env::new();
    let kb = env.spawn(&[
        "load",
        "cpu",
        "--procs",
        "1",
        "--duration",
        "1h",
        "--json",
        "--no-store",
    ]);
    let pid = kb.id();
    assert!(wait_for(30, || children(pid).len() >= 2));
    let kids = children(pid);
    std::thread::sleep(std::time::Duration::from_millis(500));
    let out = interrupt(kb);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["report"]["work"].as_f64().unwrap() > 0.0);
    assert!(wait_for(10, || kids.iter().all(|&p| !alive(p))));
}

/// The io load truncates and rewrites its file, as contest's `dd` loop
/// did: watching the file, its size falls back to zero between passes.
#[test]
fn the_io_load_truncates_its_file_each_pass() {
    let env = Env::new();
    let dir = env.dir.path().join("io-files");
    std::fs::create_dir(&dir).unwrap();
    let kb = env.spawn(&[
        "load",
        "io",
        "--size",
        "4M",
        "--duration",
        "3s",
        "--dir",
        dir.to_str().unwrap(),
        "--no-store",
        "-q",
    ]);
    let (mut max, mut fell) = (0u64, false);
    let end = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while std::time::Instant::now() < end && !fell {
        let Some(sub) = std::fs::read_dir(&dir).ok().and_then(|mut d| d.next()) else {
            continue;
        };
        let f = sub.unwrap().path().join("io.dat");
        if let Ok(m) = std::fs::metadata(&f) {
            let n = m.len();
            if n + (1 << 20) < max {
                fell = true;
            }
            max = max.max(n);
        }
    }
    let out = kb.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        fell,
        "the file never shrank (largest seen {max} bytes): overwritten in place?"
    );
}

/// The read load's default file is small enough to set up in seconds: its
/// pages are dropped after every pass, so a RAM-sized file buys nothing.
#[test]
fn the_read_load_states_its_modest_default_size() {
    let env = Env::new();
    let v = run_load(&env, "read", &[]);
    let d = v["description"].as_str().unwrap_or_default().to_string();
    assert!(d.contains("512 MiB") || d.contains("size of RAM"), "{v}");
    assert!(d.contains("dropped after every pass"), "{d}");
}
