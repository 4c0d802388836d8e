//! `kbench track` over a stored series: change points where they are and
//! nowhere else, labels in kernel-version order, the gate, the HTML in a
//! real browser, and what is refused.

use crate::common::Env;

/// A seeded normal sampler (Box–Muller over a 64-bit LCG), so the
/// series is the same on every machine.
pub struct Gauss(pub u64);

impl Gauss {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// The series as CSV: 60 labels × 5 runs, CV 3 %, both metrics
/// +8 % from label 20 on, the tail metric +30 % more from label 40 on
/// (its median metric unchanged there).  `prefix` names the labels.
pub fn series_csv(prefix: &str, seed: u64) -> String {
    let mut g = Gauss(seed);
    let mut out = String::from("label,benchmark,metric,unit,value,run,better\n");
    let mut run = 0;
    for l in 0..60 {
        let level = if l >= 20 { 1.08 } else { 1.0 };
        let tail = if l >= 40 { 1.3 } else { 1.0 };
        for _ in 0..5 {
            run += 1;
            let p50 = 100.0 * level * (1.0 + 0.03 * g.normal());
            let p99 = 300.0 * level * tail * (1.0 + 0.03 * g.normal());
            out.push_str(&format!(
                "{prefix}6.1.0-{}-amd64,cyclictest,p50_us,us,{p50:.4},{run},lower\n",
                l + 1
            ));
            out.push_str(&format!(
                "{prefix}6.1.0-{}-amd64,cyclictest,p99_us,us,{p99:.4},{run},lower\n",
                l + 1
            ));
        }
    }
    out
}

fn import(env: &Env, csv: &str) {
    let f = env.dir.path().join("series.csv");
    std::fs::write(&f, csv).unwrap();
    env.ok(&["import", f.to_str().unwrap(), "--format", "csv", "-q"]);
}

/// The change points of a `track --json` document: (metric, between).
pub fn found(doc: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut v = Vec::new();
    for s in doc["series"].as_array().unwrap() {
        for c in s["change_points"].as_array().unwrap() {
            v.push((
                s["metric"].as_str().unwrap().to_string(),
                c["between"][0].as_str().unwrap().to_string(),
                c["between"][1].as_str().unwrap().to_string(),
            ));
        }
    }
    v
}

#[test]
fn a_level_shift_and_a_tail_change_are_found_at_their_labels_and_nowhere_else() {
    let env = Env::new();
    import(&env, &series_csv("", 2026));
    let doc = env.json(&["track"]);
    let mut got = found(&doc);
    got.sort();
    let want = vec![
        (
            "p50_us".to_string(),
            "6.1.0-20-amd64".to_string(),
            "6.1.0-21-amd64".to_string(),
        ),
        (
            "p99_us".into(),
            "6.1.0-20-amd64".into(),
            "6.1.0-21-amd64".into(),
        ),
        (
            "p99_us".into(),
            "6.1.0-40-amd64".into(),
            "6.1.0-41-amd64".into(),
        ),
    ];
    assert_eq!(got, want, "{doc:#}");
    // Ordered by version (so -9 before -10), the method said.
    let labels: Vec<&str> = doc["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        &labels[8..11],
        ["6.1.0-9-amd64", "6.1.0-10-amd64", "6.1.0-11-amd64"]
    );
    assert!(doc["method"]
        .as_str()
        .unwrap()
        .contains("Benjamini-Hochberg"));
    // Each change point said as a comparison, in the table and Markdown.
    let table = env.ok(&["track"]);
    let flat = table.replace("\n    ", " ");
    assert!(
        flat.contains("between 6.1.0-40-amd64 and 6.1.0-41-amd64: +"),
        "{table}"
    );
    assert!(flat.contains("p adj"), "{table}");
    let md = env.ok(&["track", "--format", "markdown"]);
    assert!(md.contains("| 6.1.0-40-amd64 | 6.1.0-41-amd64 |"), "{md}");
    // The last label is like the rest: the gate passes; one more, worse, fails it.
    env.ok(&["track", "--fail-on", "change"]);
    let mut g = Gauss(5);
    let mut worse = String::from("label,benchmark,metric,unit,value,run,better\n");
    for r in 0..5 {
        worse.push_str(&format!(
            "6.1.0-61-amd64,cyclictest,p50_us,us,{:.4},{},lower\n",
            130.0 * (1.0 + 0.03 * g.normal()),
            900 + r
        ));
        worse.push_str(&format!(
            "6.1.0-61-amd64,cyclictest,p99_us,us,{:.4},{},lower\n",
            560.0 * (1.0 + 0.03 * g.normal()),
            900 + r
        ));
    }
    import(&env, &worse);
    let err = env.fails(&["track", "--fail-on", "change"], 3);
    assert!(
        err.contains("the last label, 6.1.0-61-amd64, starts a new worse segment"),
        "{err}"
    );
}

#[test]
fn labels_order_by_kernel_version() {
    let env = Env::new();
    let mut csv = String::from("label,benchmark,metric,unit,value,run,better\n");
    let mut run = 0;
    for l in ["6.10", "6.9", "6.1.0-10", "6.1.0-9", "6.10-rc1"] {
        for v in [1.0, 1.1, 1.2] {
            run += 1;
            csv.push_str(&format!("{l},job,time,s,{v},{run},lower\n"));
        }
    }
    import(&env, &csv);
    let doc = env.json(&["track"]);
    let labels: Vec<&str> = doc["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["6.1.0-9", "6.1.0-10", "6.9", "6.10-rc1", "6.10"]);
    // As given, with --label.
    let doc = env.json(&["--label", "6.9", "--label", "6.1.0-9", "track"]);
    let labels: Vec<&str> = doc["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["6.9", "6.1.0-9"]);
}

#[test]
fn the_series_is_drawn_in_a_real_browser() {
    let env = Env::new();
    import(&env, &series_csv("", 2026));
    let out = env.dir.path().join("series.html");
    env.ok(&["track", "--format", "html", "-o", out.to_str().unwrap()]);
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(html.matches("class=\"changepoint\"").count(), 3);
    if !crate::common::have_chromium() {
        return;
    }
    let (probe, console) = crate::common::in_chromium(env.dir.path(), "page.html", &html);
    assert_eq!(probe["svgs"], 2, "{probe}");
    assert_eq!(probe["empty"], 0, "{probe}");
    assert_eq!(probe["changepoints"], 3, "{probe}");
    assert_eq!(probe["points"], 120, "{probe}");
    assert!(
        probe["page_width"].as_u64().unwrap() <= probe["view_width"].as_u64().unwrap(),
        "{probe}"
    );
    assert!(console.iter().all(|l| !l.contains("ERROR")), "{console:?}");
}

#[test]
fn what_track_refuses() {
    let env = Env::new();
    import(&env, &series_csv("", 1));
    let e = env.fails(&["track", "--order", "given"], 2);
    assert!(
        e.contains("--order given takes the order of the --label flags"),
        "{e}"
    );
    let e = env.fails(&["track", "--label-glob", "nothing-*"], 2);
    assert!(e.contains("a series needs at least two labels"), "{e}");
    let e = env.fails(
        &["--label", "6.1.0-1-amd64", "track", "--label-glob", "6*"],
        2,
    );
    assert!(e.contains("not both"), "{e}");
    let e = env.fails(&["--label", "nope", "--label", "6.1.0-1-amd64", "track"], 2);
    assert!(e.contains("no label 'nope'"), "{e}");
    let e = env.fails(&["track", "--alpha", "2"], 2);
    assert!(e.contains("false discovery rate"), "{e}");
    let e = env.fails(&["track", "--since", "yesterday"], 2);
    assert!(e.contains("is not a date"), "{e}");
}
