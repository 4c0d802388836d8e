//! Typed, versioned parameters of the benchmarks whose options are not
//! already a serde struct (hackbench's are in `bench/hackbench/params.rs`).
//!
//! Each is what the runner stores and what an importer produces; compare
//! groups by their canonical reading ([`crate::registry::canonical_via`]),
//! so a field added later with a default does not split old runs from new.
//! Every field is optional: `None` is "unknown" (an imported log that does
//! not state it), and such runs group only with runs that also lack it.
//! `v` is the shape's version; a change of meaning bumps it.

use serde::{Deserialize, Serialize};

fn one() -> u32 {
    1
}

/// `kbench cyclictest` and rt-tests cyclictest imports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cyclictest {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub interval_us: Option<u64>,
    #[serde(default)]
    pub distance_us: Option<u64>,
    #[serde(default)]
    pub duration_s: Option<f64>,
    #[serde(default)]
    pub loops: Option<u64>,
    #[serde(default)]
    pub threads: Option<u64>,
    #[serde(default)]
    pub smp: Option<bool>,
    #[serde(default)]
    pub affinity: Option<String>,
    #[serde(default)]
    pub priority: Option<i32>,
    #[serde(default)]
    pub policy: Option<String>,
    #[serde(default)]
    pub mlockall: Option<bool>,
}

/// `kbench schbench`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Schbench {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub message_threads: Option<u64>,
    #[serde(default)]
    pub workers: Option<u64>,
    #[serde(default)]
    pub runtime_s: Option<u64>,
    #[serde(default)]
    pub warmup_s: Option<u64>,
    #[serde(default)]
    pub footprint_kb: Option<u64>,
    #[serde(default)]
    pub operations: Option<u64>,
    #[serde(default)]
    pub sleep_us: Option<u64>,
    #[serde(default)]
    pub rps: Option<u64>,
    #[serde(default)]
    pub auto_rps: Option<u64>,
    #[serde(default)]
    pub pipe: Option<u64>,
    #[serde(default)]
    pub calibrate: Option<bool>,
    #[serde(default)]
    pub no_locking: Option<bool>,
    #[serde(default)]
    pub split: Option<u32>,
    #[serde(default)]
    pub message_cpus: Option<String>,
    #[serde(default)]
    pub worker_cpus: Option<String>,
}

/// `kbench job`: the job's identity (generated project and size, kernel
/// tree and target, or command) and its parallelism.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Job {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub job: Option<String>,
}

/// `kbench load`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Load {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub load: Option<String>,
    #[serde(default)]
    pub duration_s: Option<f64>,
    #[serde(default)]
    pub size: Option<u64>,
    #[serde(default)]
    pub cpus: Option<Vec<usize>>,
    #[serde(default)]
    pub nice: Option<i32>,
    #[serde(default)]
    pub procs: Option<usize>,
}

/// A contest round: the load and the job (the round number is not a
/// parameter: compare leaves it out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Contest {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub load: Option<String>,
    #[serde(default)]
    pub job: Option<String>,
    #[serde(default)]
    pub round: Option<u32>,
}

/// `kbench interbench`.  `loops_per_ms` is not a parameter: it is the
/// machine's calibration, stored in the run's settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Interbench {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub duration_s: Option<u64>,
    #[serde(default)]
    pub tasks: Option<Vec<String>>,
    #[serde(default)]
    pub loads: Option<Vec<String>>,
    #[serde(default)]
    pub bench_nice: Option<i32>,
    #[serde(default)]
    pub load_nice: Option<i32>,
    #[serde(default)]
    pub rt: Option<bool>,
    #[serde(default)]
    pub uniprocessor: Option<bool>,
    #[serde(default)]
    pub burn: Option<usize>,
    #[serde(default)]
    pub custom_cpu_pct: Option<u64>,
    #[serde(default)]
    pub custom_interval_us: Option<u64>,
}

/// `kbench testbench` (debug builds).
#[cfg(debug_assertions)]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Testbench {
    #[serde(default = "one")]
    pub v: u32,
    #[serde(default)]
    pub seconds: Option<f64>,
}

/// Serialize a parameters struct (it cannot fail for these shapes).
pub fn to_value<P: Serialize>(p: &P) -> serde_json::Value {
    serde_json::to_value(p).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::canonical_via;

    /// Runs stored before `v` and `smp` existed read the same as new runs
    /// with their defaults; an import that does not state a field stays
    /// apart.
    #[test]
    fn defaulted_fields_do_not_split_groups() {
        let old = serde_json::json!({"interval_us": 1000, "threads": 2});
        let new = to_value(&Cyclictest {
            v: 1,
            interval_us: Some(1000),
            threads: Some(2),
            ..Default::default()
        });
        assert_eq!(
            canonical_via::<Cyclictest>(&old),
            canonical_via::<Cyclictest>(&new)
        );
        let imported = serde_json::json!({"threads": 2, "imported_from": "rt-tests cyclictest"});
        assert_ne!(
            canonical_via::<Cyclictest>(&imported),
            canonical_via::<Cyclictest>(&new)
        );
    }
}
