//! A scenario file's shape as serde reads it (the file, its phases and
//! tasks), where things are in it for messages, and the machine's own
//! variables.  Both the schema and the file's top-level values read these,
//! and neither reads the other's.

use super::expr::{Value, Vars};
use super::Role;
use crate::error::input;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSpec {
    pub(super) name: String,
    #[serde(default)]
    pub(super) description: String,
    /// A count, or ``auto[:MAX]`` (repeat until every probe is precise).
    pub(super) runs: Option<Spanned<toml::Value>>,
    /// With runs = "auto": the precision to reach, % of the mean.
    pub(super) precision: Option<f64>,
    #[serde(default = "one_f")]
    pub(super) scale: f64,
    /// Keep other processes off the CPUs but the first (see `--isolate`).
    #[serde(default)]
    pub(super) isolate: bool,
    /// `--trace` on every probe that can be traced.
    #[serde(default)]
    pub(super) trace: bool,
    /// Default values of user variables (`--var NAME=VALUE` overrides).
    #[serde(default)]
    pub(super) vars: BTreeMap<String, toml::Value>,
    /// Variables to sweep: `NAME = "VALUES"` (as `matrix --vary`); `kbench
    /// run` of such a file runs a matrix over them.
    #[serde(default)]
    pub(super) sweep: BTreeMap<String, String>,
    #[serde(rename = "phase")]
    pub(super) phases: Vec<Spanned<PhaseSpec>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PhaseSpec {
    pub(super) name: String,
    #[serde(default)]
    pub(super) drop_caches: bool,
    pub(super) settle: Option<String>,
    #[serde(rename = "task", default)]
    pub(super) tasks: Vec<Spanned<TaskSpec>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TaskSpec {
    pub(super) kind: Spanned<String>,
    pub(super) name: Option<String>,
    #[serde(default = "probe")]
    pub(super) role: Role,
    pub(super) cpus: Option<Spanned<String>>,
    pub(super) policy: Option<String>,
    pub(super) priority: Option<toml::Value>,
    pub(super) nice: Option<toml::Value>,
    /// "own" (default: its own session and so its own autogroup, as a
    /// separate terminal gives) or "shared" (kbench's).
    pub(super) session: Option<Spanned<String>>,
    pub(super) row: Option<String>,
    pub(super) show: Option<Vec<String>>,
    pub(super) args: Option<Spanned<toml::Table>>,
    /// `--trace` on this task (overrides the file's `trace`).
    pub(super) trace: Option<Spanned<bool>>,
}

pub(super) fn one_f() -> f64 {
    1.0
}
pub(super) fn probe() -> Role {
    Role::Probe
}

/// 1-based line and column of byte `pos` in `src`.
pub fn line_col(src: &str, pos: usize) -> (usize, usize) {
    let before = &src[..pos.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Where things are, for messages.
pub(super) struct Ctx<'a> {
    pub(super) file: &'a str,
    pub(super) src: &'a str,
}

impl Ctx<'_> {
    pub(super) fn err(
        &self,
        span: std::ops::Range<usize>,
        msg: impl std::fmt::Display,
    ) -> anyhow::Error {
        let (l, c) = line_col(self.src, span.start);
        input(format!("{}:{l}:{c}: {msg}", self.file))
    }
}

/// Machine variables: `ncpu`, `scale`, `root`.
pub fn machine_vars(scale: f64) -> Vars {
    let mut v = Vars::new();
    v.insert(
        "ncpu".into(),
        Value::Num(crate::sys::cpus::online_here().len() as f64),
    );
    v.insert("scale".into(), Value::Num(scale));
    v.insert(
        "root".into(),
        Value::Num(if crate::sys::proc::is_root() {
            1.0
        } else {
            0.0
        }),
    );
    v
}
