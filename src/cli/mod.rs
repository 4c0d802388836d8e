//! The command line of the commands that are not benchmarks, as clap
//! derive types; `cmd::` turns them into typed options.  clap stays at the
//! edge: besides this module only each benchmark's `args.rs` (its flags,
//! declared in its folder and put on the tree from the registry), the
//! registry and the lifecycle's entry and spelling (which build and read a
//! benchmark's clap command), the global flags (`session/global.rs`), the
//! check of the command an experiment runs, and `cmd/` use it; engines,
//! loads, stores, statistics and reports never do (`tests/architecture.rs`
//! holds that list).

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

mod bisect;
mod examples;
mod experiment;
mod lava;
mod shared;
mod track;
mod vm;
use crate::session::GlobalArgs;
use crate::values;

pub use bisect::{BisectArgs, DecideArgs};
pub use experiment::{CampaignCommand, MatrixArgs};
pub use lava::LavaCommand;
pub use track::{OrderArg, TrackArgs, TrackFormat};
pub use vm::{AccelArg, MachineArgs, VmArgs};

#[derive(Parser, Debug)]
#[command(
    name = "kbench",
    version,
    about = "Is one Linux kernel more responsive than another? Measure, store, compare.",
    long_about = "kbench measures how responsive a Linux kernel (or one setting of it) is: \
scheduler messaging (hackbench), timer wake-up latency (cyclictest), interactive response, \
cold-cache walks and timed builds under background loads. Every run is stored with a \
fingerprint of the system that was in effect, so kernels can be compared later with honest statistics.",
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parse the process's command line.  `--help` and `--version` print
    /// and exit 0; bad input prints clap's message as one line and exits 2.
    pub fn parse_process_args() -> Cli {
        let parsed = command()
            .try_get_matches()
            .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
        match parsed {
            Ok(cli) => cli,
            Err(e) => {
                use clap::error::ErrorKind::*;
                let decide = std::env::args().skip(1).any(|a| a == "decide");
                if matches!(
                    e.kind(),
                    DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
                ) {
                    if decide {
                        // Help is not a verdict: `git bisect run` must
                        // not read it as "good".
                        let _ = e.print();
                        std::process::exit(crate::bisect::decide::EXIT_ABORT);
                    }
                    e.exit()
                }
                eprintln!("kbench: {}", crate::text::clean(&parse_error_line(&e)));
                // `git bisect run` reads 1-127 but 125 as "bad": a typo in
                // a decide command line must stop it instead.
                std::process::exit(if decide {
                    crate::bisect::decide::EXIT_ABORT
                } else {
                    2
                })
            }
        }
    }

    /// Parse a full argv (program name first) without exiting: scenario
    /// files are checked against the same definitions as the command line.
    pub fn try_parse_from_args(args: &[String]) -> Result<Cli, clap::Error> {
        command()
            .try_get_matches_from(args)
            .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
    }
}

/// clap's error as one line, with its tips kept ("a similar subcommand
/// exists: 'run'"), and, where a word was not understood by a command
/// that runs another after `--` (matrix, campaign, bisect …), the tip to
/// put `--` before it.
fn parse_error_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let mut parts = vec![crate::text::one_line(&text)];
    if parts[0].is_empty() {
        parts[0] = "bad command line".into();
    }
    parts.extend(
        text.lines()
            .map(str::trim)
            .filter(|l| l.starts_with("tip:"))
            .map(str::to_string),
    );
    if parts.len() == 1 && e.kind() == clap::error::ErrorKind::UnknownArgument {
        let args: Vec<String> = std::env::args().skip(1).collect();
        if let Some(tip) = dash_dash_tip(&args, e).or_else(|| format_tip(e)) {
            parts.push(tip);
        }
    }
    parts.join("; ")
}

/// `--html` and its kind, where the report's format is a value of
/// `--format`.
fn format_tip(e: &clap::Error) -> Option<String> {
    let f = invalid_arg(e)?.strip_prefix("--")?;
    ["html", "markdown", "csv", "table"]
        .contains(&f)
        .then(|| format!("tip: the report's format is a value: --format {f}"))
}

