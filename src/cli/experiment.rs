//! Flags of `kbench matrix` and `kbench campaign`.

use super::values::Runs;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// A campaign's `--rounds`: up to 100 (each round reboots every label),
/// `auto` meaning at most 10.
fn campaign_rounds(s: &str) -> Result<Runs, String> {
    match super::shared::rounds(s)? {
        Runs::Fixed(n) | Runs::Auto { max: n } if n > 100 => Err("at most 100 rounds".into()),
        Runs::Fixed(0) => Err("at least 1 round".into()),
        Runs::Auto { max } if s.trim() == "auto" && max > 10 => Ok(Runs::Auto { max: 10 }),
        r => Ok(r),
    }
}

/// `matrix --help`'s closing text: examples, the named knobs (from their
/// table), what labels and restores are.
fn matrix_help() -> String {
    format!(
        "Examples:\n  \
kbench matrix --knob autogroup=0,1 --rounds 5 -- hackbench -g 4 -l 500\n  \
kbench matrix --knob thp=always,never --knob autogroup=0,1 --rounds auto -- schbench -r 10\n  \
kbench matrix --knob preempt=none,voluntary,full --rounds 3 -- run quick --scale 0.2\n\n\
Named knobs:\n{}\n\
Any sysctl (kernel.sched_foo) or file under /proc/sys or /sys works too.\n\
Runs are labelled <label>/<knob>=<value>/...; the original values are restored at the end, on \
error or Ctrl-C, by a janitor after kill -9, and by `kbench restore` after a crash.",
        crate::experiment::knob::named_help()
    )
}

#[derive(Args, Debug, Clone)]
#[command(after_help = matrix_help())]
#[command(mut_arg("dry_run", |a| a.help("Check the knobs and print the order, change nothing")))]
pub struct MatrixArgs {
    /// A knob and its values: NAME=V1,V2 (repeat for more knobs; every combination runs)
    #[arg(long, value_name = "NAME=VALUES", required_unless_present_any = ["vary", "sched"])]
    pub knob: Vec<String>,
    /// A scheduler, a dimension of the matrix: eevdf (the kernel's own, nothing attached),
    /// NAME=COMMAND (a sched_ext scheduler started with that command line for each run and
    /// stopped after: bpfland=scx_bpfland) or a bare scx_NAME on PATH (repeatable). Runs are
    /// labelled …/sched=NAME; each is failed when its scheduler was ejected during it
    #[arg(long, value_name = "eevdf|NAME=COMMAND")]
    pub sched: Vec<String>,
    /// A flag of the command and its values, a dimension of the matrix:
    /// FLAG=1,2,4, FLAG=1..16:x2 (1, 2, 4, 8, 16), FLAG=1..8, FLAG=0..100:+25,
    /// ${ncpu*2}; with `run SCENARIO` it sets the scenario variable FLAG
    /// (repeatable)
    #[arg(long, value_name = "FLAG=VALUES")]
    pub vary: Vec<String>,
    #[command(flatten)]
    pub rounds: super::shared::Rounds,
    #[command(flatten)]
    pub seed: super::shared::Seed,
    /// The metric --rounds auto decides on (default: the benchmark's headline;
    /// required with `run SCENARIO`), and the only one reported when given
    #[arg(long, value_name = "NAME")]
    pub metric: Option<String>,
    #[command(flatten)]
    pub alpha: super::shared::Alpha,
    #[command(flatten)]
    pub dry_run: super::shared::DryRun,
    /// The closing report with whole labels and no wrapping
    #[arg(long)]
    pub wide: bool,
    /// The kbench command to run in each combination: a benchmark with its
    /// flags, or `run SCENARIO`
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum CampaignCommand {
    /// Plan a campaign: which boots, what to run in each, in which order
    #[command(
        after_help = "Example (two kernels via GRUB, 3 rounds: A B B A A B):\n  \
kbench campaign init xanmod-vs-clear \\\n    \
--boot 'xanmod=release=6.1.54-x64v3-xanmod1,entry=Advanced options for Debian>Debian, with Linux 6.1.54-x64v3-xanmod1' \\\n    \
--boot 'clear=release=6.1.53-clear,entry=Advanced options for Debian>Debian, with Linux 6.1.53-clear' \\\n    \
--rounds 3 --scenario xanmod-clear-2023\n\n\
A boot is recognised by release= (uname -r) and cmdline= (a word of /proc/cmdline, repeatable), and \
booted by the --reboot command with {entry}, {release} and {label} filled in."
    )]
    Init(CampaignInit),
    /// Run the next block if this is the boot the plan expects, then boot the next one
    Step {
        name: String,
        /// Run the block but do not reboot afterwards (say what to boot next)
        #[arg(long)]
        no_reboot: bool,
        /// When another step of this campaign is running, wait for it (else refuse at once)
        #[arg(long)]
        wait: bool,
    },
    /// Give a campaign up: its unit removed, the plan marked abandoned, its runs kept
    Abort { name: String },
    /// Progress of one campaign, or of all
    Status { name: Option<String> },
    /// Write (and enable) a systemd unit that runs `campaign step NAME` at every boot until done
    InstallService {
        name: String,
        /// Write the unit here instead of /etc/systemd/system (and do not enable it)
        #[arg(long, value_name = "DIR")]
        unit_dir: Option<PathBuf>,
    },
}

