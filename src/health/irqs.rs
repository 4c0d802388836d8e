//! The machine's interrupt and softirq counts per CPU, and its context
//! switches: `/proc/interrupts` (a row per source: an IRQ number with its
//! chip and device, or an x86 system vector such as `LOC`), `/proc/softirqs`
//! (a row per vector) and `/proc/stat`'s `ctxt`, read at a run's two ends
//! (proc(5); Documentation/filesystems/proc.rst).  Counts only grow, so the
//! difference of two reads is what the run saw, whatever lived between.

use std::collections::BTreeMap;

/// Per source, its count on each CPU (in the header's CPU order).
pub type Table = BTreeMap<String, Vec<u64>>;

/// A metric-safe name: lower case, `[a-z0-9_]` only.
fn clean(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    out.trim_matches('_').to_string()
}

/// `/proc/interrupts` or `/proc/softirqs`: the header names the CPUs,
/// each row `NAME: count count … [description]`.  A numbered IRQ is named
/// by its number and its device (`irq11_virtio0`), a vector by its name
/// (`loc`); rows with fewer counts than CPUs (`ERR`, `MIS`) are summed
/// into the first CPU.  `None` when the text has no CPU header.
pub fn parse(text: &str) -> Option<(Vec<usize>, Table)> {
    let mut lines = text.lines();
    let cpus: Vec<usize> = lines
        .next()?
        .split_whitespace()
        .map(|w| w.strip_prefix("CPU")?.parse().ok())
        .collect::<Option<_>>()?;
    if cpus.is_empty() {
        return None;
    }
    let mut t = Table::new();
    for l in lines {
        let Some((name, rest)) = l.split_once(':') else {
            continue;
        };
        let name = name.trim();
        let words: Vec<&str> = rest.split_whitespace().collect();
        let counts: Vec<u64> = words
            .iter()
            .take(cpus.len())
            .map_while(|w| w.parse().ok())
            .collect();
        if counts.is_empty() {
            continue;
        }
        let key = if name.chars().all(|c| c.is_ascii_digit()) {
            match words.last().filter(|_| words.len() > counts.len()) {
                Some(dev) => format!("irq{name}_{}", clean(dev)),
                None => format!("irq{name}"),
            }
        } else {
            clean(name)
        };
        // Counts short of the CPUs fill the first ones.
        let e = t.entry(key).or_insert_with(|| vec![0; cpus.len()]);
        for (a, b) in e.iter_mut().zip(&counts) {
            *a = a.saturating_add(*b);
        }
    }
    Some((cpus, t))
}

/// What grew from `a` to `b`, per source and CPU (a source that appeared
/// counts from 0).
pub fn since(a: &Table, b: &Table) -> Table {
    b.iter()
        .map(|(k, v)| {
            let before = a.get(k);
            let d = v
                .iter()
                .enumerate()
                .map(|(i, x)| x.saturating_sub(before.and_then(|p| p.get(i)).copied().unwrap_or(0)))
                .collect();
            (k.clone(), d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const INTERRUPTS: &str = "           CPU0       CPU1       \n 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n 11:         10         20   IO-APIC  11-fasteoi   virtio0\nLOC:     188557     184068   Local timer interrupts\nERR:          3\nMIS:          0\n";

    #[test]
    fn interrupts_and_softirqs_are_read_by_source_and_cpu() {
        let (cpus, t) = parse(INTERRUPTS).unwrap();
        assert_eq!(cpus, [0, 1]);
        assert_eq!(t["irq11_virtio0"], [10, 20]);
        assert_eq!(t["irq24_acpi_ged"], [1, 0]);
        assert_eq!(t["loc"], [188557, 184068]);
        assert_eq!(t["err"], [3, 0]);
        let (_, s) = parse("                    CPU0       CPU1       \n          HI:          0          0\n       TIMER:      67466      88099\n").unwrap();
        assert_eq!(s["timer"], [67466, 88099]);
        let (_, later) = parse(&INTERRUPTS.replace("188557", "188600")).unwrap();
        assert_eq!(since(&t, &later)["loc"], [43, 0]);
        assert!(parse("").is_none());
        assert!(parse("no header\n").is_none());
        // This machine's own files.
        for (f, text) in crate::sys::procfs::irq_tables() {
            if let Some(text) = text {
                assert!(parse(&text).is_some_and(|(_, t)| !t.is_empty()), "{f}");
            }
        }
    }
}
