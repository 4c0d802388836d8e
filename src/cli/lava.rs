//! Flags of `kbench lava`.

use clap::{Args, Subcommand};
use std::path::PathBuf;

fn kernel(s: &str) -> Result<crate::vm::KernelSpec, String> {
    crate::vm::plan::parse_kernel(s)
}

fn method(s: &str) -> Result<crate::lava::actions::Method, String> {
    crate::lava::actions::Method::named(s)
}

fn boots(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=100).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a number of boots from 1 to 100")),
    }
}

fn boot(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if (1..=10_000).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a boot number from 1 to 10000")),
    }
}

fn plan(s: &str) -> Result<String, String> {
    if !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        Ok(s.to_string())
    } else {
        Err(format!(
            "'{}' is not a plan id (1-64 letters, digits, '-')",
            s.escape_default()
        ))
    }
}

#[derive(Subcommand, Debug, Clone)]
pub enum LavaCommand {
    /// Write LAVA jobs that boot the kernels in interleaved order, one job a boot, each running
    /// a kbench command as its test
    #[command(after_help = "Example:\n  \
kbench lava job --kernel /srv/vmlinuz-6.1.0-50-amd64=std --kernel /srv/vmlinuz-6.1.0-50-rt-amd64=rt \\\n    \
--rootfs https://lab.example/kbench-bookworm.img --boots 3 -o jobs -- cyclictest -t 1 -D 60s\n\n\
The root filesystem must hold kbench (at --kbench) and let root log in on the serial console. \
Each job's test prints every run's metrics as LAVA test cases and the whole runs as a checked \
bundle; `kbench lava import` reads them back from the jobs' logs.\n\n\
A board: kbench lava job --device-type beaglebone-black --boot-method u-boot --kernel-type zimage \\\n    \
--dtb https://lab.example/am335x-boneblack.dtb --kernel https://lab.example/zImage-a=a \\\n    \
--kernel https://lab.example/zImage-b=b --rootfs https://lab.example/kbench-armhf.tar.xz -o jobs -- cyclictest -t 1 -D 60s")]
    Job(JobArgs),
    /// In a LAVA boot: run a kbench command, report its runs as LAVA test cases, and print them
    /// whole for `kbench lava import`
    Test(TestArgs),
    /// Store the runs of LAVA jobs from their logs (lava-run's output, or a console log), each
    /// boot a unit; importing a log twice adds nothing
    #[command(after_help = "Example:\n  \
lava-run --job-id 1 --device qemu01.yaml --output-dir out jobs/01-std.yaml > 01.log\n  \
kbench lava import --device qemu01 01.log 02.log 03.log 04.log\n  \
LAVA_TOKEN=… kbench lava import --server https://lava.example --job 4711\n  \
kbench compare --label std --label rt")]
    Import(ImportArgs),
}

#[derive(Args, Debug, Clone)]
#[command(mut_arg("seed", |a| a.help("Seed of the boot order (default: a fresh one, printed and kept in plan.json)")))]
pub struct JobArgs {
    /// LAVA's device type (qemu, or a board's: beaglebone-black, x86, …)
    #[arg(long, value_name = "TYPE", default_value = "qemu")]
    pub device_type: String,
    /// How the device boots: qemu (LAVA's qemu device type), or a board's bootloader over TFTP
    /// with an NFS root: u-boot, ipxe or grub [default: qemu for the qemu device type]
    #[arg(long, value_name = "METHOD", value_parser = method)]
    pub boot_method: Option<crate::lava::actions::Method>,
    /// U-Boot's kernel type: zimage (32-bit ARM), image (arm64) or uimage
    #[arg(long, value_name = "TYPE", value_parser = ["zimage", "image", "uimage"])]
    pub kernel_type: Option<String>,
    /// A device tree blob (path or URL) deployed with every kernel
    #[arg(long, value_name = "DTB")]
    pub dtb: Option<String>,
    /// A kernel image (path or URL) and its label (repeatable; an initrd.img-R beside a local
    /// vmlinuz-R goes with it)
    #[arg(long, value_name = "IMAGE=LABEL", required = true, value_parser = kernel)]
    pub kernel: Vec<crate::vm::KernelSpec>,
    /// The root filesystem (path or URL) the kernels boot, with kbench in it: a disk image for
    /// qemu, a tarball for a board's NFS root
    #[arg(long, value_name = "IMAGE")]
    pub rootfs: String,
    /// Boots of each kernel
    #[arg(long, value_name = "N", default_value = "2", value_parser = boots)]
    pub boots: usize,
    /// Add an A/A calibration: the first kernel booted again under LABEL/aa
    #[arg(long)]
    pub aa: bool,
    #[command(flatten)]
    pub seed: super::shared::Seed,
    /// More kernel command line for every boot
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pub append: Option<String>,
    /// kbench's path in the root filesystem
    #[arg(long, value_name = "PATH", default_value = "/usr/local/bin/kbench")]
    pub kbench: String,
    /// The root shell prompt of the root filesystem (a regular expression)
    #[arg(long, value_name = "REGEX", default_value = "root@[^:]*:~#")]
    pub prompt: String,
    /// Minutes each action may take
    #[arg(long, value_name = "MIN", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=600))]
    pub minutes: u32,
    /// The folder the jobs and plan.json are written to
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// The kbench command each boot runs
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct TestArgs {
    /// The plan the boot belongs to
    #[arg(long, value_parser = plan)]
    pub plan: String,
    /// The boot's number in the plan's order
    #[arg(long, value_parser = boot)]
    pub boot: u32,
    /// The kbench command to run
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct ImportArgs {
    /// The device the jobs ran on, kept with each run
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// Job logs: lava-run's output, a LAVA server's job log, or the device's console as text
    #[arg(value_name = "LOG", required_unless_present = "server")]
    pub logs: Vec<PathBuf>,
    /// A LAVA server to fetch a finished job's log from, through its REST API (v0.2); a token,
    /// if it wants one, is read from LAVA_TOKEN
    #[arg(long, value_name = "URL", requires = "job")]
    pub server: Option<String>,
    /// The job to fetch from --server
    #[arg(long, value_name = "ID", requires = "server")]
    pub job: Option<u64>,
}
