//! `kbench vm`: kernel A against kernel B on one host, each booted under
//! QEMU with kbench itself as the guest's userland, boots interleaved and
//! each one a unit of the comparison.
//!
//! For each arm (a kernel under a label; `--aa` adds the first kernel
//! again under a second label) kbench writes an initramfs: its own static
//! binary as `/init`, the job, the modules the job needs and the image's
//! config ([`initramfs`]).  Every boot runs the command once in the guest
//! ([`guest`]), whose store comes back whole over the second serial port
//! or not at all ([`channel`]); its runs are stored in the host's store
//! with the guest's own fingerprint (its boot id among it, so `compare`
//! takes the boot as its unit) and what the VM was ([`record`]).  A boot
//! that fails (an image that does not boot, a panic, a guest that never
//! powers off within `--timeout`) is stored as one failed run with the
//! reason and the console's last lines, and the other boots go on.
//!
//! KVM is used where it can run a kernel; elsewhere TCG, and every run is
//! marked emulated ([`accel`]): `compare` says so and gives no verdict on
//! them unless `--allow-emulated`.  QEMU runs in its own process group,
//! dies with kbench (parent-death signal), and the scratch folder goes
//! with kbench however it ends (a janitor after SIGKILL).

mod accel;
mod boot;
pub mod channel;
pub mod guest;
pub mod image;
mod initramfs;
mod job;
pub mod modules;
pub mod plan;
mod qemu;
mod qmp;
mod record;
mod report;

pub use accel::Wanted as Accel;
pub use plan::KernelSpec;

use crate::error::input;
use crate::store::RunStatus;
use anyhow::{anyhow, Result};
use image::Image;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to boot and run.
#[derive(Clone, Debug)]
pub struct Options {
    pub kernels: Vec<KernelSpec>,
    /// More kernel command line, after kbench's own words.
    pub append: Option<String>,
    pub boots: usize,
    /// vCPUs [default: the host's CPUs less one, at least one].
    pub cpus: Option<usize>,
    pub memory_mib: u64,
    pub timeout: Duration,
    pub accel: Accel,
    pub aa: bool,
    pub share_root: bool,
    pub rt_priority: Option<i32>,
    pub seed: Option<u64>,
    pub dry_run: bool,
    pub allow_emulated: bool,
    pub console: bool,
    pub qemu: Option<PathBuf>,
    pub isolate: bool,
    /// The kbench command each guest runs.
    pub command: Vec<String>,
    pub parse: crate::experiment::ParseCommand,
    pub threshold_pct: f64,
    pub db: Option<String>,
    pub quiet: bool,
    pub json: bool,
    pub wide: bool,
}

/// kbench's own words on the guest's command line; the user's follow
/// (so a word of theirs overrides one of these), then init's argument.
const BASE_CMDLINE: &str = "console=ttyS0 panic=-1 quiet";

/// A kernel's whole command line: kbench's words, `--append`, the
/// kernel's own (`IMAGE=LABEL;ARGS`), then init's argument.
fn cmdline(o: &Options, k: &KernelSpec) -> String {
    let mut words = vec![BASE_CMDLINE];
    words.extend(o.append.as_deref().map(str::trim).filter(|a| !a.is_empty()));
    words.extend(k.append.as_deref());
    words.push("-- vm-guest");
    words.join(" ")
}

/// Commands a guest may run: a benchmark, a scenario, or a matrix.
fn check_command(o: &Options) -> Result<()> {
    let first = o.command.first().map(String::as_str).unwrap_or("");
    if first == "matrix" {
        // A matrix is checked by the whole parser below; its own command
        // by the matrix when it runs.
    } else {
        crate::experiment::matrix::check_command(&o.command, o.parse)?;
        return Ok(());
    }
    let argv: Vec<String> = std::iter::once("kbench".to_string())
        .chain(o.command.iter().cloned())
        .collect();
    (o.parse)(&argv).map_err(|e| {
        input(format!(
            "the command after --: {}",
            crate::text::one_line(&e.to_string()).trim_start_matches("error: ")
        ))
    })
}

/// The command as the guest runs it: a scenario file given by path is
/// put into the initramfs and named there.
fn guest_command(o: &Options) -> Result<(Vec<String>, Vec<initramfs::Entry>)> {
    let mut cmd = o.command.clone();
    let mut files = Vec::new();
    if cmd.first().map(String::as_str) == Some("run") {
        if let Some(arg) = cmd.get(1).filter(|a| Path::new(a.as_str()).is_file()) {
            let name = Path::new(arg)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scenario.toml".into());
            let inside = format!("{}/{name}", initramfs::FILES_DIR);
            files.push(initramfs::Entry {
                name: inside.clone(),
                source: initramfs::Source::File(PathBuf::from(arg)),
                mode: 0o644,
            });
            cmd[1] = format!("/{inside}");
        }
    }
    Ok((cmd, files))
}

