//! `track --follow` where its users run it: a git repository of a small
//! C program with a nightly series measured at 14 of its 16 commits, the
//! closed loop run as a person would, from change point to culprit.  Its
//! own test binary: one case measures its nightlies beside two CPU hogs,
//! which must not fall on other tests' runs.

#[path = "../common/mod.rs"]
mod common;

use common::Env;
use std::path::Path;
use std::process::{Command, Stdio};

fn git(dir: &Path, args: &[&str]) {
    let st = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.email=k@b", "-c", "user.name=kbench"])
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "git {args:?}");
}

/// A repository whose commit "rev 10" makes the program's work 25 %
/// slower (`slower`), or leaves it alone; each commit tagged n01..n16.
fn repository(root: &Path, slower: bool) -> std::path::PathBuf {
    let repo = root.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(
        repo.join("Makefile"),
        "prog: prog.c\n\tcc -O1 -o prog prog.c\n",
    )
    .unwrap();
    for i in 1..=16 {
        let n: u64 = if slower && i >= 10 {
            150_000_000
        } else {
            120_000_000
        };
        std::fs::write(
            repo.join("prog.c"),
            format!("/* revision {i} */\n#include <stdio.h>\nint main(void) {{ volatile unsigned long x = 0; for (unsigned long i = 0; i < {n}UL; i++) x += i ^ (x >> 3); printf(\"%lu\\n\", x & 1); return 0; }}\n"),
        )
        .unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-qm", &format!("rev {i}")]);
        git(&repo, &["tag", &format!("n{i:02}")]);
    }
    repo
}

/// Two CPU hogs, ended when dropped.
struct Hogs(Vec<std::process::Child>);

impl Drop for Hogs {
    fn drop(&mut self) {
        for h in &mut self.0 {
            let _ = h.kill();
            let _ = h.wait();
        }
    }
}

