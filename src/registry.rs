//! Every benchmark kbench can run, declared once.
//!
//! Each measuring command declares an [`Entry`] in its own file (name,
//! help line, metrics with unit and direction, the default report metric,
//! how long a scenario task of it takes, how its stored parameters are
//! read); this list is the only place that names them all.  The command
//! line, scenario task kinds, scenario validation and compare's grouping
//! all derive from it, so a benchmark cannot be missing from any of them.
//! Adding a benchmark is its own folder under `benchmarks/` plus one line
//! in [`BENCHMARKS`].

pub use crate::lifecycle::entry::Entry;

/// Every benchmark, in the order help lists them.
pub const BENCHMARKS: &[&Entry] = &[
    &crate::benchmarks::hackbench::ENTRY,
    &crate::benchmarks::cyclictest::ENTRY,
    &crate::benchmarks::responsiveness::ENTRY,
    &crate::benchmarks::coldwalk::ENTRY,
    &crate::benchmarks::job::ENTRY,
    &crate::benchmarks::load::ENTRY,
    &crate::benchmarks::contest::ENTRY,
    &crate::benchmarks::schbench::ENTRY,
    &crate::benchmarks::interbench::ENTRY,
    #[cfg(debug_assertions)]
    &crate::benchmarks::testbench::ENTRY,
];

/// Check a benchmark's flags exactly as the command line reads them
/// (`kbench [global flags] NAME ARGV…`): what a scenario task is checked
/// with when its file is read.
pub fn check(name: &str, argv: &[String]) -> Result<(), clap::Error> {
    use clap::Args;
    let mut root = crate::session::GlobalArgs::augment_args(clap::Command::new("kbench"));
    if let Some(e) = find(name) {
        root = root.subcommand((e.command)());
    }
    let full = ["kbench", name]
        .into_iter()
        .map(str::to_string)
        .chain(argv.iter().cloned());
    root.try_get_matches_from(full).map(|_| ())
}

/// The entry called `name`.
pub fn find(name: &str) -> Option<&'static Entry> {
    BENCHMARKS.iter().copied().find(|e| e.name == name)
}

/// Every benchmark's name, but those hidden from help.
pub fn names() -> impl Iterator<Item = &'static str> {
    BENCHMARKS
        .iter()
        .filter(|e| !(e.command)().is_hide_set())
        .map(|e| e.name)
}

