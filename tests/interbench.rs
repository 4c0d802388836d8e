//! `kbench interbench`: interbench's tables, stored pairs and histograms,
//! the calibration kept per system, loads that work and leave nothing,
//! selection flags, bad input and Ctrl-C.

use crate::common::{alive, interrupt, metric_names, orphans, Env};

/// A loop speed given with -l, so these tests need no calibration.
const LPMS: &str = "100000";

fn value(show: &serde_json::Value, name: &str) -> f64 {
    show["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no metric {name}"))["value"]
        .as_f64()
        .unwrap()
}

#[test]
fn a_short_run_prints_interbench_tables_and_stores_every_pair() {
    let env = Env::new();
    let out = env.ok(&[
        "interbench",
        "-t",
        "1",
        "--exact-duration",
        "-l",
        LPMS,
        "-W",
        "audio",
        "-W",
        "gaming",
        "-C",
        "20",
        "-I",
        "20000",
        "-W",
        "custom",
        "-w",
        "none",
        "-w",
        "burn",
    ]);
    for t in ["Audio", "Gaming", "Custom"] {
        assert!(
            out.contains(&format!(
                "--- Benchmarking simulated cpu of {t} in the presence of simulated ---"
            )),
            "{out}"
        );
    }
    assert!(out.contains("Load\tLatency +/- SD (ms)  Max Latency   % Desired CPU  % Deadlines Met"));
    assert!(
        out.contains("\nNone\t") && out.contains("\nBurn\t"),
        "{out}"
    );
    assert!(
        out.contains("kbench: Audio under Burn: latency p50"),
        "{out}"
    );
    let list = env.json(&["runs", "list", "--benchmark", "interbench"]);
    let id = list["runs"][0]["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    let names = metric_names(&show);
    for n in [
        "audio_none_latency_avg_ms",
        "audio_burn_deadlines_met_pct",
        "audio_burn_desired_cpu_pct",
        "gaming_burn_fps",
        "custom_none_latency_max_ms",
        "latency_avg_ms",
        "worst_deadlines_met_pct",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    assert!(
        !names.contains(&"gaming_none_deadlines_met_pct"),
        "Gaming has no deadlines"
    );
    assert_eq!(value(&show, "pairs"), 6.0);
    let hists = show["histograms"].as_array().unwrap();
    assert_eq!(hists.len(), 6, "a latency histogram per pair");
    assert_eq!(show["settings"]["loops_per_ms"], 100000);
    let unloaded = value(&show, "audio_none_desired_cpu_pct");
    assert!((0.0..=100.0).contains(&unloaded));
}

#[test]
fn the_calibration_is_kept_per_system_and_redone_when_it_changes() {
    let env = Env::new();
    let args = [
        "interbench",
        "-t",
        "1",
        "--exact-duration",
        "-W",
        "audio",
        "-w",
        "none",
    ];
    let first = env.run(&args);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let said = String::from_utf8_lossy(&first.stdout);
    assert!(
        said.contains("measured now") && said.contains("stored"),
        "{said}"
    );
    let second = env.ok(&args);
    assert!(second.contains("read from the store"), "{second}");
    let lpms = |s: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix("Using "))
            .and_then(|l| l.split_whitespace().next())
            .unwrap()
            .to_string()
    };
    assert_eq!(lpms(&said), lpms(&second), "the stored figure is reused");
    // Another kernel (a new fingerprint) is calibrated again.
    let other = env
        .cmd()
        .args(args)
        .env(
            "KBENCH_TEST_IDENTITY",
            r#"{"release":"6.99-test","cmdline":"ro","boot_id":"b"}"#,
        )
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&other.stdout).contains("measured now"));
    // -b measures again even when known.
    let mut again = args.to_vec();
    again.push("-b");
    assert!(env.ok(&again).contains("measured now"));
}

#[test]
fn every_load_does_work_and_leaves_nothing_behind() {
    let env = Env::new();
    let dir = env.dir.path().join("files");
    std::fs::create_dir(&dir).unwrap();
    let before = orphans();
    let v = env.json(&[
        "interbench",
        "-t",
        "1",
        "--exact-duration",
        "-l",
        LPMS,
        "-W",
        "audio",
        "-L",
        "2",
        "--dir",
        dir.to_str().unwrap(),
        "-x",
        "memload",
    ]);
    let pairs = v["runs"][0]["pairs"].as_array().unwrap();
    let loads: Vec<&str> = pairs.iter().map(|p| p["load"].as_str().unwrap()).collect();
    assert_eq!(
        loads,
        vec!["None", "Video", "X", "Burn", "Write", "Read", "Ring", "Compile"],
        "interbench's loads, in its order"
    );
    for p in pairs.iter().filter(|p| p["load"] != "None") {
        let work = p["load_report"]["work"].as_f64().unwrap_or(0.0);
        assert!(work > 0.0, "{} did no work: {p}", p["load"]);
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "files removed");
    let after: Vec<u32> = orphans()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(after.is_empty(), "left running: {after:?}");
}

#[test]
fn selection_flags_and_bad_input() {
    let env = Env::new();
    for (args, says) in [
        (
            &[
                "interbench",
                "-X",
                "audio",
                "-X",
                "video",
                "-X",
                "x",
                "-X",
                "gaming",
            ][..],
            "no task left",
        ),
        (&["interbench", "-W", "burn"], "cannot be a task"),
        (&["interbench", "-w", "audio"], "cannot be a load"),
        (&["interbench", "-W", "piano"], "unknown task 'piano'"),
        (&["interbench", "-W", "custom"], "need -C"),
        (&["interbench", "-C", "50"], "--custom-interval"),
        (&["interbench", "-C", "101", "-I", "1000"], "101"),
        (&["interbench", "-t", "0"], "0"),
        (&["interbench", "-B", "20"], "20"),
        (&["interbench", "-L", "0"], "0"),
        (&["interbench", "-l", "0"], "0"),
        (&["interbench", "-r", "-W", "gaming"], "real-time"),
    ] {
        let err = env.fails(args, 2);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn ctrl_c_stores_what_was_measured_and_stops_everything() {
    let env = Env::new();
    let before = orphans();
    let kb = env.spawn(&[
        "interbench",
        "-t",
        "30",
        "--exact-duration",
        "-l",
        LPMS,
        "-W",
        "audio",
        "-W",
        "video",
        "-w",
        "burn",
        "--label",
        "cc",
    ]);
    let pid = kb.id();
    std::thread::sleep(std::time::Duration::from_millis(3000));
    interrupt(kb);
    assert!(!alive(pid));
    let list = env.json(&["runs", "list", "--benchmark", "interbench"]);
    let run = &list["runs"][0];
    assert_eq!(run["status"], "interrupted", "{list}");
    let show = env.json(&["runs", "show", &run["id"].as_i64().unwrap().to_string()]);
    assert!(
        metric_names(&show).contains(&"audio_burn_latency_avg_ms"),
        "{show}"
    );
    let after: Vec<u32> = orphans()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(after.is_empty(), "left running: {after:?}");
}
