//! Which boot of which kernel this is: what a campaign checks after each
//! reboot, and what the fingerprint takes its release, command line and
//! boot id from when a test stands in for a reboot.

use serde::{Deserialize, Serialize};

/// What identifies the running system for a campaign.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Identity {
    pub release: String,
    pub cmdline: String,
    pub boot_id: String,
}

/// The running system's identity (in debug builds, `KBENCH_TEST_IDENTITY`
/// stands in for it, so tests can simulate reboots).
pub fn identity() -> Identity {
    if let Some(id) = test_identity() {
        return id;
    }
    use crate::sys::procfs;
    Identity {
        release: procfs::sysctl("kernel.osrelease").unwrap_or_default(),
        cmdline: procfs::cmdline().unwrap_or_default(),
        boot_id: procfs::boot_id().unwrap_or_default(),
    }
}

/// Debug builds only: the simulated identity of `KBENCH_TEST_IDENTITY`
/// (a release build's hook is always `None`).
pub fn test_identity() -> Option<Identity> {
    serde_json::from_str(&crate::sys::hooks::identity()?).ok()
}
