//! The system fingerprint: what was in effect on the machine when a run
//! was measured.
//!
//! Every read goes through a root directory so tests can point it at a
//! fixture tree (an RT machine, a `preempt=full` boot, a machine with no
//! config).  Every field is optional: an unreadable entry is recorded as
//! absent, never an error, so a partial read still identifies the kernel.

mod config;
mod cpu;
pub mod identity;
mod knobs;
mod preempt;

pub use config::KernelConfig;
pub use preempt::{decide as decide_preempt, Debugfs, PreemptInfo};

use crate::sys::procfs::{self, meminfo::kib as meminfo_kib};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// Version of the fingerprint's JSON shape.
pub const FINGERPRINT_VERSION: u32 = 1;

/// What identifies the machine and kernel configuration under test.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Fingerprint {
    pub fingerprint_version: u32,
    /// Short hash of release, version, preempt mode, config hash, cmdline.
    pub id: String,
    pub sysname: Option<String>,
    pub release: Option<String>,
    pub version: Option<String>,
    pub machine: Option<String>,
    pub hostname: Option<String>,
    pub cmdline: Option<String>,
    pub os_release: Option<String>,
    /// Where the config was read from (`/proc/config.gz`, `/boot/config-…`).
    pub config_source: Option<String>,
    /// SHA-256 of the whole decompressed kernel config.
    pub config_hash: Option<String>,
    /// The options that shape scheduling and latency (PREEMPT*, HZ*, …).
    pub config: BTreeMap<String, String>,
    pub preempt: PreemptInfo,
    /// Every `/proc/sys/kernel/sched_*` knob.
    pub sched_knobs: BTreeMap<String, String>,
    pub thp_enabled: Option<String>,
    pub thp_defrag: Option<String>,
    pub clocksource: Option<String>,
    /// CPU vulnerability name → kernel's status line.
    pub vulnerabilities: BTreeMap<String, String>,
    pub cpu: cpu::CpuInfo,
    pub mem_total_kib: Option<u64>,
    pub swap_total_kib: Option<u64>,
    /// `/proc/sys/kernel/random/boot_id`: runs of one boot share it, so
    /// a comparison across boots can take the boot as its unit.
    pub boot_id: Option<String>,
    /// Knobs a `kbench matrix` set for the run: name → the value read back
    /// from the kernel after writing it (empty outside a matrix).
    pub knobs: BTreeMap<String, String>,
}

impl Fingerprint {
    /// Read the fingerprint of the system rooted at `root` (`/` normally).
    pub fn collect(root: &Path) -> Fingerprint {
        let rd = |p: &str| read_trim(&root.join(p));
        let proc = |p: &str| read_trim(&procfs::under(root, p));
        let release = proc("sys/kernel/osrelease");
        let cmdline = proc("cmdline");
        let cfg = KernelConfig::load(root, release.as_deref());
        let preempt = preempt::detect(root, cmdline.as_deref(), cfg.as_ref());
        let meminfo = std::fs::read_to_string(procfs::under(root, "meminfo")).unwrap_or_default();
        let mut fp = Fingerprint {
            fingerprint_version: FINGERPRINT_VERSION,
            id: String::new(),
            sysname: proc("sys/kernel/ostype"),
            version: proc("sys/kernel/version"),
            machine: proc("sys/kernel/arch"),
            hostname: proc("sys/kernel/hostname"),
            os_release: os_release(root),
            config_source: cfg.as_ref().map(|c| c.source.clone()),
            config_hash: cfg.as_ref().map(|c| c.hash.clone()),
            config: cfg.as_ref().map(|c| c.selected()).unwrap_or_default(),
            preempt,
            sched_knobs: knobs::sched_knobs(root),
            thp_enabled: knobs::bracketed(&root.join("sys/kernel/mm/transparent_hugepage/enabled")),
            thp_defrag: knobs::bracketed(&root.join("sys/kernel/mm/transparent_hugepage/defrag")),
            clocksource: rd("sys/devices/system/clocksource/clocksource0/current_clocksource"),
            vulnerabilities: knobs::vulnerabilities(root),
            cpu: cpu::CpuInfo::collect(root),
            mem_total_kib: meminfo_kib(&meminfo, "MemTotal"),
            swap_total_kib: meminfo_kib(&meminfo, "SwapTotal"),
            boot_id: proc("sys/kernel/random/boot_id"),
            knobs: BTreeMap::new(),
            release,
            cmdline,
        };
        if root == Path::new("/") {
            fp.apply_test_identity();
        }
        fp.id = fp.compute_id();
        fp
    }

