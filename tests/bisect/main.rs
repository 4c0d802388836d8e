//! `kbench bisect` and `kbench decide` on a real git repository of a
//! small C program, one of whose commits doubles its work.  A
//! test binary of its own, its tests one at a time: a bisection's
//! decisions are only as quick as the runs are steady, and other tests
//! beside it would make them noisier (never wrong: the tests assert
//! which commit is named, never a time).

#[path = "../common/mod.rs"]
mod common;

use common::{wait_for, Env};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

static ONE: Mutex<()> = Mutex::new(());

fn one() -> MutexGuard<'static, ()> {
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Loops of the program before and from the slow commit on: twice as
/// many, so a run of some 50 ms that a host's bursts of steal stretch by
/// 40 % (seen here) still tells the two apart within the cap, and the
/// stored labels of `decide` stay apart across the machine's drift
/// between batches (15-30 %).  (A 25 % change failed both ways on such a
/// host, with the code of the time as with the new.)
const FAST: u64 = 40_000_000;
const SLOW: u64 = 80_000_000;

fn sh(dir: &Path, script: &str) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository of 16 commits; from commit `slow` on the work is
/// doubled; commit `broken` (if any) does not build.  Each commit also adds
/// a file of its own, so reverting one applies cleanly on the last.
fn repo(root: &Path, slow: usize, broken: Option<usize>) -> PathBuf {
    let r = root.join("repo");
    std::fs::create_dir_all(&r).unwrap();
    sh(
        &r,
        "git init -q . && git config user.email t@example.com && git config user.name t",
    );
    std::fs::write(
        r.join("Makefile"),
        "prog: prog.c work.h\n\tcc -O1 -o prog prog.c\n",
    )
    .unwrap();
    std::fs::write(
        r.join("prog.c"),
        "#include \"work.h\"\n#include <stdio.h>\nint main(void) { volatile unsigned long x = 0;\n  for (unsigned long i = 0; i < WORK; i++) x += i ^ (x >> 3);\n  printf(\"%lu\\n\", (unsigned long)x); return 0; }\n",
    )
    .unwrap();
    for i in 1..=16 {
        let work = if i >= slow { SLOW } else { FAST };
        let body = if Some(i) == broken {
            format!("#define WORK {work}\n#error this commit does not build\n")
        } else {
            format!("#define WORK {work}\n")
        };
        std::fs::write(r.join("work.h"), body).unwrap();
        std::fs::write(r.join(format!("note-{i}.txt")), format!("commit {i}\n")).unwrap();
        let subject = if i == slow {
            format!("change {i} (slower)")
        } else {
            format!("change {i}")
        };
        sh(&r, &format!("git add -A && git commit -qm '{subject}'"));
    }
    r
}

fn short(repo: &Path, rev: &str) -> String {
    let out = Command::new("git")
        .args(["-C", repo.to_str().unwrap(), "rev-parse", "--short", rev])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn have_tools() -> bool {
    let ok = common::which("git") && common::which("cc") && common::which("make");
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have git, cc and make"
        );
        eprintln!("skipped: no git, cc or make here");
    }
    ok
}

struct Bisect {
    env: Env,
    tmp: tempfile::TempDir,
}

