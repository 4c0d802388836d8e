//! What differs between the labels' systems: kernel, preemption, the
//! config options that differ, command line, knobs, hardware.  Shown
//! above every comparison so a reader sees what was compared.

use crate::fingerprint::Fingerprint;
use crate::store::RunRecord;
use serde::Serialize;
use std::collections::BTreeSet;

/// One line of the table: a field and each label's value.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    pub field: String,
    pub values: Vec<String>,
}

const DASH: &str = "–";

fn opt(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| DASH.to_string())
}

/// A row of the table read from one fingerprint.
type Get = fn(&Fingerprint) -> String;

/// The named rows, in order: (field, shown even when equal, its value).
const FIELDS: &[(&str, bool, Get)] = &[
    ("host", true, |f| opt(&f.hostname)),
    ("kernel", true, |f| opt(&f.release)),
    ("preempt", true, |f| opt(&f.preempt.mode)),
    ("HZ", true, |f| f.hz().unwrap_or(DASH).to_string()),
    ("version", false, |f| opt(&f.version)),
    ("cmdline", false, |f| opt(&f.cmdline)),
    ("cpu", false, |f| opt(&f.cpu.model)),
    ("cpus online", false, |f| {
        f.cpu.online_count.map_or(DASH.into(), |n| n.to_string())
    }),
    ("hypervisor", false, |f| opt(&f.cpu.hypervisor)),
    ("cpuidle", false, |f| opt(&f.cpu.idle_driver)),
    ("governor", false, governors),
    ("SMT", false, |f| opt(&f.cpu.smt_control)),
    // Whole GiB: kernels reserve a few MiB more or less of the same RAM.
    ("memory", false, |f| {
        f.mem_total_kib.map_or(DASH.into(), |k| {
            format!("{} GiB", (k + 512 * 1024) / (1024 * 1024))
        })
    }),
    ("mitigations", false, |f| {
        let n = f
            .vulnerabilities
            .values()
            .filter(|v| v.starts_with("Vulnerable"))
            .count();
        format!("{n} vulnerable of {}", f.vulnerabilities.len())
    }),
    ("clocksource", false, |f| opt(&f.clocksource)),
    ("THP", false, |f| opt(&f.thp_enabled)),
];

/// What one system was, field by field, as the table names them (its
/// kernel's fingerprint id first, then every named row and scheduler
/// knob): a campaign compares each block's with its label's first.
pub fn audit(f: &Fingerprint) -> std::collections::BTreeMap<String, String> {
    let mut m: std::collections::BTreeMap<String, String> = FIELDS
        .iter()
        .map(|(name, _, get)| (name.to_string(), get(f)))
        .collect();
    m.insert("fingerprint".into(), f.id.clone());
    m.extend(f.sched_knobs.clone());
    m
}

/// The CPU frequency governors in use, each once (`performance`, or
/// `performance+powersave` when CPUs differ).
fn governors(f: &Fingerprint) -> String {
    let g: BTreeSet<&str> = f.cpu.freq_governors.values().map(String::as_str).collect();
    if g.is_empty() {
        DASH.into()
    } else {
        g.into_iter().collect::<Vec<_>>().join("+")
    }
}

/// The scheduler knobs any label's system records (rows of the table).
pub fn knob_names(runs: &[&RunRecord], labels: &[String]) -> BTreeSet<String> {
    runs.iter()
        .filter(|r| labels.contains(&r.label))
        .filter_map(|r| r.fingerprint.as_deref())
        .flat_map(|f| f.sched_knobs.keys().cloned())
        .collect()
}