    /// Debug builds only: `KBENCH_TEST_IDENTITY` (JSON with `release`,
    /// `cmdline`, `boot_id`) stands in for the running system, so tests can
    /// simulate reboots into other kernels.  Release builds never read it.
    fn apply_test_identity(&mut self) {
        let Some(id) = identity::test_identity() else {
            return;
        };
        self.release = Some(id.release);
        self.cmdline = Some(id.cmdline);
        self.boot_id = Some(id.boot_id);
    }

    /// The short id that groups runs of the same kernel configuration:
    /// the first 12 hex digits of SHA-256 over release, version string,
    /// effective preempt mode, config hash and cmdline.
    pub fn compute_id(&self) -> String {
        let mut h = Sha256::new();
        for part in [
            self.release.as_deref(),
            self.version.as_deref(),
            self.preempt.mode.as_deref(),
            self.config_hash.as_deref(),
            self.cmdline.as_deref(),
        ] {
            h.update(part.unwrap_or("-").as_bytes());
            h.update([0u8]);
        }
        hex(&h.finalize())[..12].to_string()
    }

    /// The default label: `<release>/<preempt mode>`.
    pub fn default_label(&self) -> String {
        format!(
            "{}/{}",
            self.release.as_deref().unwrap_or("unknown"),
            self.preempt.mode.as_deref().unwrap_or("unknown")
        )
    }

    /// SHA-256 of the whole serialized fingerprint: identical records share
    /// one row in the store.
    pub fn content_key(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        hex(&Sha256::digest(json.as_bytes()))[..32].to_string()
    }

    /// A one-line summary of the vulnerability states.
    pub fn vulnerability_summary(&self) -> Option<String> {
        if self.vulnerabilities.is_empty() {
            return None;
        }
        let (mut vuln, mut mitig, mut unaff, mut other) = (0, 0, 0, 0);
        for v in self.vulnerabilities.values() {
            if v.starts_with("Vulnerable") {
                vuln += 1;
            } else if v.starts_with("Mitigation") {
                mitig += 1;
            } else if v.starts_with("Not affected") {
                unaff += 1;
            } else {
                other += 1;
            }
        }
        Some(format!(
            "{mitig} mitigated, {vuln} vulnerable, {unaff} not affected{}",
            if other > 0 {
                format!(", {other} other")
            } else {
                String::new()
            }
        ))
    }

    /// HZ from the config (`CONFIG_HZ`).
    pub fn hz(&self) -> Option<&str> {
        self.config.get("CONFIG_HZ").map(String::as_str)
    }
}

/// The SHA-256 of the file, read a MiB at a time so that Ctrl-C stops
/// it (a 20 GB sparse file took a minute, deaf to Ctrl-C): a kernel
/// image, a scheduler's program.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        if crate::sys::signals::stop_requested() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "interrupted while reading it",
            ));
        }
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Read a file and trim it; `None` when unreadable or empty.
pub(crate) fn read_trim(path: &Path) -> Option<String> {
    let s = std::fs::read_to_string(path).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn os_release(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(root.join("etc/os-release"))
        .or_else(|_| std::fs::read_to_string(root.join("usr/lib/os-release")))
        .ok()?;
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k))
            .map(|v| v.trim_matches('"').to_string())
    };
    field("PRETTY_NAME=").or_else(|| field("NAME="))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_changes_with_preempt_mode_only_when_it_should() {
        let mut a = Fingerprint {
            release: Some("6.1".into()),
            ..Default::default()
        };
        a.preempt.mode = Some("none".into());
        let mut b = a.clone();
        b.hostname = Some("other-box".into());
        assert_eq!(a.compute_id(), b.compute_id());
        b.preempt.mode = Some("full".into());
        assert_ne!(a.compute_id(), b.compute_id());
    }
}
