//! The kernel build configuration, from `/proc/config.gz` or
//! `/boot/config-<release>`.

use flate2::read::GzDecoder;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// A parsed kernel config: every `CONFIG_X=v` (and `# CONFIG_X is not set`
/// as `n`), where it came from, and a hash of the whole text.
#[derive(Clone, Debug, Default)]
pub struct KernelConfig {
    pub source: String,
    pub hash: String,
    pub options: BTreeMap<String, String>,
}

/// Prefixes of the options kept in the fingerprint: the ones that change
/// scheduling, preemption, timer and RCU behaviour.
const SELECTED_PREFIXES: &[&str] = &[
    "CONFIG_PREEMPT",
    "CONFIG_HZ",
    "CONFIG_NO_HZ",
    "CONFIG_RCU_BOOST",
    "CONFIG_RCU_NOCB",
    "CONFIG_RCU_LAZY",
    "CONFIG_SCHED_",
    "CONFIG_FAIR_GROUP_SCHED",
    "CONFIG_RT_GROUP_SCHED",
    "CONFIG_CFS_BANDWIDTH",
    "CONFIG_HIGH_RES_TIMERS",
    "CONFIG_CPU_FREQ_DEFAULT_GOV",
    "CONFIG_CPU_IDLE_GOV",
    "CONFIG_IRQ_FORCED_THREADING",
    "CONFIG_TRANSPARENT_HUGEPAGE",
    "CONFIG_NUMA_BALANCING",
    "CONFIG_LOCKDEP",
    "CONFIG_KASAN",
    "CONFIG_DEBUG_PREEMPT",
    "CONFIG_CC_OPTIMIZE",
    "CONFIG_LTO",
    "CONFIG_MNATIVE",
    "CONFIG_GENERIC_CPU",
    "CONFIG_X86_64_VERSION",
];

impl KernelConfig {
    /// Load from `<root>/proc/config.gz`, else `<root>/boot/config-<release>`.
    pub fn load(root: &Path, release: Option<&str>) -> Option<KernelConfig> {
        let gz = root.join("proc/config.gz");
        if let Ok(raw) = std::fs::read(&gz) {
            let mut text = String::new();
            if GzDecoder::new(&raw[..]).read_to_string(&mut text).is_ok() {
                return Some(Self::parse(&text, "/proc/config.gz"));
            }
        }
        let release = release?;
        let boot = format!("boot/config-{release}");
        let text = std::fs::read_to_string(root.join(&boot)).ok()?;
        Some(Self::parse(&text, &format!("/{boot}")))
    }

    /// Parse config text.
    pub fn parse(text: &str, source: &str) -> KernelConfig {
        let mut options = BTreeMap::new();
        for line in text.lines() {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("# ") {
                if let Some(name) = rest.strip_suffix(" is not set") {
                    if name.starts_with("CONFIG_") {
                        options.insert(name.to_string(), "n".to_string());
                    }
                }
            } else if let Some((k, v)) = line.split_once('=') {
                if k.starts_with("CONFIG_") {
                    options.insert(k.to_string(), v.trim_matches('"').to_string());
                }
            }
        }
        KernelConfig {
            source: source.to_string(),
            hash: super::hex(&Sha256::digest(text.as_bytes())),
            options,
        }
    }

    /// Is the option built in (`y`)?
    pub fn is_y(&self, name: &str) -> bool {
        self.options.get(name).is_some_and(|v| v == "y")
    }

    /// The options that shape scheduling and latency, for the fingerprint.
    pub fn selected(&self) -> BTreeMap<String, String> {
        self.options
            .iter()
            .filter(|(k, _)| SELECTED_PREFIXES.iter().any(|p| k.starts_with(p)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_set_unset_and_strings() {
        let c = KernelConfig::parse(
            "CONFIG_HZ=250\n# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_NONE=y\nCONFIG_LOCALVERSION=\"-x\"\nCONFIG_NET=y\n",
            "t",
        );
        assert_eq!(c.options["CONFIG_HZ"], "250");
        assert_eq!(c.options["CONFIG_PREEMPT"], "n");
        assert_eq!(c.options["CONFIG_LOCALVERSION"], "-x");
        assert!(c.is_y("CONFIG_PREEMPT_NONE"));
        let sel = c.selected();
        assert!(sel.contains_key("CONFIG_HZ"));
        assert!(!sel.contains_key("CONFIG_NET"));
        assert_eq!(c.hash.len(), 64);
    }
}
