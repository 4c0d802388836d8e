//! `kbench campaign` across real reboots, in a Debian guest that really
//! reboots: systemd, kexec-tools and Debian's standard and PREEMPT_RT 6.1
//! kernels, built once by `image.sh` (debootstrap) and cached
//! (`KBENCH_TEST_GUEST`, else `/var/cache/kbench-test-guest`).  Each test
//! makes a disk image of that folder with `mkfs.ext4 -d` and puts kbench
//! and a script in it with `debugfs` (no loop device, no mount), boots it
//! under QEMU (TCG here, one vCPU), and lets the guest drive itself: the
//! script plans the campaign and hands it to systemd, and from then on
//! nothing is typed.  The store is read back from the disk with `debugfs`.
//!
//! A test binary of its own: a campaign takes minutes of the machine's
//! CPU under TCG.  The tests assert what kbench did and stored (blocks,
//! boots, kernels, messages), never a figure: every figure here is the
//! emulator's.

#[path = "../common/mod.rs"]
mod common;

use common::guest::{debugfs, guest, Guest};

mod grub;
mod systemd_boot;
mod watchdog;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

static BOOTS: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    BOOTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// One disk made from the guest's folder, with kbench and `script` (run
/// once at the first boot, as root, from a unit with no HOME) put in.
struct Disk {
    dir: tempfile::TempDir,
    image: PathBuf,
}

impl Disk {
    fn new(g: &Guest, script: &str) -> Disk {
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("disk.img");
        common::guest::disk(g, &image, "");
        let s = dir.path().join("kbench-test.sh");
        std::fs::write(&s, script).unwrap();
        debugfs(
            &image,
            true,
            &format!(
                "cd /root\nwrite {} kbench-test.sh\nsif kbench-test.sh mode 0100644\n",
                s.display()
            ),
        );
        Disk { dir, image }
    }

    /// A file of the guest's, read back (`None`: there is none).
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        let to = self.dir.path().join("dumped");
        let _ = std::fs::remove_file(&to);
        debugfs(
            &self.image,
            false,
            &format!("dump {path} {}\n", to.display()),
        );
        std::fs::read(&to).ok()
    }

    /// The guest's store, read back into a folder of the host's.
    fn store(&self, path: &str) -> PathBuf {
        let db = self.dir.path().join("guest.db");
        let main = self.read(path).expect("the guest's store");
        std::fs::write(&db, main).unwrap();
        for side in ["-wal", "-shm"] {
            let p = PathBuf::from(format!("{}{side}", db.display()));
            match self.read(&format!("{path}{side}")) {
                Some(b) => std::fs::write(&p, b).unwrap(),
                None => {
                    let _ = std::fs::remove_file(&p);
                }
            }
        }
        db
    }
}

/// A QEMU running the disk, its serial console in a file.
struct Machine {
    child: std::process::Child,
    console: PathBuf,
    qmp: PathBuf,
    started: Instant,
}

impl Machine {
    /// Boot `release` from the guest's own /boot (QEMU's direct kernel
    /// boot: the first boot's kernel; kexec picks the next ones).  A reset
    /// ends QEMU (`-no-reboot`): the test starts it again, as firmware
    /// would.
    fn boot(g: &Guest, disk: &Disk, release: &str) -> Machine {
        Machine::boot_with(g, disk, release, "")
    }

    /// As [`Machine::boot`], with `more` on the kernel's command line.
    fn boot_with(g: &Guest, disk: &Disk, release: &str, more: &str) -> Machine {
        let mut args: Vec<std::ffi::OsString> = vec!["-no-reboot".into(), "-kernel".into()];
        args.push(g.root.join(format!("boot/vmlinuz-{release}")).into());
        args.push("-initrd".into());
        args.push(g.root.join(format!("boot/initrd.img-{release}")).into());
        args.push("-append".into());
        args.push(format!("root=/dev/vda rw console=ttyS0 panic=10 no_timer_check {more}").into());
        Machine::start(disk, &args)
    }

