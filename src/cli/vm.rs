//! Flags of `kbench vm`.

use super::values;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

fn boots(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=100).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a number of boots from 1 to 100")),
    }
}

fn cpus(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a number of vCPUs from 1 to 256")),
    }
}

/// Guest memory in MiB: at least 128 MiB, at most 1 TiB.
fn memory(s: &str) -> Result<u64, String> {
    let b = values::size(s)?;
    let mib = b >> 20;
    if !(128..=1 << 20).contains(&mib) {
        return Err(format!("--memory '{s}': give 128M to 1T"));
    }
    Ok(mib)
}

fn rt_priority(s: &str) -> Result<i32, String> {
    match s.parse::<i32>() {
        Ok(p) if (1..=99).contains(&p) => Ok(p),
        _ => Err(format!("'{s}' is not a SCHED_FIFO priority from 1 to 99")),
    }
}

fn kernel(s: &str) -> Result<crate::vm::KernelSpec, String> {
    crate::vm::plan::parse_kernel(s)
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccelArg {
    /// KVM where it can run a kernel here, else TCG (and the runs are marked emulated)
    Auto,
    /// KVM, or a one-line reason why it cannot be had
    Kvm,
    /// QEMU's software emulator (every run marked emulated)
    Tcg,
}

/// `vm --help`'s closing text.
const VM_HELP: &str = "Examples (Debian's 6.1 kernels, unpacked with dpkg -x):\n  \
apt-get download linux-image-6.1.0-57-amd64 linux-image-6.1.0-57-rt-amd64\n  \
dpkg -x linux-image-6.1.0-57-amd64_*.deb std; dpkg -x linux-image-6.1.0-57-rt-amd64_*.deb rt\n  \
kbench vm --kernel std/boot/vmlinuz-6.1.0-57-amd64 --kernel rt/boot/vmlinuz-6.1.0-57-rt-amd64 \\\n    \
--boots 3 --aa -- cyclictest -t 1 -D 10s\n  \
kbench compare --label 6.1.0-57-amd64/voluntary --label 6.1.0-57-rt-amd64/rt\n\n\
Each guest runs the command once per boot with kbench as its /init; boots of the kernels are \
interleaved (A B B A …) and each boot is a unit of the comparison. Under TCG (no usable KVM) \
every run is marked emulated and compare gives no verdict on it unless --allow-emulated.\n\n\
Options of a measuring run:\n      \
--isolate             Keep every other process off the vCPUs' CPUs during the boots (cpusets,\n                            \
needs root)";

#[derive(Args, Debug, Clone)]
#[command(after_help = VM_HELP)]
#[command(mut_arg("seed", |a| a.help("Seed of the boot order (default: a fresh one, printed and stored)")))]
#[command(mut_arg("dry_run", |a| a.help("Print the plan (kernels, labels, accelerator, placement, order) and boot nothing")))]
pub struct VmArgs {
    /// A kernel image (bzImage, vmlinuz), its label [default: its release and preemption mode] and
    /// command line of its own after a ; (one image twice: 'vmlinuz=full;preempt=full'); config
    /// and modules are found beside it as a Debian package unpacks (repeat)
    #[arg(long, value_name = "IMAGE[=LABEL][;ARGS]", required = true, value_parser = kernel)]
    pub kernel: Vec<crate::vm::KernelSpec>,
    /// More kernel command line for every guest (after kbench's console=ttyS0 panic=-1 quiet)
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pub append: Option<String>,
    /// Boots of each kernel
    #[arg(long, value_name = "N", default_value = "3", value_parser = boots)]
    pub boots: usize,
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Add an A/A calibration: the first kernel booted again under a second label (LABEL/aa),
    /// compared with itself before the kernels are compared
    #[arg(long)]
    pub aa: bool,
    #[command(flatten)]
    pub seed: super::shared::Seed,
    #[command(flatten)]
    pub dry_run: super::shared::DryRun,
    /// Give verdicts on emulated runs in the closing comparison
    #[arg(long)]
    pub allow_emulated: bool,
    /// The closing report with whole labels and no wrapping
    #[arg(long)]
    pub wide: bool,
    /// The kbench command each guest runs: a benchmark with its flags, `run SCENARIO` or `matrix …`
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The guests' machine: shared by `vm` and `bisect --vm`.
#[derive(Args, Debug, Clone)]
pub struct MachineArgs {
    /// vCPUs of each guest [default: the host's CPUs less one, so QEMU's own threads have one]
    #[arg(long, value_name = "N", value_parser = cpus)]
    pub cpus: Option<usize>,
    /// Memory of each guest
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = memory)]
    pub memory: u64,
    /// Stop a guest that has not powered off after this long (its boot is stored as failed)
    #[arg(long, value_name = "TIME", default_value = "10m", value_parser = values::duration)]
    pub timeout: std::time::Duration,
    /// Accelerator
    #[arg(long, value_enum, default_value_t = AccelArg::Auto)]
    pub accel: AccelArg,
    /// Share the host's root read-only with the guests (9p) and run the command in it, for
    /// commands that need the host's tools (a timed build)
    #[arg(long)]
    pub share_root: bool,
    /// Run the vCPU threads at this SCHED_FIFO priority (needs root or CAP_SYS_NICE)
    #[arg(long, value_name = "PRIO", value_parser = rt_priority)]
    pub rt_priority: Option<i32>,
    /// Copy each guest's console to stderr as it runs
    #[arg(long)]
    pub console: bool,
    /// The QEMU system emulator [default: qemu-system-x86_64 on PATH]
    #[arg(long, value_name = "PATH")]
    pub qemu: Option<PathBuf>,
}