/// Build the rows; adds a warning for every label whose runs come from
/// more than one fingerprint.  Always shows fingerprint, host, release,
/// preempt mode and HZ; other fields only where the labels differ.
pub fn build(runs: &[&RunRecord], labels: &[String], warnings: &mut Vec<String>) -> Vec<Row> {
    let mut fps: Vec<Option<&Fingerprint>> = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for l in labels {
        let mine: Vec<&Fingerprint> = runs
            .iter()
            .filter(|r| &r.label == l)
            .filter_map(|r| r.fingerprint.as_deref())
            .collect();
        let distinct: BTreeSet<&str> = mine.iter().map(|f| f.id.as_str()).collect();
        if distinct.len() > 1 {
            warnings.push(format!(
                "label {l} has runs from {} different systems ({}): its runs may not be comparable",
                distinct.len(),
                distinct.iter().copied().collect::<Vec<_>>().join(", ")
            ));
        }
        let imported = runs.iter().filter(|r| &r.label == l).all(|r| r.imported);
        ids.push(if distinct.is_empty() {
            if imported {
                "imported".into()
            } else {
                DASH.into()
            }
        } else {
            distinct.into_iter().collect::<Vec<_>>().join(",")
        });
        fps.push(mine.last().copied());
    }
    let mut rows = vec![Row {
        field: "fingerprint".into(),
        values: ids,
    }];
    let mut field = |name: &str, always: bool, f: &dyn Fn(&Fingerprint) -> String| {
        let values: Vec<String> = fps
            .iter()
            .map(|fp| fp.map_or(DASH.to_string(), f))
            .collect();
        let differ = values.iter().collect::<BTreeSet<_>>().len() > 1;
        if always || differ {
            rows.push(Row {
                field: name.into(),
                values,
            });
        }
    };
    for (name, always, get) in FIELDS {
        field(name, *always, get);
    }
    let knobs: BTreeSet<String> = fps
        .iter()
        .flatten()
        .flat_map(|f| f.sched_knobs.keys().cloned())
        .collect();
    for k in knobs {
        field(&k, false, &|f| {
            f.sched_knobs
                .get(&k)
                .cloned()
                .unwrap_or_else(|| DASH.into())
        });
    }
    let keys: BTreeSet<String> = fps
        .iter()
        .flatten()
        .flat_map(|f| f.config.keys().cloned())
        .collect();
    for k in keys {
        let short = k.trim_start_matches("CONFIG_").to_string();
        field(&short, false, &|f| {
            f.config.get(&k).map_or(DASH.to_string(), |v| {
                if v == "n" {
                    DASH.into()
                } else {
                    v.clone()
                }
            })
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn fp(release: &str, mode: &str, config: &[(&str, &str)]) -> Fingerprint {
        let mut f = Fingerprint {
            release: Some(release.into()),
            hostname: Some("box".into()),
            config: config
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
            ..Default::default()
        };
        f.preempt.mode = Some(mode.into());
        f.id = f.compute_id();
        f
    }

    fn run(label: &str, f: Fingerprint) -> RunRecord {
        RunRecord::new(label, "hackbench", serde_json::json!({}), Some(f))
    }

    #[test]
    fn shows_what_differs() {
        let a = run(
            "rt",
            fp(
                "6.1.54-rt",
                "rt",
                &[
                    ("CONFIG_PREEMPT_RT", "y"),
                    ("CONFIG_HZ", "1000"),
                    ("CONFIG_NO_HZ_IDLE", "y"),
                ],
            ),
        );
        let b = run(
            "stock",
            fp(
                "6.1.54",
                "none",
                &[
                    ("CONFIG_PREEMPT_RT", "n"),
                    ("CONFIG_HZ", "250"),
                    ("CONFIG_NO_HZ_IDLE", "y"),
                ],
            ),
        );
        let mut w = Vec::new();
        let rows = build(&[&a, &b], &["rt".into(), "stock".into()], &mut w);
        let get = |f: &str| rows.iter().find(|r| r.field == f).map(|r| r.values.clone());
        assert_eq!(get("preempt"), Some(vec!["rt".into(), "none".into()]));
        assert_eq!(get("HZ"), Some(vec!["1000".into(), "250".into()]));
        assert_eq!(get("PREEMPT_RT"), Some(vec!["y".into(), "–".into()]));
        assert_eq!(
            get("host"),
            Some(vec!["box".into(), "box".into()]),
            "always shown"
        );
        assert_eq!(get("NO_HZ_IDLE"), None, "same on both: not shown");
        assert!(w.is_empty());
    }

    #[test]
    fn warns_about_mixed_fingerprints() {
        let a = run("k", fp("6.1", "none", &[]));
        let b = run("k", fp("6.2", "none", &[]));
        let mut w = Vec::new();
        build(&[&a, &b], &["k".into()], &mut w);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("2 different systems"), "{w:?}");
    }
}