    /// QEMU on `disk` with `boot` (how it finds its first kernel).
    fn start(disk: &Disk, boot: &[std::ffi::OsString]) -> Machine {
        // A console and a socket of each QEMU's own (the machine may be
        // started again after a reset, as after a power cut).
        let n = std::fs::read_dir(disk.dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("console-"))
            .count();
        let console = disk.dir.path().join(format!("console-{n}.log"));
        let qmp = disk.dir.path().join(format!("qmp-{n}.sock"));
        let child = Command::new("qemu-system-x86_64")
            .args(["-accel", "tcg", "-smp", "1", "-m", "1536", "-nodefaults"])
            .args(["-display", "none"])
            // A watchdog, as many machines have: `campaign init` says
            // what it would do for a hang.
            .args(["-device", "i6300esb"])
            .args(boot)
            .arg("-drive")
            .arg(format!(
                "file={},format=raw,if=virtio",
                disk.image.display()
            ))
            .arg("-serial")
            .arg(format!("file:{}", console.display()))
            .arg("-qmp")
            .arg(format!("unix:{},server=on,wait=off", qmp.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("qemu-system-x86_64");
        Machine {
            child,
            console,
            qmp,
            started: Instant::now(),
        }
    }

    fn console(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(&self.console).unwrap_or_default()).into_owned()
    }

    /// Wait until the console shows `what` (true), or QEMU exits or the
    /// time is up (false).
    fn wait_for(&mut self, what: &str, limit: Duration) -> bool {
        while self.started.elapsed() < limit {
            if self.console().contains(what) {
                return true;
            }
            if self.child.try_wait().unwrap().is_some() {
                return self.console().contains(what);
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        false
    }

    /// Ask the guest to power off (ACPI), and wait for QEMU to end; killed
    /// if the guest does not.
    fn power_off(mut self) {
        if let Ok(mut s) = std::os::unix::net::UnixStream::connect(&self.qmp) {
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            let _ = r.read_line(&mut line);
            for cmd in ["qmp_capabilities", "system_powerdown"] {
                let _ = writeln!(s, "{{\"execute\":\"{cmd}\"}}");
                line.clear();
                let _ = r.read_line(&mut line);
            }
            // Where nothing in the guest answers the power button: SysRq
            // sync, remount read-only, power off (Debian's kernel.sysrq
            // allows the three).
            std::thread::sleep(Duration::from_secs(20));
            if self.child.try_wait().unwrap().is_none() {
                for key in ["s", "u", "o"] {
                    let _ = writeln!(
                        s,
                        "{{\"execute\":\"send-key\",\"arguments\":{{\"keys\":[{{\"type\":\"qcode\",\"data\":\"alt\"}},{{\"type\":\"qcode\",\"data\":\"sysrq\"}},{{\"type\":\"qcode\",\"data\":\"{key}\"}}]}}}}"
                    );
                    line.clear();
                    let _ = r.read_line(&mut line);
                    std::thread::sleep(Duration::from_secs(3));
                }
            }
        }
        let end = Instant::now() + Duration::from_secs(180);
        while Instant::now() < end {
            if self.child.try_wait().unwrap().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        eprintln!("the guest did not power off; killed");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How long a whole campaign may take under TCG (boots of 1-3 minutes).
fn limit(blocks: usize) -> Duration {
    Duration::from_secs(240 * (blocks as u64 + 1))
}

/// Rounds of the kexec campaign: 2 (four blocks, A B B A) unless
/// `KBENCH_TEST_ROUNDS` says otherwise.
fn rounds() -> usize {
    std::env::var("KBENCH_TEST_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| (1..=5).contains(&n))
        .unwrap_or(2)
}

fn kbench(db: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kbench"))
        .arg("--db")
        .arg(db)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The last `n` lines of a console, for a failure's message.
fn tail(console: &str, n: usize) -> String {
    let lines: Vec<&str> = console.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// How a machine's run ended.
struct Ended {
    /// The console showed what was waited for.
    done: bool,
    /// QEMU had ended by then (a reset under `-no-reboot`).
    reset: bool,
    took: Duration,
    console: String,
}

impl Machine {
    /// Wait for `what` on the console (up to `limit`), then power off
    /// cleanly (after a moment for the last step, so every write is on
    /// the disk).
    fn end(mut self, what: &str, limit: Duration) -> Ended {
        let done = self.wait_for(what, limit);
        let reset = self.child.try_wait().unwrap().is_some();
        let took = self.started.elapsed();
        let console = self.console();
        if done {
            std::thread::sleep(Duration::from_secs(5));
        }
        self.power_off();
        Ended {
            done,
            reset,
            took,
            console,
        }
    }
}

/// A one-round campaign `name` of the guest's two kernels, ended: two
/// blocks done, each on a boot of its own, every run of `std` and `rt` on
/// its own kernel (the store read back from `disk`).
fn two_blocks_on_their_kernels(g: &Guest, disk: &Disk, name: &str) {
    let db = disk.store("/root/.local/share/kbench/results.db");
    let (code, out, err) = kbench(&db, &["campaign", "status", name, "--json"]);
    assert_eq!(code, 0, "{err}");
    let plan = &serde_json::from_str::<serde_json::Value>(&out).unwrap()["campaigns"][0];
    let history = plan["history"].as_array().unwrap();
    assert_eq!(history.len(), 2, "{plan}");
    assert!(history.iter().all(|b| b["status"] == "done"), "{plan}");
    assert_ne!(history[0]["boot_id"], history[1]["boot_id"], "{plan}");
    for (label, release) in [("std", &g.std), ("rt", &g.rt)] {
        let runs = runs_of(&db, label);
        assert!(!runs.is_empty(), "no runs of {label}");
        for (r, fp) in runs {
            assert_eq!(fp["release"], release.as_str(), "{label}'s run {}", r["id"]);
        }
    }
}

/// Boot `std` (with `more` on its command line) until the console says the
/// campaign stopped "in a row", starting QEMU again after each reset as
/// firmware would, at most `max_resets` times: whether it stopped, the
/// resets, and every boot's console.
fn until_stopped(g: &Guest, disk: &Disk, more: &str, max_resets: usize) -> (bool, usize, String) {
    let mut resets = 0;
    let mut consoles = String::new();
    let stopped = loop {
        let mut m = Machine::boot_with(g, disk, &g.std, more);
        let said = m.wait_for("in a row", limit(2));
        consoles.push_str(&m.console());
        if said {
            std::thread::sleep(Duration::from_secs(5));
            m.power_off();
            break true;
        }
        if m.child.try_wait().unwrap().is_none() || resets >= max_resets {
            break false;
        }
        resets += 1;
    };
    (stopped, resets, consoles)
}

/// Every stored run of `label` in the store `db`: its entry in `runs
/// list` and its fingerprint.
fn runs_of(db: &Path, label: &str) -> Vec<(serde_json::Value, serde_json::Value)> {
    let (code, out, err) = kbench(db, &["runs", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    let runs: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut found = Vec::new();
    for r in runs["runs"].as_array().unwrap() {
        if r["label"] != label {
            continue;
        }
        let id = r["id"].to_string();
        let (code, out, err) = kbench(db, &["runs", "show", &id, "--json"]);
        assert_eq!(code, 0, "{err}");
        let show: serde_json::Value = serde_json::from_str(&out).unwrap();
        found.push((r.clone(), show["fingerprint"].clone()));
    }
    found
}

/// The kexec path, unattended: the guest plans a campaign of its two
/// kernels (no HOME: the unit must name an absolute store), starts the
/// first block by hand while a second `step` is typed beside it (it must
/// be refused, not run the block again), and from then on the unit runs
/// each block after each boot and kexecs into the next kernel.  Every
/// block on its own boot, on the right kernel, no pause, the unit gone at
/// the end, and `compare` takes the boot as its unit.
#[test]
fn a_kexec_campaign_runs_unattended_across_real_reboots() {
    let _one = lock();
    let Some(g) = guest() else { return };
    let rounds = rounds();
    let blocks = 2 * rounds;
    let script = format!(
        r#"set -u
test -z "${{HOME:-}}" && echo "kbench-test: HOME is unset"
K=/usr/local/bin/kbench
$K campaign init t --rounds {rounds} --reboot kexec \
  --boot 'std=release={std},entry=/boot/vmlinuz-{std}' \
  --boot 'rt=release={rt},entry=/boot/vmlinuz-{rt}' \
  -- cyclictest -t 1 -D 3s || exit 1
$K campaign install-service t || exit 1
grep -h ExecStart /etc/systemd/system/kbench-campaign-t.service
$K campaign step t &
sleep 3
$K campaign step t
echo "kbench-test: second step exit $?"
wait
"#,
        std = g.std,
        rt = g.rt,
    );
    let disk = Disk::new(g, &script);
    let Ended {
        done,
        reset,
        took,
        console,
    } = Machine::boot(g, &disk, &g.std).end("campaign t complete", limit(blocks));
    let tail = tail(&console, 60);
    assert!(!reset, "the guest reset: every boot here is a kexec");
    assert!(done, "the campaign did not complete; console:\n{tail}");
    eprintln!(
        "campaign of {blocks} blocks: {:.0} s under TCG, {:.0} s a block",
        took.as_secs_f64(),
        took.as_secs_f64() / blocks as f64
    );
    assert!(console.contains("kbench-test: HOME is unset"), "{tail}");
    // The machine's watchdog, and that Debian's systemd does not arm it
    // through a kexec.
    let said = console
        .lines()
        .find(|l| l.contains("kbench: watchdog:"))
        .unwrap_or_default();
    eprintln!("{}", said.trim());
    assert!(
        said.contains("watchdog0 (i6300ESB timer") && said.contains("KExecWatchdogSec=0"),
        "{said}\n{tail}"
    );
    // The unit names the store by an absolute path, with HOME unset.
    assert!(
        console.contains("--db /root/.local/share/kbench/results.db campaign step t"),
        "{tail}"
    );
    // Two steps at once: the second said so and ran nothing.
    assert!(
        console.contains("kbench-test: second step exit 2"),
        "{tail}"
    );
    assert!(!console.contains("paused"), "a pause on the way:\n{tail}");
    // The unit is gone.
    assert!(
        disk.read("/etc/systemd/system/kbench-campaign-t.service")
            .is_none(),
        "the unit was left behind"
    );
    let db = disk.store("/root/.local/share/kbench/results.db");
    let (code, out, err) = kbench(&db, &["campaign", "status", "t", "--json"]);
    assert_eq!(code, 0, "{err}");
    let status: serde_json::Value = serde_json::from_str(&out).unwrap();
    let plan = &status["campaigns"][0];
    assert!(plan["paused"].is_null(), "{plan}");
    let history = plan["history"].as_array().unwrap();
    assert_eq!(history.len(), blocks, "{plan}");
    let mut boot_ids: Vec<&str> = history
        .iter()
        .map(|b| b["boot_id"].as_str().unwrap())
        .collect();
    assert!(history.iter().all(|b| b["status"] == "done"), "{plan}");
    // Every block after its reboot settled first (bounded by --settle-max,
    // 60 s), and says what it found.
    for b in history {
        let s = &b["settle"];
        assert!(s["uptime_s"].as_f64().is_some(), "{b}");
        assert!(s["waited_s"].as_f64().unwrap() <= 65.0, "{b}");
        eprintln!(
            "block {} settled {}: up {:.0} s, CPU pressure {}, waited {:.0} s",
            b["position"],
            s["settled"],
            s["uptime_s"].as_f64().unwrap(),
            s["cpu_pressure_pct"],
            s["waited_s"].as_f64().unwrap()
        );
    }
    boot_ids.sort();
    boot_ids.dedup();
    assert_eq!(boot_ids.len(), blocks, "every block on a boot of its own");
    // Each label's runs on its own kernel, from as many boots as rounds.
    for (label, release) in [("std", &g.std), ("rt", &g.rt)] {
        let mut boots = Vec::new();
        for (r, fp) in runs_of(&db, label) {
            assert_eq!(fp["release"], release.as_str(), "{label}'s run {}", r["id"]);
            boots.push(fp["boot_id"].as_str().unwrap().to_string());
        }
        boots.sort();
        boots.dedup();
        assert_eq!(boots.len(), rounds, "{label}: runs from {boots:?}");
    }
    let (code, out, err) = kbench(&db, &["compare", "--label", "std", "--label", "rt"]);
    assert!(code == 0 || code == 3, "{err}");
    let said: String = format!("{out}\n{err}")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        said.contains("so the boot is the unit")
            && said.contains(&format!("std {rounds} boots/"))
            && said.contains(&format!("rt {rounds} boots/")),
        "compare does not take the boot as its unit:\n{err}\n{out}"
    );
}

/// A kernel that does not come up: the reboot into `rt` boots it with
/// `init=/bin/false`, so it panics, and with `panic=5` the machine resets
/// and comes back on its default kernel (QEMU starts again with `std`,
/// as firmware would).  The step on that boot counts `rt` lost, boots it
/// again once (`--retries 1`), and at the second loss stops the campaign
/// with why: two resets, not a loop.
#[test]
fn a_kernel_that_does_not_come_up_is_counted_lost_and_the_campaign_stops() {
    let _one = lock();
    let Some(g) = guest() else { return };
    let script = format!(
        r#"set -u
K=/usr/local/bin/kbench
$K campaign init p --rounds 1 --retries 1 \
  --reboot 'kexec -l {{entry}} --initrd=/boot/initrd.img-{{release}} --append="root=/dev/vda rw console=ttyS0 panic=5 no_timer_check init=/bin/false" && systemctl --no-block kexec' \
  --boot 'std=release={std},entry=/boot/vmlinuz-{std}' \
  --boot 'rt=release={rt},entry=/boot/vmlinuz-{rt}' \
  -- cyclictest -t 1 -D 1s || exit 1
$K campaign install-service p || exit 1
$K campaign step p
"#,
        std = g.std,
        rt = g.rt,
    );
    let disk = Disk::new(g, &script);
    // A panicking kernel resets the machine: it comes back.
    let (stopped, resets, consoles) = until_stopped(g, &disk, "", 4);
    let tail = tail(&consoles, 80);
    assert!(stopped, "the campaign did not stop at its bound:\n{tail}");
    assert_eq!(resets, 2, "two panics, then no more reboots:\n{tail}");
    assert!(consoles.contains("Attempted to kill init"), "{tail}");
    assert!(
        consoles.contains("boot 'rt' was lost") && consoles.contains("retry 1 of 1"),
        "{tail}"
    );
    let db = disk.store("/root/.local/share/kbench/results.db");
    let (code, out, err) = kbench(&db, &["campaign", "status", "p", "--json"]);
    assert_eq!(code, 0, "{err}");
    let plan = &serde_json::from_str::<serde_json::Value>(&out).unwrap()["campaigns"][0];
    assert_eq!(plan["lost"].as_array().unwrap().len(), 2, "{plan}");
    assert_eq!(plan["next"], 1, "{plan}");
    assert!(
        plan["paused"]
            .as_str()
            .unwrap()
            .contains("lost 2 times in a row"),
        "{plan}"
    );
    // The unit stays (the campaign is paused, not done): the next boot
    // of rt, by hand, goes on from here.
    assert!(disk
        .read("/etc/systemd/system/kbench-campaign-p.service")
        .is_some());
}

/// A power cut in the middle of a block: QEMU is killed while the first
/// block measures (nothing in the guest is told), and the machine is
/// started again on the same kernel, as a person would switch it back on.
/// The unit's step at that boot finds the block cut short, removes its
/// partial runs and runs it again; the campaign then goes on by itself
/// to the end, and every label's runs come from whole blocks only.
#[test]
fn a_block_cut_by_a_power_cut_runs_again_without_its_partial_runs() {
    let _one = lock();
    let Some(g) = guest() else { return };
    let script = format!(
        r#"set -u
K=/usr/local/bin/kbench
$K campaign init c --rounds 1 --reboot kexec \
  --boot 'std=release={std},entry=/boot/vmlinuz-{std}' \
  --boot 'rt=release={rt},entry=/boot/vmlinuz-{rt}' \
  -- cyclictest -t 1 -D 3s --runs 4 || exit 1
$K campaign install-service c || exit 1
sync
$K campaign step c
"#,
        std = g.std,
        rt = g.rt,
    );
    let disk = Disk::new(g, &script);
    let mut m = Machine::boot(g, &disk, &g.std);
    let running = m.wait_for("running `kbench cyclictest", limit(1));
    // Into the block: a run or two stored, the others not yet.
    std::thread::sleep(Duration::from_secs(12));
    let first = m.console();
    let _ = m.child.kill();
    let _ = m.child.wait();
    assert!(running, "the first block never started:\n{first}");
    let Ended { done, console, .. } =
        Machine::boot(g, &disk, &g.std).end("campaign c complete", limit(3));
    let tail = tail(&console, 60);
    assert!(
        done,
        "the campaign did not complete after the power cut:\n{tail}"
    );
    assert!(
        console.contains("was cut short before") && console.contains("it runs again"),
        "{tail}"
    );
    assert!(!console.contains("paused"), "a pause on the way:\n{tail}");
    if let Some(l) = console.lines().find(|l| l.contains("was cut short before")) {
        eprintln!("after the power cut: {}", l.trim());
    }
    let db = disk.store("/root/.local/share/kbench/results.db");
    let (code, out, err) = kbench(&db, &["campaign", "status", "c", "--json"]);
    assert_eq!(code, 0, "{err}");
    let plan = &serde_json::from_str::<serde_json::Value>(&out).unwrap()["campaigns"][0];
    let history = plan["history"].as_array().unwrap();
    let done_blocks: Vec<&serde_json::Value> =
        history.iter().filter(|b| b["status"] == "done").collect();
    assert_eq!(done_blocks.len(), 2, "{plan}");
    // Each label's runs: four, all complete, all from its done block's boot.
    for b in done_blocks {
        let label = b["label"].as_str().unwrap();
        let mine = runs_of(&db, label);
        assert_eq!(mine.len(), 4, "{label}: {mine:?}");
        for (r, fp) in mine {
            assert_eq!(r["status"], "complete", "{label}: {r}");
            assert_eq!(fp["boot_id"], b["boot_id"], "{label}'s run {}", r["id"]);
        }
    }
}
