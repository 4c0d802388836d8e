//! What a matrix is asked to do: its knobs, the flags it varies, its
//! rounds and the command it runs.  Its own file, so the combinations and
//! the matrix's driver both read it without reading each other.

use super::knob::Knob;
use crate::values::Runs;

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    pub knobs: Vec<Knob>,
    /// The command's own flags varied (`--vary`).
    pub vary: Vec<super::vary::Vary>,
    /// The schedulers it runs under (`--sched`).
    pub scheds: Vec<super::sched::Variant>,
    pub rounds: Runs,
    pub seed: Option<u64>,
    /// The kbench command (a benchmark or `run SCENARIO`) and its flags.
    pub command: Vec<String>,
    /// How kbench parses a whole command line, to check `command`.
    pub parse: super::ParseCommand,
    /// The metric `--rounds auto` decides on (default: the benchmark's headline).
    pub metric: Option<String>,
    pub alpha: f64,
    pub threshold_pct: f64,
    pub dry_run: bool,
    /// The closing report `--wide`.
    pub wide: bool,
    pub base_label: String,
    /// The store, verbosity and voice.
    pub front: crate::session::Front,
}
