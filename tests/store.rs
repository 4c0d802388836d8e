//! The result store through the CLI: round trip, concurrent writers, bad
//! store files, run listing and deletion.

use crate::common::Env;

fn quick_hackbench(env: &Env, runs: &str) -> serde_json::Value {
    env.json(&[
        "hackbench",
        "-g",
        "1",
        "-f",
        "2",
        "-l",
        "50",
        "--runs",
        runs,
        "--label",
        "test-kernel",
    ])
}

#[test]
fn runs_round_trip_through_the_store() {
    let env = Env::new();
    let v = quick_hackbench(&env, "2");
    let ids = v["stored_ids"].as_array().unwrap();
    assert_eq!(ids.len(), 2);
    let list = env.json(&["runs", "list"]);
    let runs = list["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["label"], "test-kernel");
    assert_eq!(runs[0]["benchmark"], "hackbench");
    assert_eq!(runs[0]["status"], "complete");
    let id = ids[0].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    assert_eq!(show["params"]["groups"], 1);
    assert_eq!(show["params"]["fds"], 2);
    let metrics = show["metrics"].as_array().unwrap();
    let time = metrics.iter().find(|m| m["name"] == "time").unwrap();
    assert_eq!(time["unit"], "s");
    assert_eq!(time["better"], "lower");
    assert!(time["value"].as_f64().unwrap() > 0.0);
    let stored = v["runs"][0]["time_s"].as_f64().unwrap();
    assert!(
        (time["value"].as_f64().unwrap() - stored).abs() < 1e-12,
        "stored value equals the printed one"
    );
    assert!(show["fingerprint"]["id"].is_string());
    let text = env.ok(&["runs", "show", &id]);
    assert!(text.contains("messages_per_s"), "{text}");
    let labels = env.json(&["labels"]);
    assert_eq!(labels["labels"][0]["label"], "test-kernel");
    assert_eq!(labels["labels"][0]["runs"], 2);
}

#[test]
fn no_store_stores_nothing() {
    let env = Env::new();
    let v = env.json(&["hackbench", "-g", "1", "-f", "1", "-l", "10", "--no-store"]);
    assert!(v["stored_ids"].as_array().unwrap().is_empty());
    assert!(!env.db().exists());
}

#[test]
fn delete_asks_unless_yes() {
    let env = Env::new();
    let v = quick_hackbench(&env, "2");
    let id = v["stored_ids"][0].as_i64().unwrap().to_string();
    let err = env.fails(&["runs", "delete", &id], 2);
    assert!(err.contains("--yes"), "{err}");
    env.ok(&["runs", "delete", &id, "--yes"]);
    assert_eq!(
        env.json(&["runs", "list"])["runs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let err = env.fails(&["runs", "delete", &id, "--yes"], 2);
    assert!(err.contains(&format!("no run with id {id}")), "{err}");
    let err = env.fails(&["runs", "show", "999"], 2);
    assert!(err.contains("no run with id 999"), "{err}");
}

#[test]
fn concurrent_writers_lose_nothing() {
    let env = Env::new();
    let spawn = || {
        env.cmd()
            .args([
                "hackbench",
                "-g",
                "1",
                "-f",
                "1",
                "-l",
                "20",
                "--runs",
                "15",
                "-q",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let kids: Vec<_> = (0..3).map(|_| spawn()).collect();
    for k in kids {
        let out = k.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        env.json(&["runs", "list"])["runs"]
            .as_array()
            .unwrap()
            .len(),
        45
    );
}

#[test]
fn corrupt_store_is_refused_and_left_untouched() {
    let env = Env::new();
    let junk =
        b"this is not a database, just some bytes that a user put here by mistake".repeat(100);
    std::fs::write(env.db(), &junk).unwrap();
    let err = env.fails(&["hackbench", "-g", "1", "-f", "1", "-l", "1"], 2);
    assert!(
        err.contains(env.db().to_str().unwrap()),
        "names the path: {err}"
    );
    assert!(err.contains("not a readable SQLite database"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert_eq!(std::fs::read(env.db()).unwrap(), junk);
}

#[test]
fn newer_schema_is_refused_and_left_untouched() {
    let env = Env::new();
    one_run(&env, &["--label", "t"]);
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    drop(conn);
    let before = std::fs::read(env.db()).unwrap();
    let err = env.fails(&["hackbench", "-g", "1", "-f", "1", "-l", "1"], 2);
    assert!(err.contains("schema version 99"), "{err}");
    assert!(err.contains("upgrade kbench"), "{err}");
    assert_eq!(std::fs::read(env.db()).unwrap(), before);
}

#[test]
fn foreign_sqlite_database_is_refused() {
    let env = Env::new();
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.execute_batch("CREATE TABLE mine (x INTEGER); INSERT INTO mine VALUES (1);")
        .unwrap();
    drop(conn);
    let err = env.fails(&["runs", "list"], 2);
    assert!(err.contains("not a kbench result store"), "{err}");
}

#[test]
fn unwritable_store_path_is_one_clear_line() {
    let env = Env::new();
    let file = env.dir.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let bad = file.join("sub/results.db");
    let out = env
        .cmd()
        .env("KBENCH_DB", &bad)
        .args(["hackbench", "-g", "1", "-f", "1", "-l", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(bad.to_str().unwrap()), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        out.stdout.is_empty(),
        "nothing measured before the store was checked"
    );
}

#[test]
fn reading_a_missing_store_says_how_to_start() {
    let env = Env::new();
    let err = env.fails(&["runs", "list"], 2);
    assert!(err.contains("no result store"), "{err}");
    assert!(!env.db().exists(), "reading must not create a store");
}

#[test]
fn db_flag_overrides_environment() {
    let env = Env::new();
    let other = env.dir.path().join("other.db");
    one_run(&env, &["--db", other.to_str().unwrap()]);
    assert!(other.exists());
    assert!(!env.db().exists());
}

#[test]
fn empty_kbench_db_means_the_default_store() {
    let env = Env::new();
    let home = env.dir.path().join("home");
    let out = env
        .cmd()
        .env("KBENCH_DB", "")
        .env("HOME", &home)
        .args(["hackbench", "-g", "1", "-f", "1", "-l", "1", "-q"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(home.join(".local/share/kbench/results.db").exists());
}

#[test]
fn a_closed_pipe_is_a_quiet_success() {
    use std::os::fd::{FromRawFd, OwnedFd};
    let env = Env::new();
    for args in [
        &["man"][..],
        &["completions", "bash"],
        &["sysinfo"],
        &["presets", "show", "quick"],
    ] {
        // A pipe whose read end is closed before kbench writes a byte:
        // every write meets EPIPE, deterministically.
        let mut fds = [0; 2];
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let (read_end, write_end) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        drop(read_end);
        let out = env
            .cmd()
            .args(args)
            .stdout(std::process::Stdio::from(write_end))
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A negative schema version (which once indexed the migrations with a
/// huge number and panicked) is a damaged store: refused, left untouched.
#[test]
fn a_negative_schema_version_is_refused_not_a_panic() {
    let env = Env::new();
    one_run(&env, &["--label", "t"]);
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.pragma_update(None, "user_version", -3).unwrap();
    conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    drop(conn);
    let before = std::fs::read(env.db()).unwrap();
    for args in [&["runs", "list"][..], &["hackbench", "-l", "1"][..]] {
        let err = env.fails(args, 2);
        assert!(err.contains("the store is damaged"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert_eq!(std::fs::read(env.db()).unwrap(), before);
}

/// A good store on a read-only filesystem is read (not called unreadable
/// and "move it aside"), and writing to it says why it cannot.
#[test]
fn a_store_on_a_read_only_filesystem_is_read() {
    let env = Env::new();
    one_run(&env, &["--label", "ro"]);
    let dir = env.dir.path().to_path_buf();
    let bind = |args: &[&str]| {
        std::process::Command::new("mount")
            .args(args)
            .arg(&dir)
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success())
    };
    if !bind(&["--bind"]) {
        eprintln!("skipped: cannot bind-mount (needs root)");
        return;
    }
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _u = Unmount(dir.clone());
    assert!(std::process::Command::new("mount")
        .args(["-o", "remount,bind,ro"])
        .arg(&dir)
        .status()
        .unwrap()
        .success());
    let listed = env.ok(&["runs", "list"]);
    assert!(listed.contains("ro"), "{listed}");
    let err = env.fails(&["hackbench", "-l", "1"], 2);
    assert!(err.contains("read-only filesystem"), "{err}");
}

/// Another user reading root's store (nobody writing it) leaves no
/// `-wal`/`-shm` files of their own beside it.
#[test]
fn reading_someone_elses_store_creates_no_files() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    if !nix_is_root() {
        eprintln!("skipped: needs root to read as another user");
        return;
    }
    let env = Env::new();
    one_run(&env, &["--label", "mine"]);
    let dir = env.dir.path();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(env.db(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let before: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    let kb = crate::common::Reachable::new();
    let out = env
        .cmd_of(&kb.path)
        .args(["runs", "list"])
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("mine"));
    let after: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(before, after, "files appeared beside the store");
}

fn nix_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"))
}

/// One tiny hackbench run, stored with `extra` options (a label, a store).
fn one_run(env: &Env, extra: &[&str]) {
    let mut args = vec!["hackbench", "-g", "1", "-f", "1", "-l", "1", "-q"];
    args.extend_from_slice(extra);
    env.ok(&args);
}

/// A damaged store (a page of it overwritten) is refused by every command
/// in one line with exit 2, and nothing is written into it; a `--db` that
/// is a symlink to nothing creates nothing.
#[test]
fn a_damaged_store_is_refused_by_every_command_and_never_written() {
    let env = Env::new();
    let csv = env.dir.path().join("runs.csv");
    let mut text = String::from("label,benchmark,metric,unit,value,run\n");
    for r in 0..200 {
        text.push_str(&format!("l{},hackbench,time,s,{}.5,{r}\n", r % 3, r));
    }
    std::fs::write(&csv, text).unwrap();
    env.ok(&["import", "--format", "csv", csv.to_str().unwrap(), "-q"]);
    let db = env.db();
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
        for off in (3 * 4096..4 * 4096).step_by(7) {
            f.seek(SeekFrom::Start(off)).unwrap();
            f.write_all(&[0xff]).unwrap();
        }
    }
    let before = std::fs::read(&db).unwrap();
    for argv in [
        vec!["runs", "list"],
        vec!["labels"],
        vec!["runs", "show", "1"],
        vec!["compare"],
        vec!["import", "--format", "csv", csv.to_str().unwrap()],
        vec!["runs", "delete", "1", "--yes"],
    ] {
        let out = env.run(&argv);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        let lines: Vec<&str> = err.trim_end().lines().collect();
        assert!(
            lines.len() == 1 && lines[0].contains("damaged"),
            "{argv:?}: {err}"
        );
    }
    assert!(
        std::fs::read(&db).unwrap() == before,
        "the damaged store was written"
    );
    let link = env.dir.path().join("link.db");
    let target = env.dir.path().join("nowhere/x.db");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    for argv in [
        vec!["import", "--format", "csv", csv.to_str().unwrap()],
        vec!["runs", "delete", "1", "--yes"],
    ] {
        let out = env
            .cmd()
            .env("KBENCH_DB", &link)
            .args(&argv)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        assert!(err.contains("symbolic link"), "{argv:?}: {err}");
    }
    assert!(
        !target.parent().unwrap().exists(),
        "nothing created through the link"
    );
}

/// `kbench man` read as a person reads it (`man -l`): EXIT STATUS lists
/// every code kbench exits with, ENVIRONMENT the variables it reads, both
/// before VERSION.
#[test]
fn the_man_page_has_exit_status_and_environment() {
    let env = Env::new();
    let page = env.ok(&["man"]);
    let (exit, envs, version) = (
        page.find(".SH \"EXIT STATUS\"").expect("EXIT STATUS"),
        page.find(".SH ENVIRONMENT").expect("ENVIRONMENT"),
        page.find(".SH VERSION").expect("VERSION"),
    );
    assert!(exit < envs && envs < version, "{page}");
    if !crate::common::which("man") {
        eprintln!("skipped: the page as man shows it (no man here)");
        return;
    }
    let f = env.dir.path().join("kbench.1");
    std::fs::write(&f, &page).unwrap();
    let out = std::process::Command::new("man")
        .args(["-l", f.to_str().unwrap()])
        .env("MANWIDTH", "80")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    // Bold in man's own rendering is overstriking (`K\x08K`): undone.
    let shown: String = {
        let mut s = String::new();
        for c in shown.chars() {
            if c == '\u{8}' {
                s.pop();
            } else {
                s.push(c);
            }
        }
        s
    };
    let section = |name: &str, next: &str| {
        let a = shown
            .find(&format!("\n{name}\n"))
            .unwrap_or_else(|| panic!("{name} in {shown}"));
        let b = shown[a + 1..]
            .find(&format!("\n{next}\n"))
            .map_or(shown.len(), |b| a + 1 + b);
        shown[a..b].to_string()
    };
    let codes = section("EXIT STATUS", "ENVIRONMENT");
    for c in ["0", "1", "2", "3", "125", "128", "130"] {
        assert!(
            codes
                .lines()
                .any(|l| l.split_whitespace().next() == Some(c)),
            "exit {c} listed: {codes}"
        );
    }
    let vars = section("ENVIRONMENT", "VERSION");
    for v in [
        "KBENCH_DB",
        "XDG_DATA_HOME",
        "KBENCH_MAX_STEAL_PCT",
        "LAVA_TOKEN",
        "NO_COLOR",
    ] {
        assert!(vars.contains(v), "{v} in {vars}");
    }
}