/// The word clap refused, as the user typed it.
fn invalid_arg(e: &clap::Error) -> Option<&str> {
    match e.get(clap::error::ContextKind::InvalidArg)? {
        clap::error::ContextValue::String(w) => Some(w),
        _ => None,
    }
}

/// "tip: put `--` before the command …" when the word clap refused is a
/// positional word given to a subcommand whose last argument is a command
/// line (`matrix --knob autogroup=0,1 hackbench`).
fn dash_dash_tip(args: &[String], e: &clap::Error) -> Option<String> {
    let word = invalid_arg(e)?;
    if word.starts_with('-') || args.iter().any(|a| a == "--") {
        return None;
    }
    let root = command();
    let mut cmd = &root;
    for a in args {
        if let Some(sub) = cmd.find_subcommand(a) {
            cmd = sub;
        }
    }
    cmd.get_arguments().find(|a| a.is_last_set())?;
    let at = args.iter().position(|a| *a == word)?;
    Some(format!(
        "tip: put `--` before the command it runs: kbench {} -- {}",
        args[..at].join(" "),
        args[at..].join(" ")
    ))
}

/// The whole command line as clap builds it, with every subcommand's
/// examples in its help: what is parsed, and what the man page and the
/// completions are made from.
pub fn command() -> clap::Command {
    examples::with_examples(<Cli as clap::CommandFactory>::command())
}

/// Check a full argv as the command line would read it (what an experiment
/// is handed to check the command it runs).
pub fn check(args: &[String]) -> Result<(), clap::Error> {
    Cli::try_parse_from_args(args).map(|_| ())
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show the fingerprint of the running system (kernel, config, preemption, knobs, CPU)
    Sysinfo(SysinfoArgs),
    /// Every benchmark in the registry (hackbench, cyclictest, …, load)
    #[command(flatten)]
    Bench(Registered),
    /// Compare labels: statistics, significance, effect sizes; table, markdown, csv, json or html
    Compare(CompareArgs),
    /// Import other tools' results (rt-tests hackbench/cyclictest, CSV) as runs
    Import(ImportArgs),
    /// Run a scenario: benchmarks and loads together, repeated, stored (a file or a preset)
    Run(RunArgs),
    /// List the built-in scenarios, or print one
    Presets {
        #[command(subcommand)]
        cmd: Option<PresetsCommand>,
    },
    /// Copy local runs to a shared PostgreSQL store (idempotent)
    Push(PushArgs),
    /// Copy runs from a shared PostgreSQL store into the local one (idempotent)
    Pull(PullArgs),
    /// List, show or delete stored runs
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Labels in the store, with run counts and fingerprint ids
    Labels,
    /// What kbench knows: its benchmarks, the metrics each stores, the background loads
    List {
        /// What to list
        #[arg(value_enum, default_value = "benchmarks")]
        what: ListWhat,
        /// With `metrics`: only this benchmark's
        benchmark: Option<String>,
    },
    /// Print a shell completion script
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff) to stdout
    Man,
    /// Run a kbench command under every combination of kernel knobs, interleaved within one boot
    Matrix(MatrixArgs),
    /// Compare boots (kernels, boot parameters): a plan of interleaved blocks across reboots
    #[command(subcommand)]
    Campaign(CampaignCommand),
    /// Compare kernel images on this host: each booted under QEMU with kbench as its userland,
    /// boots interleaved, each boot a unit; emulated (TCG) runs get no verdict
    Vm(VmArgs),
    /// Stored runs for another system: `export kcidb` is compare's report as KCIDB (v5) JSON for
    /// KernelCI (the same as compare --format kcidb)
    #[command(subcommand)]
    Export(ExportCommand),
    /// A lab's fleet: LAVA jobs that boot kernels in interleaved order, their runs read back with
    /// each boot a unit
    #[command(subcommand)]
    Lava(LavaCommand),
    /// The first process of a `kbench vm` guest (kbench is the guest's /init)
    #[command(hide = true)]
    VmGuest,
    /// Which change made it slower: a bisection of commits, images or labels, each step decided
    /// with its share of the error, the culprit confirmed against its parent
    Bisect(BisectArgs),
    /// Is the current candidate like the good or the bad label? Exit 0, 1 or 125 for git bisect run
    Decide(DecideArgs),
    /// Where a series of labels changed: change points in every metric, the false discovery rate
    /// held across them, each said as a comparison (table, markdown, json, html)
    Track(TrackArgs),
    /// Undo an --isolate or a matrix's knob changes that kbench could not undo itself (after a crash)
    Restore {
        /// Wait until this kbench process dies, then undo its isolation (the janitor)
        #[arg(long, hide = true)]
        after: Option<i32>,
        /// With --after: then remove this private folder of that kbench's (repeatable)
        #[arg(long, hide = true, requires = "after", value_name = "DIR")]
        remove: Vec<std::path::PathBuf>,
    },
    /// The run-health monitor the run lifecycle starts beside every run
    #[command(hide = true)]
    HealthMonitor {
        /// The kbench process whose descendants are kbench's own
        #[arg(long)]
        root: i32,
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..=60_000))]
        interval_ms: u64,
        /// kbench starts no process during the run: read its processes at
        /// the start and the end only, and wake during the run only to read
        /// CPU frequencies, where the machine has them
        #[arg(long)]
        threads_only: bool,
    },
}

