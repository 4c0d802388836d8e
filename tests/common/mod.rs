//! Helpers shared by the integration tests: a `kbench` command with a
//! fresh temporary store, JSON parsing, fixture trees and process checks.

#![allow(dead_code)]

pub mod guest;
pub mod kcidb;
pub mod kernels;
pub mod pty;
pub mod seeded;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The kbench under test where another user can run it: a clone in a
/// private folder (`mktemp -d`, `/root`) puts the built binary where
/// uid 65534 cannot reach it, so the tests that drop privilege run a hard
/// link (or a copy, across filesystems) in a temporary folder of mode 0755.
pub struct Reachable {
    _dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl Reachable {
    pub fn new() -> Reachable {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod the shared folder");
        let path = dir.path().join("kbench");
        let built = Path::new(env!("CARGO_BIN_EXE_kbench"));
        if std::fs::hard_link(built, &path).is_err() {
            std::fs::copy(built, &path).expect("copy kbench where others reach it");
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("chmod the shared kbench");
        Reachable { _dir: dir, path }
    }
}

/// A temporary directory with a store path inside it.
pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("results.db")
    }

    /// `kbench` with `KBENCH_DB` pointing into this env.
    pub fn cmd(&self) -> Command {
        self.cmd_of(Path::new(env!("CARGO_BIN_EXE_kbench")))
    }

    /// `program` (a [`Reachable`] kbench) with this env's store.
    pub fn cmd_of(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.env("KBENCH_DB", self.db()).env_remove("XDG_DATA_HOME");
        // The tests run many kbench processes at once, each outside the
        // others: only the health tests ask for the default thresholds.
        c.env("KBENCH_MAX_OUTSIDE_CPU_PCT", "100000")
            .env("KBENCH_MAX_STEAL_PCT", "100");
        c
    }

    /// Start `kbench args…` with stdout and stderr piped.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        self.cmd()
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn kbench")
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("run kbench")
    }

    /// Plan a campaign of boots A and B (releases test-a, test-b), one
    /// round unless `extra` says otherwise, rebooted by `reboot`, each
    /// block running `command`.
    pub fn campaign(&self, name: &str, extra: &[&str], reboot: &str, command: &[&str]) {
        let mut a = vec![
            "campaign",
            "init",
            name,
            "--boot",
            "A=release=test-a",
            "--boot",
            "B=release=test-b",
        ];
        if !extra.contains(&"--rounds") {
            a.extend(["--rounds", "1"]);
        }
        a.extend_from_slice(extra);
        a.extend(["--reboot", reboot, "--"]);
        a.extend_from_slice(command);
        self.ok(&a);
    }

    /// Run, assert success, return stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "kbench {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    /// Run with `--json`, assert success, parse stdout.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--json");
        let s = self.ok(&a);
        serde_json::from_str(&s)
            .unwrap_or_else(|e| panic!("kbench {args:?} printed invalid JSON ({e}): {s}"))
    }

    /// Run, assert exit `code`, return stderr.
    pub fn fails(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(
            out.status.code(),
            Some(code),
            "kbench {args:?}: stderr {err}"
        );
        assert!(!err.contains("panicked"), "kbench {args:?} panicked: {err}");
        err
    }
}

/// Write `content` at `root/rel`, creating folders.
pub fn put(root: &Path, rel: &str, content: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

/// Gzip `text` into `root/rel`.
pub fn put_gz(root: &Path, rel: &str, text: &str) {
    use std::io::Write;
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let f = std::fs::File::create(p).unwrap();
    let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap();
}

/// Direct children of `pid` (from /proc/<pid>/task/*/children).
pub fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            if let Ok(s) = std::fs::read_to_string(t.path().join("children")) {
                out.extend(s.split_whitespace().filter_map(|x| x.parse::<u32>().ok()));
            }
        }
    }
    // The run-health monitor beside every run is kbench's, not a worker.
    out.retain(|c| {
        std::fs::read_to_string(format!("/proc/{c}/comm"))
            .map_or(true, |n| n.trim() != "kbench-health")
    });
    out
}

/// The metric names in a `runs show --json` document.
pub fn metric_names(show: &serde_json::Value) -> Vec<&str> {
    show["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect()
}

/// Ctrl-C a running kbench: SIGINT, wait for it, and check that it ended
/// with 130, showing its stderr when not.
pub fn interrupt(kb: std::process::Child) -> Output {
    unsafe { libc::kill(kb.id() as i32, libc::SIGINT) };
    let out = kb.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Is `pid` alive (and not a zombie)?
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => {
            s.rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}

/// Wait (polling, up to `secs`) until `f` holds; returns whether it did.
pub fn wait_for(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    f()
}

/// Live processes named kbench, tar or dbench whose parent is init: load
/// processes that outlived their kbench.
pub fn orphans() -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let comm = head.split_once('(').map(|x| x.1).unwrap_or("");
        let f: Vec<&str> = rest.split_whitespace().collect();
        if (comm.starts_with("kbench") || matches!(comm, "tar" | "dbench"))
            && f.first() != Some(&"Z")
            && f.get(1) == Some(&"1")
        {
            out.push(pid);
        }
    }
    out
}