/// The whole session.
pub fn run(o: &Options) -> Result<()> {
    check_command(o)?;
    if o.kernels.is_empty() {
        return Err(input("give at least one --kernel IMAGE[=LABEL]"));
    }
    if o.kernels.len() < 2 && !o.aa {
        return Err(input(
            "kbench vm compares kernels: give two --kernel, or one with --aa (the kernel against itself)",
        ));
    }
    let qemu = qemu::find(o.qemu.as_deref())?;
    let accel = accel::choose(o.accel, Path::new("/")).map_err(crate::error::resource)?;
    let cmdlines: Vec<String> = o.kernels.iter().map(|k| cmdline(o, k)).collect();
    let images = o
        .kernels
        .iter()
        .map(|k| {
            Image::inspect(&k.path)
                .map_err(|e| input(format!("--kernel {}: {e}", k.path.display())))
        })
        .collect::<Result<Vec<_>>>()?;
    let arms = plan::arms(&images, &o.kernels, &cmdlines, o.aa)?;
    let online = crate::sys::cpus::online_here();
    let cpus = o
        .cpus
        .unwrap_or_else(|| online.len().saturating_sub(1).max(1));
    let seed = o.seed.unwrap_or_else(crate::experiment::order::fresh_seed);
    let order = plan::order(arms.len(), o.boots, seed);
    let exe = self_binary()?;
    let session = Session {
        id: format!("vm{}", &crate::sys::proc::random_hex128()[..12]),
        qemu,
        accel,
        cmdlines,
        images,
        arms,
        order,
        seed,
        cpus,
        placement: plan::placement(&online, cpus, o.rt_priority),
        hugepages: plan::hugepages(o.memory_mib),
        exe,
    };
    report::plan(o, &session);
    if o.dry_run {
        return Ok(());
    }
    session.boot_all(o)
}

/// Everything decided before the first boot.
pub struct Session {
    pub id: String,
    pub qemu: qemu::Qemu,
    pub accel: accel::Choice,
    /// Each kernel's command line.
    pub cmdlines: Vec<String>,
    pub images: Vec<Image>,
    pub arms: Vec<plan::Arm>,
    pub order: Vec<Vec<usize>>,
    pub seed: u64,
    pub cpus: usize,
    pub placement: boot::Placement,
    pub hugepages: std::result::Result<PathBuf, String>,
    pub exe: PathBuf,
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

impl Session {
    fn label_of(&self, arm: usize) -> &str {
        &self.arms[arm].label
    }

    /// Write each arm's initramfs; then every boot in order.
    fn boot_all(&self, o: &Options) -> Result<()> {
        let scratch = crate::isolate::Scratch::in_tmp("vm")?;
        let (command, files) = guest_command(o)?;
        let bin = std::fs::metadata(&self.exe)?.len();
        plan::check_room(
            o.memory_mib,
            bin + (64 << 20),
            self.arms.len(),
            scratch.path(),
        )?;
        let mut initrds = Vec::new();
        for (i, arm) in self.arms.iter().enumerate() {
            let path = scratch.path().join(format!("initramfs-{i}.cpio"));
            self.write_initramfs(o, arm, &command, &files, &path)?;
            initrds.push(path);
        }
        let mut isolation = if o.isolate && !self.placement.vcpu_cpus.is_empty() {
            match crate::isolate::apply(Some(&self.placement.vcpu_cpus), std::process::id() as i32)
            {
                crate::isolate::Outcome::Isolated(i) => Some(i),
                crate::isolate::Outcome::NotPossible(why) => {
                    report::say(
                        o,
                        &format!("--isolate: not possible ({why}); the boots go on without"),
                    );
                    None
                }
            }
        } else {
            None
        };
        let isolated = isolation.as_ref().map(|i| i.summary.clone());
        let mut store = crate::store::open(o.db.as_deref(), crate::store::Access::ReadWrite)?;
        let mut log = report::Log::new(self);
        let flat: Vec<usize> = self.order.iter().flatten().copied().collect();
        let mut outcome = Ok(());
        for (n, &arm) in flat.iter().enumerate() {
            let dir = scratch.path().join(format!("boot-{}", n + 1));
            std::fs::create_dir(&dir)?;
            let r = self.one_boot(
                o,
                &mut *store,
                &mut log,
                n,
                arm,
                &initrds[arm],
                &dir,
                &command,
                &isolated,
            );
            store.put_document("vm", &self.id, &serde_json::to_string(&log.document())?)?;
            if let Err(e) = r {
                outcome = Err(e);
                break;
            }
        }
        if let Some(i) = isolation.as_mut() {
            i.undo();
        }
        outcome?;
        report::closing(o, self, &*store, &log)
    }

