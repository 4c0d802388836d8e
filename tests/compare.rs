//! `kbench compare` and `kbench import`: statistics through the CLI, every
//! output format, the seed's own figures, and bad input.

use crate::common::Env;

const SEED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/seed2023.csv");

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn seeded() -> Env {
    let env = Env::new();
    env.ok(&["import", SEED, "--format", "csv"]);
    env
}

fn metric(v: &serde_json::Value, bench: &str) -> serde_json::Value {
    let g = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["benchmark"] == bench)
        .unwrap();
    g["metrics"][0].clone()
}

/// The seed's adjusted p-values (SciPy: the log-ratio t-test of each
/// comparison and its two one-sided tests at ±2 %, then Shaffer's paired
/// step-down; the computation is in the note of issue 46's commit).
const HB1_ADJ: f64 = 0.030_964_078_718_003_767;
const LS_ADJ: f64 = 0.002_097_643_119_749_858_6;
const OS_ADJ: f64 = 0.288_352_484_019_204_66;

#[test]
fn the_seed_figures_show_which_differences_are_significant() {
    let env = seeded();
    let v = env.json(&["compare"]);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["baseline"], "clear-6.1.53");
    let hb = metric(&v, "hackbench1");
    let x = &hb["labels"][1];
    assert_eq!(x["label"], "xanmod-6.1.54");
    let vs = &x["versus"];
    assert!((vs["welch_p_value"].as_f64().unwrap() - 0.011_727_569_955_962_445).abs() < 1e-8);
    assert!((vs["mann_whitney_p_value"].as_f64().unwrap() - 0.1).abs() < 1e-12);
    assert!((vs["effect_size"].as_f64().unwrap() + 1.131).abs() < 1e-9);
    assert_eq!(vs["significant"], true);
    assert_eq!(vs["verdict"], "better");
    let ls = metric(&v, "ls-R");
    assert_eq!(ls["labels"][1]["versus"]["verdict"], "worse");
    let lat = metric(&v, "os-latency");
    assert_eq!(
        lat["labels"][1]["versus"]["significant"], false,
        "one outlier run makes -59% not significant"
    );
    assert_eq!(lat["labels"][1]["versus"]["verdict"], "inconclusive");
    // One family of the report's three comparisons, each a difference and
    // an equivalence test (Shaffer: three can be true until a pair is
    // rejected whole), on the log-ratio test for these positive metrics.
    for (bench, raw, adj) in [
        ("hackbench1", 0.011_727_569_955_962_457, HB1_ADJ),
        ("ls-R", 0.000_899_149_539_095_279_3, LS_ADJ),
        ("os-latency", 0.187_530_739_702_355_37, OS_ADJ),
    ] {
        let vs = &metric(&v, bench)["labels"][1]["versus"];
        let (r, a) = (
            vs["welch_p_value"].as_f64().unwrap(),
            vs["p_adjusted"].as_f64().unwrap(),
        );
        assert!(
            (r - raw).abs() < 1e-12 && (a - adj).abs() < 1e-12,
            "{bench}: {r} {a}"
        );
    }
    // Mann-Whitney cannot reach 0.05 with three runs a side, and says so by not deciding.
    let mw = env.json(&["compare", "--test", "mann-whitney"]);
    assert_eq!(
        metric(&mw, "hackbench1")["labels"][1]["versus"]["significant"],
        false
    );
}

#[test]
fn too_few_runs_is_said_and_one_run_is_never_significant() {
    let env = Env::new();
    let csv = env.dir.path().join("few.csv");
    std::fs::write(
        &csv,
        "a,b,time,s,10,1\na,b,time,s,10.1,2\nz,b,time,s,20,1\nz,b,time,s,20.2,2\n",
    )
    .unwrap();
    env.ok(&["import", csv.to_str().unwrap(), "--format", "csv"]);
    let v = env.json(&["compare"]);
    let vs = &v["groups"][0]["metrics"][0]["labels"][1]["versus"];
    assert_eq!(vs["verdict"], "too few runs");
    assert!(vs["significant"].is_null());
    let text = env.ok(&["compare"]);
    assert!(text.contains("too few runs"), "{text}");
}

