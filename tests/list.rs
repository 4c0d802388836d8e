//! `kbench list`: the registries as a user and a script read them.

use crate::common::{registered_benchmarks, Env};

#[test]
fn lists_benchmarks_metrics_and_loads_from_the_registries() {
    let env = Env::new();
    let names = registered_benchmarks(&env);
    for b in ["hackbench", "cyclictest", "schbench", "contest"] {
        assert!(names.iter().any(|n| n == b), "{b} missing from {names:?}");
    }
    // Every metric names a listed benchmark, and each listed benchmark's
    // headline is among its own metrics.
    let v = env.json(&["list", "benchmarks"]);
    let m = env.json(&["list", "metrics"]);
    let metrics = m["metrics"].as_array().unwrap();
    for b in v["benchmarks"].as_array().unwrap() {
        let name = b["name"].as_str().unwrap();
        let headline = b["headline"].as_str().unwrap();
        assert!(
            metrics
                .iter()
                .any(|x| x["benchmark"] == name && x["name"] == headline),
            "{name}'s headline {headline} is not one of its metrics"
        );
    }
    for x in metrics {
        assert!(names.iter().any(|n| x["benchmark"] == n.as_str()), "{x}");
        assert!(["lower", "higher", "neither"].contains(&x["better"].as_str().unwrap()));
    }
    let one = env.json(&["list", "metrics", "hackbench"]);
    assert!(one["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| x["benchmark"] == "hackbench"));
    let text = env.ok(&["list", "loads"]);
    assert!(
        text.contains("dbench") && text.contains("in contest by default"),
        "{text}"
    );
}

#[test]
fn bad_lists_are_refused_in_one_line() {
    let env = Env::new();
    let err = env.fails(&["list", "metrics", "nonesuch"], 2);
    assert!(err.contains("unknown benchmark 'nonesuch'"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let err = env.fails(&["list", "loads", "hackbench"], 2);
    assert!(err.contains("narrows `kbench list metrics` only"), "{err}");
    let err = env.fails(&["list", "kernels"], 2);
    assert!(err.contains("kernels"), "{err}");
}
