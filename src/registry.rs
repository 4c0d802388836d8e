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
                crate::contest::block_order().iter().any(|b| b == name),
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
