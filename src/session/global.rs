//! The flags every command takes (`--db`, `--label`, `--json`, …),
//! declared here with clap's derive because every command's session holds
//! them; `cli/` puts them on the command tree and parses.

use clap::{ArgAction, Args, ValueEnum};
use std::time::Duration;

#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Result store: a SQLite file, or postgres://user@host/db for a shared one
    /// [default: $XDG_DATA_HOME/kbench/results.db]
    #[arg(long, global = true, env = "KBENCH_DB", value_name = "PATH")]
    pub db: Option<String>,
    /// Name of the configuration under test (default: `<kernel release>/<preempt mode>`);
    /// give it several times to choose labels for compare, runs and contest --show
    #[arg(long, global = true, value_name = "NAME", action = ArgAction::Append, value_parser = crate::values::label)]
    pub label: Vec<String>,
    /// Measure and print, but store nothing
    #[arg(long, global = true)]
    pub no_store: bool,
    /// Machine-readable JSON on stdout instead of tables
    #[arg(long, global = true)]
    pub json: bool,
    /// Print less: no banners, no progress
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// With --runs auto alone: stop when the headline metric's interval is within this % of its mean
    #[arg(long, global = true, hide = true, value_name = "PCT", default_value_t = 2.0, value_parser = crate::values::positive_percent)]
    pub precision: f64,
    /// With --runs auto: stop when the verdict against this stored label is decided
    #[arg(long, global = true, hide = true, value_name = "LABEL")]
    pub against: Option<String>,
    /// Smallest change that matters, in %: a change within it is "equivalent" (compare, matrix, a
    /// scenario's sweep, and a measuring run's stop against a stored label)
    #[arg(long, global = true, value_name = "PCT", default_value_t = crate::stats::DEFAULT_THRESHOLD_PCT, value_parser = crate::values::percent)]
    pub threshold: f64,
    /// Keep every other process off the probe CPUs during the run (cpusets, needs root)
    #[arg(long, global = true, hide = true)]
    pub isolate: bool,
    /// With --runs auto: stop after this much time at most (e.g. 10m)
    #[arg(long, global = true, hide = true, value_name = "TIME", value_parser = crate::values::duration)]
    pub time_budget: Option<Duration>,
    /// Colour in tables: auto (a terminal only, and not with NO_COLOR), always, never
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    pub color: ColorArg,
}

/// The flags of a measuring run, hidden from the command tree's own
/// option lists (they are global, so clap would list them under every
/// command: `campaign init --help` showed --precision and --against) and
/// said in one short block where they are read: every benchmark, `run`,
/// and `vm` (--isolate).
pub const MEASURING_HELP: &str = "Options of a measuring run:
      --precision <PCT>     With --runs auto alone: stop when the headline metric's interval is
                            within this % of its mean [default: 2]
      --against <LABEL>     With --runs auto: stop when the verdict against this stored label is
                            decided
      --time-budget <TIME>  With --runs auto: stop after this much time at most (e.g. 10m)
      --isolate             Keep every other process off the probe CPUs during the run (cpusets,
                            needs root)";

/// `help` with `block` after it (a command's own examples first).
pub fn with_block(help: Option<String>, block: &str) -> String {
    match help {
        Some(h) if !h.trim().is_empty() => format!("{h}\n\n{block}"),
        _ => block.to_string(),
    }
}

/// `--color`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

impl ColorArg {
    pub fn choice(self) -> crate::text::colour::Choice {
        use crate::text::colour::Choice;
        match self {
            ColorArg::Auto => Choice::Auto,
            ColorArg::Always => Choice::Always,
            ColorArg::Never => Choice::Never,
        }
    }
}
