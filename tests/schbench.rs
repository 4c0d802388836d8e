//! `kbench schbench`: request accounting, warm-up, RPS mode, pinning,
//! calibration, bad input and Ctrl-C.  Counts and orderings only: no test
//! asserts a latency.

use crate::common::{alive, interrupt, Env};

/// A small, fast shape: 2 workers, a 16 KiB footprint, one multiplication.
const SMALL: &[&str] = &["-t", "2", "-F", "16", "-n", "1", "-s", "10", "-i", "0"];

fn run(env: &Env, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["schbench", "--no-store"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(extra);
    let v = env.json(&args);
    v["runs"][0].clone()
}

#[test]
fn every_request_is_counted_once() {
    let env = Env::new();
    let r = run(&env, &["-r", "2"]);
    let per_thread: u64 = r["workers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["requests"].as_u64().unwrap())
        .sum();
    let total = r["requests"].as_u64().unwrap();
    assert!(total > 0, "{r}");
    assert_eq!(per_thread, total, "per thread and in total");
    assert_eq!(
        r["request_samples"].as_u64().unwrap(),
        total,
        "one request latency per completed request (no warm-up)"
    );
    assert_eq!(r["workers"].as_array().unwrap().len(), 2);
    assert_eq!(r["message_threads"].as_array().unwrap().len(), 1);
    let locks: u64 = r["workers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["locks_taken"].as_u64().unwrap())
        .sum();
    assert_eq!(locks, total, "every request takes its CPU's lock");
}

#[test]
fn the_warm_up_restarts_the_statistics() {
    let env = Env::new();
    let r = run(&env, &["-r", "3", "-w", "1"]);
    let (samples, total) = (
        r["request_samples"].as_u64().unwrap(),
        r["requests"].as_u64().unwrap(),
    );
    assert!(samples > 0 && samples < total, "{samples} of {total}");
}

/// The "(N total samples)" of each block named `label` in `text`.
fn block_counts(text: &str, label: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| l.starts_with(label))
        .filter_map(|l| {
            let (_, tail) = l.rsplit_once('(')?;
            tail.strip_suffix(" total samples)")?.parse().ok()
        })
        .collect()
}

#[test]
fn zeroing_every_interval_loses_no_request_and_counts_none_twice() {
    // With -z 1 -i 1 each interval block holds the requests completed in
    // its second, and the final block those after the last zero: together,
    // every request once.  In RPS mode too, where workers sleep through
    // most of each second and cannot answer when the interval is taken.
    let env = Env::new();
    for extra in [&["-R", "200"][..], &[][..]] {
        let mut args = vec!["schbench", "--no-store", "-t", "2", "-F", "16", "-n", "1"];
        args.extend_from_slice(&["-s", "10", "-r", "4", "-i", "1", "-z", "1"]);
        args.extend_from_slice(extra);
        let out = env.cmd().args(&args).output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{stderr}");
        let intervals = block_counts(&stderr, "Request Latencies");
        let last = block_counts(&stdout, "Request Latencies");
        assert!(intervals.len() >= 3, "{extra:?}: {stderr}");
        assert_eq!(last.len(), 1, "{stdout}");
        let requests: u64 = stdout
            .lines()
            .find_map(|l| {
                l.strip_prefix("kbench: ")?
                    .split_once(" requests")?
                    .0
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| panic!("no request count: {stdout}"));
        assert!(requests > 0);
        assert_eq!(
            intervals.iter().sum::<u64>() + last[0],
            requests,
            "{extra:?}: intervals {intervals:?} and the last block {last:?}"
        );
        if !extra.is_empty() {
            // 200 a second: every full second's block holds the same count.
            assert!(
                intervals.iter().all(|&n| n == intervals[0]),
                "{intervals:?}"
            );
        }
    }
}

#[test]
fn rps_mode_holds_its_rate() {
    let env = Env::new();
    let r = run(&env, &["-r", "3", "-R", "100"]);
    let queued = r["queued"].as_u64().unwrap();
    let done = r["requests"].as_u64().unwrap();
    // 100 a second for 3 s (the goal's last second may or may not start).
    assert!((250..=420).contains(&queued), "queued {queued}");
    assert!(done <= queued && done * 2 >= queued, "{done} of {queued}");
}

#[test]
fn pinning_reaches_the_right_threads() {
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
    if online.trim() == "0" {
        eprintln!("skipped: one CPU");
        return;
    }
    let env = Env::new();
    for args in [&["-M", "0", "-W", "1"][..], &["-M", "auto"]] {
        let mut a = vec!["-r", "1"];
        a.extend_from_slice(args);
        let r = run(&env, &a);
        assert_eq!(
            r["message_threads"][0]["cpus"],
            serde_json::json!([0]),
            "{args:?}: {r}"
        );
        for w in r["workers"].as_array().unwrap() {
            let cpus = w["cpus"].as_array().unwrap();
            assert!(
                !cpus.is_empty() && !cpus.contains(&serde_json::json!(0)),
                "{args:?}: {w}"
            );
        }
    }
}

#[test]
fn calibration_takes_no_lock() {
    let env = Env::new();
    let r = run(&env, &["-r", "1", "-C"]);
    assert!(r["requests"].as_u64().unwrap() > 0);
    for w in r["workers"].as_array().unwrap() {
        assert_eq!(w["locks_taken"], 0, "{w}");
    }
}

#[test]
fn pipe_mode_measures_hand_offs() {
    let env = Env::new();
    let out = env.ok(&[
        "schbench",
        "--no-store",
        "-t",
        "2",
        "-p",
        "4096",
        "-r",
        "1",
        "-i",
        "0",
    ]);
    assert!(out.contains("avg worker transfer:"), "{out}");
    assert!(!out.contains("Request Latencies"), "{out}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let env = Env::new();
    for args in [
        &["schbench", "-m", "0"][..],
        &["schbench", "-t", "0"],
        &["schbench", "-r", "-5"],
        &["schbench", "-r", "0"],
        &["schbench", "-R", "10", "-A", "50"],
        &["schbench", "-M", "4096"],
        &["schbench", "-W", "1-x"],
        &["schbench", "--split", "101"],
        &["schbench", "-F", "4000000", "-t", "64", "-r", "1"],
        // More threads than 64 a CPU (128 at least): refused, not left to
        // spin behind each other past any Ctrl-C.
        &["schbench", "-m", "1024"],
        &["schbench", "-t", "4096"],
    ] {
        let o = env.run(args);
        let code = o.status.code();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            matches!(code, Some(1) | Some(2)),
            "{args:?}: {code:?} {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        if args.contains(&"-F") {
            assert!(err.contains("matrices need"), "{err}");
        } else if args.contains(&"1024") || args.contains(&"4096") && args.contains(&"-t") {
            assert!(err.contains("at most"), "{err}");
            assert_eq!(code, Some(2), "{args:?}: {err}");
        } else {
            assert_eq!(code, Some(2), "{args:?}: {err}");
        }
    }
}

#[test]
fn ctrl_c_keeps_what_was_measured() {
    let env = Env::new();
    let mut args = vec!["schbench", "-r", "60", "--label", "cc"];
    args.extend_from_slice(SMALL);
    let kb = env.spawn(&args);
    let pid = kb.id();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    interrupt(kb);
    assert!(!alive(pid), "kbench and its threads are gone");
    let list = env.json(&["runs", "list", "--benchmark", "schbench"]);
    let run = &list["runs"][0];
    assert_eq!(run["status"], "interrupted", "{list}");
    let id = run["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    let requests = show["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "requests")
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    assert!(requests > 0.0, "{show}");
}
