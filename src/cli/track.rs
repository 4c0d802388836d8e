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
}
