//! `kbench responsiveness`: the sleep/work loop on tiny sizes, the
//! original's output lines, storage, bad input, clean-up.

use crate::common::{metric_names, Env};

#[test]
fn original_lines_then_kbench_lines() {
    let env = Env::new();
    let out = env.ok(&[
        "responsiveness",
        "-i",
        "2",
        "-p",
        "1",
        "--np",
        "1",
        "--sleep-scale",
        "0.01",
        "--no-store",
    ]);
    let lines: Vec<&str> = out.lines().filter(|l| !l.is_empty()).collect();
    let prime = lines
        .iter()
        .find(|l| l.starts_with("0 prime time:  "))
        .expect("prime line");
    assert!(
        prime
            .trim_start_matches("0 prime time:  ")
            .parse::<f64>()
            .unwrap()
            > 0.0
    );
    for i in 0..2 {
        let l = lines
            .iter()
            .find(|l| l.starts_with(&format!("{i} total response time:  ")))
            .expect("interactive line");
        let parts: Vec<&str> = l.split("  ").collect();
        assert_eq!(parts[2], "runs:", "{l}");
        assert_eq!(parts[4], "average:", "{l}");
    }
    assert!(out.contains("kbench: response p50 "), "{out}");
    assert!(out.contains("kbench: wake-up overshoot p50 "), "{out}");
}

#[test]
fn interactive_loop_with_time_limit_only() {
    let env = Env::new();
    let v = env.json(&[
        "responsiveness",
        "-i",
        "1",
        "-p",
        "0",
        "-t",
        "1s",
        "--sleep-pattern",
        "0.05,0.05,0.05",
    ]);
    let run = &v["runs"][0];
    let n = run["runs"].as_u64().unwrap();
    assert!(
        n >= 3,
        "several iterations in a second of 50 ms sleeps: {n}"
    );
    let its = run["iterations"].as_array().unwrap();
    assert_eq!(its.len() as u64, n);
    for it in its {
        let (r, o, w) = (
            it["response_s"].as_f64().unwrap(),
            it["overshoot_s"].as_f64().unwrap(),
            it["work_s"].as_f64().unwrap(),
        );
        assert!(
            (r - (o + w)).abs() < 1e-6,
            "response = overshoot + work: {it}"
        );
    }
    assert!(run["prime_s"].as_array().unwrap().is_empty());
    let id = v["stored_ids"][0].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    let names = metric_names(&show);
    for m in [
        "avg_response",
        "p99_response",
        "p50_overshoot",
        "p99_overshoot",
        "runs",
    ] {
        assert!(names.contains(&m), "{m} in {names:?}");
    }
}

#[test]
fn print_to_a_file_gets_the_tasks_output() {
    let env = Env::new();
    let f = env.dir.path().join("printed.txt");
    env.ok(&[
        "responsiveness",
        "-i",
        "1",
        "-p",
        "0",
        "-t",
        "1s",
        "--sleep-pattern",
        "0.05",
        "--print-to",
        f.to_str().unwrap(),
        "--no-store",
    ]);
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.contains("sorting"), "the first task sorts");
    assert!(
        text.contains("line 0"),
        "the second task prints the text file"
    );
    assert!(
        text.contains("reading/writing to almarri2"),
        "the third copies it"
    );
}

#[test]
fn leaves_no_temp_files() {
    let env = Env::new();
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = env
        .cmd()
        .env("TMPDIR", &tmp)
        .args([
            "responsiveness",
            "-i",
            "1",
            "-p",
            "1",
            "--np",
            "1",
            "--sleep-scale",
            "0.01",
            "--no-store",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn bad_input() {
    let env = Env::new();
    let err = env.fails(&["responsiveness", "-i", "1", "-p", "0"], 2);
    assert!(err.contains("-t"), "{err}");
    let err = env.fails(&["responsiveness", "-i", "0", "-p", "0"], 2);
    assert!(err.contains("nothing to run"), "{err}");
    let err = env.fails(&["responsiveness", "--sleep-pattern", "1,x", "-t", "1"], 2);
    assert!(err.contains("--sleep-pattern"), "{err}");
    let err = env.fails(&["responsiveness", "--sleep-scale", "0", "-t", "1"], 2);
    assert!(err.contains("--sleep-scale"), "{err}");
    let err = env.fails(&["responsiveness", "-t", "never", "-p", "0"], 2);
    assert!(err.contains("not a duration"), "{err}");
    let err = env.fails(
        &[
            "responsiveness",
            "-p",
            "0",
            "-t",
            "1",
            "--print-to",
            "/nonexistent/dir/f",
        ],
        2,
    );
    assert!(err.contains("does not exist"), "{err}");
    // More workers than 16 a CPU (64 at least) would take longer to fork
    // behind the hogs already running than any run, Ctrl-C unanswered.
    let err = env.fails(&["responsiveness", "-t", "1", "-p", "4096"], 2);
    assert!(err.contains("at most"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn prime_workers_keep_busy_until_the_time_limit() {
    let env = Env::new();
    let v = env.json(&[
        "responsiveness",
        "-i",
        "1",
        "-p",
        "1",
        "--np",
        "1",
        "-t",
        "1s",
        "--sleep-pattern",
        "0.1",
        "--no-store",
    ]);
    let run = &v["runs"][0];
    assert!(run["prime_passes"][0].as_u64().unwrap() >= 1);
    assert!(
        run["runs"].as_u64().unwrap() >= 1,
        "the probe ran while the hogs did: {run}"
    );
}
