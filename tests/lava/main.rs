//! `kbench lava`, end to end, through LAVA's own dispatcher: `lava-run`
//! (Debian's lava-dispatcher) runs the jobs `kbench lava job` writes on a
//! QEMU device whose dictionary is rendered from LAVA's own `qemu.jinja2`
//! (from Debian's lava-server package, unpacked with `dpkg -x` into
//! `/var/cache/kbench-test-lava`), and, in `server.rs`, a whole
//! lava-server on this machine schedules them on its own worker.  The
//! root filesystem is the reboot tests' Debian guest with kbench in it;
//! the kernels are its standard and PREEMPT_RT ones.  The jobs' logs are
//! read back with `kbench lava import`.  A test binary of its own: each
//! job boots a guest under TCG (one vCPU).  It asserts what kbench stored
//! and said, never a figure.

#[path = "../common/mod.rs"]
mod common;

mod boards;
mod server;

use common::guest::{guest, Guest};
use common::Env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// LAVA's device-type templates, unpacked once.
fn templates() -> Result<PathBuf, String> {
    if !common::which("lava-run") {
        return Err("no lava-run (apt-get install lava-dispatcher)".into());
    }
    let cache = PathBuf::from(
        std::env::var_os("KBENCH_TEST_LAVA").unwrap_or("/var/cache/kbench-test-lava".into()),
    );
    let dir = cache.join("x/usr/share/lava-server/device-types");
    if dir.join("qemu.jinja2").is_file() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&cache).map_err(|e| e.to_string())?;
    let got = Command::new("apt-get")
        .args(["download", "-q", "lava-server"])
        .current_dir(&cache)
        .output()
        .map_err(|e| e.to_string())?;
    if !got.status.success() {
        return Err(format!(
            "apt-get download lava-server: {}",
            String::from_utf8_lossy(&got.stderr)
        ));
    }
    let deb = std::fs::read_dir(&cache)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .ok_or("no lava-server .deb")?;
    let x = Command::new("dpkg")
        .arg("-x")
        .arg(&deb)
        .arg(cache.join("x"))
        .status()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&deb);
    if !x.success() || !dir.join("qemu.jinja2").is_file() {
        return Err("dpkg -x lava-server gave no qemu.jinja2".into());
    }
    Ok(dir)
}

/// A QEMU device dictionary rendered from LAVA's template: amd64, TCG
/// (no KVM here), one vCPU.
fn device(templates: &Path, dir: &Path) -> PathBuf {
    std::fs::write(
        dir.join("qemu01.jinja2"),
        "{% extends 'qemu.jinja2' %}\n{% set mac_addr = '52:54:00:12:34:59' %}\n{% set memory = 1536 %}\n{% set netdevice = 'user' %}\n",
    )
    .unwrap();
    let out = dir.join("qemu01.yaml");
    let render = Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(
            "import jinja2, sys\n\
             env = jinja2.Environment(loader=jinja2.FileSystemLoader(sys.argv[1:3]), trim_blocks=True, autoescape=False)\n\
             open(sys.argv[3], 'w').write(env.get_template('qemu01.jinja2').render(arch='amd64', no_kvm=True, extra_options=['-smp 1']))\n",
        )
        .arg(dir)
        .arg(templates)
        .arg(&out)
        .output()
        .unwrap();
    assert!(render.status.success(), "{render:?}");
    out
}

