//! The machine every boot of a session shares (QEMU, accelerator, vCPUs
//! and their placement, memory, timeout) and one boot on it: a guest's
//! initramfs written, booted, and what came back stored as runs.  `kbench
//! vm` boots its arms on it; `kbench bisect --vm` its candidates.

use super::boot;
use super::image::Image;
use super::initramfs;
use super::{accel, job, plan, qemu, record};
use crate::error::input;
use crate::experiment::runner::Ran;
use crate::store::{RunStatus, Store};
use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How the machine is to be.
#[derive(Clone, Debug)]
pub struct MachineOptions {
    pub qemu: Option<PathBuf>,
    pub accel: accel::Wanted,
    /// vCPUs [default: the host's CPUs less one, at least one].
    pub cpus: Option<usize>,
    pub memory_mib: u64,
    pub timeout: Duration,
    pub rt_priority: Option<i32>,
    pub share_root: bool,
    pub console: bool,
}

pub struct Machine {
    pub qemu: qemu::Qemu,
    pub accel: accel::Choice,
    pub cpus: usize,
    pub memory_mib: u64,
    pub timeout: Duration,
    pub placement: boot::Placement,
    pub hugepages: std::result::Result<PathBuf, String>,
    /// kbench's own static binary: the guest's userland.
    pub exe: PathBuf,
    pub share_root: bool,
    pub console: bool,
    /// What `--isolate` put in place, as recorded.
    pub isolated: Option<serde_json::Value>,
}

/// One guest: its kernel, command line, label and what it runs.
pub struct Guest<'a> {
    pub image: &'a Image,
    pub cmdline: &'a str,
    pub label: &'a str,
    pub command: &'a [String],
    /// Files the command names, put into the initramfs.
    pub files: &'a [initramfs::Entry],
}

/// Where a boot stands: its session, number (1-based) of how many;
/// `experiment` is the tag its runs carry.
pub struct Place<'a> {
    pub session: &'a str,
    pub number: usize,
    pub of: usize,
    pub experiment: crate::store::Tag,
    /// Where the console goes with `--console`.
    pub console: &'a dyn Fn(&str),
}

impl Machine {
    pub fn new(o: &MachineOptions) -> Result<Machine> {
        let qemu = qemu::find(o.qemu.as_deref())?;
        let accel = accel::choose(o.accel, Path::new("/")).map_err(crate::error::resource)?;
        let online = crate::sys::cpus::online_here();
        let cpus = o
            .cpus
            .unwrap_or_else(|| online.len().saturating_sub(1).max(1));
        Ok(Machine {
            qemu,
            accel,
            cpus,
            memory_mib: o.memory_mib,
            timeout: o.timeout,
            placement: plan::placement(&online, cpus, o.rt_priority),
            hugepages: plan::hugepages(o.memory_mib),
            exe: self_binary()?,
            share_root: o.share_root,
            console: o.console,
            isolated: None,
        })
    }

    /// Refuse what the host cannot hold: guest memory and `initramfs`
    /// of them in `scratch`.
    pub fn check_room(&self, initramfs: usize, scratch: &Path) -> Result<()> {
        let bin = std::fs::metadata(&self.exe)?.len();
        plan::check_room(self.memory_mib, bin + (64 << 20), initramfs, scratch)
    }

    /// Write the initramfs of `g` to `path`.
    pub fn initramfs(&self, g: &Guest, path: &Path) -> Result<()> {
        let mut entries = vec![initramfs::Entry {
            name: "init".into(),
            source: initramfs::Source::File(self.exe.clone()),
            mode: 0o755,
        }];
        let mut module_names = Vec::new();
        if self.share_root {
            for (i, m) in share_root_modules(g.image)?.into_iter().enumerate() {
                let name = format!(
                    "{}/{i:02}-{}",
                    initramfs::MODULES_DIR,
                    m.file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_default()
                );
                module_names.push(name.clone());
                entries.push(initramfs::Entry {
                    name,
                    source: initramfs::Source::File(m),
                    mode: 0o644,
                });
            }
        }
        if let Some(c) = &g.image.config {
            entries.push(initramfs::Entry {
                name: job::CONFIG.into(),
                source: initramfs::Source::File(c.clone()),
                mode: 0o644,
            });
        }
        let j = job::Job {
            version: job::JOB_VERSION,
            label: g.label.to_string(),
            command: g.command.to_vec(),
            modules: module_names,
            share_root: self.share_root,
        };
        entries.push(initramfs::Entry {
            name: initramfs::JOB.into(),
            source: initramfs::Source::Bytes(serde_json::to_vec_pretty(&j)?),
            mode: 0o644,
        });
        entries.extend(g.files.iter().cloned());
        initramfs::write(path, &entries)
    }

