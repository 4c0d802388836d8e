//! `kbench vm`, end to end, on Debian's real 6.1 kernels (standard and
//! PREEMPT_RT), fetched with `apt-get download` and unpacked with `dpkg
//! -x` into a cache kept between runs (`KBENCH_TEST_KERNELS`, else
//! `/var/cache/kbench-test-kernels`).  A test binary of its own: every
//! test boots guests, which take the machine's CPUs; they run one at a
//! time (one lock), and where KVM cannot run a kernel (here: TCG) every
//! figure is the emulator's, so the tests assert what kbench says and
//! stores, never a latency.

#[path = "../common/mod.rs"]
mod common;

use common::kernels::{cache_dir, download_and_unpack, fetch_todays_kernel};
use common::{wait_for, Env};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, OnceLock};

static BOOTS: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    BOOTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The two kernels, unpacked: their images.
struct Kernels {
    std: PathBuf,
    rt: PathBuf,
    std_release: String,
    rt_release: String,
}

/// The newest N with both `linux-image-6.1.0-N-amd64` and `…-rt-amd64`
/// in the package lists.
fn newest_pair() -> Result<u32, String> {
    let out = Command::new("apt-cache")
        .args([
            "search",
            "--names-only",
            r"^linux-image-6\.1\.0-[0-9]+-(rt-)?amd64$",
        ])
        .output()
        .map_err(|e| format!("apt-cache: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = text.lines().filter_map(|l| l.split(' ').next()).collect();
    let n_of = |name: &str, suffix: &str| -> Option<u32> {
        name.strip_prefix("linux-image-6.1.0-")?
            .strip_suffix(suffix)?
            .parse()
            .ok()
    };
    let std: Vec<u32> = names.iter().filter_map(|n| n_of(n, "-amd64")).collect();
    let rt: Vec<u32> = names.iter().filter_map(|n| n_of(n, "-rt-amd64")).collect();
    std.iter()
        .filter(|n| rt.contains(n))
        .max()
        .copied()
        .ok_or_else(|| {
            "no linux-image-6.1.0-N-amd64 with its -rt- twin in the package lists (apt-get update?)"
                .into()
        })
}

fn unpack(cache: &Path, pkg: &str) -> Result<PathBuf, String> {
    let dir = cache.join(pkg);
    let release = pkg.trim_start_matches("linux-image-");
    let image = dir.join(format!("boot/vmlinuz-{release}"));
    if image.is_file() && dir.join(format!("lib/modules/{release}/kernel")).is_dir() {
        return Ok(image);
    }
    download_and_unpack(cache, pkg, &dir, &[])?;
    if !image.is_file() {
        return Err(format!("dpkg -x of {pkg} gave no {}", image.display()));
    }
    Ok(image)
}

fn fetch() -> Result<Kernels, String> {
    if !common::which("qemu-system-x86_64") {
        return Err("no qemu-system-x86_64 (apt-get install qemu-system-x86)".into());
    }
    let cache = cache_dir();
    std::fs::create_dir_all(&cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let n = newest_pair()?;
    let std_release = format!("6.1.0-{n}-amd64");
    let rt_release = format!("6.1.0-{n}-rt-amd64");
    Ok(Kernels {
        std: unpack(&cache, &format!("linux-image-{std_release}"))?,
        rt: unpack(&cache, &format!("linux-image-{rt_release}"))?,
        std_release,
        rt_release,
    })
}

/// The kernels, fetched once; `None` (said) where this machine cannot,
/// which CI must be able to.
fn kernels() -> Option<&'static Kernels> {
    static K: OnceLock<Result<Kernels, String>> = OnceLock::new();
    match K.get_or_init(fetch) {
        Ok(k) => Some(k),
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must boot kernels: {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// A kbench with its own store and its own temp folder (to see what it
/// leaves there).
struct Vm {
    env: Env,
    tmp: tempfile::TempDir,
}

impl Vm {
    fn new() -> Vm {
        Vm {
            env: Env::new(),
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = self.env.cmd();
        c.env("TMPDIR", self.tmp.path()).args(args);
        c
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.cmd(args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn ok(&self, args: &[&str]) -> (String, String) {
        let (code, out, err) = self.run(args);
        assert_eq!(code, 0, "kbench {args:?}:\n{err}\n{out}");
        (out, err)
    }

    fn runs(&self) -> Vec<serde_json::Value> {
        let v = self.env.json(&["runs", "list"]);
        v["runs"].as_array().cloned().unwrap_or_default()
    }

    fn show(&self, id: i64) -> serde_json::Value {
        self.env.json(&["runs", "show", &id.to_string()])
    }

    fn leftovers(&self) -> Vec<PathBuf> {
        common::walk(self.tmp.path())
    }
}

/// The verdict column of a scoreboard's rows.
fn verdicts(compare_json: &serde_json::Value) -> Vec<String> {
    let mut v = Vec::new();
    for g in compare_json["groups"].as_array().into_iter().flatten() {
        for m in g["metrics"].as_array().into_iter().flatten() {
            for l in m["labels"].as_array().into_iter().flatten() {
                if let Some(x) = l["versus"]["verdict"].as_str() {
                    v.push(x.to_string());
                }
            }
        }
    }
    v
}

/// The issue's own command: two kernels, two boots each, under TCG.
#[test]
fn two_kernels_boot_interleaved_and_emulated_runs_get_no_verdict() {
    let Some(k) = kernels() else { return };
    let _l = lock();
    let vm = Vm::new();
    let (out, err) = vm.ok(&[
        "vm",
        "--kernel",
        &s(&k.std),
        "--kernel",
        &s(&k.rt),
        "--boots",
        "2",
        "--seed",
        "5",
        "--timeout",
        "300s",
        "--",
        "cyclictest",
        "-t",
        "1",
        "-D",
        "5s",
    ]);
    assert_eq!(err.matches(" to its result; runs ").count(), 4, "{err}");
    let runs = vm.runs();
    assert_eq!(runs.len(), 4, "{runs:?}");
    let std_label = format!("{}/voluntary", k.std_release);
    let rt_label = format!("{}/rt", k.rt_release);
    let mut boots = std::collections::BTreeSet::new();
    for r in &runs {
        assert_eq!(r["status"], "complete");
        let show = vm.show(r["id"].as_i64().unwrap());
        let fp = &show["fingerprint"];
        let (release, mode) = (
            fp["release"].as_str().unwrap(),
            fp["preempt"]["mode"].as_str().unwrap(),
        );
        match show["label"].as_str().unwrap() {
            l if l == std_label => {
                assert_eq!((release, mode), (k.std_release.as_str(), "voluntary"))
            }
            l if l == rt_label => assert_eq!((release, mode), (k.rt_release.as_str(), "rt")),
            other => panic!("unexpected label {other}"),
        }
        // What the VM was, and that its figures are the emulator's.
        let vm_s = &show["settings"]["vm"];
        assert!(vm_s["qemu"]
            .as_str()
            .unwrap()
            .starts_with("QEMU emulator version"));
        assert_eq!(vm_s["vcpus"], 1);
        if vm_s["accel"] == "tcg" {
            assert!(show["settings"]["health"]["emulated"]
                .as_str()
                .unwrap()
                .contains("emulator"));
        }
        assert!(
            fp["config_hash"].is_string(),
            "the image's config reached the guest"
        );
        boots.insert(fp["boot_id"].as_str().unwrap().to_string());
    }
    assert_eq!(boots.len(), 4, "each boot has its own boot id");
    if !out.contains("emulated") {
        return; // KVM on bare metal: nothing is emulated.
    }
    // compare says so above the scoreboard and withholds verdicts.
    let (table, _) = vm.ok(&["compare", "--label", &std_label, "--label", &rt_label]);
    let first = table.lines().next().unwrap();
    assert!(first.starts_with("emulated: 4 of 4 runs"), "{table}");
    let c = vm
        .env
        .json(&["compare", "--label", &std_label, "--label", &rt_label]);
    let v = verdicts(&c);
    assert!(!v.is_empty());
    assert!(
        v.iter().all(|x| x == "emulated" || x == "too few runs"),
        "{v:?}"
    );
    // Boots are the unit: two a side is too few for any verdict, allowed or not.
    let allowed = vm.env.json(&[
        "compare",
        "--label",
        &std_label,
        "--label",
        &rt_label,
        "--allow-emulated",
    ]);
    assert!(
        verdicts(&allowed).iter().all(|x| x == "too few runs"),
        "{:?}",
        verdicts(&allowed)
    );
    assert!(allowed["above"][0]
        .as_str()
        .unwrap()
        .contains("given anyway"));
    assert!(vm.leftovers().is_empty(), "{:?}", vm.leftovers());
}

/// `--aa`: the first kernel twice; the calibration is printed before the
/// kernels, and with three boots a side `--allow-emulated` gives verdicts
/// that are otherwise withheld.
#[test]
fn the_aa_calibration_is_printed_and_allow_emulated_gives_verdicts() {
    let Some(k) = kernels() else { return };
    let _l = lock();
    let vm = Vm::new();
    let (out, err) = vm.ok(&[
        "vm",
        "--kernel",
        &format!("{}=std", s(&k.std)),
        "--aa",
        "--boots",
        "3",
        "--seed",
        "9",
        "--timeout",
        "300s",
        "--",
        "hackbench",
        "-T",
        "-g",
        "1",
        "-l",
        "200",
        "--runs",
        "2",
    ]);
    assert!(err.contains("order (one boot each): "), "{err}");
    let aa = out
        .find("A/A calibration")
        .expect("the calibration is printed");
    assert!(
        out[aa..].contains("noise floor: the smallest change these boots can tell"),
        "{out}"
    );
    assert!(out.contains("the kernel against itself"), "{out}");
    let runs = vm.runs();
    assert_eq!(runs.len(), 12, "3 boots x 2 labels x 2 runs: {runs:?}");
    let c = vm
        .env
        .json(&["compare", "--label", "std", "--label", "std/aa"]);
    if c["above"].as_array().is_some_and(|a| a.is_empty()) {
        return; // KVM: not emulated.
    }
    let withheld = verdicts(&c);
    assert!(
        withheld
            .iter()
            .all(|v| v == "emulated" || v == "inconclusive"),
        "{withheld:?}"
    );
    let given = verdicts(&vm.env.json(&[
        "compare",
        "--label",
        "std",
        "--label",
        "std/aa",
        "--allow-emulated",
    ]));
    assert!(
        !given.iter().any(|v| v == "emulated" || v == "too few runs"),
        "{given:?}"
    );
    // The boots are the unit: three a side.
    let m = &c["groups"][0]["metrics"][0]["labels"][0];
    assert_eq!(m["boots"]["boots"], 3, "{m}");
}

/// A garbage image fails in QEMU, a kernel that panics and never powers
/// off is stopped at --timeout; both are failed boots with their reasons,
/// and the good kernel's boot completes between them.
#[test]
fn a_garbage_image_and_a_guest_that_never_powers_off_are_failed_boots() {
    let Some(k) = kernels() else { return };
    let _l = lock();
    let vm = Vm::new();
    let garbage = vm.env.dir.path().join("garbage.img");
    std::fs::write(&garbage, b"\x7fnot a kernel at all".repeat(4096)).unwrap();
    let hang = format!("{}=hang;rdinit=/nonexistent panic=0", s(&k.std));
    let (_, err) = vm.ok(&[
        "vm",
        "--kernel",
        &s(&k.std),
        "--kernel",
        &format!("{}=junk", s(&garbage)),
        "--kernel",
        &hang,
        "--boots",
        "1",
        "--timeout",
        "40s",
        "--",
        "cyclictest",
        "-t",
        "1",
        "-D",
        "2s",
    ]);
    let runs = vm.runs();
    assert_eq!(runs.len(), 3, "{err}");
    let by = |label: &str| {
        runs.iter()
            .find(|r| r["label"].as_str().unwrap().starts_with(label))
            .unwrap()
            .clone()
    };
    assert_eq!(by(&k.std_release)["status"], "complete");
    let junk = vm.show(by("junk")["id"].as_i64().unwrap());
    assert_eq!(junk["status"], "failed");
    assert!(
        junk["settings"]["error"]
            .as_str()
            .unwrap()
            .starts_with("QEMU: "),
        "{junk}"
    );
    let hung = vm.show(by("hang")["id"].as_i64().unwrap());
    assert_eq!(hung["status"], "failed");
    assert!(hung["settings"]["error"]
        .as_str()
        .unwrap()
        .contains("did not power off within --timeout 40 s"));
    let notes = hung["notes"].to_string();
    assert!(
        notes.contains("Kernel panic"),
        "the console's last lines: {notes}"
    );
    assert!(
        err.contains("junk: failed after") && err.contains("hang: failed after"),
        "{err}"
    );
    assert!(vm.leftovers().is_empty(), "{:?}", vm.leftovers());
}

/// SIGKILL of kbench during a boot: QEMU dies with it and the scratch
/// folder (initramfs, console, result, QMP socket) goes.
#[test]
fn sigkill_during_a_boot_leaves_no_qemu_and_no_file() {
    let Some(k) = kernels() else { return };
    let _l = lock();
    let vm = Vm::new();
    let mut kb = vm
        .cmd(&[
            "vm",
            "--kernel",
            &s(&k.std),
            "--aa",
            "--boots",
            "1",
            "--",
            "cyclictest",
            "-t",
            "1",
            "-D",
            "30s",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = kb.id();
    let qemu = || {
        common::children(pid).into_iter().find(|c| {
            std::fs::read_to_string(format!("/proc/{c}/comm")).is_ok_and(|n| n.starts_with("qemu"))
        })
    };
    assert!(wait_for(60, || qemu().is_some()), "QEMU never started");
    let q = qemu().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert!(
        !vm.leftovers().is_empty(),
        "the boot has its scratch folder"
    );
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let _ = kb.wait();
    assert!(
        wait_for(10, || !common::alive(q)),
        "QEMU {q} outlived kbench"
    );
    assert!(
        wait_for(10, || vm.leftovers().is_empty()),
        "{:?}",
        vm.leftovers()
    );
}

/// `--share-root`: the guest loads the image's 9p modules from its
/// package, mounts the host's root read-only and runs the host's tools.
#[test]
fn share_root_runs_the_hosts_tools_in_the_guest() {
    let Some(k) = kernels() else { return };
    let _l = lock();
    let vm = Vm::new();
    let (_, err) = vm.ok(&[
        "vm",
        "--kernel",
        &format!("{}=std", s(&k.std)),
        "--aa",
        "--boots",
        "1",
        "--share-root",
        "--timeout",
        "300s",
        "--",
        "job",
        "--job-cmd",
        "sh -c 'test -x /usr/bin/gcc && uname -r'",
    ]);
    let runs = vm.runs();
    assert_eq!(runs.len(), 2, "{err}");
    for r in &runs {
        assert_eq!(r["status"], "complete", "{err}");
        let show = vm.show(r["id"].as_i64().unwrap());
        assert_eq!(show["settings"]["vm"]["share_root"], true);
        assert_eq!(show["fingerprint"]["release"], k.std_release.as_str());
    }
}

/// What is refused before anything boots.
#[test]
fn refusals_before_any_boot() {
    let Some(k) = kernels() else { return };
    let vm = Vm::new();
    let std = s(&k.std);
    let (code, _, err) = vm.run(&["vm", "--kernel", &std, "--", "cyclictest", "-D", "1s"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give two --kernel, or one with --aa"), "{err}");
    let (code, _, err) = vm.run(&["vm", "--kernel", &std, "--kernel", &std, "--", "cyclictest"]);
    assert_eq!(code, 2);
    assert!(err.contains("would both be labelled"), "{err}");
    let (code, _, err) = vm.run(&[
        "vm",
        "--kernel",
        &std,
        "--aa",
        "--",
        "cyclictest",
        "--db",
        "x",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--db belongs before"), "{err}");
    let (code, _, err) = vm.run(&[
        "--label",
        "x",
        "vm",
        "--kernel",
        &std,
        "--aa",
        "--",
        "cyclictest",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("IMAGE=LABEL instead of --label"), "{err}");
    let (code, _, err) = vm.run(&[
        "vm",
        "--kernel",
        "/nonexistent/vmlinuz",
        "--aa",
        "--",
        "cyclictest",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/vmlinuz"), "{err}");
    let (code, out, _) = vm.run(&[
        "vm",
        "--kernel",
        &std,
        "--aa",
        "--dry-run",
        "--seed",
        "3",
        "--",
        "cyclictest",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("order (one boot each): "), "{out}");
    assert!(!vm.env.db().exists(), "a dry run stores nothing");
    // KVM asked for where it cannot run a kernel: one line, why.
    let (code, _, err) = vm.run(&[
        "vm",
        "--kernel",
        &std,
        "--aa",
        "--accel",
        "kvm",
        "--dry-run",
        "--",
        "cyclictest",
    ]);
    if code != 0 {
        assert_eq!(code, 1, "{err}");
        assert!(
            err.starts_with("kbench: --accel kvm: KVM cannot be used here: "),
            "{err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

/// A bisection over a list of Debian's kernel images, booted with --vm:
/// where the guests would be emulated it decides nothing (the honest
/// result), and with --allow-emulated it runs end to end, its boots
/// stored, and says what it could or could not tell.
#[test]
fn a_bisection_of_kernel_images_boots_them_and_stays_honest() {
    let Some(k) = kernels() else { return };
    let _l = lock();
    let vm = Vm::new();
    let (std, rt) = (s(&k.std), s(&k.rt));
    let base = [
        "bisect",
        "--candidates",
        &std,
        &rt,
        &rt,
        "--vm",
        "--metric",
        "p99_us",
        "--max-runs",
        "3",
        "--seed",
        "4",
        "--timeout",
        "300s",
    ];
    let with = |extra: &[&'static str]| -> Vec<String> {
        let mut a: Vec<String> = base.iter().map(|s| s.to_string()).collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a.extend(
            ["--", "cyclictest", "-t", "1", "-D", "2s"]
                .iter()
                .map(|s| s.to_string()),
        );
        a
    };
    let run = |a: Vec<String>| vm.run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (code, out, err) = run(with(&[]));
    assert_eq!(code, 0, "{err}");
    let emulated = out.contains("would boot emulated");
    if emulated {
        assert!(
            out.starts_with("nothing to bisect: the candidates would boot emulated"),
            "{out}"
        );
        assert!(
            !vm.env.db().exists() || vm.runs().is_empty(),
            "nothing was booted"
        );
    }
    let (code, out, err) = run(with(&["--allow-emulated"]));
    assert_eq!(code, 0, "{err}\n{out}");
    let first = out.lines().next().unwrap_or("");
    assert!(
        [
            "nothing to bisect",
            "cannot tell",
            "culprit",
            "first bad candidate",
            "the culprit lies among"
        ]
        .iter()
        .any(|w| first.starts_with(w)),
        "{out}"
    );
    // The ends' boots are stored, each a run of the guest's cyclictest.
    let runs = vm.runs();
    assert!(runs.len() >= 6, "{runs:?}");
    assert!(
        runs.iter()
            .all(|r| r["benchmark"] == "cyclictest" && r["status"] == "complete"),
        "{runs:?}"
    );
    assert!(vm.leftovers().is_empty(), "{:?}", vm.leftovers());
}

/// When no boot completes, `kbench vm` says so and exits 1 (it exited 0).
#[test]
fn no_boot_completed_is_a_failure() {
    let Some(_k) = kernels() else { return };
    let _l = lock();
    let vm = Vm::new();
    let a = vm.env.dir.path().join("a.img");
    let b = vm.env.dir.path().join("b.img");
    for p in [&a, &b] {
        std::fs::write(p, b"\x7fnot a kernel at all".repeat(4096)).unwrap();
    }
    let (code, _, err) = vm.run(&[
        "vm",
        "--kernel",
        &format!("{}=one", s(&a)),
        "--kernel",
        &format!("{}=two", s(&b)),
        "--boots",
        "1",
        "--timeout",
        "30s",
        "--",
        "cyclictest",
        "-t",
        "1",
        "-D",
        "1s",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("none of the 2 boots completed"), "{err}");
    assert!(vm.leftovers().is_empty(), "{:?}", vm.leftovers());
}

/// Hashing an image is interruptible: Ctrl-C during the hash of a 20 GB
/// sparse file ends kbench at once with exit 130 (it read the whole file
/// first, deaf to Ctrl-C, for a minute).
#[test]
fn hashing_a_huge_image_stops_at_ctrl_c() {
    let Some(_k) = kernels() else { return };
    let vm = Vm::new();
    let big = vm.env.dir.path().join("big.img");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(20 << 30)
        .unwrap();
    let kb = vm
        .cmd(&[
            "vm",
            "--kernel",
            &s(&big),
            "--kernel",
            &format!("{}=b", s(&big)),
            "--dry-run",
            "--",
            "cyclictest",
            "-t",
            "1",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let out = common::interrupt(kb);
    // It stopped in the hash: the plan (printed once both images are
    // read) never came.
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!said.contains("arm(s)"), "{said}");
}

/// Today's Debian kernel as trixie-backports ships it: split into
/// `linux-binary-R` (the image at `usr/lib/modules/R/vmlinuz`),
/// `linux-base-R` (its `config` beside it) and `linux-modules-R`, fetched
/// with `apt-get download` from a temporary sources list (nothing is
/// installed, the system's lists are untouched) and unpacked into one
/// folder.  `None` (said) where it cannot be had.
fn todays_kernel() -> Option<PathBuf> {
    static K: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match K.get_or_init(fetch_todays_kernel) {
        Ok(p) => Some(p.clone()),
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must boot today's kernel: {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// Debian's 7.x kernel, split into three packages, boots in `kbench vm`:
/// its config and modules found beside the image, the config at
/// `/boot/config-R` in the guest for the fingerprint, the preemption
/// model read from it.
#[test]
fn todays_split_debian_kernel_boots() {
    let Some(_k) = kernels() else { return };
    let Some(img) = todays_kernel() else { return };
    let _l = lock();
    let vm = Vm::new();
    let (out, err) = vm.ok(&[
        "vm",
        "--kernel",
        &format!("{}=today", s(&img)),
        "--aa",
        "--boots",
        "1",
        "--timeout",
        "300s",
        "--",
        "cyclictest",
        "-t",
        "1",
        "-D",
        "2s",
    ]);
    // The plan's lines are wrapped to the width: read them as words.
    let said = format!("{out}{err}")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        said.contains("; config ") && !said.contains("config none"),
        "{said}"
    );
    let runs = vm.runs();
    assert_eq!(runs.len(), 2, "{err}\n{out}");
    let run = vm.show(runs[0]["id"].as_i64().unwrap());
    assert_eq!(run["status"], "complete", "{run}");
    let fp = &run["fingerprint"];
    let release = fp["release"].as_str().unwrap();
    assert!(release.starts_with("7."), "{fp}");
    assert_eq!(
        fp["config_source"],
        format!("/boot/config-{release}"),
        "{fp}"
    );
    assert!(fp["preempt"]["mode"].is_string(), "{fp}");
}

/// `kbench vm` in a real terminal of 80 columns, as a person runs it: the
/// plan, a spinner per boot that leaves a line when the boot is done, and
/// the closing comparison, all within 80 columns, with no colour escape
/// spelled out as text and no spinner left behind.
#[test]
fn vm_on_a_terminal_fits_and_leaves_no_spinner() {
    let Some(k) = kernels() else { return };
    let _l = lock();
    let vm = Vm::new();
    let mut c = vm.cmd(&[
        "vm",
        "--kernel",
        &s(&k.std),
        "--kernel",
        &s(&k.rt),
        "--boots",
        "1",
        "--seed",
        "3",
        "--timeout",
        "300s",
        "--",
        "cyclictest",
        "-t",
        "1",
        "-D",
        "2s",
    ]);
    c.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    let screen = common::pty::run(c, 80);
    let plain = screen.plain();
    assert_eq!(screen.code, 0, "{plain}");
    assert!(!screen.escapes_as_text(), "{}", screen.bytes);
    let lines = screen.lines();
    let wide: Vec<&String> = lines.iter().filter(|l| l.chars().count() > 80).collect();
    let shown: Vec<String> = wide
        .iter()
        .map(|l| {
            format!(
                "{} cols: {}",
                l.chars().count(),
                l.chars().take(60).collect::<String>()
            )
        })
        .collect();
    assert!(wide.is_empty(), "lines over 80 columns: {shown:#?}");
    // Each boot leaves its done line, and no spinner frame stays on screen.
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains(" to its result; runs "))
            .count(),
        2,
        "{plain}"
    );
    assert!(
        !lines.iter().any(|l| l.trim_end().ends_with('…')),
        "a spinner line was left"
    );
    assert!(plain.contains("The kernels, boots interleaved"), "{plain}");
}
