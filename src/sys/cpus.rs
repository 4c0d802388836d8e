//! CPU lists in numactl/taskset syntax (`0-31`, `0,2,4-7`) and the set of
//! CPUs that are online.

use std::path::Path;

/// Parse a CPU list such as `0-3,8,10-11` into a sorted, deduplicated list.
pub fn parse_list(s: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    let s = s.trim();
    if s.is_empty() {
        return Err("empty CPU list".into());
    }
    for part in s.split(',') {
        let part = part.trim();
        let bad = || format!("'{part}' in CPU list '{s}' is not a CPU number or range like 0-3");
        if let Some((a, b)) = part.split_once('-') {
            let a: usize = a.trim().parse().map_err(|_| bad())?;
            let b: usize = b.trim().parse().map_err(|_| bad())?;
            if b < a {
                return Err(format!("range '{part}' in CPU list '{s}' runs backwards"));
            }
            if b - a > 65_536 {
                return Err(format!("range '{part}' in CPU list '{s}' is too large"));
            }
            out.extend(a..=b);
        } else {
            out.push(part.parse().map_err(|_| bad())?);
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// CPUs a `cpu_set_t` can hold (CPU_SETSIZE); pinning beyond it would
/// write outside the set.
pub const MAX_CPU: usize = libc::CPU_SETSIZE as usize;

/// Format a CPU list compactly (`0-3,8`).
pub fn format_list(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// CPUs online according to `<root>/sys/devices/system/cpu/online`; falls
/// back to `0..available_parallelism` when that file cannot be read.
pub fn online(root: &Path) -> Vec<usize> {
    std::fs::read_to_string(root.join("sys/devices/system/cpu/online"))
        .ok()
        .and_then(|s| parse_list(&s).ok())
        .unwrap_or_else(|| {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            (0..n).collect()
        })
}

/// Online CPUs of this machine.
pub fn online_here() -> Vec<usize> {
    online(Path::new("/"))
}

/// Parse `s` and check every CPU is online here; the error names the ones
/// that are not and what is online.
pub fn parse_online(s: &str) -> Result<Vec<usize>, String> {
    let cpus = parse_list(s)?;
    let online = online_here();
    let missing: Vec<usize> = cpus
        .iter()
        .copied()
        .filter(|c| !online.contains(c))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "CPU list '{s}' names CPU {} which {} not online (online: {})",
            format_list(&missing),
            if missing.len() == 1 { "is" } else { "are" },
            format_list(&online)
        ));
    }
    // Pinning writes into a cpu_set_t: a CPU beyond it (on a machine with
    // more online) would write outside the set.
    if let Some(&c) = cpus.iter().find(|&&c| c >= MAX_CPU) {
        return Err(format!(
            "CPU {c} in '{s}' is beyond the {MAX_CPU} CPUs a CPU set can name (0-{})",
            MAX_CPU - 1
        ));
    }
    Ok(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_numactl_syntax() {
        assert_eq!(parse_list("0-3").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_list("0,2,4-7").unwrap(), vec![0, 2, 4, 5, 6, 7]);
        assert_eq!(parse_list(" 3,1,1 ").unwrap(), vec![1, 3]);
        assert!(parse_list("").is_err());
        assert!(parse_list("a-b").is_err());
        assert!(parse_list("5-2").is_err());
        assert!(parse_list("-1").is_err());
    }

    #[test]
    fn formats_compactly() {
        assert_eq!(format_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(format_list(&[5]), "5");
        assert_eq!(format_list(&[]), "");
    }

    #[test]
    fn rejects_offline_cpus() {
        let err = parse_online("0,4095").unwrap_err();
        assert!(err.contains("4095"), "{err}");
        assert!(err.contains("not online"), "{err}");
    }
}
