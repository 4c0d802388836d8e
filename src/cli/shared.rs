//! The flags designed experiments and verdicts share, each declared once:
//! `--alpha` (one check, one default), `--seed` and `--dry-run`.
//!
//! They were declared in every command that takes them, six `--alpha`s
//! with four different checks among them.  Here each has its one parser
//! and default; a command flattens the struct and, where the flag means
//! something of its own there (what its α bounds, what its seed orders),
//! says so with `mut_arg` on its own struct: the words differ, the flag
//! does not.

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
