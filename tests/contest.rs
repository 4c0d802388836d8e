//! `kbench contest`: timed jobs, the suite, failures, Ctrl-C and --show.

use crate::common::{alive, children, interrupt, wait_for, Env};
use std::process::Stdio;

fn rows(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["rows"].as_array().unwrap().clone()
}

fn find<'a>(rows: &'a [serde_json::Value], load: &str) -> &'a serde_json::Value {
    rows.iter()
        .find(|r| r["load"] == load)
        .unwrap_or_else(|| panic!("no {load} row in {rows:?}"))
}

#[test]
fn job_cpu_use_is_measured_with_its_children() {
    let env = Env::new();
    // A busy shell loop in a child of the job: its CPU must be counted.
    let busy = env.json(&[
        "contest",
        "--loads",
        "noload",
        "--runs",
        "1",
        "--no-store",
        "--job-cmd",
        "sh -c 'sh -c \"i=0; while [ \\$i -lt 200000 ]; do i=\\$((i+1)); done\"'",
    ]);
    let idle = env.json(&[
        "contest",
        "--loads",
        "noload",
        "--runs",
        "1",
        "--no-store",
        "--job-cmd",
        "sleep 0.3",
    ]);
    let b = find(&rows(&busy), "noload").clone();
    let i = find(&rows(&idle), "noload").clone();
    let bcpu = b["cpu_percent"].as_f64().unwrap();
    let icpu = i["cpu_percent"].as_f64().unwrap();
    // CPU time, unlike CPU%, does not depend on how busy the machine is.
    let b_cpu_s = bcpu / 100.0 * b["time_s"].as_f64().unwrap();
    let i_cpu_s = icpu / 100.0 * i["time_s"].as_f64().unwrap();
    assert!(
        b_cpu_s > 5.0 * i_cpu_s,
        "the busy child's CPU is counted: {b_cpu_s} vs {i_cpu_s}"
    );
    assert!(
        bcpu <= 110.0,
        "one busy process cannot use more than one CPU: {bcpu}"
    );
    assert!(icpu < bcpu, "sleep uses less CPU than a busy loop");
    assert!(
        i["time_s"].as_f64().unwrap() >= 0.3,
        "wall time covers the sleep"
    );
}

#[test]
fn generated_project_suite_with_a_load() {
    let env = Env::new();
    let files = env.dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    let v = env.json(&[
        "contest",
        "--loads",
        "process,io",
        "--runs",
        "1",
        "--job-size",
        "tiny",
        "--size",
        "32M",
        "--dir",
        files.to_str().unwrap(),
        "--label",
        "k",
    ]);
    let r = rows(&v);
    assert_eq!(r.len(), 4, "noload, cacherun, process, io: {r:?}");
    for load in ["noload", "cacherun", "process", "io"] {
        let row = find(&r, load);
        assert!(row["time_s"].as_f64().unwrap() > 0.0);
        assert!(row["cpu_percent"].as_f64().unwrap() > 0.0);
    }
    assert!(
        find(&r, "process")["loads"].as_f64().unwrap() > 0.0,
        "the load worked during the job"
    );
    assert!(find(&r, "io")["lcpu_percent"].as_f64().unwrap() > 0.0);
    assert_eq!(find(&r, "noload")["loads"], 0.0);
    assert_eq!(
        std::fs::read_dir(&files).unwrap().count(),
        0,
        "load files removed"
    );
    let list = env.json(&["runs", "list", "--benchmark", "contest"]);
    assert_eq!(list["runs"].as_array().unwrap().len(), 4);
    let text = env.ok(&["contest", "--show"]);
    assert!(text.starts_with("noload:\nKernel [runs]"), "{text}");
    assert!(
        text.contains("process_load:") && text.contains("io_load:"),
        "{text}"
    );
    assert!(text.contains("k [1]"), "{text}");
}

#[test]
fn show_puts_kernels_side_by_side_with_one_reference() {
    let env = Env::new();
    for label in ["old", "new"] {
        env.ok(&[
            "contest",
            "--loads",
            "noload",
            "--runs",
            "2",
            "--job-cmd",
            "sleep 0.2",
            "--label",
            label,
            "-q",
        ]);
    }
    let text = env.ok(&[
        "contest",
        "--show",
        "--labels",
        "old,new",
        "--reference",
        "old",
    ]);
    let noload: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "noload:")
        .take(4)
        .collect();
    assert!(
        noload[2].starts_with("old [2]") && noload[2].ends_with("1.00"),
        "{text}"
    );
    assert!(noload[3].starts_with("new [2]"), "{text}");
    let v = env.json(&["contest", "--show"]);
    assert_eq!(
        v["reference"], "old",
        "default reference is the first label"
    );
    let err = env.fails(&["contest", "--show", "--labels", "nobody"], 2);
    assert!(err.contains("no contest runs"), "{err}");
}