/// A benchmark's subcommand, found in [`crate::registry`]: its name and
/// its flags, which the benchmark's own entry turns into typed options.
#[derive(Debug, Clone)]
pub struct Registered {
    pub name: &'static str,
    pub matches: clap::ArgMatches,
}

impl clap::FromArgMatches for Registered {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let found = m
            .subcommand()
            .and_then(|(name, sub)| crate::registry::find(name).map(|e| (e, sub)));
        match found {
            Some((e, sub)) => Ok(Registered {
                name: e.name,
                matches: sub.clone(),
            }),
            None => Err(clap::Error::new(clap::error::ErrorKind::InvalidSubcommand)),
        }
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Subcommand for Registered {
    fn augment_subcommands(cmd: clap::Command) -> clap::Command {
        crate::registry::BENCHMARKS.iter().fold(cmd, |c, e| {
            let b = (e.command)().about(e.about);
            let help = crate::session::global::with_block(
                b.get_after_help().map(|h| h.to_string()),
                crate::session::global::MEASURING_HELP,
            );
            c.subcommand(b.after_help(help))
        })
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        crate::registry::find(name).is_some()
    }
}

/// What `kbench list` lists.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListWhat {
    /// Every benchmark, with its headline metric
    Benchmarks,
    /// Every metric a benchmark stores under a fixed name: unit, direction, meaning
    Metrics,
    /// Every background load (contest's and kbench's)
    Loads,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

#[derive(Args, Debug)]
pub struct SysinfoArgs {
    /// Read /proc and /sys below this directory (for fixture trees)
    #[arg(long, hide = true, default_value = "/")]
    pub root: std::path::PathBuf,
}

#[derive(Subcommand, Debug)]
pub enum RunsCommand {
    /// List stored runs
    List {
        /// Only runs of this benchmark
        #[arg(long)]
        benchmark: Option<String>,
        /// Only the newest N runs
        #[arg(long, value_name = "N")]
        last: Option<usize>,
    },
    /// Show one run: metrics, histogram summaries, fingerprint, explained wake-ups
    Show { id: i64 },
    /// Write a traced run's trace windows as Chrome trace-event JSON (opens in Perfetto)
    Trace {
        id: i64,
        /// The file to write ("-" for stdout)
        #[arg(short, long, value_name = "FILE")]
        output: std::path::PathBuf,
    },
    /// Delete runs by id
    Delete {
        #[arg(required = true)]
        ids: Vec<i64>,
        /// Do not ask for confirmation
        #[arg(short, long)]
        yes: bool,
    },
}

// hackbench's defaults and bounds (rt-tests').

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Table,
    Markdown,
    Csv,
    Json,
    Html,
    /// KCIDB (schema v5) JSON for KernelCI: a test per metric and label
    Kcidb,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Statistics per metric (the default)
    Stats,
    /// The 2023 seed's layout: per label, a row per metric, one column per run
    Seed2023,
    /// contest's table (contest runs only)
    Contest,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestKind {
    Welch,
    MannWhitney,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorrectionKind {
    /// Holm's step-down: family-wise error rate <= alpha
    Holm,
    /// Benjamini-Hochberg: false discovery rate <= alpha
    Bh,
    /// Each test at alpha on its own (the report's error rate grows with its size)
    None,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Exit 3 when any label is worse than the baseline
    Worse,
    /// Exit 3 when any verdict is worse, inconclusive or too few runs, or a
    /// metric one label has is missing under another
    Inconclusive,
    /// Exit 3 when a metric (or benchmark) one label has is missing under
    /// another, or given in another unit
    Missing,
}

/// What `kbench export` writes.
#[derive(Subcommand, Debug, Clone)]
pub enum ExportCommand {
    /// KCIDB (schema v5) JSON: a checkout and build per label, a test per metric and label
    /// (kbench.BENCHMARK.METRIC) with the label's median and unit, and in misc the boots,
    /// runs, interval and verdict
    #[command(
        after_help = "Example:\n  kbench export kcidb --label std --label rt -o kcidb.json\n  kci-submit < kcidb.json"
    )]
    Kcidb(CompareArgs),
}