    fn write_initramfs(
        &self,
        o: &Options,
        arm: &plan::Arm,
        command: &[String],
        files: &[initramfs::Entry],
        path: &Path,
    ) -> Result<()> {
        let img = &self.images[arm.kernel];
        let mut entries = vec![initramfs::Entry {
            name: "init".into(),
            source: initramfs::Source::File(self.exe.clone()),
            mode: 0o755,
        }];
        let mut module_names = Vec::new();
        if o.share_root {
            for (i, m) in share_root_modules(img)?.into_iter().enumerate() {
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
        if let Some(c) = &img.config {
            entries.push(initramfs::Entry {
                name: job::CONFIG.into(),
                source: initramfs::Source::File(c.clone()),
                mode: 0o644,
            });
        }
        let j = job::Job {
            version: job::JOB_VERSION,
            label: arm.label.clone(),
            command: command.to_vec(),
            modules: module_names,
            share_root: o.share_root,
        };
        entries.push(initramfs::Entry {
            name: initramfs::JOB.into(),
            source: initramfs::Source::Bytes(serde_json::to_vec_pretty(&j)?),
            mode: 0o644,
        });
        entries.extend(files.iter().cloned());
        initramfs::write(path, &entries)
    }

    /// Boot `arm` as boot `n` (0-based) and store what it gave.
    #[allow(clippy::too_many_arguments)]
    fn one_boot(
        &self,
        o: &Options,
        store: &mut dyn crate::store::Store,
        log: &mut report::Log,
        n: usize,
        arm: usize,
        initrd: &Path,
        dir: &Path,
        command: &[String],
        isolated: &Option<serde_json::Value>,
    ) -> Result<()> {
        let kernel = self.arms[arm].kernel;
        let img = &self.images[kernel];
        let launch = qemu::Launch {
            accel: self.accel.accel,
            cpus: self.cpus as u32,
            memory_mib: o.memory_mib,
            kernel: &img.path,
            initrd,
            append: &self.cmdlines[kernel],
            console: &dir.join("console.log"),
            result: &dir.join("result.bin"),
            qmp: &dir.join("qmp.sock"),
            share_root: o.share_root,
            hugepages: self.hugepages.as_ref().ok().map(PathBuf::as_path),
        };
        let plan = boot::Plan {
            qemu: &self.qemu,
            launch,
            dir,
            timeout: o.timeout,
            placement: &self.placement,
            console: o.console,
        };
        let total = self.order.iter().map(Vec::len).sum::<usize>();
        let bar = report::Bar::start(o, n + 1, total, self.label_of(arm));
        let out = boot::run(&plan, |t| bar.tick(t))?;
        bar.finish();
        let vm = report::vm_settings(self, o, &out, isolated, n + 1, kernel);
        let b = record::Boot {
            session: &self.id,
            label: self.label_of(arm),
            kernel,
            arm,
            number: n + 1,
            of: total,
            image: img,
            vm,
            emulated: self.accel.emulated.as_deref(),
            command,
            started: out.started,
            ended: out.started + out.wall_s,
        };
        let runs = match &out.result {
            Ok((rep, bytes)) => match record::guest_runs(&b, rep, bytes, dir) {
                Ok(runs) if !runs.is_empty() => Ok(runs),
                Ok(_) => Err(no_runs_reason(rep)),
                Err(e) => Err(format!("{e:#}")),
            },
            Err(why) => Err(why.clone()),
        };
        let (runs, reason) = match runs {
            Ok(r) => (r, None),
            Err(why) => {
                let status = if out.interrupted {
                    RunStatus::Interrupted
                } else {
                    RunStatus::Failed
                };
                (
                    vec![record::failed_boot(&b, &why, &out.console_tail, status)],
                    Some(why),
                )
            }
        };
        let ids = store.save_runs(&runs)?;
        log.boot(n + 1, arm, &out, reason.as_deref(), &runs, &ids);
        report::boot_line(o, self, n + 1, total, arm, &out, reason.as_deref(), &ids);
        if out.interrupted {
            return Err(crate::error::Interrupted.into());
        }
        Ok(())
    }
}

/// Why a boot whose guest answered gave no run.
fn no_runs_reason(rep: &channel::Report) -> String {
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
    let tree = modules::Tree::open(dir)?;
    tree.resolve(WANTED)
        .map_err(|e| input(format!("--share-root: {}: {e:#}", img.path.display())))
}
