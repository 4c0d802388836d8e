//! `kbench cyclictest`: placement, parsing, output formats, storage,
//! privilege and interruption.  No test asserts a latency value.

use crate::common::{interrupt, metric_names, wait_for, Env};

fn online() -> usize {
    std::thread::available_parallelism().unwrap().get()
}

#[test]
fn smp_places_one_pinned_thread_per_cpu_and_counts_loops_exactly() {
    let env = Env::new();
    let v = env.json(&[
        "cyclictest",
        "-S",
        "-p",
        "80",
        "-m",
        "-i",
        "200",
        "-l",
        "50",
        "--no-store",
    ]);
    assert_eq!(v["schema_version"], 1);
    let run = &v["runs"][0];
    let threads = run["threads"].as_array().unwrap();
    assert_eq!(threads.len(), online());
    for (i, t) in threads.iter().enumerate() {
        assert_eq!(t["cpu"], i);
        assert_eq!(t["interval_us"], 200);
        assert_eq!(t["stats"]["samples"], 50, "exactly -l samples per thread");
        let s = &t["stats"];
        for k in [
            "min_us", "avg_us", "p50_us", "p90_us", "p99_us", "p999_us", "max_us",
        ] {
            assert!(s[k].as_f64().is_some(), "{k} in {s}");
        }
        assert!(s["min_us"].as_f64() <= s["p50_us"].as_f64());
        assert!(s["p50_us"].as_f64() <= s["max_us"].as_f64());
        let hist_total: u64 = t["histogram_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b[1].as_u64().unwrap())
            .sum();
        assert_eq!(hist_total, 50);
    }
    assert_eq!(run["overall"]["samples"], 50 * online() as u64);
    assert_eq!(run["settings"]["policy"], "fifo");
    assert_eq!(run["settings"]["priority"], 80);
    assert_eq!(run["settings"]["mlockall"], true);
}

#[test]
fn threads_affinity_and_distance() {
    let env = Env::new();
    let v = env.json(&[
        "cyclictest",
        "-t",
        "3",
        "-a",
        "0",
        "-i",
        "100",
        "-d",
        "50",
        "-l",
        "5",
        "--no-store",
    ]);
    let threads = v["runs"][0]["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 3);
    let cpus: Vec<_> = threads.iter().map(|t| t["cpu"].as_u64().unwrap()).collect();
    assert_eq!(cpus, vec![0, 0, 0]);
    let iv: Vec<_> = threads
        .iter()
        .map(|t| t["interval_us"].as_u64().unwrap())
        .collect();
    assert_eq!(iv, vec![100, 150, 200]);
    assert_eq!(
        v["runs"][0]["settings"]["policy"], "other",
        "no -p means SCHED_OTHER"
    );
}

#[test]
fn duration_stops_the_run() {
    let env = Env::new();
    let v = env.json(&["cyclictest", "-D", "300ms", "-i", "1000", "--no-store"]);
    let run = &v["runs"][0];
    assert_eq!(run["interrupted"], false);
    assert!(run["overall"]["samples"].as_u64().unwrap() > 0);
}

#[test]
fn cyclictest_lines_and_histogram_format() {
    let env = Env::new();
    let out = env.ok(&[
        "cyclictest",
        "-t",
        "2",
        "-p",
        "90",
        "-i",
        "100",
        "-l",
        "30",
        "-h",
        "50",
        "--no-store",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "# Histogram");
    for (b, row) in lines[1..51].iter().enumerate() {
        let cols: Vec<&str> = row.split([' ', '\t']).collect();
        assert_eq!(cols.len(), 3, "{row}");
        assert!(
            row.contains('\t'),
            "threads after the first are tab-separated like cyclictest: {row:?}"
        );
        assert_eq!(cols[0], format!("{b:06}"));
    }
    // Total counts samples inside the histogram; with overflows it is the rest.
    let total: Vec<u64> = lines[51]
        .trim_start_matches("# Total: ")
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    let over: Vec<u64> = lines[55]
        .trim_start_matches("# Histogram Overflows: ")
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(total.len(), 2);
    assert!(
        total.iter().zip(&over).all(|(t, o)| t + o == 30),
        "{total:?} + {over:?}"
    );
    assert!(lines[52].starts_with("# Min Latencies: "));
    assert!(lines[55].starts_with("# Histogram Overflows: "));
    let t0 = lines
        .iter()
        .find(|l| l.starts_with("T: 0 ("))
        .expect("thread line");
    // T: 0 (12345) P:90 I:100 C:     30 Min:      3 Act:    5 Avg:    4 Max:      35
    let rest = t0.split_once(") ").unwrap().1;
    assert!(rest.starts_with("P:90 I:100 C:     30 Min:"), "{t0}");
    for key in ["Min:", "Act:", "Avg:", "Max:"] {
        let v = rest
            .split(key)
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        assert!(v.parse::<u64>().is_ok(), "{key} in {t0}");
    }
    assert!(out.contains("    t0: avg "), "{out}");
    assert!(out.contains("   all: avg "), "{out}");
}

#[test]
fn runs_are_stored_with_metrics_and_histograms() {
    let env = Env::new();
    let v = env.json(&[
        "cyclictest",
        "-S",
        "-p",
        "95",
        "-i",
        "500",
        "-l",
        "20",
        "--label",
        "k1",
    ]);
    let id = v["stored_ids"][0].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    assert_eq!(show["benchmark"], "cyclictest");
    assert_eq!(show["status"], "complete");
    let names = metric_names(&show);
    for n in [
        "max_us",
        "p99_us",
        "p999_us",
        "p50_us",
        "avg_us",
        "samples",
        "cpu0.p99_us",
        "cpu0.max_us",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let hists = show["histograms"].as_array().unwrap();
    assert_eq!(hists[0]["name"], "latency");
    assert_eq!(hists[0]["samples"], 20 * online() as u64);
    assert_eq!(hists.len(), 1 + online());
    assert!(show["settings"]["cpu_dma_latency_held"].is_boolean());
}

#[test]
fn bad_input_is_exit_2() {
    let env = Env::new();
    for (args, needle) in [
        (&["cyclictest", "-p", "100", "-l", "1"][..], "1-99"),
        (
            &["cyclictest", "-p", "50", "--policy", "other", "-l", "1"],
            "only applies",
        ),
        (&["cyclictest", "--policy", "fifo", "-l", "1"], "1-99"),
        (
            &["cyclictest", "--policy", "deadline", "-l", "1"],
            "unknown scheduling policy",
        ),
        (&["cyclictest", "-i", "0", "-l", "1"], "error:"),
        (&["cyclictest", "-D", "0", "-l", "1"], "greater than zero"),
        (&["cyclictest", "-D", "soon"], "not a duration"),
        (&["cyclictest", "-a", "4000", "-l", "1"], "not online"),
        (&["cyclictest", "-l", "0"], "error:"),
    ] {
        let err = env.fails(args, 2);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    assert!(!env.db().exists());
}

#[test]
fn missing_privilege_says_what_and_how() {
    if unsafe { libc::geteuid() } != 0
        || std::process::Command::new("setpriv")
            .arg("--version")
            .output()
            .is_err()
    {
        eprintln!("skipped: needs root and setpriv to drop privileges");
        return;
    }
    let kb = crate::common::Reachable::new();
    let out = std::process::Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
        ])
        .arg(&kb.path)
        .args(["cyclictest", "-p", "80", "-l", "5", "--no-store"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("SCHED_FIFO needs privilege")
            && err.contains("CAP_SYS_NICE")
            && err.contains("--policy other"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn ctrl_c_keeps_what_was_measured_marked_interrupted() {
    let env = Env::new();
    let kb = env.spawn(&[
        "cyclictest",
        "-t",
        "1",
        "-i",
        "1000",
        "-D",
        "1h",
        "-q",
        "--json",
    ]);
    let pid = kb.id();
    assert!(wait_for(10, || std::fs::read_to_string(format!(
        "/proc/{pid}/status"
    ))
    .map(|s| s.contains("Threads:\t2"))
    .unwrap_or(false)));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = interrupt(kb);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"][0]["interrupted"], true);
    assert!(v["runs"][0]["overall"]["samples"].as_u64().unwrap() > 0);
    let list = env.json(&["runs", "list"]);
    assert_eq!(list["runs"][0]["status"], "interrupted");
}

/// `--runs auto` decides on the runs compare will count: cyclictest's
/// first repetition is a warm-up, left out of both.
#[test]
fn runs_auto_leaves_the_warm_up_out_as_compare_does() {
    let env = Env::new();
    let o = env.run(&[
        "cyclictest",
        "-t",
        "1",
        "-i",
        "500",
        "-l",
        "100",
        "--runs",
        "auto:4",
        "--precision",
        "0.0001",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("after 4 run(s), 3 of them counted"), "{err}");
    let list = env.json(&["runs", "list"]);
    assert_eq!(list["runs"].as_array().map(Vec::len), Some(4), "{list}");
}
