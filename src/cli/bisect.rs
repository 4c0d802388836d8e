//! Flags of `kbench bisect` and `kbench decide`.

use super::vm::MachineArgs;
use clap::Args;
use std::path::PathBuf;

fn metric(s: &str) -> Result<crate::bisect::MetricArg, String> {
    crate::bisect::parse_metric(s)
}

const BISECT_HELP: &str = "Examples:\n  \
kbench bisect --repo ~/src/prog --good v1 --bad v2 --build make -- job --job-cmd ./prog --job-dir ~/src/prog\n  \
kbench bisect --candidates a.img b.img c.img d.img --vm --metric p99_us -- cyclictest -t 1 -D 10s\n  \
kbench bisect --candidates 6.1.42 6.1.44 6.1.46 6.1.48 --metric wakeup_p99_us   # stored labels\n  \
kbench bisect --resume; kbench bisect --log\n\n\
Each step measures its candidate (and an end only while the units known to be like it are \
fewer than the candidate's) and decides 'like good', 'like bad' or 'not yet' with a sequential \
test against every unit of the candidates already decided; the culprit is named only when a \
comparison of its own, measured afresh, finds it worse than its parent at --alpha, which bounds \
the chance of naming a culprit that is not. When that comparison fails and finds the machine \
drifted (a candidate unlike its own earlier units), the search is made again, once, with \
--fresh-ends, the two comparisons sharing --alpha. The command's arguments that name \
--repo are turned into the candidate's own work tree.";

#[derive(Args, Debug, Clone)]
#[command(after_help = BISECT_HELP)]
#[command(mut_arg("alpha", |a| a.help("The chance the bisection names a culprit that is not worse than its parent, at most")))]
#[command(mut_arg("seed", |a| a.help("Seed of the rounds' order (default: a fresh one, printed and stored)")))]
#[command(mut_arg("dry_run", |a| a.help("Print the plan (candidates, worst case in decisions and units, the error kept) and stop")))]
pub struct BisectArgs {
    /// The git work tree whose commits are the candidates
    #[arg(long, value_name = "DIR", requires_all = ["good", "bad", "build"], conflicts_with = "candidates")]
    pub repo: Option<PathBuf>,
    /// The last commit known good
    #[arg(long, value_name = "REV")]
    pub good: Option<String>,
    /// The first commit known bad
    #[arg(long, value_name = "REV")]
    pub bad: Option<String>,
    /// How to build a candidate (a shell command run in its work tree); with --vm its last
    /// output line names the image unless --image says
    #[arg(long, value_name = "CMD")]
    pub build: Option<String>,
    /// The built kernel image, relative to the work tree (with --vm)
    #[arg(long, value_name = "PATH", requires = "vm")]
    pub image: Option<PathBuf>,
    /// An ordered list instead of a git range: kernel images (with --vm) or labels in the store,
    /// good first, bad last
    #[arg(long, value_name = "CANDIDATE", num_args = 2.., conflicts_with_all = ["good", "bad", "build"])]
    pub candidates: Vec<String>,
    /// Measure each candidate by booting it under QEMU (kbench vm), one boot a unit
    #[arg(long)]
    pub vm: bool,
    /// More kernel command line for the guests (with --vm)
    #[arg(long, value_name = "ARGS", requires = "vm", allow_hyphen_values = true)]
    pub append: Option<String>,
    #[command(flatten)]
    pub machine: MachineArgs,
    /// The metric to bisect (repeatable; NAME:lower or NAME:higher where the benchmark does not
    /// say) [default: the benchmark's headline]
    #[arg(long, value_name = "NAME", value_parser = metric)]
    pub metric: Vec<crate::bisect::MetricArg>,
    #[command(flatten)]
    pub alpha: super::shared::Alpha,
    #[command(flatten)]
    pub max_runs: super::shared::MaxRuns,
    #[command(flatten)]
    pub seed: super::shared::Seed,
    /// Decide on emulated guests' figures too (under TCG: a test of the bisection, not of the kernels)
    #[arg(long)]
    pub allow_emulated: bool,
    /// Measure both ends beside every candidate and decide each step on those units alone, not on
    /// every unit so far: about 2.5 times the runs, but a machine that drifts between steps cannot
    /// mislead the search (without it, a search the drift misled is made again this way)
    #[arg(long)]
    pub fresh_ends: bool,
    #[command(flatten)]
    pub dry_run: super::shared::DryRun,
    /// Go on with a stopped bisection (the newest unfinished one, or ID)
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "", conflicts_with_all = ["repo", "candidates"])]
    pub resume: Option<String>,
    /// Every step of a bisection (the newest, or ID), with its decision and units
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "", conflicts_with_all = ["repo", "candidates", "resume"])]
    pub log: Option<String>,
    /// The kbench command that measures one unit of a candidate
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:\n  \
kbench --label good job --job-cmd ./prog --runs 24   # on the good commit, once\n  \
kbench --label bad job --job-cmd ./prog --runs 24    # on the bad commit, once\n  \
git bisect run kbench decide --good good --bad bad --steps 6 -- job --job-cmd ./prog\n\n\
Exit 0 like good, 1 like bad, 125 cannot tell (git skips the commit); anything else that goes \
wrong exits 128, which stops git bisect run instead of marking the commit bad.\n\n\
The ends are stored runs, measured earlier: the candidate is tested against the midpoint \
between them, so a drift of the machine since then of up to half their gap (said before the \
first run) keeps a wrong exit within --alpha for one call; --steps N splits --alpha over the N \
calls of a whole bisection (about log2 of the commits), so that it bounds a wrong culprit.")]
#[command(mut_arg("alpha", |a| a.help("The chance of a wrong \"good\" or \"bad\", at most")))]
#[command(mut_arg("max_runs", |a| a.default_value("30").help("Most runs of the candidate (and no more than the ends have)")))]
pub struct DecideArgs {
    /// The stored label the good end's runs are under
    #[arg(long, value_name = "LABEL")]
    pub good: String,
    /// The stored label the bad end's runs are under
    #[arg(long, value_name = "LABEL")]
    pub bad: String,
    /// Decide a stored label's runs instead of measuring with COMMAND
    #[arg(long, value_name = "LABEL", conflicts_with = "command")]
    pub candidate: Option<String>,
    /// The metric to decide on (repeatable) [default: the good runs' benchmark's headline]
    #[arg(long, value_name = "NAME", value_parser = metric)]
    pub metric: Vec<crate::bisect::MetricArg>,
    #[command(flatten)]
    pub alpha: super::shared::Alpha,
    #[command(flatten)]
    pub max_runs: super::shared::MaxRuns,
    /// The calls of decide a whole `git bisect run` makes (about log2 of the commits, plus
    /// skips): --alpha is split over them, so it bounds a wrong culprit, not one call
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub steps: u16,
    /// Decide on emulated guests' figures too (exit 128 on them otherwise: they are the emulator's as much as the kernel's)
    #[arg(long)]
    pub allow_emulated: bool,
    /// The kbench command that measures the current candidate once
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}
