//! Experiments, not anecdotes: comparisons run as designed experiments.
//!
//! A machine drifts (15-30 % between batches on a shared VM), so running
//! one setting three times and then the other three times confounds the
//! setting with time.  A matrix ([`kinds::matrix`]) interleaves the settings of runtime knobs
//! within one boot, in blocked and randomised order (every round visits each
//! combination once, in a fresh seeded order), so drift falls on every
//! setting alike.  [`campaign`] does the same across reboots for what needs
//! one (kernels, boot parameters), and the comparison then takes the boot
//! as its unit, because runs within one boot are not independent of it.
//!
//! Every kind is a small design that one loop drives ([`engine`]), its
//! progress typed events ([`event`]), its units run through a runner
//! chosen once ([`runner`]).  Matrix and campaign run kbench commands as
//! child processes, tagged through
//! the environment (`session::inherited::ENV_EXPERIMENT`): each run records the experiment, its round and position in its
//! settings, and the knob values read back from the kernel in its
//! fingerprint.

pub mod campaign;
mod combos;
pub mod command;
pub mod engine;
pub mod event;
pub mod kinds;
pub mod knob;
pub mod launch;
pub mod lock;
pub(crate) mod look;
pub mod order;
pub mod plan;
pub mod restore;
pub mod runner;
pub mod sched;
pub mod setup;
pub mod vary;

/// How kbench parses a whole command line (program name first): the
/// command line's own parser, handed down by `cmd/`, so an experiment
/// checks the command it will run exactly as kbench will read it.
pub type ParseCommand = fn(&[String]) -> std::result::Result<(), clap::Error>;

pub use crate::fingerprint::identity::{identity, Identity};
