//! `kbench coldwalk`: counts on a generated tree, errors inside the tree,
//! the cold/warm record, bad input.

use crate::common::Env;
use std::os::unix::fs::PermissionsExt;

/// 3 dirs below the root (a, a/b, locked), 5 files, 2 symlinks (one to a
/// dir, never followed), and one unreadable dir with a file inside.
fn tree() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    std::fs::create_dir_all(r.join("a/b")).unwrap();
    for f in ["f1", "a/f2", "a/f3", "a/b/f4", "a/b/f5"] {
        std::fs::write(r.join(f), "x").unwrap();
    }
    std::os::unix::fs::symlink(r.join("a"), r.join("link-to-a")).unwrap();
    std::os::unix::fs::symlink("nowhere", r.join("a/dangling")).unwrap();
    std::fs::create_dir(r.join("locked")).unwrap();
    std::fs::write(r.join("locked/hidden"), "x").unwrap();
    t
}

#[test]
fn counts_match_the_generated_tree() {
    let env = Env::new();
    let t = tree();
    let v = env.json(&[
        "coldwalk",
        t.path().to_str().unwrap(),
        "--no-drop",
        "--runs",
        "2",
    ]);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let r = &runs[0];
    // a, a/b, locked; f1..f5 and locked/hidden; two symlinks.
    assert_eq!(r["dirs"], 3);
    assert_eq!(r["files"], 6);
    assert_eq!(r["symlinks"], 2);
    assert_eq!(r["entries"], 11);
    assert_eq!(r["errors"], 0);
    assert_eq!(
        r["caches_dropped"], false,
        "a --no-drop run is recorded as warm"
    );
    let stat = env.json(&[
        "coldwalk",
        t.path().to_str().unwrap(),
        "--no-drop",
        "--stat",
        "--no-store",
    ]);
    assert_eq!(stat["runs"][0]["entries"], 11);
    let id = v["stored_ids"][0].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    assert_eq!(show["settings"]["caches_dropped"], false);
    assert!(show["notes"][0].as_str().unwrap().contains("warm"));
}

#[test]
fn unreadable_dirs_are_counted_not_fatal() {
    if unsafe { libc::geteuid() } != 0
        || std::process::Command::new("setpriv")
            .arg("--version")
            .output()
            .is_err()
    {
        eprintln!("skipped: needs root and setpriv to walk as an unprivileged user");
        return;
    }
    let t = tree();
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        t.path().join("locked"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let kb = crate::common::Reachable::new();
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&kb.path)
        .args([
            "coldwalk",
            t.path().to_str().unwrap(),
            "--no-drop",
            "--no-store",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"][0]["errors"], 1);
    assert_eq!(
        v["runs"][0]["files"], 5,
        "the file inside the unreadable dir is not seen"
    );
}

#[test]
fn drops_caches_as_root() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: dropping caches needs root");
        return;
    }
    let env = Env::new();
    let t = tree();
    let v = env.json(&["coldwalk", t.path().to_str().unwrap(), "--no-store"]);
    assert_eq!(v["runs"][0]["caches_dropped"], true);
}

#[test]
fn bad_paths_are_exit_2() {
    let env = Env::new();
    let err = env.fails(&["coldwalk", "/nonexistent/kbench-path"], 2);
    assert!(err.contains("/nonexistent/kbench-path"), "{err}");
    let f = tempfile::NamedTempFile::new().unwrap();
    let err = env.fails(&["coldwalk", f.path().to_str().unwrap()], 2);
    assert!(err.contains("not a directory"), "{err}");
}

#[test]
fn one_filesystem_stays_put() {
    let env = Env::new();
    // /proc is another filesystem below /; walking / with -x must not enter it,
    // so a walk of /dev with -x sees no entries of /dev/pts or /dev/shm mounts.
    let all = env.json(&["coldwalk", "/dev", "--no-drop", "--no-store"]);
    let one = env.json(&["coldwalk", "/dev", "-x", "--no-drop", "--no-store"]);
    assert!(one["runs"][0]["entries"].as_u64() <= all["runs"][0]["entries"].as_u64());
}
