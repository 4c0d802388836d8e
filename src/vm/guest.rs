//! kbench as a guest kernel's first process (`/init` of the initramfs
//! the host wrote): bring up what a kbench command needs, run the
//! command as a child kbench with a store of its own, send that store
//! back over the result port, power off.
//!
//! The first process inherits every orphan, so it reaps while it waits;
//! when the command ends, whatever it left is killed before the store is
//! read, so the result is the command's whole and final one.  Whatever
//! fails on the way is said in the report the host receives (and on the
//! console), and the machine powers off whatever happened: a boot always
//! ends, with a result or with the reason there is none.

use super::channel::{self, Report};
use super::job::{Job, CONFIG, GUEST_DB, JOB_VERSION};
use crate::sys::guest as sys;
use anyhow::{anyhow, Context, Result};
use std::path::Path;

/// The result port: the second serial port.
const RESULT_PORT: &str = "/dev/ttyS1";

/// Run the guest.  Returns only when powering off failed (not the first
/// process of a machine).
pub fn run() -> Result<()> {
    if std::process::id() != 1 {
        return Err(crate::error::input(
            "vm-guest is what kbench runs as a guest kernel's first process (kbench vm); it is not for running by hand",
        ));
    }
    let mut report = Report::default();
    let store = match prepare(&mut report).and_then(|job| command(&job, &mut report)) {
        Ok(()) => read_store(&mut report),
        Err(e) => {
            report.problems.push(format!("{e:#}"));
            Vec::new()
        }
    };
    say(&format!(
        "done ({}); sending {} bytes of results",
        match (report.exit_code, report.signal) {
            (Some(c), _) => format!("exit {c}"),
            (_, Some(s)) => format!("signal {s}"),
            _ => "not run".into(),
        },
        store.len()
    ));
    if let Err(e) = send(&channel::encode(&report, &store)) {
        say(&format!("the result could not be sent: {e:#}"));
    }
    Err(anyhow!("powering off: {}", sys::power_off()))
}

fn say(msg: &str) {
    use crate::session::front::Say;
    crate::session::front::Terminal.note(&format!("kbench-guest: {msg}"));
}

/// Mounts, modules, the config and the root the command runs in.
fn prepare(report: &mut Report) -> Result<Job> {
    let mounts: &[(&str, &str, &str)] = &[
        ("proc", "/proc", "proc"),
        ("sysfs", "/sys", "sysfs"),
        ("devtmpfs", "/dev", "devtmpfs"),
        ("tmpfs", "/tmp", "tmpfs"),
        ("tmpfs", "/run", "tmpfs"),
        ("debugfs", "/sys/kernel/debug", "debugfs"),
        ("tracefs", "/sys/kernel/tracing", "tracefs"),
    ];
    for (src, at, fs) in mounts {
        if let Err(e) = sys::mount(src, at, fs, 0, "") {
            report.problems.push(format!("mounting {fs} at {at}: {e}"));
        }
    }
    let _ = sys::set_hostname("kbench-guest");
    report.release = sys::release();
    report.boot_id = crate::sys::procfs::boot_id();
    let text = std::fs::read_to_string(format!("/{}", super::initramfs::JOB))
        .context("reading the job the host wrote")?;
    let job: Job = serde_json::from_str(&text).context("the job the host wrote")?;
    if job.version != JOB_VERSION {
        return Err(anyhow!(
            "the job is version {}, this kbench reads {JOB_VERSION}",
            job.version
        ));
    }
    for m in &job.modules {
        let p = Path::new("/").join(m);
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match sys::load_module(&p) {
            Ok(()) => report.modules.push(name),
            Err(e) => report.problems.push(format!("loading module {name}: {e}")),
        }
    }
    if job.share_root {
        enter_host_root(report)?;
    }
    // The image's config, where the fingerprint looks for it.
    if let (Some(r), true) = (&report.release, Path::new("/").join(CONFIG).is_file()) {
        let to = format!("/boot/config-{r}");
        if !Path::new(&to).exists() {
            std::fs::copy(Path::new("/").join(CONFIG), &to)
                .with_context(|| format!("placing the image's config at {to}"))?;
        }
    }
    Ok(job)
}

