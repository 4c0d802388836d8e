//! The flags designed experiments and verdicts share, each declared once:
//! `--alpha` (one check, one default), `--seed`, `--dry-run`, `--rounds`
//! and `--max-runs`.
//!
//! They were declared in every command that takes them, six `--alpha`s
//! with four different checks among them.  Here each has its one parser
//! and default; a command flattens the struct and, where the flag means
//! something of its own there (what its α bounds, what its seed orders),
//! says so with `mut_arg` on its own struct: the words differ, the flag
//! does not.  Where a command bounds a flag tighter (a campaign's round
//! reboots every label, so it takes at most 100), its `mut_arg` says so
//! with a parser that calls this one first.

use super::values::{self, Runs};
use clap::Args;

/// `--alpha`: an error rate, in (0, 0.5].
#[derive(Args, Debug, Clone)]
pub struct Alpha {
    /// Significance level of the verdicts
    #[arg(long, default_value_t = 0.05, value_parser = crate::values::alpha)]
    pub alpha: f64,
}

/// `--seed`: the seed of a random order, kept with the plan.
#[derive(Args, Debug, Clone)]
pub struct Seed {
    /// Seed of the random order (default: a fresh one, printed and stored)
    #[arg(long)]
    pub seed: Option<u64>,
}

/// `--dry-run`: say what would be done, and do nothing.
#[derive(Args, Debug, Clone)]
pub struct DryRun {
    /// Print the plan and stop: nothing is run, written or booted
    #[arg(long)]
    pub dry_run: bool,
}

/// `--rounds N|auto[:MAX]`: rounds of a blocked, interleaved order, or
/// rounds until every variant is decided against the first.
#[derive(Args, Debug, Clone)]
pub struct Rounds {
    /// Rounds; each visits every variant once in a fresh random order. `auto[:MAX]` stops
    /// when every variant is decided against the first
    #[arg(long, value_name = "N|auto[:MAX]", default_value = "3", value_parser = rounds)]
    pub rounds: Runs,
}

/// The one check of `--rounds`: a count or `auto[:MAX]`, at most 1000.
pub fn rounds(s: &str) -> Result<Runs, String> {
    match values::runs(s)? {
        Runs::Fixed(n) | Runs::Auto { max: n } if n > 1000 => Err("at most 1000 rounds".into()),
        r => Ok(r),
    }
}

/// `--max-runs N`: the most units a side one decision takes.
#[derive(Args, Debug, Clone)]
pub struct MaxRuns {
    /// Most units a side one decision takes before it says it cannot tell
    #[arg(long, value_name = "N", default_value = "80", value_parser = max_runs)]
    pub max_runs: usize,
}

/// The one check of `--max-runs`: 3 to 1000.
fn max_runs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (3..=1000).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a number of units from 3 to 1000")),
    }
}
