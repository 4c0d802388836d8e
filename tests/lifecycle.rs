//! One lifecycle: every measuring command, driven through complete,
//! failed and interrupted, stores its run with the same statuses and ends
//! with the same closing line.  A benchmark declared only by its registry
//! entry (the debug-only `testbench`) runs as a command and as a scenario
//! task.

use crate::common::Env;

/// A measuring command: a short run, and one long enough to interrupt.
struct Case {
    name: &'static str,
    quick: Vec<String>,
    long: Vec<String>,
}

/// Runs the quick case stores (contest's one round is noload and
/// cacherun: two steps, each a run).
fn runs_of(c: &Case) -> usize {
    if c.name == "contest" {
        2
    } else {
        1
    }
}

/// The table covers every registered benchmark.
#[test]
fn every_registered_benchmark_is_in_the_table() {
    let env = Env::new();
    let names: Vec<&str> = cases(&env).iter().map(|c| c.name).collect();
    for b in crate::common::registered_benchmarks(&env) {
        assert!(
            names.contains(&b.as_str()),
            "{b} is not in the lifecycle table"
        );
    }
}

fn v(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn cases(env: &Env) -> Vec<Case> {
    let tree = env.dir.path().join("tree");
    crate::common::put(&tree, "a/b/c.txt", "x");
    let tree = tree.to_str().unwrap();
    vec![
        Case {
            name: "hackbench",
            quick: v(&["hackbench", "-g", "1", "-f", "2", "-l", "10"]),
            long: v(&["hackbench", "-g", "1", "-f", "2", "-l", "100000000"]),
        },
        Case {
            name: "cyclictest",
            quick: v(&["cyclictest", "-t", "1", "-i", "1000", "-D", "200ms"]),
            long: v(&["cyclictest", "-t", "1", "-i", "1000", "-D", "60s"]),
        },
        Case {
            name: "responsiveness",
            quick: v(&[
                "responsiveness",
                "-i",
                "1",
                "-p",
                "1",
                "--np",
                "1",
                "--sleep-scale",
                "0.01",
            ]),
            long: v(&["responsiveness", "-i", "1", "-p", "1", "-t", "60s"]),
        },
        Case {
            name: "schbench",
            quick: v(&["schbench", "-r", "1", "-t", "1", "-i", "0"]),
            long: v(&["schbench", "-r", "60", "-t", "1", "-i", "0"]),
        },
        Case {
            name: "coldwalk",
            quick: v(&["coldwalk", tree, "--no-drop"]),
            long: v(&["coldwalk", "/usr", "--no-drop", "--runs", "10000"]),
        },
        Case {
            name: "job",
            quick: v(&["job", "--job-cmd", "true"]),
            long: v(&["job", "--job-cmd", "sleep 60"]),
        },
        Case {
            name: "load",
            quick: v(&["load", "cpu", "--procs", "1", "--duration", "300ms"]),
            long: v(&["load", "cpu", "--procs", "1", "--duration", "60s"]),
        },
        Case {
            name: "contest",
            quick: v(&[
                "contest",
                "--loads",
                "noload",
                "--runs",
                "1",
                "--job-cmd",
                "true",
            ]),
            long: v(&[
                "contest",
                "--loads",
                "noload",
                "--runs",
                "1",
                "--job-cmd",
                "sleep 60",
            ]),
        },
        Case {
            name: "interbench",
            // A given loops-per-ms: no calibration (seconds of set-up
            // before the first repetition) in the way.
            quick: v(&[
                "interbench",
                "-t",
                "1",
                "--exact-duration",
                "-W",
                "Audio",
                "-w",
                "None",
                "-l",
                "100000",
            ]),
            long: v(&[
                "interbench",
                "-t",
                "60",
                "-W",
                "Audio",
                "-w",
                "None",
                "-l",
                "100000",
            ]),
        },
        Case {
            name: "testbench",
            quick: v(&["testbench"]),
            long: v(&["testbench", "--seconds", "60"]),
        },
    ]
}

/// Statuses of the stored runs of `benchmark`, oldest first.
fn statuses(env: &Env, benchmark: &str) -> Vec<String> {
    let v = env.json(&["runs", "list", "--benchmark", benchmark]);
    let mut runs: Vec<(i64, String)> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_i64().unwrap(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    runs.sort();
    runs.into_iter().map(|(_, s)| s).collect()
}

fn closing_line(stderr: &str, what: &str) {
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        (last.starts_with("stored as run ") || last.starts_with("stored as runs "))
            && last.ends_with("(label lc)"),
        "{what}: the closing line is `{last}` in:\n{stderr}"
    );
}

fn args(c: &[String]) -> Vec<&str> {
    let mut a: Vec<&str> = c.iter().map(String::as_str).collect();
    a.extend(["--label", "lc"]);
    a
}

#[test]
fn every_command_stores_a_complete_run_the_same_way() {
    let env = Env::new();
    for c in cases(&env) {
        let out = env.run(&args(&c.quick));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {err}", c.name);
        closing_line(&err, c.name);
        assert_eq!(
            statuses(&env, c.name),
            vec!["complete"; runs_of(&c)],
            "{}",
            c.name
        );
    }
}

#[test]
fn every_command_stores_a_failed_run_the_same_way() {
    let env = Env::new();
    for c in cases(&env) {
        let out = env
            .cmd()
            .args(args(&c.quick))
            .env("KBENCH_INJECT_FAILURE", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", c.name);
        assert!(err.contains("failure injected"), "{}: {err}", c.name);
        assert_eq!(
            err.lines()
                .filter(|l| l.starts_with("stored as run "))
                .count(),
            1,
            "{}: {err}",
            c.name
        );
        assert_eq!(statuses(&env, c.name), ["failed"], "{}", c.name);
        let id = env.json(&["runs", "list", "--benchmark", c.name])["runs"][0]["id"]
            .as_i64()
            .unwrap()
            .to_string();
        let show = env.json(&["runs", "show", &id]);
        let notes = show["notes"].to_string();
        assert!(notes.contains("failure injected"), "{}: {show}", c.name);
    }
}

#[test]
fn every_command_stores_an_interrupted_run_the_same_way() {
    let env = Env::new();
    for c in cases(&env) {
        let kb = env.spawn(&args(&c.long));
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let out = crate::common::interrupt(kb);
        let err = String::from_utf8_lossy(&out.stderr);
        closing_line(
            err.lines()
                .filter(|l| !l.starts_with("kbench: interrupted"))
                .collect::<Vec<_>>()
                .join("\n")
                .as_str(),
            c.name,
        );
        let st = statuses(&env, c.name);
        assert_eq!(
            st.last().map(String::as_str),
            Some("interrupted"),
            "{}: {st:?}",
            c.name
        );
        assert!(
            st[..st.len() - 1].iter().all(|s| s == "complete"),
            "{}: {st:?}",
            c.name
        );
    }
}

/// The testbench has no code anywhere but its own file and registry line,
/// yet runs as a scenario task and is stored under its name.
#[test]
fn a_registered_benchmark_is_a_scenario_task() {
    let env = Env::new();
    let f = env.dir.path().join("t.toml");
    std::fs::write(
        &f,
        "name = \"t\"\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"testbench\"\nargs = { value = 7, seconds = 0.1 }\n",
    )
    .unwrap();
    let v = env.json(&["run", f.to_str().unwrap(), "--label", "tb"]);
    assert_eq!(v["failures"].as_array().map_or(0, |a| a.len()), 0, "{v}");
    let runs = env.json(&["runs", "list", "--benchmark", "testbench"]);
    let id = runs["runs"][0]["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    let value = show["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "value")
        .map(|m| m["value"].as_f64().unwrap());
    assert_eq!(value, Some(7.0), "{show}");
    // And a bad value is refused when the scenario is read, with its place.
    std::fs::write(
        &f,
        "name = \"t\"\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"testbench\"\nargs = { seconds = \"soon\" }\n",
    )
    .unwrap();
    let err = env.fails(&["run", f.to_str().unwrap()], 2);
    assert!(err.contains(":6:8:") && err.contains("soon"), "{err}");
}

/// An rt-tests hackbench log and `kbench hackbench` with the same settings
/// land in one comparison group once the log's unstated parameters are
/// stated; left unknown, they do not meet.
#[test]
fn an_imported_log_and_a_run_of_the_same_settings_compare() {
    let env = Env::new();
    env.ok(&[
        "hackbench",
        "-g",
        "1",
        "-f",
        "2",
        "-l",
        "20",
        "--runs",
        "2",
        "--label",
        "new",
    ]);
    let log = env.dir.path().join("hb.log");
    let block = "Running in process mode with 1 groups using 4 file descriptors each (== 4 tasks)\nEach sender will pass 20 messages of 100 bytes\nTime: 0.010\n";
    std::fs::write(&log, format!("{block}{block}")).unwrap();
    let log = log.to_str().unwrap();
    env.ok(&[
        "import",
        log,
        "--format",
        "hackbench",
        "--label",
        "old",
        "--assume",
        "transport=socket",
        "--assume",
        "fifo=false",
    ]);
    env.ok(&["import", log, "--format", "hackbench", "--label", "unknown"]);
    let groups = |a: &str, b: &str| {
        let v = env.json(&["compare", "--label", a, "--label", b]);
        v["groups"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["benchmark"] == "hackbench")
            .count()
    };
    assert_eq!(groups("old", "new"), 1);
    // Unstated parameters never meet stated ones: nothing is compared,
    // and compare says so (exit 2) rather than print an empty report.
    let err = env.fails(&["compare", "--label", "unknown", "--label", "new"], 2);
    assert!(
        err.contains("share no benchmark run with the same parameters"),
        "{err}"
    );
    let err = env.fails(
        &[
            "import",
            log,
            "--format",
            "hackbench",
            "--label",
            "x",
            "--assume",
            "groups=3",
        ],
        2,
    );
    assert!(err.contains("the file says groups is 1"), "{err}");
    let err = env.fails(
        &[
            "import",
            log,
            "--format",
            "hackbench",
            "--label",
            "x",
            "--assume",
            "fifo=maybe",
        ],
        2,
    );
    assert!(err.contains("not hackbench parameters"), "{err}");
}

/// `--runs auto` stops when the answer is clear: alone, once the interval
/// is within --precision; against a stored label, once the verdict is
/// decided; else at its cap.  Bad values are refused.
#[test]
fn runs_auto_stops_when_the_answer_is_clear() {
    let env = Env::new();
    let stored = |label: &str| {
        env.json(&["runs", "list"])["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["label"] == label)
            .count()
    };
    // Identical figures: the interval has no width after the first look.
    let out = env.run(&["testbench", "--runs", "auto", "--label", "base"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("--runs auto: the 95% confidence sequence"),
        "{err}"
    );
    assert_eq!(stored("base"), 3);
    // Half the baseline's figure (lower is better): decided at the first
    // look the permutation test can decide at.  Against 3 baseline runs
    // only 2 of the C(n+3, 3) splits are as extreme as the one seen, so
    // p ≈ 2/C(n+3, 3): 0.1 at 3 runs and 0.036 at 5, above those looks'
    // shares of α (0.006, 0.01); 0.012 at 8 is under its 0.016.
    let v = env.json(&[
        "testbench",
        "--value",
        "0.5",
        "--runs",
        "auto:9",
        "--against",
        "base",
        "--label",
        "new",
    ]);
    assert!(
        v["auto"]
            .as_str()
            .unwrap()
            .starts_with("better than the baseline"),
        "{v}"
    );
    assert_eq!(stored("new"), 8);
    // Alone, constant figures are precise at the first look, under the cap.
    let v = env.json(&[
        "testbench",
        "--value",
        "1.5",
        "--runs",
        "auto:4",
        "--label",
        "capped",
    ]);
    assert_eq!(
        v["runs"].as_array().unwrap().len(),
        3,
        "constant figures: precise at 3 {v}"
    );
    assert!(
        v["auto"].as_str().unwrap().contains("after 3 run(s)"),
        "{v}"
    );
    let err = env.fails(&["testbench", "--runs", "auto:2"], 2);
    assert!(err.contains("at least 3"), "{err}");
    let err = env.fails(&["testbench", "--runs", "auto", "--against", "nobody"], 2);
    assert!(
        err.contains("--against nobody") && err.contains("at least 2"),
        "{err}"
    );
    let err = env.fails(&["testbench", "--runs", "0"], 2);
    assert!(err.contains("from 1 to"), "{err}");
}

/// `--threshold` on a measuring command is what `--runs auto --against`
/// decides against; when the runs cannot decide, the reason is in the
/// user's terms (how much the runs vary, the runs a side a change of the
/// threshold's size needs, a threshold these runs could decide), and that
/// threshold, given, decides.
#[test]
fn runs_auto_against_says_what_would_decide_and_takes_a_threshold() {
    let env = Env::new();
    for v in ["1", "2", "1", "2", "1.5", "1.2"] {
        env.ok(&["testbench", "--value", v, "--label", "base", "-q"]);
    }
    let auto = |extra: &[&str], label: &str| -> String {
        let mut a = vec![
            "testbench",
            "--value",
            "1.5",
            "--runs",
            "auto:5",
            "--against",
            "base",
            "--label",
            label,
        ];
        a.extend(extra);
        env.json(&a)["auto"].as_str().unwrap().to_string()
    };
    let why = auto(&[], "new");
    assert!(
        why.starts_with("undecidable against this baseline: the runs vary by 2"),
        "{why}"
    );
    assert!(
        why.contains("(6 baseline runs, at most 5 here)")
            && why.contains("a 2 % change needs about ")
            && why.contains("give the baseline more runs"),
        "{why}"
    );
    let t = why
        .split("only a change beyond ±")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("a change these runs could decide: {why}"));
    assert!(t.parse::<f64>().is_ok_and(|t| t > 2.0), "{why}");
    let decided = auto(&["--threshold", t], "with-threshold");
    assert!(
        decided.starts_with("equivalent to the baseline")
            && decided.contains(&format!("within ±{t} %")),
        "--threshold {t}: {decided}"
    );
    for bad in ["abc", "1001", "nan", "-5"] {
        env.fails(&["testbench", "--threshold", bad], 2);
    }
}