#[test]
fn every_format() {
    let env = seeded();
    let md = env.ok(&["compare", "--format", "markdown"]);
    assert!(
        md.starts_with("## kbench comparison: clear-6.1.53 vs xanmod-6.1.54"),
        "{md}"
    );
    assert!(md.contains("### Scoreboard"), "{md}");
    assert!(
        !md.contains("| label | n | mean |"),
        "details only when asked: {md}"
    );
    let md = env.ok(&["compare", "--format", "markdown", "--details"]);
    assert!(md.contains("| label | n | mean |"), "{md}");
    assert!(md.contains("| ---: |"), "{md}");
    let csv = env.ok(&["compare", "--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("benchmark,params,metric,unit,better,label,baseline,n,mean"));
    assert_eq!(
        lines.len(),
        1 + 3 * 2,
        "a row per benchmark x metric x label"
    );
    let x = lines
        .iter()
        .find(|l| l.starts_with("hackbench1") && l.contains(",xanmod-6.1.54,"))
        .unwrap();
    assert!(x.contains(",true,better,"), "{x}");
    let html_path = env.dir.path().join("report.html");
    env.ok(&[
        "compare",
        "--format",
        "html",
        "-o",
        html_path.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(
        html.starts_with("<!doctype html>")
            && html.contains("<svg")
            && html.contains("Systems compared")
    );
    assert!(
        !html.contains("<script") && !html.contains(" src=") && !html.contains(" href="),
        "self-contained"
    );
    let seed = env.ok(&["compare", "--layout", "seed2023"]);
    assert!(
        seed.starts_with(
            "clear-6.1.53\n\n   hackbench1 time            15.758s, 15.630s, 16.127s\n"
        ),
        "{seed}"
    );
    assert!(
        seed.contains("xanmod-6.1.54\n\n   hackbench1 time            14.716s, 14.627s, 14.597s"),
        "{seed}"
    );
}

#[test]
fn labels_baseline_and_filters() {
    let env = seeded();
    let v = env.json(&[
        "compare",
        "--label",
        "xanmod-6.1.54",
        "--label",
        "clear-6.1.53",
        "--benchmark",
        "ls-R",
    ]);
    assert_eq!(v["baseline"], "xanmod-6.1.54");
    assert_eq!(v["groups"].as_array().unwrap().len(), 1);
    let v = env.json(&["compare", "--baseline", "xanmod-6.1.54", "--metric", "time"]);
    assert_eq!(v["baseline"], "xanmod-6.1.54");
    assert_eq!(
        v["groups"].as_array().unwrap().len(),
        2,
        "os-latency has no `time` metric"
    );
    let err = env.fails(
        &["compare", "--label", "nobody", "--label", "clear-6.1.53"],
        2,
    );
    assert!(err.contains("nobody"), "{err}");
    let err = env.fails(&["compare", "--baseline", "other"], 2);
    assert!(err.contains("--baseline other"), "{err}");
    let err = env.fails(&["compare", "--since", "yesterday"], 2);
    assert!(err.contains("not a date"), "{err}");
    let err = env.fails(&["compare", "--since", "2999-01-01"], 2);
    assert!(err.contains("no complete runs"), "{err}");
    let err = env.fails(&["compare", "--alpha", "2"], 2);
    assert!(err.contains("--alpha"), "{err}");
    let err = env.fails(&["hackbench", "--label", "a", "--label", "b"], 2);
    assert!(err.contains("one --label"), "{err}");
}

#[test]
fn measured_runs_compare_with_their_fingerprints() {
    let env = Env::new();
    for l in ["a", "b"] {
        env.ok(&[
            "cyclictest",
            "-t",
            "1",
            "-i",
            "500",
            "-l",
            "40",
            "--runs",
            "3",
            "--label",
            l,
            "-q",
        ]);
    }
    let v = env.json(&["compare"]);
    let fp = &v["config_diff"][0];
    assert_eq!(fp["field"], "fingerprint");
    assert_eq!(
        fp["values"][0], fp["values"][1],
        "same machine, same fingerprint"
    );
    assert!(v["warnings"].as_array().unwrap().is_empty());
    let names: Vec<&str> = v["groups"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["metric"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"max_us") && !names.iter().any(|n| n.contains('.')),
        "{names:?}"
    );
    // With 40 samples a run, p99 and above are the maximum: said once.
    let dups = v["groups"][0]["duplicates"].as_array().unwrap();
    assert!(
        dups.iter().any(|d| d[0] == "p99_us" && d[1] == "max_us"),
        "{dups:?}"
    );
    assert!(!names.contains(&"p99_us"), "{names:?}");
    let max = v["groups"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "max_us")
        .unwrap();
    assert!(
        max["labels"][0]["bootstrap_ci"].is_null(),
        "no bootstrap interval below 5 runs, where it would not hold its coverage"
    );
    let ci_low = max["labels"][0]["summary"]["ci_low"].as_f64().unwrap();
    assert!(
        ci_low > 0.0,
        "a latency's interval stays positive: {ci_low}"
    );
    let html = env.ok(&["compare", "--format", "html"]);
    assert!(
        html.contains("Latency distribution"),
        "CDF drawn from the stored histograms"
    );
}

#[test]
fn imports_real_rt_tests_outputs() {
    let env = Env::new();
    env.ok(&[
        "import",
        &fixture("hackbench-3runs.txt"),
        "--format",
        "hackbench",
        "--label",
        "old",
    ]);
    env.ok(&[
        "import",
        &fixture("cyclictest-smp-q.txt"),
        "--format",
        "cyclictest",
        "--label",
        "old",
    ]);
    env.ok(&[
        "import",
        &fixture("cyclictest-t2-h3000.json"),
        "--format",
        "cyclictest-json",
        "--label",
        "old",
    ]);
    env.ok(&[
        "import",
        &fixture("cyclictest-t2-h3000.txt"),
        "--format",
        "cyclictest",
        "--label",
        "old",
    ]);
    let runs = env.json(&["runs", "list"]);
    let runs = runs["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 6);
    assert!(runs.iter().all(|r| r["label"] == "old"));
    let id = runs[5]["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    assert_eq!(show["imported"], true);
    assert!(show["fingerprint"].is_null());
    assert_eq!(show["histograms"][0]["samples"], 400);
    let err = env.fails(
        &[
            "import",
            &fixture("hackbench-3runs.txt"),
            "--format",
            "cyclictest",
            "--label",
            "x",
        ],
        2,
    );
    assert!(err.contains("cyclictest output"), "{err}");
    let err = env.fails(
        &[
            "import",
            &fixture("hackbench-3runs.txt"),
            "--format",
            "hackbench",
        ],
        2,
    );
    assert!(err.contains("--label"), "{err}");
    let bad = env.dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "label,benchmark,metric,unit,value\nk,b,m,s,1\nk,b,m,s,oops\n",
    )
    .unwrap();
    let err = env.fails(&["import", bad.to_str().unwrap(), "--format", "csv"], 2);
    assert!(err.contains("line 3") && err.contains("oops"), "{err}");
    let err = env.fails(&["import", "/nonexistent.csv", "--format", "csv"], 2);
    assert!(err.contains("cannot read"), "{err}");
}

/// Whole-output snapshots of the text formats for the seed's figures
/// (reviewed by hand; `KBENCH_UPDATE_SNAPSHOTS=1 cargo test snapshots`
/// rewrites them after an intended change).
#[test]
fn text_formats_match_their_snapshots() {
    let env = seeded();
    let dir = format!("{}/tests/snapshots", env!("CARGO_MANIFEST_DIR"));
    for (name, args) in [
        ("table", &["compare", "--format", "table"][..]),
        ("markdown", &["compare", "--format", "markdown"]),
        ("csv", &["compare", "--format", "csv"]),
        ("seed2023", &["compare", "--layout", "seed2023"]),
    ] {
        let out = env.ok(args);
        let path = format!("{dir}/compare-seed.{name}.txt");
        if std::env::var_os("KBENCH_UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(&path, &out).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(out, want, "{name} output differs from {path}");
    }
}

fn import_csv(env: &Env, name: &str, text: &str, extra: &[&str]) -> std::process::Output {
    let p = env.dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    let mut args = vec!["import", p.to_str().unwrap(), "--format", "csv"];
    args.extend_from_slice(extra);
    env.run(&args)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Each import that misled compare before is refused, naming its line.
#[test]
fn imports_that_would_mislead_are_refused() {
    let env = Env::new();
    // A row's label is held to --label's rules, and an import of many
    // labels names a few (one 300,000-character label printed in full,
    // and a text-direction character printed as it was).
    let long = format!("{},b,m,s,1\n", "x".repeat(300_000));
    let o = import_csv(&env, "long.csv", &long, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).len() < 500 && stderr(&o).contains("1-200 characters"));
    let o = import_csv(&env, "rtl.csv", "evil\u{202e}lbl,b,m,s,1\n", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("\\u{202e}"), "{}", stderr(&o));
    let many: String = (0..40).map(|i| format!("lab{i},b,m,s,1,{i}\n")).collect();
    let o = import_csv(&Env::new(), "many.csv", &many, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("and 35 more"), "{}", stderr(&o));
    let o = import_csv(&env, "u.csv", "a,b,time,s,1,1\na,b,time,ms,1000,2\n", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 2") && stderr(&o).contains("line 1"),
        "{}",
        stderr(&o)
    );
    let o = import_csv(&env, "n.csv", "a,b,m,s,1\na,b,m,s,NaN\n", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 2") && !stderr(&o).contains("constraint"),
        "{}",
        stderr(&o)
    );
    let o = import_csv(&env, "i.csv", "a,b,m,s,1\na,b,m,s,inf\n", &[]);
    assert_eq!(o.status.code(), Some(2));
    let o = import_csv(&env, "r.csv", "a,b,m,s,1,1\na,b,m,s,2,1\n", &[]);
    assert!(stderr(&o).contains("twice"), "{}", stderr(&o));
    let err = env.fails(&["runs", "list"], 2);
    assert!(
        err.contains("no result store"),
        "nothing half-stored: {err}"
    );
    // The file's labels survive --label, which only fills blanks.
    let o = import_csv(
        &env,
        "l.csv",
        "x,b,m,ops/sec,5\nx,b,m,ops/sec,6\ny,b,m,ops/sec,7\n,b,m,ops/sec,8\n",
        &["--label", "given"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let labels = env.json(&["labels"]);
    let names: Vec<&str> = labels["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["label"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"x") && names.contains(&"y") && names.contains(&"given"),
        "{names:?}"
    );
    let show = env.json(&["runs", "show", "1"]);
    assert_eq!(show["metrics"][0]["better"], "higher", "ops/sec is a rate");
}

#[test]
fn fail_on_worse_gates_a_pipeline() {
    let env = seeded();
    let o = env.run(&["compare", "--fail-on", "worse"]);
    assert_eq!(o.status.code(), Some(3), "ls -R is worse");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("Scoreboard"),
        "the report is printed first: {out}"
    );
    assert!(stderr(&o).contains("1 worse"), "{}", stderr(&o));
    env.ok(&["compare", "--fail-on", "worse", "--benchmark", "hackbench1"]);
    let o = env.run(&[
        "compare",
        "--fail-on",
        "inconclusive",
        "--benchmark",
        "os-latency",
    ]);
    assert_eq!(o.status.code(), Some(3));
    env.fails(&["compare", "--threshold", "-1"], 2);
    env.fails(&["compare", "--threshold", "abc"], 2);
    env.fails(&["compare", "--detect", "0"], 2);
    // Long notes wrap, continued with two spaces.
    let out = env
        .ok(&["compare", "--benchmark", "os-latency", "--detect", "20"])
        .replace("\n  ", " ");
    assert!(out.contains("--detect 20 needs about "), "{out}");
    // Without --detect, what 10 % would need; in the user's terms, never
    // a change below -100 % nor a percentage where a factor reads better.
    let out = env
        .ok(&["compare", "--benchmark", "os-latency"])
        .replace("\n  ", " ");
    assert!(
        out.contains("n = 3+3 runs, CV ")
            && out.contains("only beyond ×")
            && out.contains("--detect 10 needs about "),
        "{out}"
    );
    assert!(!out.contains("<= -"), "{out}");
}

/// The HTML report in a real browser: the scoreboard first, every chart
/// drawn with a size, nothing on the console.  CI installs Chromium; a
/// machine without it says so and skips.
#[test]
fn html_report_renders_in_a_real_browser() {
    if !crate::common::have_chromium() {
        return;
    }
    let env = seeded();
    for l in ["clear-6.1.53", "xanmod-6.1.54"] {
        env.ok(&[
            "cyclictest",
            "-t",
            "1",
            "-i",
            "500",
            "-l",
            "200",
            "--runs",
            "3",
            "--label",
            l,
            "-q",
        ]);
    }
    let html = env.ok(&["compare", "--format", "html", "--bundle"]);
    let (probe, console) = crate::common::in_chromium(env.dir.path(), "report.html", &html);
    assert!(probe["scoreboard"].as_u64().unwrap_or(0) >= 3, "{probe}");
    assert_eq!(probe["first"], "Scoreboard", "{probe}");
    assert!(
        probe["svgs"].as_u64().unwrap_or(0) >= 4,
        "strip plots and a CDF: {probe}"
    );
    assert_eq!(probe["empty"], 0, "every SVG has a size: {probe}");
    assert!(console.is_empty(), "console: {console:?}");
    // The check itself sees a broken chart and a console error.
    let (bad, console) = crate::common::in_chromium(
        env.dir.path(),
        "bad.html",
        "<html><body><svg width=\"NaN\" height=\"0\"></svg></body></html>",
    );
    assert_eq!(bad["empty"], 1, "{bad}");
    assert!(
        !console.is_empty(),
        "an invalid SVG length is reported on the console"
    );
}

/// Labels and names from a file never reach the reader's terminal as
/// control characters, in any format.
#[test]
fn control_characters_in_labels_are_escaped_everywhere() {
    let env = Env::new();
    let mut rows = String::new();
    for (l, v) in [("red", 10.0), ("plain", 12.0)] {
        for k in 0..3 {
            rows += &format!("\"{l}\",\"hb\x07\",time,s,{},{k}\n", v + k as f64 * 0.1);
        }
    }
    let o = import_csv(&env, "ctl.csv", &rows, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    // import refuses such labels (as --label does); a store written by
    // another program can still hold them.
    rusqlite::Connection::open(env.db())
        .unwrap()
        .execute_batch(
            "UPDATE runs SET label = 'a' || char(27) || '[31mred' WHERE label = 'red';
             UPDATE runs SET label = 'b' || char(13) || 'plain' WHERE label = 'plain';",
        )
        .unwrap();
    for fmt in ["table", "markdown", "csv", "html"] {
        let out = env.ok(&["compare", "--format", fmt, "--details"]);
        assert!(
            !out.chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{fmt}: {out:?}"
        );
        assert!(out.contains("\\x1b"), "{fmt} shows the escape: {out}");
    }
    let seed = env.ok(&["compare", "--layout", "seed2023"]);
    assert!(!seed.contains('\x1b') && !seed.contains('\r'), "{seed:?}");
}

/// The scheduling section: the `sched.*` counters that differ between
/// labels, decided as a family of their own, largest change first; the
/// rest counted; per-CPU counters and the scoreboard kept apart.
#[test]
fn how_the_kernel_scheduled_the_run_is_a_section_of_its_own() {
    let env = Env::new();
    let mut rows = String::new();
    for k in 0..5 {
        let j = k as f64 * 0.7;
        for (l, invol) in [("a", 100.0 + j), ("b", 320.0 + 2.0 * j)] {
            rows += &format!("{l},schbench,wakeup_p99_us,us,{},{k},lower\n", 100.0 + j);
            rows += &format!(
                "{l},schbench,sched.probe.involuntary_switches_per_s,1/s,{invol},{k},lower\n"
            );
            rows += &format!(
                "{l},schbench,sched.probe.voluntary_switches_per_s,1/s,{},{k},lower\n",
                900.0 + 3.0 * j
            );
            rows += &format!(
                "{l},schbench,sched.cpu0.irqs_per_s,1/s,{},{k},lower\n",
                50.0 + invol
            );
        }
    }
    let o = import_csv(&env, "sched.csv", &rows, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Long titles wrap at 118 columns, continued with two spaces.
    let out = env.ok(&["compare"]);
    let out = {
        let mut joined = String::new();
        for l in out.lines() {
            if l.starts_with("  ")
                && joined
                    .lines()
                    .last()
                    .is_some_and(|p| p.starts_with("How the kernel"))
            {
                joined.pop();
                joined.push(' ');
                joined.push_str(l.trim_start());
            } else {
                joined.push_str(l);
            }
            joined.push('\n');
        }
        joined
    };
    let section: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("How the kernel scheduled the run"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(
        section.first().is_some_and(|t| t.contains("(2 tests of sched.* counters, a family of their own (the chance of any false verdict among them at most the report's alpha); 1 did not differ; against a)")),
        "{out}"
    );
    assert_eq!(section.len(), 3, "a title, a header and one row: {out}");
    let row = section[2];
    assert!(
        row.contains("probe.involuntary_switches_per_s (1/s)")
            && row.contains("+22")
            && row.ends_with("worse"),
        "{row}"
    );
    assert!(!out.contains("cpu0"), "per-CPU counters stay out: {out}");
    let scoreboard: Vec<&str> = out.lines().take_while(|l| !l.is_empty()).collect();
    assert!(
        scoreboard.iter().all(|l| !l.contains("sched.")),
        "the scoreboard leaves them out: {scoreboard:?}"
    );
    let html = env.ok(&["compare", "--format", "html"]);
    assert!(
        html.contains("<h2>How the kernel scheduled the run</h2>")
            && html.contains("<svg class=\"bars\"")
    );
    if crate::common::have_chromium() {
        let (probe, console) = crate::common::in_chromium(env.dir.path(), "sched.html", &html);
        assert_eq!(probe["empty"], 0, "{probe}");
        assert!(console.is_empty(), "{console:?}");
    }
    // Named, a counter is on the scoreboard like any metric.
    let named = env.ok(&[
        "compare",
        "--metric",
        "sched.probe.involuntary_switches_per_s",
    ]);
    assert!(
        named.contains("sched.probe.involuntary_switches_per_s"),
        "{named}"
    );
}

/// What one label has and another lacks is said in every format and fails
/// a gate; units that differ are not compared and said so; labels from a
/// boot each are warned of.
#[test]
fn missing_metrics_and_single_boots_are_said() {
    let env = Env::new();
    let (mut base, mut cand) = (String::new(), String::new());
    for k in 0..3 {
        let j = k as f64 * 0.1;
        base += &format!("base,hb,time,s,{},{k}\n", 10.0 + j);
        base += &format!("base,hb,p99,us,{},{k},lower\n", 50.0 + j);
        base += &format!("base,hb,wait,ms,{},{k},lower\n", 5.0 + j);
        cand += &format!("cand,hb,time,s,{},{k}\n", 10.0 + j);
        cand += &format!("cand,hb,wait,us,{},{k},lower\n", 5000.0 + j);
    }
    for (f, rows) in [("base.csv", base), ("cand.csv", cand)] {
        let o = import_csv(&env, f, &rows, &[]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let out = env.ok(&["compare"]).replace("\n  ", " ");
    assert!(
        out.contains("missing: hb [imported_from=csv] p99 (us): missing under cand"),
        "{out}"
    );
    assert!(
        out.contains("missing: hb [imported_from=csv] wait: given in different units (ms under base; us under cand): not compared"),
        "{out}"
    );
    assert!(
        !out.contains("no benchmark has runs under more than one"),
        "{out}"
    );
    for fmt in ["markdown", "csv", "html"] {
        let t = env.ok(&["compare", "--format", fmt]);
        assert!(t.contains("missing under cand"), "{fmt}: {t}");
    }
    let json = env.json(&["compare"]);
    assert_eq!(json["missing"].as_array().map(Vec::len), Some(2), "{json}");
    for gate in ["missing", "inconclusive"] {
        let o = env.run(&["compare", "--fail-on", gate]);
        assert_eq!(o.status.code(), Some(3), "--fail-on {gate}: {}", stderr(&o));
        assert!(stderr(&o).contains("2 missing"), "{}", stderr(&o));
    }
    // Each label's runs from a boot of its own (the A/B workflow).
    let env = Env::new();
    for (label, boot) in [("a", "boot-a"), ("b", "boot-b")] {
        let o = env
            .cmd()
            .args([
                "hackbench",
                "-g",
                "1",
                "-f",
                "2",
                "-l",
                "50",
                "--runs",
                "3",
                "--label",
                label,
                "-q",
            ])
            .env(
                "KBENCH_TEST_IDENTITY",
                format!(r#"{{"release":"6.99-{label}","cmdline":"ro","boot_id":"{boot}"}}"#),
            )
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let out = env.ok(&["compare"]).replace("\n  ", " ");
    // Said first, above the scoreboard.
    assert!(
        out.starts_with(
            "a, b: each of these labels' runs come from one boot, and the labels' boots differ"
        ) && out.contains("kbench campaign"),
        "{out}"
    );
}

/// Edges that misled: a latency that read 0 gets no impossible interval;
/// values near 1e300 or 1e-300 are tested as any others and printed in a
/// scientific form.
#[test]
fn zeros_and_extreme_magnitudes_keep_honest_intervals() {
    let env = Env::new();
    let mut rows = String::new();
    for (k, (a, b)) in [(0.0, 1.0), (30.0, 0.9), (33.0, 1.2)].iter().enumerate() {
        rows += &format!("a,zero,lat,us,{a},{k}\nb,zero,lat,us,{b},{k}\n");
    }
    for (k, f) in [1.0, 1.1, 1.2, 1.05].iter().enumerate() {
        for (unit, scale) in [("B", 1e300), ("s", 1e-300)] {
            rows += &format!("a,huge,{unit}_m,{unit},{},{k},lower\n", f * scale);
            rows += &format!("b,huge,{unit}_m,{unit},{},{k},lower\n", (f + 1.0) * scale);
        }
    }
    let o = import_csv(&env, "edges.csv", &rows, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = env.json(&["compare"]);
    for g in c["groups"].as_array().unwrap() {
        for m in g["metrics"].as_array().unwrap() {
            for l in m["labels"].as_array().unwrap() {
                let lo = l["summary"]["ci_low"].as_f64().unwrap_or(0.0);
                assert!(
                    lo >= 0.0,
                    "a non-negative metric's interval stays at or above 0: {l}"
                );
                if let Some(ci) = l["versus"]["change_ci_pct"].as_array() {
                    assert!(ci[0].as_f64().unwrap() >= -100.0, "{l}");
                    assert!(
                        ci.iter().all(|v| v.as_f64().is_some_and(f64::is_finite)),
                        "{l}"
                    );
                }
                if g["benchmark"] == "huge" && l["label"] == "b" {
                    assert_eq!(l["versus"]["verdict"], "worse", "{l}");
                }
            }
        }
    }
    let out = env.ok(&["compare"]);
    assert!(
        out.contains("1.075e300 B") && out.contains("1.075e-300 s"),
        "{out}"
    );
    assert!(!out.contains("NaN"), "{out}");
    assert!(out.lines().all(|l| l.chars().count() <= 120), "{out}");
    // --wide: nothing wrapped or moved (the footer is one long line, the
    // to-decide column stays a column).
    let wide = env.ok(&["compare", "--wide"]);
    assert!(wide.lines().any(|l| l.chars().count() > 120), "{wide}");
    assert!(!wide.contains("Notes ("), "{wide}");
    assert!(
        wide.lines().nth(1).is_some_and(|h| h.ends_with("note")),
        "{wide}"
    );
}

/// A report made with `--bundle` carries its runs: imported into an empty
/// store, they give the same scoreboard (HTML and Markdown alike); the
/// same report imported twice adds nothing; a bundle altered by one
/// character, or a report with none, is refused in one line.
#[test]
fn a_bundled_report_gives_the_same_scoreboard_when_imported() {
    let env = seeded();
    let json = |db: &str| {
        let out = env.ok(&["--db", db, "compare", "--json"]);
        let mut v: serde_json::Value = serde_json::from_str(&out).unwrap();
        // Where the runs came from differs; the verdicts must not.
        v.as_object_mut().unwrap().remove("runs");
        v
    };
    let here = json(&env.db().to_string_lossy());
    for (format, file) in [("html", "r.html"), ("markdown", "r.md")] {
        let path = env.dir.path().join(file);
        let p = path.to_str().unwrap();
        env.ok(&["compare", "--format", format, "--bundle", "-o", p]);
        let report = std::fs::read_to_string(&path).unwrap();
        assert!(report.contains("carries the 18 runs"), "{format}");
        let db = env.dir.path().join(format!("{format}.db"));
        let db = db.to_str().unwrap();
        let said = env.run(&["--db", db, "import", p, "--format", "report"]);
        assert!(said.status.success(), "{}", stderr(&said));
        assert!(
            stderr(&said).contains("18 runs carried, 18 new"),
            "{}",
            stderr(&said)
        );
        assert_eq!(json(db)["groups"], here["groups"], "{format}");
        let again = env.run(&["--db", db, "import", p, "--format", "report"]);
        assert!(
            stderr(&again).contains("18 runs carried, 0 new"),
            "{}",
            stderr(&again)
        );
        // One base64 character changed.
        let at = report.find("KBENCH-REPORT-BUNDLE").unwrap();
        let line = report[at..].find('\n').unwrap() + at + 1;
        let c = report.as_bytes()[line];
        let mut bad = report.clone().into_bytes();
        bad[line] = if c == b'A' { b'B' } else { b'A' };
        let bad_path = env.dir.path().join(format!("bad-{file}"));
        std::fs::write(&bad_path, bad).unwrap();
        let err = env.fails(
            &[
                "--db",
                db,
                "import",
                bad_path.to_str().unwrap(),
                "--format",
                "report",
            ],
            2,
        );
        assert!(err.contains("bundle"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let plain = env.dir.path().join("plain.html");
    std::fs::write(&plain, env.ok(&["compare", "--format", "html"])).unwrap();
    let err = env.fails(
        &["import", plain.to_str().unwrap(), "--format", "report"],
        2,
    );
    assert!(err.contains("carries no runs"), "{err}");
    let err = env.fails(&["compare", "--bundle"], 2);
    assert!(err.contains("--format html or markdown"), "{err}");
}

/// A report's runs that claim a place in an experiment (a matrix's
/// here; a forged bundle could claim a round of a live campaign) come in
/// out of it: no experiment reads them as its own, and the claim is kept
/// apart.
#[test]
fn an_imported_run_is_in_no_experiment() {
    let env = Env::new();
    env.ok(&[
        "matrix",
        "--vary",
        "loops=20,40",
        "--rounds",
        "1",
        "-q",
        "--",
        "hackbench",
        "-g",
        "1",
        "-f",
        "2",
    ]);
    let shown = env.json(&["runs", "show", "1"]);
    let id = shown["settings"]["experiment"]["id"].clone();
    assert_eq!(shown["settings"]["experiment"]["kind"], "matrix", "{shown}");
    let report = env.dir.path().join("r.md");
    env.ok(&[
        "compare",
        "--curve",
        "loops",
        "--format",
        "markdown",
        "--bundle",
        "-o",
        report.to_str().unwrap(),
    ]);
    let db = env.dir.path().join("other.db");
    let db = db.to_str().unwrap();
    env.ok(&[
        "--db",
        db,
        "import",
        report.to_str().unwrap(),
        "--format",
        "report",
        "-q",
    ]);
    for n in ["1", "2"] {
        let r = env.json(&["--db", db, "runs", "show", n]);
        assert!(r["settings"].get("experiment").is_none(), "{r}");
        assert_eq!(r["settings"]["imported_experiment"]["id"], id, "{r}");
    }
}
