//! `/proc/stat`'s `cpu` lines: each CPU's time in ticks, by field
//! (proc(5): user nice system idle iowait irq softirq steal guest
//! guest_nice).

use std::collections::BTreeMap;

/// Field indexes of a `cpu` line.
pub const IDLE: usize = 3;
pub const STEAL: usize = 7;

/// Every `cpu` line: `cpu` (all CPUs) and each `cpuN`, its fields as
/// given (a field that is not a number reads 0).
pub fn parse(text: &str) -> BTreeMap<String, Vec<u64>> {
    text.lines()
        .filter(|l| l.starts_with("cpu"))
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let name = w.next()?.to_string();
            Some((name, w.map(|x| x.parse().unwrap_or(0)).collect()))
        })
        .collect()
}

/// Every CPU's line now (`None` when `/proc/stat` cannot be read).
pub fn read() -> Option<BTreeMap<String, Vec<u64>>> {
    Some(parse(&super::read("/proc/stat")?))
}

/// `ctxt`: context switches since boot, every CPU.
pub fn parse_ctxt(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("ctxt "))
        .and_then(|v| v.trim().parse().ok())
}

/// [`parse_ctxt`] of `/proc/stat` now.
pub fn context_switches() -> Option<u64> {
    parse_ctxt(&super::read("/proc/stat")?)
}

/// The all-CPU line (`cpu`).
pub fn all_cpus() -> Option<Vec<u64>> {
    read()?.remove("cpu")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lines_only() {
        let t = "cpu  10 0 5 100 1 0 0 2 0 0\ncpu0 5 0 2 50 x 0 0 1\nintr 1 2 3\nctxt 9\n";
        let m = parse(t);
        assert_eq!(m.len(), 2);
        assert_eq!(m["cpu"][IDLE], 100);
        assert_eq!(m["cpu"][STEAL], 2);
        assert_eq!(m["cpu0"][4], 0);
        assert_eq!(
            parse_ctxt("cpu 1 2\nctxt 9782388\nbtime 1\n"),
            Some(9782388)
        );
        assert_eq!(parse_ctxt("cpu 1 2\n"), None);
    }
}
