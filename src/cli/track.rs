//! Flags of `kbench track`.

use clap::{Args, ValueEnum};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderArg {
    /// By each label's first run
    Time,
    /// By kernel release (the fingerprint's, else the label read as a version: 6.1.0-9 before 6.1.0-10)
    Version,
    /// As the --label flags give them
    Given,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackFormat {
    Table,
    Markdown,
    Json,
    Html,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackFailOn {
    /// Exit 3 when the last label starts a new, worse segment
    Change,
}

fn glob(s: &str) -> Result<String, String> {
    if s.is_empty() || s.len() > 200 || s.chars().any(char::is_control) {
        return Err(format!(
            "'{s}' is not a label pattern (1 to 200 printable characters, * and ?)"
        ));
    }
    Ok(s.to_string())
}

#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:\n  \
kbench track --label-glob '6.1.0-*' --order version\n  \
kbench track --since 2026-11-01 --metric wakeup_p99_us --format html -o series.html\n  \
kbench track --label-glob 'nightly-*' --order time --fail-on change   # for a nightly job\n\n\
Labels come from the global --label (repeated, in order), --label-glob, or --since; every \
benchmark and metric group forms a series, and the false discovery rate is held across all of them.")]
#[command(mut_arg("alpha", |a| a.help("The false discovery rate held across every series of the report")))]
pub struct TrackArgs {
    /// Labels matching this pattern (* any characters, ? one) [default: every label]
    #[arg(long, value_name = "PATTERN", value_parser = glob)]
    pub label_glob: Option<String>,
    /// Only runs started on or after this date (YYYY-MM-DD or RFC 3339)
    #[arg(long, value_name = "DATE", value_parser = crate::values::date)]
    pub since: Option<f64>,
    /// How the labels are ordered [default: version; given with --label]
    #[arg(long, value_enum)]
    pub order: Option<OrderArg>,
    /// Only this metric (repeatable)
    #[arg(long, value_name = "NAME")]
    pub metric: Vec<String>,
    #[command(flatten)]
    pub alpha: super::shared::Alpha,
    #[arg(long, value_enum, default_value_t = TrackFormat::Table)]
    pub format: TrackFormat,
    /// Write to this file instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Exit with status 3 when this happens (for a nightly job)
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<TrackFailOn>,
    /// Find change points in runs of emulated guests too (TCG, nested
    /// virtualisation), which otherwise get none: their figures are the
    /// emulator's as much as the kernel's
    #[arg(long)]
    pub allow_emulated: bool,
    #[command(flatten)]
    pub follow: FollowArgs,
}

/// `--follow`: each change point measured again, bisected and explained.
#[derive(Args, Debug, Clone)]
pub struct FollowArgs {
    /// Follow each change point of the command's headline metric: its two
    /// labels' revisions built and measured again side by side, bisected
    /// when the change holds, the culprit explained against its parent
    #[arg(long, requires = "repo")]
    pub follow: bool,
    /// The git repository the labels' revisions are in (a label that `git
    /// rev-parse`s there, or one given with --rev)
    #[arg(long, value_name = "DIR", requires = "follow")]
    pub repo: Option<std::path::PathBuf>,
    /// How a revision is built, in its work tree (a shell command)
    #[arg(long, value_name = "CMD", requires = "follow")]
    pub build: Option<String>,
    /// The revision of a label that is not one in the repository (repeatable)
    #[arg(long = "rev", value_name = "LABEL=REV", value_parser = label_rev, requires = "follow")]
    pub revs: Vec<(String, String)>,
    /// Units of each side when a change point is measured again
    #[arg(long = "again-units", value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(3..=50), requires = "follow")]
    pub again_units: u32,
    /// Write a KCIDB v5.3 document: the culprit as an issue, its incidents
    #[arg(long, value_name = "FILE", requires = "follow")]
    pub kcidb: Option<std::path::PathBuf>,
    /// Most units a side one decision of the bisection takes
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = clap::value_parser!(u32).range(3..=1000), requires = "follow")]
    pub bisect_max_runs: u32,
    /// Take up a follow that was stopped (Ctrl-C, a kill, a reboot) where
    /// it was: its id, from the first line it printed
    #[arg(long, value_name = "ID", requires = "follow")]
    pub resume: Option<String>,
    /// The kbench command each revision runs (in its work tree), after --
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

fn label_rev(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((l, r))
            if !l.is_empty()
                && !r.is_empty()
                && l.len() <= 200
                && r.len() <= 200
                && !s.chars().any(char::is_control)
                && !r.starts_with('-') =>
        {
            Ok((l.to_string(), r.to_string()))
        }
        _ => Err(format!(
            "'{s}' is not LABEL=REV (a label, =, a revision git knows; no leading -)"
        )),
    }
}
