//! `kbench hackbench`: message accounting, rt-tests flag spellings and
//! output, bad input, and that no worker outlives a run.

use crate::common::{alive, children, interrupt, wait_for, Env};
use std::process::Stdio;

/// Run with receivers verifying every byte and that nothing extra arrives.
fn verified(args: &[&str]) -> String {
    let env = Env::new();
    let out = env
        .cmd()
        .env("KBENCH_HACKBENCH_VERIFY", "1")
        .args(args)
        .arg("--no-store")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_receiver_gets_exactly_its_messages_in_every_variant() {
    for mode in [&[][..], &["-T"][..]] {
        for transport in [&[][..], &["-p"][..]] {
            for (g, f, l, s) in [
                ("2", "3", "200", "100"),
                ("1", "4", "50", "5000"),
                ("3", "1", "100", "1"),
            ] {
                let mut args = vec!["hackbench", "-g", g, "-f", f, "-l", l, "-s", s];
                args.extend_from_slice(mode);
                args.extend_from_slice(transport);
                let out = verified(&args);
                assert!(out.contains("Time: "), "{args:?}: {out}");
            }
        }
    }
}

#[test]
fn banner_and_time_line_match_rt_tests() {
    let env = Env::new();
    let out = env.ok(&["hackbench", "-g", "2", "-f", "3", "-l", "10", "--no-store"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "Running in process mode with 2 groups using 6 file descriptors each (== 12 tasks)"
    );
    assert_eq!(lines[1], "Each sender will pass 10 messages of 100 bytes");
    let t = lines[2].strip_prefix("Time: ").expect("Time: line");
    let (s, ms) = t.split_once('.').unwrap();
    assert!(
        s.parse::<u64>().is_ok() && ms.len() == 3 && ms.parse::<u64>().is_ok(),
        "{t}"
    );
    let out = env.ok(&[
        "hackbench",
        "--threads",
        "--pipe",
        "--groups",
        "1",
        "--fds",
        "2",
        "--loops",
        "5",
        "--datasize",
        "64",
        "--no-store",
    ]);
    assert!(out.starts_with("Running in threaded mode with 1 groups using 4 file descriptors each (== 4 tasks)\nEach sender will pass 5 messages of 64 bytes\n"), "{out}");
}

#[test]
fn json_has_parameters_and_per_run_values() {
    let env = Env::new();
    let v = env.json(&[
        "hackbench",
        "-g",
        "1",
        "-f",
        "2",
        "-l",
        "20",
        "--runs",
        "3",
        "-P",
        "--no-store",
    ]);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["parameters"]["groups"], 1);
    assert_eq!(v["parameters"]["pipe"], false);
    assert_eq!(v["tasks"], 4);
    assert_eq!(v["messages"], 80);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    for r in runs {
        assert!(r["time_ns"].as_u64().unwrap() > 0);
        assert!(r["messages_per_s"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn cpus_pins_the_tasks() {
    let env = Env::new();
    let v = env.json(&["hackbench", "-g", "1", "-f", "1", "-l", "10", "--cpus", "0"]);
    let id = v["stored_ids"][0].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    assert_eq!(show["settings"]["affinity"], "0");
    assert_eq!(show["params"]["cpus"][0], 0);
}

#[test]
fn bad_input_is_exit_2_with_a_message() {
    let env = Env::new();
    for args in [
        &["hackbench", "-g", "0"][..],
        &["hackbench", "-f", "0"],
        &["hackbench", "-l", "-5"],
        &["hackbench", "-g", "many"],
        &["hackbench", "-s", "0"],
        &["hackbench", "-T", "-P"],
    ] {
        let err = env.fails(args, 2);
        assert!(err.contains("error:"), "{args:?}: {err}");
    }
    let err = env.fails(&["hackbench", "--cpus", "0,4000"], 2);
    assert!(err.contains("4000") && err.contains("not online"), "{err}");
    let err = env.fails(&["hackbench", "--cpus", "3-1"], 2);
    assert!(err.contains("backwards"), "{err}");
    assert!(!env.db().exists(), "nothing stored for bad input");
}

#[test]
fn too_many_fds_is_refused_before_starting() {
    // Lower the fd limit (soft and hard) for this one kbench only.
    let script = format!(
        "ulimit -Hn 256; ulimit -Sn 256; exec {} hackbench -T -g 100 -f 100 -l 1 --no-store",
        env!("CARGO_BIN_EXE_kbench")
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("open files") && err.contains("ulimit -n"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Time:"));
}

fn start_long(env: &Env, extra: &[&str]) -> std::process::Child {
    env.cmd()
        .args([
            "hackbench",
            "-g",
            "2",
            "-f",
            "2",
            "-l",
            "100000000",
            "--no-store",
        ])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_killed_worker_fails_the_run_and_stops_the_rest() {
    let env = Env::new();
    let kb = start_long(&env, &[]);
    assert!(
        wait_for(30, || children(kb.id()).len() == 8),
        "workers started"
    );
    let kids = children(kb.id());
    unsafe { libc::kill(kids[3] as i32, libc::SIGKILL) };
    let out = kb.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("died") && err.contains("signal 9"), "{err}");
    assert!(
        wait_for(10, || kids.iter().all(|&p| !alive(p))),
        "no stray worker"
    );
}

#[test]
fn ctrl_c_stops_every_task() {
    let env = Env::new();
    for extra in [&[][..], &["-T"][..]] {
        let kb = start_long(&env, extra);
        let pid = kb.id();
        assert!(
            wait_for(30, || std::fs::read_to_string(format!(
                "/proc/{pid}/status"
            ))
            .map(|s| s.contains("Threads:\t9") || children(pid).len() == 8)
            .unwrap_or(false)),
            "workers started"
        );
        let kids = children(pid);
        std::thread::sleep(std::time::Duration::from_millis(200));
        interrupt(kb);
        assert!(
            wait_for(10, || kids.iter().all(|&p| !alive(p))),
            "no stray worker"
        );
    }
}

#[test]
fn killing_the_parent_takes_the_workers_with_it() {
    let env = Env::new();
    let mut kb = start_long(&env, &[]);
    assert!(wait_for(30, || children(kb.id()).len() == 8));
    let kids = children(kb.id());
    kb.kill().unwrap();
    kb.wait().unwrap();
    assert!(
        wait_for(10, || kids.iter().all(|&p| !alive(p))),
        "workers outlived a killed parent"
    );
}

/// More messages than a count holds (loops x fds x fds x groups past
/// 2^53) is refused at once with exit 2: it wrapped before (a panic in a
/// debug build, "a write failed" in a release one).
#[test]
fn loops_past_what_a_count_holds_are_refused() {
    let env = Env::new();
    for l in ["18446744073709551615", "4503599627370496"] {
        let out = env.run(&["hackbench", "--no-store", "-g", "100", "-l", l]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "-l {l}: {err}");
        assert!(err.contains("more than 2^53 messages"), "-l {l}: {err}");
    }
}