    /// Boot `g` with `initrd` (its scratch in `dir`) and store what it
    /// gave: the guest's runs, or one failed run with the reason (in
    /// `failed`: why it gave no run of the command's).
    pub fn boot(
        &self,
        store: &mut dyn Store,
        g: &Guest,
        initrd: &Path,
        dir: &Path,
        at: &Place,
        progress: impl FnMut(Duration),
    ) -> Result<Ran> {
        let launch = qemu::Launch {
            accel: self.accel.accel,
            cpus: self.cpus as u32,
            memory_mib: self.memory_mib,
            kernel: &g.image.path,
            initrd,
            append: g.cmdline,
            console: &dir.join("console.log"),
            result: &dir.join("result.bin"),
            qmp: &dir.join("qmp.sock"),
            share_root: self.share_root,
            hugepages: self.hugepages.as_ref().ok().map(PathBuf::as_path),
        };
        let out = boot::run(
            &boot::Plan {
                qemu: &self.qemu,
                launch,
                dir,
                timeout: self.timeout,
                placement: &self.placement,
                console: self.console.then_some(at.console),
            },
            progress,
        )?;
        let b = record::Boot {
            label: g.label,
            number: at.number,
            of: at.of,
            image: g.image,
            vm: self.settings(&out, g, at),
            emulated: self.accel.emulated.as_deref(),
            command: g.command,
            started: out.started,
            ended: out.started + out.wall_s,
            experiment: Some(at.experiment.clone()),
        };
        let runs = match &out.result {
            Ok((rep, bytes)) => match record::guest_runs(&b, rep, bytes, dir) {
                Ok(runs) if !runs.is_empty() => Ok(runs),
                Ok(_) => Err(no_runs_reason(rep)),
                Err(e) => Err(format!("{e:#}")),
            },
            Err(why) => Err(why.clone()),
        };
        let (runs, failed) = match runs {
            Ok(r) => (r, None),
            Err(why) => {
                let status = if out.interrupted {
                    RunStatus::Interrupted
                } else {
                    RunStatus::Failed
                };
                let r = record::failed_boot(&b, &why, &out.console_tail, status);
                (vec![r], Some(why))
            }
        };
        let ids = store.save_runs(&runs)?;
        Ok(Ran {
            ids,
            runs,
            failed,
            interrupted: out.interrupted,
            wall_s: out.wall_s,
            code: None,
        })
    }

    /// What the VM was, stored with each of its runs.
    fn settings(&self, out: &boot::Outcome, g: &Guest, at: &Place) -> serde_json::Value {
        serde_json::json!({
            "session": at.session,
            "boot": at.number,
            "accel": self.accel.accel,
            "accel_why": self.accel.why,
            "emulated": self.accel.emulated,
            "vcpus": self.cpus,
            "memory_mib": self.memory_mib,
            "qemu": self.qemu.version,
            "cmdline": g.cmdline,
            "image": g.image.path.display().to_string(),
            "image_sha256": g.image.sha256,
            "placement": out.placement,
            "hugepages": match &self.hugepages { Ok(p) => p.display().to_string(), Err(why) => format!("no: {why}") },
            "host": out.host,
            "host_cpus": crate::sys::cpus::online_here().len(),
            "wall_s": out.wall_s,
            "share_root": self.share_root,
            "isolation": self.isolated,
            "sched_ext_after": out.result.as_ref().ok().and_then(|(r, _)| r.sched_ext_after.clone()),
        })
    }
}

/// kbench's own binary, which must be linked statically: it is the
/// guest's whole userland.
fn self_binary() -> Result<PathBuf> {
    use object::Object;
    let exe = std::env::current_exe().map_err(|e| anyhow!("finding kbench's own binary: {e}"))?;
    let data = std::fs::read(&exe)?;
    let obj = object::File::parse(&*data).map_err(|e| anyhow!("reading {}: {e}", exe.display()))?;
    // A dynamic executable names its loader in `.interp`.
    if obj.section_by_name(".interp").is_some() {
        return Err(input(format!(
            "kbench vm makes kbench itself the guest's userland, and {} is linked dynamically: build it statically (the default on glibc, see the README)",
            exe.display()
        )));
    }
    Ok(exe)
}

/// Why a boot whose guest answered gave no run.
fn no_runs_reason(rep: &super::channel::Report) -> String {
    let how = match (rep.exit_code, rep.signal) {
        (Some(c), _) => format!("the command exited {c}"),
        (_, Some(s)) => format!(
            "the command was killed by {}",
            crate::sys::proc::signal_name(s)
        ),
        _ => "the command did not run".into(),
    };
    if rep.problems.is_empty() {
        format!("{how} and stored no run")
    } else {
        format!("{how} and stored no run: {}", rep.problems.join("; "))
    }
}

/// The modules a guest loads to mount the host's root over virtio 9p,
/// in load order (none where the image builds them in).
fn share_root_modules(img: &Image) -> Result<Vec<PathBuf>> {
    const WANTED: &[&str] = &["virtio_pci", "9pnet_virtio", "9p"];
    let built_in = img.load_config().is_some_and(|c| {
        ["CONFIG_VIRTIO_PCI", "CONFIG_NET_9P_VIRTIO", "CONFIG_9P_FS"]
            .iter()
            .all(|o| c.is_y(o))
    });
    if built_in {
        return Ok(Vec::new());
    }
    let dir = img.modules.as_ref().ok_or_else(|| {
        input(format!(
            "--share-root: {} builds virtio 9p as modules (or says nothing of it), and no modules tree was found beside it (lib/modules/<release>, as a Debian package unpacks)",
            img.path.display()
        ))
    })?;
    let tree = super::modules::Tree::open(dir)?;
    tree.resolve(WANTED)
        .map_err(|e| input(format!("--share-root: {}: {e:#}", img.path.display())))
}