impl Bisect {
    fn new() -> Bisect {
        Bisect {
            env: Env::new(),
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = self.env.cmd();
        c.env("TMPDIR", self.tmp.path()).args(args);
        c
    }

    /// The bisection of `r` started in the background.
    fn spawn(&self, r: &Path) -> std::process::Child {
        self.cmd(&strs(&Bisect::args(r)))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// `bisect --log --json`, once there is a bisection to log.
    fn log(&self) -> Option<serde_json::Value> {
        let o = self.cmd(&["bisect", "--log", "--json"]).output().unwrap();
        serde_json::from_slice(&o.stdout).ok()
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let o = self.cmd(args).output().unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into(),
            String::from_utf8_lossy(&o.stderr).into(),
        )
    }

    /// `bisect` over the range of `repo` measuring its `./prog`.
    fn args(repo: &Path) -> Vec<String> {
        let d = repo.display().to_string();
        [
            "bisect",
            "--repo",
            &d,
            "--good",
            "HEAD~15",
            "--bad",
            "HEAD",
            "--build",
            "make",
            "--seed",
            "7",
            "--",
            "job",
            "--job-cmd",
            "./prog",
            "--job-dir",
            &d,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }
}

/// The work trees a bisection has in the scratch folders under `tmp` now.
fn trees(tmp: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(tmp)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("kbench-bisect-")
        })
        .flat_map(|e| std::fs::read_dir(e.path()).into_iter().flatten().flatten())
        .filter(|e| e.file_name().to_string_lossy().starts_with("tree-"))
        .map(|e| e.path())
        .collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The issue's own case: the slow commit is named, confirmed against its
/// parent with its change and interval, its revert tried on the bad end,
/// and the error is stated at the start and the end.
#[test]
fn a_bisection_names_the_slow_commit_and_confirms_it() {
    if !have_tools() {
        return;
    }
    let _l = one();
    let b = Bisect::new();
    let r = repo(b.env.dir.path(), 9, None);
    // Work trees are freed as the bracket narrows: at most the two ends,
    // the bracket's two and the one being built (or the revert's) at once,
    // where keeping every candidate's would reach seven here.
    let done = std::sync::atomic::AtomicBool::new(false);
    let (code, out, err, most) = std::thread::scope(|sc| {
        let watch = sc.spawn(|| {
            let mut most = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(trees(b.tmp.path()).len());
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            most
        });
        let (code, out, err) = b.run(&strs(&Bisect::args(&r)));
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        (code, out, err, watch.join().unwrap())
    });
    assert_eq!(code, 0, "{err}\n{out}");
    assert!((3..=5).contains(&most), "{most} work trees at once");
    let culprit = short(&r, "HEAD~7");
    assert!(
        out.starts_with(&format!("culprit: {culprit} change 9 (slower)")),
        "{out}\n{err}"
    );
    assert!(
        out.contains("time: +")
            && out.contains("against its parent")
            && out.contains("[95 % interval +"),
        "{out}"
    );
    assert!(
        out.contains("reverting it on the bad end makes it better again"),
        "{out}\n{err}"
    );
    let promise = "the chance that this bisection names a culprit that is not worse than its parent is at most 0.05";
    let flat = |t: &str| t.replace("\n  ", " ");
    assert!(
        flat(&err).contains(promise) && flat(&out).contains(promise),
        "stated at the start and the end:\n{err}\n{out}"
    );
    // The user's checkout is as it was, and nothing is left behind.
    let trees = Command::new("git")
        .args(["-C", r.to_str().unwrap(), "worktree", "list"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&trees.stdout).lines().count(), 1);
    assert!(
        common::walk(b.tmp.path()).is_empty(),
        "{:?}",
        common::walk(b.tmp.path())
    );
    // The log shows every decision.
    let (code, log, _) = b.run(&["bisect", "--log"]);
    assert_eq!(code, 0);
    for step in [
        "ends",
        "candidate",
        "confirm",
        "revert",
        "the good end",
        "the bad end",
    ] {
        assert!(log.contains(step), "{step} missing from the log:\n{log}");
    }
}

/// The slow commit does not build: it is skipped, and the result says
/// the culprit lies among the skipped and its neighbour, the span
/// confirmed afresh (here with `--fresh-ends`, end to end).
#[test]
fn a_culprit_that_does_not_build_is_among_the_suspects() {
    if !have_tools() {
        return;
    }
    let _l = one();
    let b = Bisect::new();
    let r = repo(b.env.dir.path(), 9, Some(9));
    // With --fresh-ends: both ends beside every candidate.
    let mut args = Bisect::args(&r);
    args.insert(1, "--fresh-ends".into());
    let (code, out, err) = b.run(&strs(&args));
    assert_eq!(code, 0, "{err}\n{out}");
    assert!(
        out.starts_with("the culprit lies among these"),
        "{out}\n{err}"
    );
    // The span is confirmed afresh: its first bad one against its last good.
    assert!(!out.contains("a lead, not a verdict"), "{out}");
    let log = b.log().unwrap();
    assert_eq!(log["state"]["fresh_ends"], true, "{log}");
    let steps = log["state"]["steps"].as_array().unwrap();
    assert_eq!(steps.last().unwrap()["kind"], "confirm", "{log}");
    let nine = short(&r, "HEAD~7");
    let ten = short(&r, "HEAD~6");
    assert!(
        out.contains(&format!("{nine} change 9 (slower) (skipped: `make` failed")),
        "{out}"
    );
    assert!(out.contains(&format!("{ten} change 10")), "{out}");
    assert!(err.contains("skipped"), "{err}");
}

/// Ctrl-C once the ends are decided; `--resume` goes on from the store
/// and names the same commit.
#[test]
fn ctrl_c_and_resume_end_at_the_same_culprit() {
    if !have_tools() {
        return;
    }
    let _l = one();
    let b = Bisect::new();
    let r = repo(b.env.dir.path(), 9, None);
    let kb = b.spawn(&r);
    let decided = || {
        b.log()
            .and_then(|v| v["state"]["steps"].as_array().map(|s| s.len()))
            .is_some_and(|n| n >= 2)
    };
    assert!(wait_for(300, decided), "the ends were never decided");
    let out = common::interrupt(kb);
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    let (code, log, _) = b.run(&["bisect", "--log"]);
    assert_eq!(code, 0);
    assert!(log.contains("unfinished: `kbench bisect --resume"), "{log}");
    // A range rewritten meanwhile is refused, not closed with exit 0.
    sh(&r, "git commit -q --amend -m 'change 16, amended'");
    let (code, _, err) = b.run(&["bisect", "--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("it was rewritten"), "{err}");
    sh(&r, "git reset -q --hard 'HEAD@{1}'");
    let (code, out, err) = b.run(&["bisect", "--resume"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!("culprit: {} change 9", short(&r, "HEAD~7"))),
        "{out}\n{err}"
    );
    assert!(common::walk(b.tmp.path()).is_empty());
}

/// `kbench decide` against stored good and bad labels: 0, 1 and 125 as
/// `git bisect run` reads them; its own failures exit 128.
#[test]
fn decide_exits_0_1_and_125() {
    if !have_tools() {
        return;
    }
    let _l = one();
    let b = Bisect::new();
    let r = repo(b.env.dir.path(), 9, None);
    sh(&r, "git worktree add -q --detach ../fast HEAD~15 && git worktree add -q --detach ../slow HEAD && make -s -C ../fast && make -s -C ../slow");
    let fast = b.env.dir.path().join("fast/prog").display().to_string();
    let slow = b.env.dir.path().join("slow/prog").display().to_string();
    // 24 runs an end, so a candidate may take 24 units (decide's cap is
    // what the ends have): this host's stalls tripled a few of a dozen
    // 40 ms runs at times (the ends then varied by 60 %), and 12 units a
    // side left the slow candidate at "cannot tell", which its message
    // said 24 would decide.
    for (label, prog) in [("good", &fast), ("bad", &slow)] {
        let (code, _, err) = b.run(&["--label", label, "job", "--job-cmd", prog, "--runs", "24"]);
        assert_eq!(code, 0, "{err}");
    }
    let decide = |prog: &str, extra: &[&str]| {
        let mut a = vec!["decide", "--good", "good", "--bad", "bad"];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["--", "job", "--job-cmd", prog]);
        b.run(&a)
    };
    let (code, _, err) = decide(&fast, &[]);
    assert_eq!(code, 0, "a good candidate: {err}");
    let (code, _, err) = decide(&slow, &[]);
    assert_eq!(code, 1, "a bad candidate: {err}");
    // Three runs a side can never reach the test's level: cannot tell.
    let (code, _, err) = decide(&slow, &["--max-runs", "3"]);
    assert_eq!(code, 125, "{err}");
    assert!(err.contains("cannot tell"), "{err}");
    // Its own failures stop git bisect run instead of marking "bad".
    let (code, _, err) = b.run(&[
        "decide",
        "--good",
        "nosuch",
        "--bad",
        "bad",
        "--",
        "job",
        "--job-cmd",
        &fast,
    ]);
    assert_eq!(code, 128, "{err}");
    assert!(
        err.contains("no complete runs under label 'nosuch'"),
        "{err}"
    );
    let (code, _, _) = b.run(&["decide", "--good", "good", "--bda", "bad"]);
    assert_eq!(code, 128, "a typo in decide's flags");
}

/// The plan before anything is built, and what is refused.
#[test]
fn the_plan_and_the_refusals() {
    if !have_tools() {
        return;
    }
    let b = Bisect::new();
    let r = repo(b.env.dir.path(), 9, None);
    let mut a = Bisect::args(&r);
    a.insert(1, "--dry-run".into());
    let (code, out, err) = b.run(&strs(&a));
    assert_eq!(code, 0, "{err}");
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("16 candidates") && flat.contains("units in the worst case"),
        "{out}"
    );
    assert!(
        out.contains("change 9 (slower)"),
        "every candidate is listed: {out}"
    );
    assert!(!b.env.db().exists(), "a dry run stores nothing");
    let d = r.display().to_string();
    let refused = |args: &[&str], says: &str| {
        let (code, _, err) = b.run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    };
    refused(
        &[
            "bisect",
            "--repo",
            &d,
            "--good",
            "HEAD",
            "--bad",
            "HEAD~3",
            "--build",
            "make",
            "--",
            "job",
            "--job-cmd",
            "x",
        ],
        "is not an ancestor",
    );
    refused(
        &[
            "bisect",
            "--repo",
            &d,
            "--good",
            "nosuch",
            "--bad",
            "HEAD",
            "--build",
            "make",
            "--",
            "job",
            "--job-cmd",
            "x",
        ],
        "no commit 'nosuch'",
    );
    refused(
        &[
            "bisect",
            "--repo",
            "/",
            "--good",
            "a",
            "--bad",
            "b",
            "--build",
            "make",
            "--",
            "job",
            "--job-cmd",
            "x",
        ],
        "not a git repository",
    );
    refused(
        &[
            "bisect", "--repo", &d, "--good", "HEAD~3", "--bad", "HEAD", "--build", "make",
        ],
        "give the kbench command",
    );
    refused(
        &[
            "bisect",
            "--repo",
            &d,
            "--good",
            "HEAD~3",
            "--bad",
            "HEAD",
            "--build",
            "make",
            "--metric",
            "x:sideways",
            "--",
            "job",
        ],
        "lower or higher",
    );
    refused(&["bisect", "--resume"], "no result store");
}

/// decide exits only 0, 1, 125 or 128, whatever its stderr is: a closed
/// pipe used to make every call exit 0 ("good": git marks the commit
/// good), the verdict or the failure whatever it was.  Ends that do not
/// differ or are swapped, and `--help`, are never a verdict.
#[test]
fn decide_exits_only_its_codes() {
    use std::os::fd::{FromRawFd, OwnedFd};
    let b = Bisect::new();
    for (label, v) in [("good", 10.0), ("bad", 13.0), ("same", 10.0)] {
        for k in 0..6 {
            let x = (v * (1.0 + 0.01 * f64::from(k % 3))).to_string();
            let (code, _, err) = b.run(&["--label", label, "testbench", "--value", &x]);
            assert_eq!(code, 0, "{err}");
        }
    }
    // A pipe whose reader is gone: every write to it is EPIPE.
    let closed = || {
        let mut fds = [0; 2];
        // SAFETY: pipe writes two new descriptors into the array.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both were just opened and are owned here alone.
        let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        drop(r);
        std::process::Stdio::from(w)
    };
    let decide = |good: &str, bad: &str, value: &str, stderr_closed: bool| {
        let mut c = b.cmd(&[
            "decide",
            "--good",
            good,
            "--bad",
            bad,
            "--",
            "testbench",
            "--value",
            value,
        ]);
        c.stdout(std::process::Stdio::null());
        if stderr_closed {
            c.stderr(closed());
        } else {
            c.stderr(std::process::Stdio::piped());
        }
        let o = c.output().unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    for closed_err in [false, true] {
        assert_eq!(
            decide("good", "bad", "10.1", closed_err).0,
            0,
            "closed: {closed_err}"
        );
        assert_eq!(
            decide("good", "bad", "13.1", closed_err).0,
            1,
            "closed: {closed_err}"
        );
        assert_eq!(
            decide("nosuch", "bad", "10", closed_err).0,
            128,
            "closed: {closed_err}"
        );
        assert_eq!(
            decide("bad", "good", "10", closed_err).0,
            128,
            "swapped, closed: {closed_err}"
        );
        assert_eq!(
            decide("good", "same", "10", closed_err).0,
            128,
            "alike, closed: {closed_err}"
        );
    }
    let (_, err) = decide("bad", "good", "10", false);
    assert!(err.contains("are the ends swapped?"), "{err}");
    let (_, err) = decide("good", "same", "10", false);
    assert!(err.contains("nothing to decide"), "{err}");
    let (_, err) = decide("good", "bad", "10.1", false);
    assert!(
        err.contains("half their gap"),
        "the tolerance is said: {err}"
    );
    let (code, out, _) = b.run(&["decide", "--help"]);
    assert_eq!(code, 128, "help is not a verdict");
    assert!(out.contains("--steps"), "{out}");
}

/// A bisection that is running is never taken over by `--resume`: both
/// would drive it.
#[test]
fn resume_leaves_a_running_bisection_alone() {
    if !have_tools() {
        return;
    }
    let _l = one();
    let b = Bisect::new();
    let r = repo(b.env.dir.path(), 9, None);
    let kb = b.spawn(&r);
    let started = || b.log().is_some_and(|v| v["plan"]["id"].is_string());
    assert!(wait_for(300, started), "the bisection never saved its plan");
    let (code, _, err) = b.run(&["bisect", "--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("being driven by another kbench"), "{err}");
    let out = common::interrupt(kb);
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
}

/// `bisect --resume` runs a stored plan's build command: never from a
/// store another user owns.
#[test]
fn resume_runs_nothing_from_a_store_others_own() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to give the store to another user");
        return;
    }
    let b = Bisect::new();
    b.env.ok(&["--label", "x", "testbench"]);
    std::os::unix::fs::chown(b.env.db(), Some(65534), None).unwrap();
    let (code, _, err) = b.run(&["bisect", "--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("runs no command from this store"), "{err}");
    assert!(err.contains("belongs to user 65534"), "{err}");
}

/// Under sudo, git and the build run as the user who ran kbench (M5): a
/// bisection killed in its first build leaves nothing of root's in their
/// repository, and their next `git worktree add` works; no hook of the
/// repository runs.  A worktree of
/// theirs that is away keeps its registration (M6: kbench forgets only
/// its own).
#[test]
fn git_runs_as_the_sudo_user_and_forgets_only_its_own_worktrees() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::process::CommandExt;
    if !have_tools() || unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root (to stand for sudo's user)");
        return;
    }
    const USER: u32 = 65534;
    let _l = one();
    let b = Bisect::new();
    // The user reaches their repository and kbench's scratch folder.
    for d in [b.env.dir.path(), b.tmp.path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let r = repo(b.env.dir.path(), 9, None);
    sh(
        &r,
        "git worktree add -q --detach ../away HEAD~1 && mv ../away ../away.moved",
    );
    let home = b.env.dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    // A hook in the repository never runs (git's `worktree add` would
    // run post-checkout).
    let marker = b.env.dir.path().join("home/hook-ran");
    let hook = r.join(".git/hooks/post-checkout");
    std::fs::write(&hook, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    sh(
        b.env.dir.path(),
        &format!("chown -R {USER}:{USER} repo away.moved home"),
    );
    let as_user = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(&r)
            .args(args)
            .uid(USER)
            .gid(USER)
            .env("HOME", &home)
            .output()
            .unwrap()
    };

    let mut args = Bisect::args(&r);
    let build = args.iter().position(|a| a == "make").unwrap();
    args[build] = "make && sleep 120".into();
    let mut kb = b
        .cmd(&strs(&args))
        .env("SUDO_UID", USER.to_string())
        .env("SUDO_GID", USER.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let tree = || trees(b.tmp.path()).into_iter().next();
    let built = || tree().is_some_and(|t| t.join("prog").exists());
    assert!(wait_for(300, built), "no build began");
    let t = tree().unwrap();
    assert_eq!(
        std::fs::metadata(&t).unwrap().uid(),
        USER,
        "the tree is the user's"
    );
    assert_eq!(
        std::fs::metadata(t.join("prog")).unwrap().uid(),
        USER,
        "the build ran as the user"
    );
    kb.kill().unwrap();
    kb.wait().unwrap();
    assert!(!marker.exists(), "the repository's hook ran");

    // Nothing of root's in the repository.
    let out = Command::new("find")
        .arg(&r)
        .args(["-uid", "0"])
        .output()
        .unwrap();
    let roots = String::from_utf8_lossy(&out.stdout);
    assert!(
        roots.trim().is_empty(),
        "root-owned in the repository:\n{roots}"
    );
    let add = as_user(&["worktree", "add", "-q", "--detach", "../home/mine", "HEAD"]);
    assert!(add.status.success(), "{add:?}");
    assert!(marker.exists(), "the hook works: git runs it for the user");
    // Without sudo, root is told why git will not read another user's
    // repository (it said "not a git work tree").
    let (code, _, err) = b.run(&strs(&Bisect::args(&r)));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("dubious ownership"), "{err}");
    // Their worktree that is away is still registered.
    let list = as_user(&["worktree", "list", "--porcelain"]);
    assert!(
        String::from_utf8_lossy(&list.stdout).contains("/away\n"),
        "{list:?}"
    );
}

/// A user and a group made for a test, removed when dropped.
struct Account {
    user: &'static str,
    group: &'static str,
}

impl Account {
    /// `user`, primary group nogroup, in no other group yet, and `group`
    /// (both left over by a killed test are made again).
    fn new(user: &'static str, group: &'static str) -> Account {
        let a = Account { user, group };
        a.remove();
        sh(Path::new("/"), &format!("groupadd --system {group}"));
        sh(
            Path::new("/"),
            &format!("useradd --system --no-create-home --home-dir /nonexistent --gid 65534 --shell /usr/sbin/nologin {user}"),
        );
        a
    }

    fn id(&self, what: &str) -> u32 {
        let out = Command::new("id")
            .arg(what)
            .arg(self.user)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    }

    fn remove(&self) {
        for c in [
            format!("userdel {}", self.user),
            format!("groupdel {}", self.group),
        ] {
            let _ = Command::new("sh")
                .arg("-c")
                .arg(format!("{c} 2>/dev/null"))
                .status();
        }
    }
}

impl Drop for Account {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Under sudo, a repository its user reaches only through a
/// supplementary group (its folder's parent is `root:GROUP 0750`) is
/// bisected: git and the first build run as the user with their groups.
/// Out of the group, the same command stops with one line saying git
/// could not read it, and builds nothing.
#[test]
fn a_repository_reached_through_a_group_is_bisected_under_sudo() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if !have_tools() || unsafe { libc::geteuid() } != 0 || !common::which("useradd") {
        eprintln!("skipped: needs root and useradd (to make the user and group sudo stands for)");
        return;
    }
    let _l = one();
    let acct = Account::new("kbench-t-reach", "kbench-t-gate");
    let (uid, gid) = (acct.id("-u"), acct.id("-g"));
    let b = Bisect::new();
    for d in [b.env.dir.path(), b.tmp.path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let gate = b.env.dir.path().join("gate");
    std::fs::create_dir(&gate).unwrap();
    let r = repo(&gate, 9, None);
    sh(
        &gate,
        &format!(
            "chown -R {uid}:{gid} repo && chown root:{} . && chmod 0750 .",
            acct.group
        ),
    );
    let sudo = |b: &Bisect| {
        b.cmd(&strs(&Bisect::args(&r)))
            .env("SUDO_UID", uid.to_string())
            .env("SUDO_GID", gid.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Out of the group: git cannot reach the repository, and says so.
    let out = sudo(&b).wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(trees(b.tmp.path()).is_empty(), "a tree was made");
    eprintln!("out of the group: {}", err.trim());
    // In it: the bisection reaches the repository and builds as the user.
    sh(
        Path::new("/"),
        &format!("usermod -a -G {} {}", acct.group, acct.user),
    );
    let mut kb = sudo(&b);
    let tree = || trees(b.tmp.path()).into_iter().next();
    let built = || tree().is_some_and(|t| t.join("prog").exists());
    let ok = wait_for(300, built);
    // Read before the kill: its janitor then removes the tree.
    let owner = tree().and_then(|t| std::fs::metadata(t.join("prog")).ok().map(|m| m.uid()));
    let _ = kb.kill();
    let out = kb.wait_with_output().unwrap();
    assert!(
        ok,
        "no build began: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(owner, Some(uid), "the build ran as the user");
}

/// Unmounts a test's tmpfs, whatever the test does.
struct Unmount(PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A scratch filesystem without room for a work tree (a 64 MiB tmpfs,
/// under the 1 GiB kept spare): the bisection says so and builds nothing,
/// rather than fill the disk.
#[test]
fn no_room_for_a_work_tree_is_said_not_filled() {
    if !have_tools() || unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root (to mount a small tmpfs)");
        return;
    }
    let _l = one();
    let b = Bisect::new();
    let r = repo(b.env.dir.path(), 9, None);
    let small = b.env.dir.path().join("small");
    std::fs::create_dir(&small).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64m", "tmpfs"])
        .arg(&small)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mount a tmpfs");
    let _umount = Unmount(small.clone());
    let o = b
        .env
        .cmd()
        .env("TMPDIR", &small)
        .args(strs(&Bisect::args(&r)))
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(all.contains("no room for another work tree"), "{all}");
    assert!(
        common::walk(&small).is_empty(),
        "{:?}",
        common::walk(&small)
    );
}

/// A bisection in a real terminal of 80 columns, as a person runs it: its
/// progress and its report fit, no colour escape is spelled out as text,
/// and it names the culprit.
#[test]
fn a_bisection_on_a_terminal_fits_and_spells_out_no_escape() {
    if !have_tools() {
        return;
    }
    let _l = one();
    let b = Bisect::new();
    let r = repo(b.env.dir.path(), 9, None);
    let mut c = b.cmd(&strs(&Bisect::args(&r)));
    c.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    let s = common::pty::run(c, 80);
    assert_eq!(s.code, 0, "{}", s.plain());
    assert!(!s.escapes_as_text(), "{}", s.bytes);
    let widest = s
        .lines()
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    assert!(widest <= 80, "a line of {widest} columns:\n{}", s.plain());
    assert!(s.plain().contains("culprit: "), "{}", s.plain());
}
