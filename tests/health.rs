//! Run health: every run carries what the monitor saw; a run beside a busy
//! foreign process is suspect with that reason; compare counts suspect
//! runs and `--exclude-suspect` leaves them out.

use crate::common::Env;

fn show(env: &Env, id: i64) -> serde_json::Value {
    env.json(&["runs", "show", &id.to_string()])
}

fn last_id(env: &Env) -> i64 {
    let v = env.json(&["runs", "list", "--last", "1"]);
    v["runs"][0]["id"].as_i64().unwrap()
}

#[test]
fn a_run_beside_a_busy_foreign_process_is_suspect() {
    let env = Env::new();
    // A CPU hog that is not kbench's: the test's own child.
    let mut hog = std::process::Command::new("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = env
        .cmd()
        .args(["testbench", "--seconds", "2.5", "--label", "busy"])
        .env_remove("KBENCH_MAX_OUTSIDE_CPU_PCT")
        .env_remove("KBENCH_MAX_STEAL_PCT")
        .output()
        .unwrap();
    let _ = hog.kill();
    let _ = hog.wait();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("kbench: suspect run: ") && err.contains("processes outside kbench"),
        "{err}"
    );
    let s = show(&env, last_id(&env));
    let h = &s["settings"]["health"];
    assert_eq!(h["suspect"], true, "{s}");
    let reasons = h["reasons"].to_string();
    assert!(
        reasons.contains("processes outside kbench") && reasons.contains("sh "),
        "{reasons}"
    );
    let names: Vec<&str> = s["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    for m in [
        "health.steal_pct",
        "health.outside_cpu_pct",
        "health.monitor_cpu_pct",
    ] {
        assert!(names.contains(&m), "{m} missing: {names:?}");
    }
    // What this machine cannot tell is listed, and never stored as zero.
    for na in h["not_available"].as_array().unwrap() {
        if na == "thermal throttle counters" {
            assert!(!names.contains(&"health.thermal_throttles"));
        }
    }
    assert!(s["notes"].to_string().contains("suspect run"), "{s}");
}

#[test]
fn compare_counts_suspect_runs_and_can_leave_them_out() {
    let env = Env::new();
    for (label, values) in [("a", [1.0, 1.1, 0.9, 1.0]), ("b", [2.0, 2.1, 1.9, 2.0])] {
        for v in values {
            env.ok(&["testbench", "--value", &v.to_string(), "--label", label]);
        }
    }
    // Mark two of a's runs suspect and the rest clean, whatever the
    // machine was doing while the test ran.
    let db = rusqlite::Connection::open(env.db()).unwrap();
    db.execute(
        "UPDATE runs SET settings = json_set(settings, '$.health.suspect', json(CASE WHEN label = 'a' AND id IN (SELECT id FROM runs WHERE label = 'a' ORDER BY id LIMIT 2) THEN 'true' ELSE 'false' END))",
        [],
    )
    .unwrap();
    drop(db);
    let n_a = |v: &serde_json::Value| {
        v["groups"][0]["metrics"][0]["labels"][0]["values"]
            .as_array()
            .unwrap()
            .len()
    };
    let all = env.json(&["compare", "--label", "a", "--label", "b"]);
    assert_eq!(n_a(&all), 4);
    let w = all["warnings"].to_string();
    assert!(
        w.contains("2 of 8 runs are suspect") && w.contains("--exclude-suspect"),
        "{w}"
    );
    let clean = env.json(&[
        "compare",
        "--label",
        "a",
        "--label",
        "b",
        "--exclude-suspect",
    ]);
    assert_eq!(n_a(&clean), 2);
    assert!(
        clean["warnings"]
            .to_string()
            .contains("2 suspect run(s) left out"),
        "{clean}"
    );
    let text = env.ok(&["compare", "--label", "a", "--label", "b"]);
    assert!(text.contains("2 of 8 runs are suspect"), "{text}");
}