#[derive(Args, Debug, Clone)]
#[command(mut_arg("alpha", |a| a.help("Significance level: the chance of any false verdict in the whole report, at most")))]
pub struct CompareArgs {
    /// The label the others are compared with [default: the first --label, or the oldest]
    #[arg(long, value_name = "LABEL")]
    pub baseline: Option<String>,
    /// Only this benchmark (repeatable)
    #[arg(long, value_name = "NAME")]
    pub benchmark: Vec<String>,
    /// Only this metric (repeatable; per-CPU metrics such as cpu0.p99_us only when named)
    #[arg(long, value_name = "NAME")]
    pub metric: Vec<String>,
    /// Only runs started on or after this date (YYYY-MM-DD or RFC 3339)
    #[arg(long, value_name = "DATE", value_parser = crate::values::date)]
    pub since: Option<f64>,
    #[command(flatten)]
    pub alpha: shared::Alpha,
    /// The test that decides "significant" (and gives the change's direction and interval)
    #[arg(long = "test", value_enum, default_value_t = TestKind::Welch)]
    pub test: TestKind,
    /// How the p-values of one report are adjusted together
    #[arg(long, value_enum, default_value_t = CorrectionKind::Holm)]
    pub correction: CorrectionKind,
    /// Under inconclusive verdicts, also say how many runs a side would detect this change (%)
    #[arg(long, value_name = "PCT", value_parser = values::positive_percent)]
    pub detect: Option<f64>,
    /// Leave out runs the health monitor marked suspect (reports say how many)
    #[arg(long)]
    pub exclude_suspect: bool,
    /// Keep runs stored as warm-up (the first repetition of benchmarks whose first differs)
    #[arg(long)]
    pub include_warmup: bool,
    /// Give verdicts on runs from emulated guests (kbench vm under TCG or
    /// nested virtualisation), which otherwise get none: their figures are
    /// the emulator's as much as the kernel's
    #[arg(long)]
    pub allow_emulated: bool,
    /// Per-metric detail tables after the scoreboard (always in HTML)
    #[arg(long)]
    pub details: bool,
    /// A curve over this parameter: the runs whose parameters differ only
    /// in it, a row per value, a verdict per point (e.g. groups, or a
    /// scenario variable)
    #[arg(long, value_name = "FLAG")]
    pub curve: Option<String>,
    /// Whole labels and no wrapping in the terminal (it fits 120 columns otherwise)
    #[arg(long)]
    pub wide: bool,
    /// Exit with status 3 when a verdict is this bad (for CI pipelines); a verdict that rests
    /// on one boot each does not count unless --allow-one-boot
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<FailOn>,
    /// Let --fail-on fail on verdicts that rest on one boot each (boot-to-boot variation, which
    /// the error bound does not cover, can make them by itself)
    #[arg(long, requires = "fail_on")]
    pub allow_one_boot: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// Table layout
    #[arg(long, value_enum, default_value_t = Layout::Stats)]
    pub layout: Layout,
    /// Write to this file instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// HTML or Markdown that carries the runs it was made from, so a reader can check it
    /// (`kbench import REPORT --format report`)
    #[arg(long)]
    pub bundle: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportFormat {
    /// rt-tests hackbench output (`Time:` lines)
    Hackbench,
    /// rt-tests cyclictest text output (`T:` lines and/or `-h` histogram)
    Cyclictest,
    /// rt-tests cyclictest `--json` output
    CyclictestJson,
    /// `label,benchmark,metric,unit,value[,run[,better]]`; header optional
    Csv,
    /// A kbench report made with `compare --bundle` (HTML or Markdown): the runs it carries
    Report,
}

#[derive(Args, Debug, Clone)]
pub struct ImportArgs {
    /// File to read (- for standard input)
    pub file: std::path::PathBuf,
    /// What the file holds
    #[arg(long, value_enum)]
    pub format: ImportFormat,
    /// Store the runs under this benchmark name instead
    #[arg(long, value_name = "NAME")]
    pub benchmark: Option<String>,
    /// CSV: the direction of metrics whose row has no better column (else taken from the unit)
    #[arg(long, value_enum, value_name = "DIR")]
    pub better: Option<BetterArg>,
    /// State a parameter the file does not (e.g. hackbench's transport=socket, fifo=false), so
    /// the runs group with kbench's runs of the same settings; repeatable
    #[arg(long, value_name = "KEY=VALUE", action = ArgAction::Append)]
    pub assume: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BetterArg {
    Lower,
    Higher,
}

#[derive(Args, Debug, Clone)]
#[command(after_help = crate::session::global::MEASURING_HELP)]
#[command(mut_arg("dry_run", |a| a.help("Print the plan (phases, tasks, placement, estimated time) and start nothing")))]
pub struct RunArgs {
    /// A scenario file (TOML) or a preset name (see `kbench presets`)
    pub scenario: String,
    /// Repetitions [default: the scenario's]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: Option<u32>,
    /// Multiply loops and durations by this (the scenario's `scale`)
    #[arg(long)]
    pub scale: Option<f64>,
    /// Set a scenario variable: NAME=VALUE (repeatable)
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    #[command(flatten)]
    pub dry_run: shared::DryRun,
    /// Stop at the first failing task instead of going on with the next repetition
    #[arg(long)]
    pub fail_fast: bool,
}

#[derive(Subcommand, Debug)]
pub enum PresetsCommand {
    /// List the built-in scenarios
    List,
    /// Print a preset's TOML, to copy and edit
    Show { name: String },
}

#[derive(Args, Debug, Clone)]
pub struct PushArgs {
    /// The shared store: postgres://user@host/dbname
    #[arg(long, value_name = "URL")]
    pub to: String,
    /// Only runs started on or after this date (YYYY-MM-DD or RFC 3339)
    #[arg(long, value_name = "DATE", value_parser = crate::values::date)]
    pub since: Option<f64>,
}

#[derive(Args, Debug, Clone)]
pub struct PullArgs {
    /// The shared store: postgres://user@host/dbname
    #[arg(long, value_name = "URL")]
    pub from: String,
    /// Only runs started on or after this date (YYYY-MM-DD or RFC 3339)
    #[arg(long, value_name = "DATE", value_parser = crate::values::date)]
    pub since: Option<f64>,
}
