//! Emulated runs decide nothing anywhere unless `--allow-emulated`: the
//! same series, stored as if it came from TCG guests, gets a change point
//! from `track` on the host and none when emulated; `track --fail-on`
//! neither passes nor fails on it; `decide` exits 128 saying why; a
//! bisection of the stored labels names no culprit.  Each allowed, the
//! answer comes back (so each check can fail).

use crate::common::Env;
use crate::track::Gauss;

/// 14 labels × 5 runs, CV 3 %, +30 % from the 8th label on.
fn series() -> String {
    let mut g = Gauss(77);
    let mut out = String::from("label,benchmark,metric,unit,value,run,better\n");
    let mut run = 0;
    for l in 1..=14 {
        let level = if l >= 8 { 1.3 } else { 1.0 };
        for _ in 0..5 {
            run += 1;
            let v = 100.0 * level * (1.0 + 0.03 * g.normal());
            out.push_str(&format!(
                "6.1.0-{l}-amd64,cyclictest,p99_us,us,{v:.4},{run},lower\n"
            ));
        }
    }
    out
}

const WHY: &str = "the guest ran under TCG: the figures measure the emulator, not the kernel";

/// Mark every stored run emulated, as `kbench vm` and `lava import` do.
fn mark_all_emulated(env: &Env) {
    let db = rusqlite::Connection::open(env.db()).unwrap();
    let n = db
        .execute(
            "UPDATE runs SET settings = json_set(settings, '$.health.emulated', ?1)",
            [WHY],
        )
        .unwrap();
    assert_eq!(n, 70);
}

fn change_points(doc: &serde_json::Value) -> usize {
    doc["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["change_points"].as_array().unwrap().len())
        .sum()
}

#[test]
fn emulated_runs_decide_nothing_unless_allowed() {
    let env = Env::new();
    let f = env.dir.path().join("series.csv");
    std::fs::write(&f, series()).unwrap();
    env.ok(&["import", f.to_str().unwrap(), "--format", "csv", "-q"]);
    let (good, bad, cand) = ("6.1.0-1-amd64", "6.1.0-14-amd64", "6.1.0-10-amd64");
    let decide = |extra: &[&str]| {
        let mut a = vec![
            "decide",
            "--good",
            good,
            "--bad",
            bad,
            "--candidate",
            cand,
            "--metric",
            "p99_us",
        ];
        a.extend_from_slice(extra);
        env.run(&a)
    };
    // On the host's runs: the change is seen, the candidate is like bad.
    let host = env.json(&["track"]);
    assert_eq!(change_points(&host), 1, "{host:#}");
    assert_eq!(decide(&[]).status.code(), Some(1));

    mark_all_emulated(&env);
    let doc = env.json(&["track"]);
    assert_eq!(change_points(&doc), 0, "{doc:#}");
    assert_eq!(doc["withheld"], 1, "{doc:#}");
    let line = doc["emulated"].as_str().unwrap();
    assert!(
        line.starts_with("emulated: 70 of 70 runs come from emulated guests")
            && line.contains("no change point (1 of 1 series withheld) is given on them")
            && line.contains("--allow-emulated"),
        "{line}"
    );
    let table = env.ok(&["track"]);
    assert!(table.contains("1 of 1 series withheld"), "{table}");
    assert!(table.contains("0 series show no change point"), "{table}");
    let err = env.fails(&["track", "--fail-on", "change"], 3);
    assert!(err.contains("neither passes nor fails"), "{err}");
    let allowed = env.json(&["track", "--allow-emulated"]);
    assert_eq!(change_points(&allowed), 1, "{allowed:#}");
    assert!(allowed["emulated"]
        .as_str()
        .unwrap()
        .contains("found in them anyway"));

    let out = decide(&[]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(128), "{err}");
    assert!(err.contains("emulated: 10 of 10 runs"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(decide(&["--allow-emulated"]).status.code(), Some(1));

    let labels: Vec<String> = (1..=14).map(|l| format!("6.1.0-{l}-amd64")).collect();
    let bisect = |extra: &[&str]| {
        let mut a = vec!["bisect", "--candidates"];
        a.extend(labels.iter().map(String::as_str));
        a.extend_from_slice(&["--metric", "p99_us:lower", "--max-runs", "5", "--seed", "3"]);
        a.extend_from_slice(extra);
        env.ok(&a)
    };
    let out = bisect(&[]);
    assert!(
        out.starts_with("nothing to bisect: emulated: 70 of 70 runs")
            && out.contains("no culprit is given on them"),
        "{out}"
    );
    let out = bisect(&["--allow-emulated"]);
    assert!(!out.contains("nothing to bisect"), "{out}");
    assert!(out.contains("6.1.0-8-amd64"), "{out}");
}