/// Is `name` a program on PATH?
pub fn which(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// Live processes whose environment holds `mark` (`NAME=VALUE`): all a
/// kbench started with that in its environment, wherever reparented.
pub fn marked(mark: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) {
            if env.split(|b| *b == 0).any(|kv| kv == mark.as_bytes()) && alive(pid) {
                out.push(pid);
            }
        }
    }
    out
}

/// Is `d` empty (or gone)?
pub fn empty_dir(d: &Path) -> bool {
    std::fs::read_dir(d)
        .map(|mut r| r.next().is_none())
        .unwrap_or(true)
}

/// Every path under `d`, depth first.
pub fn walk(d: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// Every benchmark the registry lists (but those hidden from help), as
/// `kbench list benchmarks --json` gives them: tables of benchmarks in the
/// tests are checked against it, so a new benchmark cannot be left out of
/// them.
pub fn registered_benchmarks(env: &Env) -> Vec<String> {
    registered(env, "benchmarks")
}

/// Every background load the registry lists (`kbench list loads --json`).
pub fn registered_loads(env: &Env) -> Vec<String> {
    registered(env, "loads")
}

/// The names `kbench list WHAT --json` gives.
fn registered(env: &Env, what: &str) -> Vec<String> {
    let v = env.json(&["list", what]);
    v[what]
        .as_array()
        .unwrap_or_else(|| panic!("no {what} in {v}"))
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

/// The online CPUs' count.
pub fn online_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The highest-numbered online CPU (the probe's in tests that pin).
pub fn last_cpu() -> usize {
    let s = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    s.trim()
        .split(',')
        .filter_map(|r| r.rsplit('-').next()?.parse::<usize>().ok())
        .max()
        .unwrap_or(0)
}

/// Whether headless Chromium is here; a machine without it says so (CI
/// must have it: `.ci/run` installs it).
pub fn have_chromium() -> bool {
    let have = Command::new("chromium")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have chromium (.ci/run installs it)"
        );
        eprintln!("skipped: no chromium here (apt-get install chromium)");
    }
    have
}

/// Chromium's flags for a closed, headless machine.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--virtual-time-budget=3000",
    "--window-size=1280,1600",
    "--dump-dom",
];

/// Load `html` in headless Chromium with a probe appended; return what the
/// probe found (JSON) and the page's console messages.
pub fn in_chromium(
    dir: &std::path::Path,
    name: &str,
    html: &str,
) -> (serde_json::Value, Vec<String>) {
    const PROBE: &str = "<script>window.addEventListener('load',()=>{const r={};\
r.scoreboard=document.querySelectorAll('table.scoreboard tbody tr').length;\
r.first=document.querySelector('h2')?document.querySelector('h2').textContent:'';\
const s=[...document.querySelectorAll('svg')];r.svgs=s.length;\
r.empty=s.filter(e=>{const b=e.getBoundingClientRect();return !(b.width>0&&b.height>0)}).length;\
const t=[...document.querySelectorAll('svg.timeline')];r.timelines=t.length;\
r.timeline_rects=t.map(e=>e.querySelectorAll('rect').length);\
r.traced_rows=document.querySelectorAll('table.traced tbody tr').length;\
r.changepoints=document.querySelectorAll('svg .changepoint').length;r.points=document.querySelectorAll('svg .point').length;\
const lines=e=>{const g=document.createRange();g.selectNodeContents(e);\
return new Set([...g.getClientRects()].map(x=>Math.round(x.top))).size};\
const sb=document.querySelector('table.scoreboard');\
r.wrapped=sb?[...sb.querySelectorAll('td:not(.note),th')].filter(e=>lines(e)>1).map(e=>e.textContent):[];\
r.scoreboard_right=sb?Math.ceil(sb.getBoundingClientRect().right):0;r.view_width=window.innerWidth;\
r.page_width=document.documentElement.scrollWidth;\
const d=document.createElement('pre');d.id='kbench-probe';d.textContent=JSON.stringify(r);\
document.body.appendChild(d);});</script>";
    let page = dir.join(name);
    std::fs::write(&page, html.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("chromium")
        .args(CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let probe = dom
        .split("<pre id=\"kbench-probe\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or("null")
        .replace("&quot;", "\"");
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (serde_json::from_str(&probe).unwrap_or_default(), console)
}

/// A scenario file `name.toml` in `dir`, and its path: a schbench probe
/// (one message thread, one worker, 2 s) beside `hogs` CPU hogs in the
/// background, the kernel's events traced or not.  The autogroup
/// experiments of the tests run it under `matrix`.
pub fn hogs_beside_schbench(dir: &Path, name: &str, hogs: usize, traced: bool) -> String {
    let f = dir.join(format!("{name}.toml"));
    let trace = if traced { "trace = true\n" } else { "" };
    std::fs::write(
        &f,
        format!(
            "name = \"{name}\"\n{trace}[[phase]]\nname = \"p\"\nsettle = \"200ms\"\n\
[[phase.task]]\nname = \"hogs\"\nkind = \"load\"\nrole = \"background\"\nargs = {{ name = \"cpu\", procs = {hogs} }}\n\
[[phase.task]]\nname = \"probe\"\nkind = \"schbench\"\nargs = {{ message-threads = 1, threads = 1, runtime = 2 }}\n"
        ),
    )
    .expect("write the scenario");
    f.to_str().expect("utf-8 path").to_string()
}