#[derive(Args, Debug, Clone)]
#[command(mut_arg("alpha", |a| a.help("Significance level of --rounds auto's decisions, over all labels")))]
#[command(mut_arg("seed", |a| a.help("Seed of the random order")))]
#[command(mut_arg("rounds", |a| a.value_parser(campaign_rounds).help("Rounds: each boots every label once (at most 100). `auto[:MAX]` (default MAX 10) stops after a round when every label is decided against the first, boots as units (the rule of `matrix --rounds auto`)")))]
pub struct CampaignInit {
    pub name: String,
    /// `LABEL=release=R[,cmdline=WORD][,entry=E]` (at least two)
    #[arg(long, value_name = "LABEL=SPEC", required = true)]
    pub boot: Vec<String>,
    /// A scenario file or preset each block runs (or give a command after --)
    #[arg(long, value_name = "FILE|PRESET", conflicts_with = "command")]
    pub scenario: Option<String>,
    #[command(flatten)]
    pub rounds: super::shared::Rounds,
    /// The metric --rounds auto decides on (default: the benchmark's headline; required
    /// with --scenario)
    #[arg(long, value_name = "NAME")]
    pub metric: Option<String>,
    #[command(flatten)]
    pub alpha: super::shared::Alpha,
    /// Block order: alternating (A B, B A, ...) or random (seeded blocks)
    #[arg(long, value_name = "KIND", default_value = "alternating", value_parser = ["alternating", "random"])]
    pub order: String,
    #[command(flatten)]
    pub seed: super::shared::Seed,
    /// How to boot the next label: grub (grub-reboot {entry}, recordfail cleared, then
    /// reboot), systemd-boot (bootctl set-oneshot {entry}, then reboot), kexec (kexec -l {entry}
    /// ... && systemctl kexec) or a command template
    #[arg(
        long,
        value_name = "grub|systemd-boot|kexec|CMD",
        default_value = "grub"
    )]
    pub reboot: String,
    /// Add an A/A calibration: the first boot again under LABEL/aa in every round, compared with
    /// itself when the campaign is complete (the boot-to-boot noise floor beside the verdicts)
    #[arg(long)]
    pub aa: bool,
    /// Times a lost boot is booted again before the campaign stops: a boot is lost when the
    /// machine comes back on another system after the reboot into it (a panic, no root, a
    /// firmware fallback). 0 (the default) pauses at the first; the bound stops a reboot loop
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub retries: u32,
    /// Pause when a block's system (CPU, governor, SMT, memory, THP, knobs, the
    /// kernel's fingerprint) differs from its label's first block; without it the
    /// block is flagged in `status`
    #[arg(long)]
    pub strict: bool,
    /// The most seconds a block after a reboot waits for the machine to settle (up as
    /// long as at the first block, up to 300 s, and its CPU pressure back near the first
    /// block's); 0 does not wait
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub settle_max: u64,
    /// The kbench command each block runs (instead of --scenario)
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}
