//! What the host asks of a guest, written into its initramfs as
//! `/kbench/job.json` and read by the guest's first process.

use serde::{Deserialize, Serialize};

/// Version of the job's shape (a guest refuses one it does not know).
pub const JOB_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Job {
    pub version: u32,
    /// The label the command's runs are stored under.
    pub label: String,
    /// The kbench command line (no program name).
    pub command: Vec<String>,
    /// Module files inside the initramfs, in the order to load them.
    pub modules: Vec<String>,
    /// Mount the host's root read-only (9p) and run the command in it.
    pub share_root: bool,
}

/// Where the guest's store lives (its own tmpfs) and the image's config
/// inside the initramfs.
pub const GUEST_DB: &str = "/tmp/kbench-guest/results.db";
pub const CONFIG: &str = "kbench/config";
