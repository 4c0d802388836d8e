//! hackbench's parameters as stored: one struct that both `kbench
//! hackbench` and the rt-tests log importer produce, so an old log and a
//! new run with the same settings meet in one comparison group.
//!
//! Fields a log does not state are `None` ("unknown"): such runs group
//! only with runs that also lack them, never silently with a guess.

use super::Options;
use serde::{Deserialize, Serialize};

/// Version of this shape; bump it and teach [`Params::from_stored`] the
/// old one when a field changes meaning.
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub v: u32,
    /// `process` or `threaded`.
    pub mode: String,
    /// `socket` or `pipe`; unknown for an rt-tests log (its banner does
    /// not say).
    pub transport: Option<String>,
    pub groups: u64,
    /// Senders (and receivers) per group.
    pub fds: u64,
    pub loops: u64,
    pub datasize: u64,
    /// Parent at SCHED_FIFO 1; unknown for an rt-tests log.
    pub fifo: Option<bool>,
    /// CPUs every task was pinned to (kbench's `--cpus`); `None` when the
    /// tool did not pin (rt-tests cannot).
    #[serde(default)]
    pub cpus: Option<Vec<usize>>,
}

impl Params {
    pub fn of(o: &Options) -> Params {
        Params {
            v: VERSION,
            mode: o.mode_name().into(),
            transport: Some(o.transport_name().into()),
            groups: o.groups.into(),
            fds: o.fds.into(),
            loops: o.loops,
            datasize: o.datasize as u64,
            fifo: Some(o.fifo),
            cpus: o.cpus.clone(),
        }
    }

    /// Read stored parameters of any version: version 1, or the shape
    /// kbench stored before parameters were versioned (`pipe`, `threads`
    /// booleans and a CPU array).
    pub fn from_stored(v: &serde_json::Value) -> Option<Params> {
        if v.get("v").is_some() {
            return serde_json::from_value(v.clone()).ok();
        }
        let b = |k: &str| v.get(k).and_then(serde_json::Value::as_bool);
        let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
        let cpus = v
            .get("cpus")
            .and_then(|c| serde_json::from_value(c.clone()).ok());
        Some(Params {
            v: VERSION,
            mode: if b("threads")? { "threaded" } else { "process" }.into(),
            transport: Some(if b("pipe")? { "pipe" } else { "socket" }.into()),
            groups: n("groups")?,
            fds: n("fds")?,
            loops: n("loops")?,
            datasize: n("datasize")?,
            fifo: b("fifo"),
            cpus,
        })
    }
}

/// Canonical stored form, for grouping: any stored shape read as
/// [`Params`]; a shape it cannot read is kept as it is.
pub fn canonical(v: &serde_json::Value) -> serde_json::Value {
    match Params::from_stored(v) {
        Some(p) => serde_json::to_value(p).unwrap_or_else(|_| v.clone()),
        None => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unversioned_shape_reads_as_version_1() {
        let old = serde_json::json!({"groups": 2, "fds": 4, "loops": 200, "datasize": 100,
            "pipe": false, "threads": true, "fifo": false, "cpus": [0, 1]});
        let p = Params::from_stored(&old).unwrap();
        assert_eq!(p.mode, "threaded");
        assert_eq!(p.transport.as_deref(), Some("socket"));
        assert_eq!(p.cpus, Some(vec![0, 1]));
        assert_eq!(
            canonical(&serde_json::to_value(&p).unwrap()),
            canonical(&old)
        );
    }

    #[test]
    fn a_field_added_with_a_default_does_not_split_groups() {
        // `cpus` arrived after version 1 runs were stored without it.
        let before = serde_json::json!({"v": 1, "mode": "process", "transport": "socket",
            "groups": 2, "fds": 4, "loops": 200, "datasize": 100, "fifo": false});
        let after = serde_json::json!({"v": 1, "mode": "process", "transport": "socket",
            "groups": 2, "fds": 4, "loops": 200, "datasize": 100, "fifo": false, "cpus": null});
        assert_eq!(canonical(&before), canonical(&after));
    }
}