/// The nightlies (every commit but 9 and 10), 5 runs each; from n11 on
/// beside two CPU hogs when `busy`.  Their labels, in order.
fn nightlies(env: &Env, repo: &Path, busy: bool) -> Vec<String> {
    let mut labels = Vec::new();
    let mut hogs = Hogs(Vec::new());
    for i in (1..=16).filter(|i| *i != 9 && *i != 10) {
        let l = format!("n{i:02}");
        let tree = env.dir.path().join(format!("t-{l}"));
        git(
            repo,
            &[
                "worktree",
                "add",
                "-q",
                "--detach",
                tree.to_str().unwrap(),
                &l,
            ],
        );
        let made = Command::new("make")
            .arg("-s")
            .current_dir(&tree)
            .status()
            .unwrap();
        assert!(made.success());
        if busy && i >= 11 && hogs.0.is_empty() {
            for _ in 0..2 {
                hogs.0.push(
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .unwrap(),
                );
            }
        }
        let out = env
            .cmd()
            .current_dir(&tree)
            .args([
                "-q",
                "--label",
                &l,
                "job",
                "--job-cmd",
                "./prog",
                "--runs",
                "5",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        labels.push(l);
    }
    labels
}

/// The issue's command line (`extra` flags after `--follow`).
fn follow_cmd(env: &Env, repo: &Path, labels: &[String], extra: &[&str]) -> Command {
    let mut c = env.cmd();
    c.arg("--json");
    for l in labels {
        c.args(["--label", l]);
    }
    c.args(["track", "--order", "given", "--follow", "--repo"])
        .arg(repo)
        .args(["--build", "make -s", "--kcidb"])
        .arg(env.dir.path().join("kcidb.json"))
        .args(extra)
        .args(["--", "job", "--job-cmd", "./prog"]);
    c
}

/// The loop started, SIGKILLed once its third unit has ended; its id.
fn follow_killed(env: &Env, repo: &Path, labels: &[String]) -> String {
    use std::io::BufRead;
    let mut child = follow_cmd(env, repo, labels, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut id = String::new();
    let mut third = false;
    for l in std::io::BufReader::new(child.stderr.take().unwrap()).lines() {
        let l = l.unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&l).unwrap_or_else(|_| panic!("not an event: {l}"));
        if v["event"] == "planned" {
            id = v["id"].as_str().unwrap().to_string();
        }
        if v["event"] == "unit_ended" && v["number"] == 3 {
            third = true;
            break;
        }
    }
    assert!(
        third,
        "the loop ended before its third unit: its series showed no change point to follow (were the nightlies measured on a busy machine?)"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!id.is_empty());
    id
}

/// The loop, as the issue's command line (with `extra` flags): its JSON
/// document and the KCIDB file's path.
fn follow(
    env: &Env,
    repo: &Path,
    labels: &[String],
    extra: &[&str],
) -> (serde_json::Value, std::path::PathBuf) {
    let kcidb = env.dir.path().join("kcidb.json");
    let started = std::time::Instant::now();
    let out = follow_cmd(env, repo, labels, extra).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for l in String::from_utf8_lossy(&out.stderr).lines() {
        let v: serde_json::Value =
            serde_json::from_str(l).unwrap_or_else(|_| panic!("not an event: {l}"));
        assert!(v["event"].is_string(), "{l}");
    }
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!(
        "the loop took {:.0} s, {} units measured again",
        started.elapsed().as_secs_f64(),
        doc["units_measured_again"]
    );
    (doc, kcidb)
}

#[test]
fn a_nightly_regression_is_followed_to_its_culprit_and_a_busy_machine_is_not() {
    if !common::which("cc") || !common::which("make") || !common::which("git") {
        panic!("the follow test needs cc, make and git");
    }
    // The code got slower at rev 10.
    let env = Env::new();
    let repo = repository(env.dir.path(), true);
    let labels = nightlies(&env, &repo, false);
    assert_eq!(labels.len(), 14);
    // Killed during its re-measure, it is taken up where it was.
    let id = follow_killed(&env, &repo, &labels);
    let (doc, kcidb) = follow(&env, &repo, &labels, &["--resume", &id]);
    assert_eq!(doc["id"], id.as_str());
    assert_eq!(doc["units_measured_again"], 10, "{doc:#}");
    let points = doc["follow"].as_array().unwrap();
    let p = points
        .iter()
        .find(|p| p["between"] == serde_json::json!(["n08", "n11"]))
        .unwrap_or_else(|| {
            let found: Vec<_> = points.iter().map(|p| p["between"].clone()).collect();
            panic!("no change point between n08 and n11 (found {found:?}); on a machine this busy the series itself may be too noisy: {doc:#}")
        });
    assert_eq!(p["held"], true, "{p:#}");
    let c = &p["culprit"];
    assert_eq!(c["subject"], "rev 10", "{p:#}");
    assert_eq!(c["confirmed"], true, "{p:#}");
    let change = c["change_pct"].as_f64().unwrap();
    assert!((15.0..35.0).contains(&change), "{change}");
    let explained = p["explanation"].as_array().unwrap();
    assert!(
        explained
            .iter()
            .any(|e| e["metric"] == "time" && e["verdict"] == "worse"),
        "{p:#}"
    );
    match common::kcidb::python() {
        Ok(py) => {
            let (issues, incidents) = common::kcidb::validate(&py, &kcidb).unwrap();
            assert_eq!(issues, 1);
            assert!(incidents >= 2, "{incidents}");
            let k: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&kcidb).unwrap()).unwrap();
            assert_eq!(k["issues"][0]["culprit"]["code"], true);
            assert!(k["incidents"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i["present"] == true));
        }
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must validate KCIDB: {why}"
            );
            eprintln!("skipped: KCIDB's validator: {why}");
        }
    }

    // The code never changed; the later nightlies ran on a busy machine.
    let env = Env::new();
    let repo = repository(env.dir.path(), false);
    let labels = nightlies(&env, &repo, true);
    let (doc, _) = follow(&env, &repo, &labels, &[]);
    let points = doc["follow"].as_array().unwrap();
    assert!(
        !points.is_empty(),
        "the busy nightlies make a change point: {doc:#}"
    );
    for p in points {
        assert_eq!(p["held"], false, "{p:#}");
        assert!(p["culprit"].is_null() && p["bisection"].is_null(), "{p:#}");
        assert!(p["explanation"].as_array().unwrap().is_empty());
    }
}