fn parts() -> Option<(&'static Guest, PathBuf)> {
    let g = guest()?;
    match templates() {
        Ok(t) => Some((g, t)),
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "CI must run LAVA: {why}");
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// Two of Debian's kernels, two boots each, as four LAVA jobs run by
/// `kbench lava job` of the guest's two kernels (labels std and rt) on
/// `disk`, with `extra` flags, its jobs written to `out`, each running
/// `command`: what it said.
fn jobs_of(
    env: &Env,
    g: &Guest,
    disk: &Path,
    extra: &[&str],
    out: &Path,
    command: &[&str],
) -> String {
    let boot = g.root.join("boot");
    let kernel = |label: &str, release: &str| {
        format!(
            "{}={label}",
            boot.join(format!("vmlinuz-{release}")).display()
        )
    };
    let (std, rt) = (kernel("std", &g.std), kernel("rt", &g.rt));
    let (disk, out) = (disk.display().to_string(), out.display().to_string());
    let mut a = vec![
        "lava", "job", "--kernel", &std, "--kernel", &rt, "--rootfs", &disk,
    ];
    a.extend_from_slice(extra);
    a.extend(["-o", &out, "--"]);
    a.extend_from_slice(command);
    env.ok(&a)
}

/// The YAML jobs `kbench lava job` wrote into `dir`, in order.
fn jobs_in(dir: &Path) -> Vec<PathBuf> {
    let mut jobs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    jobs.sort();
    jobs
}

/// `lava-run` of `job` on the device `dev`, its log in `dir`: the log's
/// path and text, after checking that LAVA ran the job to its end.
fn lava_run(dir: &Path, dev: &Path, job: &Path, n: usize) -> (PathBuf, String) {
    let log = dir.join(format!("{n}.log"));
    let file = std::fs::File::create(&log).unwrap();
    // lava-run works in /var/lib/lava/dispatcher/tmp/JOB-ID, as a
    // lava-worker does for the server's jobs, which `server.rs` runs at
    // the same time with ids from 1: ids of their own keep the two from
    // removing each other's files.
    let st = Command::new("lava-run")
        .args(["--job-id", &(1_000_000 + n).to_string(), "--output-dir"])
        .arg(dir.join(format!("out-{n}")))
        .arg("--device")
        .arg(dev)
        .arg(job)
        // libguestfs builds LAVA's overlay disk in a VM of its own: TCG,
        // as this host's /dev/kvm runs no ordinary kernel.
        .env("LIBGUESTFS_BACKEND_SETTINGS", "force_tcg")
        // Its log is on stderr.
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .status()
        .unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let tail: Vec<&str> = text.lines().rev().take(30).collect();
    assert!(st.success(), "lava-run {}: {tail:?}", job.display());
    (log, text)
}

/// lava-run in the plan's order: each boot's runs stored under its label
/// with the guest's own fingerprint (its kernel, its boot id), marked
/// emulated; `compare` takes the boot as the unit; importing again adds
/// nothing; a log whose bundle is cut short is a failed boot that says so.
#[test]
fn lava_runs_kbench_jobs_and_each_boot_comes_back_as_a_unit() {
    let Some((g, templates)) = parts() else {
        return;
    };
    let env = Env::new();
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("disk.img");
    // LAVA reads prompts on the console: no journal there.
    common::guest::disk(g, &disk, "rm /etc/systemd/journald.conf.d/console.conf\n");
    let dev = device(&templates, dir.path());
    let jobs = dir.path().join("jobs");
    let out = jobs_of(
        &env,
        g,
        &disk,
        &["--boots", "2", "--seed", "7"],
        &jobs,
        &["cyclictest", "-t", "1", "-D", "5s"],
    );
    assert!(out.contains("4 jobs, one a boot"), "{out}");
    let files = jobs_in(&jobs);
    assert_eq!(files.len(), 4);
    let mut logs = Vec::new();
    for (n, job) in files.iter().enumerate() {
        let started = Instant::now();
        let (log, text) = lava_run(dir.path(), &dev, job, n + 1);
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        // LAVA itself recorded kbench's test cases, with their numbers.
        assert!(
            text.contains("\"case\": \"kbench.cyclictest.p99_us\""),
            "{tail:?}"
        );
        eprintln!(
            "lava-run job {}: {:.0} s",
            n + 1,
            started.elapsed().as_secs_f64()
        );
        logs.push(log);
    }
    let mut import = vec![
        "lava".to_string(),
        "import".into(),
        "--device".into(),
        "qemu01".into(),
    ];
    import.extend(logs.iter().map(|l| l.display().to_string()));
    let import: Vec<&str> = import.iter().map(String::as_str).collect();
    let said = env.ok(&import);
    assert!(
        said.contains("4 boot(s) with runs, 0 failed boot(s); 4 run(s) new"),
        "{said}"
    );
    let again = env.ok(&import);
    assert!(again.contains("0 run(s) new"), "{again}");
    // Each label's runs on its kernel, from two boots of their own.
    let mut boot_ids = Vec::new();
    for (label, release) in [("std", &g.std), ("rt", &g.rt)] {
        let runs = env.json(&["runs", "list", "--label", label]);
        let runs = runs["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "{label}");
        for r in runs {
            let show = env.json(&["runs", "show", &r["id"].to_string()]);
            assert_eq!(show["fingerprint"]["release"], release.as_str());
            assert_eq!(show["settings"]["lava"]["device"], "qemu01");
            assert!(show["settings"]["health"]["emulated"].is_string());
            boot_ids.push(show["fingerprint"]["boot_id"].as_str().unwrap().to_string());
        }
    }
    boot_ids.sort();
    boot_ids.dedup();
    assert_eq!(boot_ids.len(), 4, "four distinct boots");
    let out = env.run(&["compare", "--label", "std", "--label", "rt"]);
    let text: String = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
    .split_whitespace()
    .collect::<Vec<_>>()
    .join(" ");
    assert!(text.contains("come from emulated guests"), "{text}");
    assert!(
        text.contains("so the boot is the unit") && text.contains("std 2 boots/"),
        "{text}"
    );
    // A log cut in the middle of its bundle: a failed boot, saying why.
    let first = std::fs::read_to_string(&logs[0]).unwrap();
    let at = first.find("KBENCH-LAVA-BUNDLE").unwrap();
    let cut = dir.path().join("cut.log");
    std::fs::write(&cut, &first[..at + 3000]).unwrap();
    let fresh = Env::new();
    let said = fresh.ok(&["lava", "import", &cut.display().to_string()]);
    assert!(
        said.contains("0 boot(s) with runs, 1 failed boot(s)"),
        "{said}"
    );
    let r = fresh.json(&["runs", "show", "1"]);
    assert_eq!(r["status"], "failed");
    assert!(r["notes"].to_string().contains("cut short"), "{r}");
    // A job whose kbench command fails on the device (a path that is not
    // there): LAVA runs it to its end, and the boot comes back as one
    // failed run that says why.
    let failing = dir.path().join("failing");
    jobs_of(
        &env,
        g,
        &disk,
        &["--boots", "1"],
        &failing,
        &["coldwalk", "/no/such/kbench/path"],
    );
    let jobs = jobs_in(&failing);
    let (log, text) = lava_run(dir.path(), &dev, &jobs[0], 9);
    assert!(text.contains("KBENCH-LAVA-FAILED"), "{text}");
    let fails = Env::new();
    let said = fails.ok(&["lava", "import", &log.display().to_string()]);
    assert!(
        said.contains("0 boot(s) with runs, 1 failed boot(s)"),
        "{said}"
    );
    let r = fails.json(&["runs", "show", "1"]);
    assert_eq!(r["status"], "failed");
    assert!(r["notes"].to_string().contains("stored no run"), "{r}");
    // Nothing to import is said, not stored.
    let none = dir.path().join("none.log");
    std::fs::write(&none, "no kbench here\n").unwrap();
    let err = fresh.fails(&["lava", "import", &none.display().to_string()], 2);
    assert!(err.contains("no kbench boot in"), "{err}");
}

/// `kbench export kcidb` (and `compare --format kcidb`) writes KCIDB v5
/// JSON that KCIDB's own validator takes: a checkout and build per label,
/// a test per metric and label with its number and unit, and in misc the
/// runs, interval and verdict; ids stay the same from one export to the
/// next.
#[test]
fn export_kcidb_validates_against_the_kcidb_v5_schema() {
    let py = match common::kcidb::python() {
        Ok(p) => p,
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must validate KCIDB: {why}"
            );
            eprintln!("skipped: {why}");
            return;
        }
    };
    let env = Env::new();
    for (label, values) in [("a", ["1.0", "1.1", "0.9"]), ("b", ["2.0", "2.1", "1.9"])] {
        for v in values {
            env.ok(&["--label", label, "testbench", "--value", v]);
        }
    }
    let out = env.ok(&["export", "kcidb", "--label", "a", "--label", "b"]);
    let same = env.ok(&[
        "compare", "--label", "a", "--label", "b", "--format", "kcidb",
    ]);
    assert_eq!(out, same);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["version"]["major"], 5);
    let tests = doc["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 2, "{out}");
    let b = tests
        .iter()
        .find(|t| t["misc"]["kbench_label"] == "b")
        .unwrap();
    assert_eq!(b["path"], "kbench.testbench.value");
    assert_eq!(b["number"]["value"], 2.0);
    assert_eq!(b["number"]["unit"], "s");
    assert_eq!(b["misc"]["runs"], 3);
    assert!(b["misc"]["verdict"].is_string(), "{b}");
    let file = env.dir.path().join("kcidb.json");
    std::fs::write(&file, &out).unwrap();
    let check = Command::new(&py)
        .arg("-c")
        .arg("import json, sys, kcidb_io\nd = json.load(open(sys.argv[1]))\nkcidb_io.schema.LATEST.validate(d)\nassert kcidb_io.schema.LATEST.is_compatible_exactly(d)\nprint('valid')\n")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // The same runs give the same ids.
    assert_eq!(
        out,
        env.ok(&["export", "kcidb", "--label", "a", "--label", "b"])
    );
}
