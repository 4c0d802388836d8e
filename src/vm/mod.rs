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
pub mod initramfs;
mod job;
mod machine;
pub mod modules;
pub mod plan;
mod programs;
mod qemu;
mod qmp;
mod record;
pub mod report;
pub mod unit;

pub use accel::Wanted as Accel;
pub use image::Image;
pub use machine::{Guest, Machine, MachineOptions};
pub use plan::KernelSpec;
pub use unit::Booter;

use crate::error::input;
use crate::store::Kind;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// What to boot and run.
#[derive(Clone, Debug)]
pub struct Options {
    pub kernels: Vec<KernelSpec>,
    /// More kernel command line, after kbench's own words.
    pub append: Option<String>,
    pub boots: usize,
    pub machine: MachineOptions,
    pub aa: bool,
    pub seed: Option<u64>,
    pub dry_run: bool,
    pub allow_emulated: bool,
    pub isolate: bool,
    /// The kbench command each guest runs.
    pub command: Vec<String>,
    pub parse: crate::experiment::ParseCommand,
    pub threshold_pct: f64,
    /// The store, verbosity and voice.
    pub front: crate::session::Front,
    pub wide: bool,
}

/// kbench's own words on the guest's command line; the user's follow
/// (so a word of theirs overrides one of these), then init's argument.
const BASE_CMDLINE: &str = "console=ttyS0 panic=-1 quiet";

/// A kernel's whole command line: kbench's words, `--append`, the
/// kernel's own (`IMAGE=LABEL;ARGS`), then init's argument.
pub fn cmdline(append: Option<&str>, own: Option<&str>) -> String {
    let mut words = vec![BASE_CMDLINE];
    words.extend(append.map(str::trim).filter(|a| !a.is_empty()));
    words.extend(own.map(str::trim).filter(|a| !a.is_empty()));
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
        crate::experiment::command::check_command(&o.command, o.parse)?;
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

/// The command as the guest runs it: a scenario file given by path, and
/// a matrix's sched_ext programs with their libraries, are put into the
/// initramfs and named there.
pub fn guest_command(command: &[String]) -> Result<(Vec<String>, Vec<initramfs::Entry>)> {
    let (mut cmd, mut files) = programs::carry(command)?;
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

/// The session planned: the command, the kernels and the machine checked,
/// each image inspected, the arms and the seeded order made.  The
/// session is driven by its kind (`experiment::kinds::vm`).
pub fn session(o: &Options) -> Result<Session> {
    check_command(o)?;
    if o.kernels.is_empty() {
        return Err(input("give at least one --kernel IMAGE[=LABEL]"));
    }
    if o.kernels.len() < 2 && !o.aa {
        return Err(input(
            "kbench vm compares kernels: give two --kernel, or one with --aa (the kernel against itself)",
        ));
    }
    let machine = Machine::new(&o.machine)?;
    let cmdlines: Vec<String> = o
        .kernels
        .iter()
        .map(|k| cmdline(o.append.as_deref(), k.append.as_deref()))
        .collect();
    let images = o
        .kernels
        .iter()
        .map(|k| {
            Image::inspect(&k.path).map_err(|e| {
                if e.kind() == std::io::ErrorKind::Interrupted {
                    crate::error::Interrupted.into()
                } else {
                    input(format!("--kernel {}: {e}", k.path.display()))
                }
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let arms = plan::arms(&images, &o.kernels, &cmdlines, o.aa)?;
    let seed = o.seed.unwrap_or_else(crate::experiment::order::fresh_seed);
    let order = plan::order(arms.len(), o.boots, seed);
    Ok(Session {
        id: crate::experiment::plan::new_id(Kind::Vm),
        machine,
        cmdlines,
        images,
        arms,
        order,
        seed,
    })
}

/// Everything decided before the first boot.
pub struct Session {
    pub id: String,
    pub machine: Machine,
    /// Each kernel's command line.
    pub cmdlines: Vec<String>,
    pub images: Vec<Image>,
    pub arms: Vec<plan::Arm>,
    pub order: Vec<Vec<usize>>,
    pub seed: u64,
}

/// Keep every other process off the vCPUs' CPUs for the session, when
/// asked and possible (said when not).
pub fn isolate(
    o_isolate: bool,
    m: &mut Machine,
    say: impl Fn(&str),
) -> Option<Box<crate::isolate::Isolation>> {
    if !o_isolate || m.placement.vcpu_cpus.is_empty() {
        return None;
    }
    match crate::isolate::apply(Some(&m.placement.vcpu_cpus), std::process::id() as i32) {
        crate::isolate::Outcome::Isolated(i) => {
            m.isolated = Some(i.summary.clone());
            Some(i)
        }
        crate::isolate::Outcome::NotPossible(why) => {
            say(&format!(
                "--isolate: not possible ({why}); the boots go on without"
            ));
            None
        }
    }
}

impl Session {
    /// Each arm's initramfs written into `scratch`, after checking there
    /// is room for them; their paths, by arm.
    pub fn initrds(
        &self,
        command: &[String],
        files: &[initramfs::Entry],
        scratch: &Path,
    ) -> Result<Vec<PathBuf>> {
        self.machine.check_room(self.arms.len(), scratch)?;
        let mut initrds = Vec::new();
        for (i, arm) in self.arms.iter().enumerate() {
            let path = scratch.join(format!("initramfs-{i}.cpio"));
            self.machine
                .initramfs(&self.guest(arm, command, files), &path)?;
            initrds.push(path);
        }
        Ok(initrds)
    }

    /// Every arm's guest as a runner: each unit booted as the arm its tag
    /// names.
    pub fn runner<'a>(
        &'a self,
        front: &'a crate::session::Front,
        initrds: &'a [PathBuf],
        (command, files): (&'a [String], &'a [initramfs::Entry]),
        scratch: &'a Path,
    ) -> unit::Arms<'a> {
        unit::Arms {
            boots: self
                .arms
                .iter()
                .enumerate()
                .map(|(i, a)| Booter {
                    machine: &self.machine,
                    front,
                    guest: self.guest(a, command, files),
                    initrd: &initrds[i],
                    scratch,
                    session: &self.id,
                })
                .collect(),
        }
    }

    fn guest<'a>(
        &'a self,
        arm: &'a plan::Arm,
        command: &'a [String],
        files: &'a [initramfs::Entry],
    ) -> Guest<'a> {
        Guest {
            image: &self.images[arm.kernel],
            cmdline: &self.cmdlines[arm.kernel],
            label: &arm.label,
            command,
            files,
        }
    }
}
