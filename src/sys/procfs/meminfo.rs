//! `/proc/meminfo`: what loads may use, what the fingerprint records.

/// The figures kbench uses, in bytes (0 when the line is missing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meminfo {
    pub total: u64,
    pub available: u64,
    pub swap_total: u64,
    pub swap_free: u64,
}

impl Meminfo {
    /// From `/proc/meminfo`; all zero when it cannot be read.
    pub fn read() -> Meminfo {
        Meminfo::parse(&super::read("/proc/meminfo").unwrap_or_default())
    }

    pub fn parse(text: &str) -> Meminfo {
        let bytes = |k: &str| kib(text, k).unwrap_or(0).saturating_mul(1024);
        Meminfo {
            total: bytes("MemTotal"),
            available: bytes("MemAvailable"),
            swap_total: bytes("SwapTotal"),
            swap_free: bytes("SwapFree"),
        }
    }
}

/// `key`'s value in kB (`MemTotal:  24576000 kB`), exactly that key.
pub fn kib(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(key)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_matched_whole() {
        let m = "MemTotal:       24576000 kB\nMemFree: 1 kB\nMemAvailable: 2 kB\nSwapTotal:             0 kB\n";
        assert_eq!(kib(m, "MemTotal"), Some(24_576_000));
        assert_eq!(kib(m, "SwapTotal"), Some(0));
        assert_eq!(kib(m, "Mem"), None);
        let p = Meminfo::parse(m);
        assert_eq!(
            (p.total, p.available, p.swap_free),
            (24_576_000 * 1024, 2048, 0)
        );
        assert_eq!(
            Meminfo::parse("MemTotal: 99999999999999999999 kB\n").total,
            0
        );
    }
}
