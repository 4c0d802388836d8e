//! The kernel build configuration, from `/proc/config.gz` or
//! `/boot/config-<release>`.

use flate2::read::GzDecoder;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{BufRead, Read};
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
    /// Streams the text: only the selected options are kept in memory.
    pub fn load(root: &Path, release: Option<&str>) -> Option<KernelConfig> {
        let gz = crate::sys::procfs::under(root, "config.gz");
        if let Ok(f) = std::fs::File::open(&gz) {
            if let Some(c) = Self::read(
                GzDecoder::new(std::io::BufReader::new(f)),
                "/proc/config.gz",
            ) {
                return Some(c);
            }
        }
        let release = release?;
        let boot = format!("boot/config-{release}");
        let f = std::fs::File::open(root.join(&boot)).ok()?;
        Self::read(f, &format!("/{boot}"))
    }

    /// Load from a config file anywhere (one found beside a kernel image).
    pub fn from_file(path: &Path) -> Option<KernelConfig> {
        let f = std::fs::File::open(path).ok()?;
        Self::read(f, &path.display().to_string())
    }

    fn read(r: impl Read, source: &str) -> Option<KernelConfig> {
        let mut hasher = Sha256::new();
        let mut options = BTreeMap::new();
        let mut reader = std::io::BufReader::new(r);
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {
                    hasher.update(line.as_bytes());
                    if let Some((k, v)) = parse_line(&line) {
                        if is_selected(k) {
                            options.insert(k.to_string(), v.to_string());
                        }
                    }
                }
                Err(_) => return None,
            }
        }
        Some(KernelConfig {
            source: source.to_string(),
            hash: super::hex(&hasher.finalize()),
            options,
        })
    }

    /// Parse config text, keeping only the selected options.
    #[cfg(test)]
    pub fn parse(text: &str, source: &str) -> KernelConfig {
        Self::read(text.as_bytes(), source).expect("reading from memory cannot fail")
    }

    /// Is the option built in (`y`)?
    pub fn is_y(&self, name: &str) -> bool {
        self.options.get(name).is_some_and(|v| v == "y")
    }

    /// The options that shape scheduling and latency, for the fingerprint.
    pub fn selected(&self) -> BTreeMap<String, String> {
        self.options.clone()
    }
}

fn is_selected(name: &str) -> bool {
    SELECTED_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// `CONFIG_X=v` → (X, v); `# CONFIG_X is not set` → (X, "n").
fn parse_line(line: &str) -> Option<(&str, &str)> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("# ") {
        let name = rest.strip_suffix(" is not set")?;
        return name.starts_with("CONFIG_").then_some((name, "n"));
    }
    let (k, v) = line.split_once('=')?;
    k.starts_with("CONFIG_").then(|| (k, v.trim_matches('"')))
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
        assert_eq!(
            parse_line("CONFIG_LOCALVERSION=\"-x\""),
            Some(("CONFIG_LOCALVERSION", "-x"))
        );
        assert_eq!(parse_line("# a comment"), None);
        assert!(c.is_y("CONFIG_PREEMPT_NONE"));
        let sel = c.selected();
        assert!(sel.contains_key("CONFIG_HZ"));
        assert!(!sel.contains_key("CONFIG_NET"));
        assert_eq!(c.hash.len(), 64);
    }
}
