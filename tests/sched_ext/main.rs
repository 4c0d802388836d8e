//! sched_ext schedulers compared within one boot (`matrix --sched`), on a
//! real scheduler and a real kernel: Debian's trixie-backports 7.x kernel
//! (sched_ext built in), booted by `kbench vm` under QEMU (TCG here, one
//! vCPU), with scx_bpfland built once from crates.io by `.ci/scx.sh`
//! (cached under `/var/cache/kbench-test-scx`).  `kbench vm` carries the
//! scheduler and its libraries into the guest's initramfs.  The host has
//! no sched_ext, so every test here runs in a guest.  A test binary of its
//! own: each boots guests.  The tests assert what kbench did and stored,
//! never a figure (they are the emulator's).

#[path = "../common/mod.rs"]
mod common;

use common::kernels::fetch_todays_kernel;
use common::Env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, OnceLock};

static BOOTS: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    BOOTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The kernel image and the scheduler's program.
struct Parts {
    kernel: PathBuf,
    scheduler: PathBuf,
}

fn build() -> Result<Parts, String> {
    if !common::which("qemu-system-x86_64") {
        return Err("no qemu-system-x86_64 (apt-get install qemu-system-x86)".into());
    }
    let kernel = fetch_todays_kernel()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/scx.sh");
    eprintln!("scx_bpfland: built once by {} (minutes)", script.display());
    let out = Command::new("bash")
        .arg(&script)
        .output()
        .map_err(|e| format!("{}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let scheduler = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    Ok(Parts { kernel, scheduler })
}

/// The parts, made once; `None` (said) where this machine cannot, which
/// CI must be able to.
fn parts() -> Option<&'static Parts> {
    static P: OnceLock<Result<Parts, String>> = OnceLock::new();
    match P.get_or_init(build) {
        Ok(p) => Some(p),
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run a sched_ext scheduler: {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// `kbench vm` of the kernel (and itself again: the A/A arm) running
/// `command` in each guest, with `vm_flags` (`--console` to see what the
/// guests said); (exit code, stdout, stderr).
fn in_guest(env: &Env, p: &Parts, vm_flags: &[&str], command: &[&str]) -> (i32, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let out = env
        .cmd()
        .env("TMPDIR", tmp.path())
        .args(["vm", "--kernel"])
        .arg(format!("{}=k", p.kernel.display()))
        .args(["--aa", "--boots", "1"])
        .args(vm_flags)
        .arg("--")
        .args(command)
        .output()
        .unwrap();
    assert!(
        common::empty_dir(tmp.path()),
        "vm left files: {:?}",
        common::walk(tmp.path())
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `matrix --sched eevdf --sched bpfland=… --rounds 2 -- COMMAND` in the
/// guests; its store and what it said on stderr (after its exit is
/// checked).
fn eevdf_and_bpfland(p: &Parts, command: &[&str]) -> (Env, String) {
    let env = Env::new();
    let bpfland = format!("bpfland={}", p.scheduler.display());
    let mut args = vec![
        "matrix", "--sched", "eevdf", "--sched", &bpfland, "--rounds", "2", "--",
    ];
    args.extend_from_slice(command);
    let (code, _, err) = in_guest(&env, p, &[], &args);
    assert_eq!(code, 0, "{err}");
    (env, err)
}

/// Every stored run, shown whole.
fn runs(env: &Env) -> Vec<serde_json::Value> {
    env.json(&["runs", "list"])["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| env.json(&["runs", "show", &r["id"].to_string()]))
        .collect()
}

/// Two variants, two rounds: the runs land under both labels, interleaved;
/// the bpfland runs carry the scheduler they ran under (the kernel's name
/// for it, the program's SHA-256, how long it took to attach) and its
/// event counters; the EEVDF runs say nothing was attached.
#[test]
fn eevdf_and_bpfland_are_compared_within_one_boot() {
    let _one = lock();
    let Some(p) = parts() else { return };
    let (env, err) = eevdf_and_bpfland(p, &["schbench", "-m", "1", "-t", "2", "-r", "3"]);
    let all = runs(&env);
    for arm in ["k", "k/aa"] {
        for variant in ["eevdf", "bpfland"] {
            let label = format!("{arm}/sched={variant}");
            let mine: Vec<&serde_json::Value> =
                all.iter().filter(|r| r["label"] == label).collect();
            assert_eq!(mine.len(), 2, "{label}: {err}");
            for r in mine {
                assert_eq!(r["status"], "complete", "{r}");
                let s = &r["settings"]["sched_ext"];
                assert!(s["ejected"].is_null(), "{s}");
                assert_eq!(s["scheduler"]["name"], variant);
                assert_eq!(s["enable_seq"], s["enable_seq_after"], "{s}");
                // What the audit itself took, around the run.
                assert!(s["audit_us"].as_u64().unwrap() > 0, "{s}");
                if variant == "bpfland" {
                    assert_eq!(s["state"], "enabled", "{s}");
                    assert!(s["ops"].as_str().unwrap().starts_with("bpfland"), "{s}");
                    assert_eq!(s["scheduler"]["sha256"].as_str().unwrap().len(), 64);
                    assert!(s["scheduler"]["attach_s"].as_f64().unwrap() > 0.0);
                    assert!(common::metric_names(r)
                        .iter()
                        .any(|m| m.starts_with("sched_ext.")));
                } else {
                    assert_eq!(s["state"], "disabled", "{s}");
                    assert!(s["ops"].is_null());
                }
            }
        }
    }
}

/// `--rounds auto:5` with two schedulers: the matrix looks after round 3
/// and at the cap (5), and stops at the first look where bpfland is
/// decided against EEVDF; both variants have the same rounds, one run
/// each, and each guest's report says why it stopped.
#[test]
fn rounds_auto_decides_every_scheduler_against_the_first() {
    let _one = lock();
    let Some(p) = parts() else { return };
    let env = Env::new();
    let bpfland = format!("bpfland={}", p.scheduler.display());
    let args = [
        "matrix", "--sched", "eevdf", "--sched", &bpfland, "--rounds", "auto:5", "--", "schbench",
        "-m", "1", "-t", "2", "-r", "1",
    ];
    let (code, _, err) = in_guest(&env, p, &["--console"], &args);
    assert_eq!(code, 0, "{err}");
    let all = runs(&env);
    for arm in ["k", "k/aa"] {
        let count = |v: &str| {
            let label = format!("{arm}/sched={v}");
            all.iter()
                .filter(|r| r["label"] == label && r["status"] == "complete")
                .count()
        };
        let (e, b) = (count("eevdf"), count("bpfland"));
        assert_eq!(e, b, "{arm}: {err}");
        assert!(
            e == 3 || e == 5,
            "{arm}: {e} rounds, not a look (3) or the cap (5): {err}"
        );
    }
    // Each guest's matrix says why it stopped: decided at a look (3 or
    // 5 rounds), or not at the cap.
    let said = err.split_whitespace().collect::<Vec<_>>().join(" ");
    let decided = said.matches("rounds on wakeup_p99_us: k").count();
    let capped = said.matches("undecided at the cap of 5 rounds").count();
    assert_eq!(decided + capped, 2, "{said}");
}

/// SysRq-S halfway through every run: each bpfland run is failed with the
/// kernel's own reason, and the variants after it still run; EEVDF's runs,
/// with nothing to eject, are complete.
#[test]
fn an_ejection_during_a_run_fails_that_run_and_the_next_variant_runs() {
    let _one = lock();
    let Some(p) = parts() else { return };
    let (env, err) = eevdf_and_bpfland(p, &["testbench", "--seconds", "2", "--eject-sched-ext"]);
    let all = runs(&env);
    assert_eq!(all.len(), 8, "{err}");
    for r in &all {
        let label = r["label"].as_str().unwrap();
        if label.ends_with("sched=bpfland") {
            assert_eq!(r["status"], "failed", "{r}");
            let why = r["settings"]["sched_ext"]["ejected"].as_str().unwrap();
            assert!(
                why.starts_with("ejected: bpfland") && why.contains("sysrq"),
                "{why}"
            );
            assert!(r["notes"].to_string().contains("ejected: bpfland"), "{r}");
        } else {
            assert_eq!(r["status"], "complete", "{r}");
        }
    }
    // compare leaves the failed runs out, and says why, per label.
    let out = env.run(&["compare"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
    .split_whitespace()
    .collect::<Vec<_>>()
    .join(" ");
    assert!(
        text.contains("k/sched=bpfland: 2 of 2 runs failed because the sched_ext scheduler changed during them (ejected: bpfland"),
        "{text}"
    );
}

/// The matrix SIGKILLed while bpfland is attached (its testbench kills
/// it halfway): the scheduler goes with it, so the guest, looking once
/// the command has ended, finds sched_ext disabled; no bpfland run is
/// stored as complete.
#[test]
fn a_killed_matrix_leaves_no_scheduler_attached() {
    let _one = lock();
    let Some(p) = parts() else { return };
    let env = Env::new();
    let bpfland = format!("bpfland={}", p.scheduler.display());
    let args = [
        "matrix",
        "--sched",
        "eevdf",
        "--sched",
        &bpfland,
        "--rounds",
        "1",
        "--",
        "testbench",
        "--seconds",
        "2",
        "--kill-parent-under-sched-ext",
    ];
    let (_, _, err) = in_guest(&env, p, &[], &args);
    let all = runs(&env);
    for arm in ["k", "k/aa"] {
        let mine: Vec<&serde_json::Value> = all
            .iter()
            .filter(|r| r["label"].as_str().unwrap().starts_with(arm))
            .collect();
        assert!(!mine.is_empty(), "{arm}: {err}");
        for r in mine {
            assert_eq!(r["settings"]["vm"]["sched_ext_after"], "disabled", "{r}");
            assert!(
                !(r["label"].as_str().unwrap().ends_with("sched=bpfland")
                    && r["status"] == "complete"),
                "the bpfland run was never killed: {r}"
            );
        }
    }
}
