//! Scheduler and memory knobs from `/proc/sys` and `/sys`.

use std::collections::BTreeMap;
use std::path::Path;

/// Every readable `/proc/sys/kernel/sched_*` file.
pub fn sched_knobs(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(dir) = std::fs::read_dir(crate::sys::procfs::under(root, "sys/kernel")) else {
        return out;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with("sched_") {
            if let Some(v) = super::read_trim(&e.path()) {
                out.insert(name, v);
            }
        }
    }
    out
}

/// The `[selected]` entry of a sysfs choice file such as THP's `enabled`.
pub fn bracketed(path: &Path) -> Option<String> {
    let t = super::read_trim(path)?;
    let open = t.find('[')?;
    let close = t[open..].find(']')? + open;
    Some(t[open + 1..close].to_string())
}

/// `/sys/devices/system/cpu/vulnerabilities/*`.
pub fn vulnerabilities(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Ok(dir) = std::fs::read_dir(root.join("sys/devices/system/cpu/vulnerabilities")) {
        for e in dir.flatten() {
            if let Some(v) = super::read_trim(&e.path()) {
                out.insert(e.file_name().to_string_lossy().to_string(), v);
            }
        }
    }
    out
}