#[test]
fn a_failing_job_fails_without_a_recorded_time() {
    let env = Env::new();
    let err = env.fails(
        &[
            "contest",
            "--loads",
            "noload",
            "--runs",
            "1",
            "--job-cmd",
            "sh -c 'echo broken >&2; exit 3'",
        ],
        1,
    );
    assert!(
        err.contains("failed (exit status 3)") && err.contains("broken"),
        "{err}"
    );
    let list = env.json(&["runs", "list"]);
    let runs = list["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["status"], "failed");
    assert!(
        runs[0]["headline"].is_null(),
        "no time stored for a failed job"
    );
    let err = env.fails(&["contest", "--job-cmd", "'unterminated"], 2);
    assert!(err.contains("unterminated"), "{err}");
    let err = env.fails(&["contest", "--kernel-tree", "/usr"], 2);
    assert!(err.contains("kernel source tree"), "{err}");
    let err = env.fails(&["contest", "--loads", "noload,bogus"], 2);
    assert!(err.contains("unknown load 'bogus'"), "{err}");
}

#[test]
fn a_load_that_dies_fails_its_run_and_the_suite_goes_on() {
    let env = Env::new();
    let kb = env.spawn(&[
        "contest",
        "--loads",
        "cpu",
        "--runs",
        "1",
        "--job-cmd",
        "sleep 3",
        "--procs",
        "1",
        "--json",
    ]);
    let pid = kb.id();
    // Wait for the load's worker (named kbench-cpu) and the job.
    let comm = |p: u32| std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
    assert!(wait_for(60, || {
        let k = children(pid);
        k.iter().any(|&p| comm(p).trim() == "kbench-cpu")
            && k.iter().any(|&p| comm(p).trim() == "sleep")
    }));
    let worker = children(pid)
        .into_iter()
        .find(|&p| comm(p).trim() == "kbench-cpu")
        .unwrap();
    unsafe { libc::kill(worker as i32, libc::SIGKILL) };
    let out = kb.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cpu load") && err.contains("died"), "{err}");
    let list = env.json(&["runs", "list"]);
    let statuses: Vec<&str> = list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, vec!["complete", "complete", "failed"]);
}

#[test]
fn ctrl_c_stops_job_and_load_and_keeps_what_finished() {
    let env = Env::new();
    let files = env.dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    let kb = env
        .cmd()
        .args([
            "contest",
            "--loads",
            "io",
            "--size",
            "32M",
            "--runs",
            "1",
            "--job-cmd",
            "sleep 30",
        ])
        .args(["--dir", files.to_str().unwrap(), "-q"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = kb.id();
    let comm = |p: u32| std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
    // noload and cacherun each sleep 30 s: interrupt during the first.
    assert!(wait_for(30, || children(pid)
        .iter()
        .any(|&p| comm(p).trim() == "sleep")));
    let kids = children(pid);
    interrupt(kb);
    assert!(
        wait_for(10, || kids.iter().all(|&p| !alive(p))),
        "job stopped"
    );
    let list = env.json(&["runs", "list"]);
    assert_eq!(list["runs"][0]["status"], "interrupted");
    assert_eq!(std::fs::read_dir(&files).unwrap().count(), 0);
}

/// The contest preset runs through the contest engine, so its runs are
/// contest's table, with Ratio, in contest's order and headings.
#[test]
fn the_contest_preset_runs_through_the_contest_engine() {
    let env = Env::new();
    let files = env.dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    let plan = env.ok(&["run", "contest", "--dry-run"]);
    assert!(
        plan.contains("kbench contest --job-size small --runs 3"),
        "{plan}"
    );
    let out = env.ok(&[
        "run",
        "contest",
        "--var",
        "rounds=1",
        "--var",
        "loads=io_other,process",
        "--var",
        "job_size=tiny",
        "--var",
        "load_size=32M",
        "--label",
        "pre",
    ]);
    assert!(out.contains("noload:\nKernel [runs]"), "{out}");
    let table = env.ok(&["compare", "--layout", "contest"]);
    let process = table.find("process_load:").expect("process block");
    let io_other = table
        .find("io_other:")
        .expect("io_other: as contest named it");
    assert!(process < io_other, "contest's order: {table}");
    assert!(!table.contains("io_other_load"), "{table}");
    assert!(
        table.contains("pre [1]") && table.contains("Ratio"),
        "{table}"
    );
    assert!(
        table.contains("1.00"),
        "noload is its own reference: {table}"
    );
    assert!(
        table.contains("Loads counts: process_load in laps"),
        "{table}"
    );
    let runs = env.json(&["runs", "list", "--benchmark", "contest"]);
    assert_eq!(runs["runs"].as_array().unwrap().len(), 4);
    let id = runs["runs"][0]["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    assert_eq!(
        show["settings"]["settle_s"], 3.0,
        "the load settles before the job"
    );
}