/// cyclictest's first repetition differs from the rest on the machines
/// measured: with --runs above 1 it is stored as warm-up, and compare
/// leaves it out unless --include-warmup, saying so.
#[test]
fn the_first_cyclictest_repetition_is_a_warm_up() {
    let env = Env::new();
    for label in ["a", "b"] {
        env.ok(&[
            "cyclictest",
            "-t",
            "1",
            "-i",
            "1000",
            "-D",
            "300ms",
            "--runs",
            "3",
            "--label",
            label,
        ]);
    }
    let runs = env.json(&["runs", "list", "--benchmark", "cyclictest"]);
    let mut ids: Vec<i64> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    ids.sort();
    let warm: Vec<bool> = ids
        .iter()
        .map(|&id| show(&env, id)["settings"]["warmup"] == true)
        .collect();
    assert_eq!(warm, [true, false, false, true, false, false]);
    let n_a = |v: &serde_json::Value| {
        v["groups"][0]["metrics"][0]["labels"][0]["values"]
            .as_array()
            .unwrap()
            .len()
    };
    let v = env.json(&["compare", "--label", "a", "--label", "b"]);
    assert_eq!(n_a(&v), 2);
    assert!(
        v["left_out"]
            .to_string()
            .contains("2 warm-up run(s) left out"),
        "{v}"
    );
    let text = env.ok(&["compare", "--label", "a", "--label", "b"]);
    assert!(text.contains("2 warm-up run(s) left out"), "{text}");
    let v = env.json(&[
        "compare",
        "--label",
        "a",
        "--label",
        "b",
        "--include-warmup",
    ]);
    assert_eq!(n_a(&v), 3);
    // A single run is never a warm-up.
    env.ok(&["cyclictest", "-t", "1", "-D", "200ms", "--label", "one"]);
    assert_ne!(show(&env, last_id(&env))["settings"]["warmup"], true);
}

/// The monitor's voluntary context switches after `ms` of watching this
/// test process (`--root`), with `extra` flags; then its summary line.
fn monitor_wakes(extra: &[&str], ms: u64) -> (u64, serde_json::Value) {
    use std::io::BufRead;
    let root = std::process::id().to_string();
    let mut args = vec!["health-monitor", "--root", &root, "--interval-ms", "200"];
    args.extend_from_slice(extra);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kbench"))
        .args(&args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    let switches = || {
        std::fs::read_to_string(format!("/proc/{}/status", child.id()))
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    let before = switches();
    std::thread::sleep(std::time::Duration::from_millis(ms));
    let woke = switches() - before;
    drop(child.stdin.take()); // the run is over
    line.clear();
    out.read_line(&mut line).unwrap();
    assert!(child.wait().unwrap().success());
    (woke, serde_json::from_str(&line).expect("the summary line"))
}

#[test]
fn beside_a_thread_only_run_the_monitor_sleeps_until_the_end() {
    // Five intervals: following kbench's processes it wakes for each; beside
    // a run that starts no process it has nothing to read until the end
    // (unless the machine has CPU frequency files, which it then reads).
    let freq =
        std::path::Path::new("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq").exists();
    let (following, _) = monitor_wakes(&[], 1100);
    assert!(following >= 4, "woke {following} times in 5 intervals");
    let (threads_only, h) = monitor_wakes(&["--threads-only"], 1100);
    if freq {
        assert!(
            threads_only >= 4,
            "frequencies unread: woke {threads_only} times"
        );
    } else {
        // One switch: going to sleep, if it had not yet when counted.
        assert!(
            threads_only <= 1,
            "woke {threads_only} times with nothing to read"
        );
    }
    // The ends are still read: CPU time and the run delay of kbench's own.
    assert!(h["wall_s"].as_f64().unwrap() > 1.0, "{h}");
    assert!(h["own_run_delay_ms"].is_number(), "{h}");
}