/// Parameters in canonical form: the benchmark's own reading when it is
/// known, else the stored JSON as it is (imports of other tools, older
/// benchmarks).
pub fn canonical_params(benchmark: &str, params: &serde_json::Value) -> serde_json::Value {
    match find(benchmark) {
        Some(e) => (e.canonical)(params),
        None => params.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry's spelling names flags its command has (a flag it
    /// lacks fails an assertion in debug builds), for parameters of any
    /// shape; what no flag says is a `name=value` member, the scenario
    /// task never (reports say it apart).
    #[test]
    fn every_entry_spells_with_flags_it_has() {
        for e in BENCHMARKS {
            let stored = (e.canonical)(&serde_json::json!({}));
            e.spelled(&stored);
            let left = e.unspelled(&stored);
            assert!(left.is_empty(), "{}: {left:?}", e.name);
            let scenario = e.spelled(&serde_json::json!({"task": "probe", "var.level": 3}));
            assert_eq!(scenario, ["var.level=3"], "{}", e.name);
        }
    }

    fn spelled(name: &str, p: serde_json::Value) -> String {
        let e = find(name).unwrap();
        e.spelled(&(e.canonical)(&p)).join(" ")
    }

    /// Stored parameters read back as the command a user typed, defaults
    /// left out.
    #[test]
    fn parameters_read_as_the_benchmarks_own_command_line() {
        use serde_json::json;
        let schbench = json!({"v": 1, "message_threads": 1, "workers": 1, "runtime_s": 8,
            "warmup_s": 0, "footprint_kb": 256, "operations": 5, "sleep_us": 100, "rps": 0,
            "pipe": 0, "calibrate": false, "no_locking": false, "task": "probe"});
        assert_eq!(spelled("schbench", schbench), "-t 1 -r 8");
        let hackbench = json!({"v": 1, "mode": "threaded", "transport": "pipe", "groups": 2,
            "fds": 4, "loops": 2000, "datasize": 100, "fifo": false, "cpus": [0, 1]});
        assert_eq!(
            spelled("hackbench", hackbench),
            "-T -p -g 2 -f 4 -l 2000 --cpus 0-1"
        );
        let process = json!({"mode": "process", "transport": "socket", "groups": 10,
            "fds": 20, "loops": 100, "datasize": 100});
        assert_eq!(spelled("hackbench", process), "");
        let cyclictest = json!({"v": 1, "smp": true, "threads": 2, "priority": 98,
            "policy": "fifo", "mlockall": true, "interval_us": 1000, "distance_us": 0,
            "duration_s": 20.0, "affinity": null, "loops": null});
        assert_eq!(spelled("cyclictest", cyclictest), "-S -p 98 -m -D 20");
        let one = json!({"smp": false, "threads": 1, "priority": 0, "policy": "other",
            "interval_us": 200, "duration_s": 1.5});
        assert_eq!(spelled("cyclictest", one), "-i 200 -D 1.5");
        let load = json!({"v": 1, "load": "cpu", "duration_s": 30.0, "procs": 8});
        assert_eq!(spelled("load", load), "cpu --procs 8");
        let resp = json!({"interactive": 1, "np": 4, "prime": 60, "print_to": "/dev/null",
            "sleeps_s": [1.0, 2.0, 3.0], "time_limit_s": 30.0});
        assert_eq!(spelled("responsiveness", resp), "-p 60 -t 30");
        let ib = json!({"v": 1, "duration_s": 30, "tasks": ["Audio"], "loads": ["None", "Burn"],
            "bench_nice": 0, "load_nice": 0, "rt": false, "uniprocessor": false, "burn": 2});
        assert_eq!(spelled("interbench", ib), "-W Audio -w None -w Burn -L 2");
        let long = json!({"v": 1, "duration_s": 60, "rt": true, "custom_cpu_pct": 20,
            "custom_interval_us": 5000, "tasks": null, "loads": null});
        assert_eq!(spelled("interbench", long), "-t 60 -r -C 20 -I 5000");
        let walk = json!({"path": "/usr", "one_filesystem": true, "stat_every_entry": false});
        assert_eq!(spelled("coldwalk", walk), "/usr -x");
        let job = json!({"v": 1, "job": "generated-small -j2"});
        assert_eq!(spelled("job", job), "generated-small -j2");
    }

    #[test]
    fn names_are_unique_and_headlines_declared() {
        let mut seen = std::collections::BTreeSet::new();
        for e in BENCHMARKS {
            assert!(seen.insert(e.name), "{} twice", e.name);
            assert!(
                e.metrics.iter().any(|m| m.name == e.headline),
                "{}: headline {} is not among its metrics",
                e.name,
                e.headline
            );
            assert_eq!((e.command)().get_name(), e.name);
        }
    }

    /// Every metric says what it measures, once, and its names are unique
    /// within its benchmark.
    #[test]
    fn every_metric_is_declared_once_with_its_meaning() {
        for e in BENCHMARKS {
            let mut seen = std::collections::BTreeSet::new();
            for m in e.metrics {
                assert!(seen.insert(m.name), "{}: {} twice", e.name, m.name);
                assert!(
                    m.meaning.len() > 8 && !m.meaning.ends_with('.'),
                    "{}.{}: meaning {:?}",
                    e.name,
                    m.name,
                    m.meaning
                );
            }
        }
    }

    /// The loads table is the one list: every name builds a load of that
    /// name or refuses with a message (never "unknown"), the `load`
    /// command accepts exactly these names, contest's table has a block
    /// for each and runs by default contest's own catalogue.
    #[test]
    fn every_load_in_the_table_is_a_load_and_a_contest_block() {
        let o = crate::load::LoadOptions::default();
        for name in crate::load::names() {
            match crate::load::build(name, &o) {
                Ok(l) => assert_eq!(l.name(), name),
                Err(e) => {
                    let e = format!("{e:#}");
                    assert!(!e.contains("unknown load"), "{name}: {e}");
                }
            }
            assert!(crate::values::load_name(name).is_ok(), "{name}");
            assert!(
                crate::benchmarks::contest::engine::block_order()
                    .iter()
                    .any(|b| b == name),
                "{name}: no contest block"
            );
        }
        assert!(crate::values::load_name("fio").is_err());
        let defaults: Vec<&str> = crate::load::KINDS
            .iter()
            .filter(|k| k.contest_default)
            .map(|k| k.name)
            .collect();
        assert_eq!(
            defaults,
            ["process", "ctar", "xtar", "io", "io_other", "read", "list", "mem", "dbench"],
            "contest's own catalogue, in its order"
        );
        assert!(crate::load::help().contains("cpu"));
    }
}