/// Mount the host's root (read-only, 9p over virtio) and make it this
/// guest's root, with the guest's own /proc, /sys, /dev, /tmp, /run and
/// /boot (where the image's config goes) over it.
fn enter_host_root(report: &mut Report) -> Result<()> {
    sys::mount(
        super::qemu::ROOT_TAG,
        "/host",
        "9p",
        sys::MS_RDONLY,
        "trans=virtio,version=9p2000.L,msize=512000,cache=loose",
    )
    .context("mounting the host's root (9p): was it shared, and did the 9p modules load?")?;
    std::fs::create_dir_all("/tmp/boot")?;
    for (from, to) in [
        ("/proc", "/host/proc"),
        ("/sys", "/host/sys"),
        ("/dev", "/host/dev"),
        ("/tmp", "/host/tmp"),
        ("/run", "/host/run"),
    ] {
        sys::mount(from, to, "", sys::MS_BIND, "")
            .with_context(|| format!("binding {from} over the host's {to}"))?;
    }
    sys::mount("tmpfs", "/host/boot", "tmpfs", 0, "").unwrap_or_else(|e| {
        report
            .problems
            .push(format!("a tmpfs over the host's /boot: {e}"))
    });
    // kbench re-executes itself: its binary must be inside the new root.
    std::fs::copy("/init", "/tmp/kbench").context("copying kbench into the guest's /tmp")?;
    if Path::new("/").join(CONFIG).is_file() {
        std::fs::copy(Path::new("/").join(CONFIG), "/tmp/kbench-config")?;
    }
    std::os::unix::fs::chroot("/host").context("entering the host's root")?;
    std::env::set_current_dir("/")?;
    if Path::new("/tmp/kbench-config").is_file() {
        if let Some(r) = &report.release {
            std::fs::copy("/tmp/kbench-config", format!("/boot/config-{r}"))?;
        }
    }
    Ok(())
}

/// Run the command and wait for it, reaping every orphan meanwhile; then
/// end whatever it left running.
fn command(job: &Job, report: &mut Report) -> Result<()> {
    let exe = if job.share_root {
        "/tmp/kbench"
    } else {
        "/init"
    };
    std::fs::create_dir_all(Path::new(GUEST_DB).parent().unwrap_or(Path::new("/tmp")))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--db")
        .arg(GUEST_DB)
        .arg("--label")
        .arg(&job.label)
        .args(&job.command)
        .env_clear()
        .env(
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        )
        .env("HOME", "/root")
        .env("LANG", "C.UTF-8")
        .current_dir("/tmp");
    say(&format!("running: kbench {}", job.command.join(" ")));
    report.command_started_s = crate::sys::procfs::uptime_s();
    let child = cmd.spawn().with_context(|| format!("starting {exe}"))?;
    let pid = child.id() as libc::pid_t;
    let status = loop {
        match sys::reap_any(true) {
            Some((p, st)) if p == pid => break st,
            Some(_) => continue,
            None => return Err(anyhow!("the command's process vanished")),
        }
    };
    report.command_ended_s = crate::sys::procfs::uptime_s();
    match crate::sys::proc::exit_kind(status) {
        crate::sys::proc::ExitKind::Code(c) => report.exit_code = Some(c),
        crate::sys::proc::ExitKind::Signal(s) => report.signal = Some(s),
    }
    report.sched_ext_after = sched_ext_after(report);
    // Whatever the command left behind.
    sys::kill_all_but_init();
    while sys::reap_any(true).is_some() {}
    Ok(())
}

/// Is a sched_ext scheduler still attached once the command has ended?
/// It should not be, even when the command was killed: kbench's
/// schedulers die with the kbench that attached them, and the kernel
/// detaches a scheduler whose process is gone.  The kernel takes a
/// moment to, so the state is read for up to two seconds.
fn sched_ext_after(report: &mut Report) -> Option<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        let s = crate::sys::sched_ext::read()?;
        if s.state == "disabled" {
            return Some(s.state);
        }
        if std::time::Instant::now() >= deadline {
            let ops = s.ops.unwrap_or_default();
            report.problems.push(format!(
                "a sched_ext scheduler ({ops}) was still attached 2 s after the command ended"
            ));
            return Some(format!("{}: {ops}", s.state));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The store's bytes, whole: opened and closed once, so what its last
/// writer left in the write-ahead log is in the file.
fn read_store(report: &mut Report) -> Vec<u8> {
    if !Path::new(GUEST_DB).exists() {
        report
            .problems
            .push("the command stored nothing (no store was written)".into());
        return Vec::new();
    }
    if let Err(e) = crate::store::open(Some(GUEST_DB), crate::store::Access::ReadWrite) {
        report.problems.push(format!("the guest's store: {e:#}"));
    }
    match std::fs::read(GUEST_DB) {
        Ok(b) => b,
        Err(e) => {
            report
                .problems
                .push(format!("reading the guest's store: {e}"));
            Vec::new()
        }
    }
}

/// Write the frame to the result port, whole, and wait until it is out.
fn send(frame: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut port = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(RESULT_PORT)
        .with_context(|| format!("opening {RESULT_PORT}"))?;
    sys::raw_terminal(&port).with_context(|| format!("{RESULT_PORT} in raw mode"))?;
    port.write_all(frame)?;
    port.flush()?;
    sys::drain(&port)?;
    Ok(())
}
