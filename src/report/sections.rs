//! A comparison as format-neutral sections (a title, a header, rows),
//! shared by the terminal, Markdown and HTML renderers: the scoreboard
//! first (one row per metric and label, the answer), then the systems
//! compared, then per-metric detail tables.

use crate::compare::{command_text, Comparison, Group, LabelStats, MetricComparison, Verdict};
use crate::text::table::num;

/// One titled table.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Columns from this one on hold numbers.
    pub numeric_from: usize,
    /// The column holding verdicts (coloured by renderers that can).
    pub verdict_col: Option<usize>,
    /// Lines that head groups of rows: (index of the group's first row,
    /// what the rows share: a benchmark and its parameters, once).
    pub groups: Vec<(usize, String)>,
    /// A line above the title: what this table and those after it share
    /// (the group a run of detail tables opens).
    pub lead: Option<String>,
    /// Where a table too wide for the terminal is best cut in two (the
    /// first column is repeated in the second).
    pub break_at: Option<usize>,
}

/// A p-value for people: four decimals, or "<0.0001".
pub fn p_text(p: Option<f64>) -> String {
    match p {
        None => "-".into(),
        Some(p) if p < 1e-4 => "<0.0001".into(),
        Some(p) => format!("{p:.4}"),
    }
}

/// A value with its unit (`15.76 s`, `51 us`, `3.2e4 msg/s`).
pub fn with_unit(v: f64, unit: &str) -> String {
    if unit.is_empty() || unit == "count" {
        num(v)
    } else {
        format!("{} {unit}", num(v))
    }
}

/// `+7.7% [+4.1, +11.4]`, `n/a` when the baseline is 0.
pub fn change_text(change: Option<f64>, ci: Option<(f64, f64)>) -> String {
    let Some(c) = change.filter(|c| c.is_finite()) else {
        return "n/a".into();
    };
    // An interval that could not be had is said as such, never as NaN.
    let ci = ci.filter(|(lo, hi)| lo.is_finite() && hi.is_finite());
    // Past +1000 % a percentage is a factor said badly: ×11 rather than
    // +1000.0 %, the interval too.
    let factor = |p: f64| {
        let r = 1.0 + p / 100.0;
        if r >= 100.0 {
            format!("×{r:.0}")
        } else {
            format!("×{r:.1}")
        }
    };
    match ci {
        Some((lo, hi)) if c >= 1000.0 && lo > 0.0 => {
            format!("{} [{}, {}]", factor(c), factor(lo), factor(hi))
        }
        Some((lo, hi)) => format!("{c:+.1}% [{lo:+.1}, {hi:+.1}]"),
        None if c >= 1000.0 => format!("{} [-]", factor(c)),
        None => format!("{c:+.1}% [-]"),
    }
}

fn direction(m: &MetricComparison) -> &'static str {
    match m.better {
        crate::measure::Better::Lower => "lower is better",
        crate::measure::Better::Higher => "higher is better",
        crate::measure::Better::Neither => "no direction",
    }
}

/// What a verdict rests on, in words: for an inconclusive one, what these
/// runs could tell apart and what would decide it; for an equivalent one,
/// the interval it was decided on.
fn needs(l: &LabelStats, c: &Comparison) -> String {
    let Some(v) = &l.versus else {
        return String::new();
    };
    if v.verdict == Verdict::Equivalent {
        let t = c.threshold_pct;
        return match v.equivalence_ci_pct {
            Some((lo, hi)) if lo.is_finite() && hi.is_finite() => format!(
                "decided on its {:.0} % interval, [{lo:+.1}, {hi:+.1}], within ±{t} %",
                (1.0 - 2.0 * c.alpha) * 100.0
            ),
            _ => format!("within ±{t} % by two one-sided tests"),
        };
    }
    let mut s = v.note.clone().unwrap_or_default();
    if let Some(d) = v.detectable_change_pct {
        // The same distance on the log scale, both ways: ×r or ÷r, so never
        // below -100 %; a factor where a percentage would be absurd.
        let r = 1.0 + d / 100.0;
        let down = (1.0 - 1.0 / r) * 100.0;
        // Past tenfold the figure is the runs' noise, not a change anyone
        // looks for: said as such, not as ×2307.
        let beyond = if r > ABSURD_FACTOR {
            format!("not even ×{ABSURD_FACTOR:.0} either way")
        } else if d >= 100.0 {
            format!("only beyond ×{r:.1} either way")
        } else {
            format!("only beyond +{d:.0} % or -{down:.0} %")
        };
        // Both sides' units: the side with fewer is what blocks.
        let (nb, nx) = v.n;
        let u = v.unit;
        s = match v.cv_pct {
            Some(cv) => format!("n = {nb}+{nx} {u}, CV {cv:.0} %: {beyond}"),
            None => format!("n = {nb}+{nx} {u}: {beyond}"),
        };
        if let Some((want, runs)) = v.to_decide {
            s = format!("{s}; --detect {want} needs about {runs} {u} a side");
            if u == "boots" {
                s.push_str(" (more runs within the same boots add none)");
            }
        }
    }
    s
}

/// A detectable change past this factor is the runs' noise speaking.
const ABSURD_FACTOR: f64 = 10.0;

/// What a group's runs share, said once above its rows: the benchmark's
/// command line with every flag at its default left out, and the
/// scenario task last (`schbench -t 1 -r 8 · scenario task probe`).
fn group_title(g: &Group) -> String {
    let mut s = command_text(&g.benchmark, &g.params);
    if let Some(t) = g.params.get("task").and_then(|t| t.as_str()) {
        s.push_str(&format!(" · scenario task {t}"));
    }
    s
}

/// Every group's title, in the comparison's order.  Groups are never
/// pooled, so two whose titles would read the same (an import that leaves
/// a field unknown beside runs that state it at its default) each say, in
/// brackets, the stored members that set them apart.
pub fn group_titles(c: &Comparison) -> Vec<String> {
    let titles: Vec<String> = c.groups.iter().map(group_title).collect();
    let member = |g: &Group, k: &str| g.params.get(k).cloned().unwrap_or_default();
    titles
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let twins: Vec<&Group> = (0..titles.len())
                .filter(|&j| j != i && titles[j] == *t)
                .map(|j| &c.groups[j])
                .collect();
            if twins.is_empty() {
                return t.clone();
            }
            let mine = &c.groups[i];
            let mut keys: Vec<&String> = mine
                .params
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k)
                .chain(
                    twins
                        .iter()
                        .flat_map(|g| g.params.as_object().into_iter().flatten().map(|(k, _)| k)),
                )
                .collect();
            keys.sort();
            keys.dedup();
            let apart: Vec<String> = keys
                .into_iter()
                .filter(|k| twins.iter().any(|g| member(g, k) != member(mine, k)))
                .map(|k| match member(mine, k) {
                    serde_json::Value::Null => format!("{k} unknown"),
                    serde_json::Value::String(v) => format!("{k}={v}"),
                    v => format!("{k}={v}"),
                })
                .collect();
            format!("{t} [{}]", apart.join(" "))
        })
        .collect()
}

/// A group's title without the benchmark's name (where it is said beside
/// it).
pub fn title_rest<'a>(g: &Group, title: &'a str) -> &'a str {
    title
        .strip_prefix(g.benchmark.as_str())
        .unwrap_or(title)
        .trim_start()
}

/// A group's line said again, shorter: its benchmark and scenario task
/// (`schbench · scenario task probe`) when no other group has those,
/// else the whole line.
pub fn short_title(title: &str, groups: &[(usize, String)]) -> String {
    let short = |t: &str| {
        let bench = t.split(' ').next().unwrap_or("").to_string();
        match t.rsplit_once(" · ") {
            Some((_, task)) => format!("{bench} · {task}"),
            None => bench,
        }
    };
    let mine = short(title);
    if groups.iter().filter(|(_, g)| short(g) == mine).count() == 1 {
        mine
    } else {
        title.to_string()
    }
}

/// The scoreboard: a row per metric and compared label, under a line per
/// group that says its benchmark and parameters once; labels without the
/// part they all share.
pub fn scoreboard(c: &Comparison) -> Section {
    let short = super::labels::labels_of(c);
    let mut rows = Vec::new();
    let mut groups = Vec::new();
    for (g, title) in c.groups.iter().zip(group_titles(c)) {
        groups.push((rows.len(), title));
        for m in &g.metrics {
            let Some(base) = m.labels.iter().find(|l| l.versus.is_none()) else {
                continue;
            };
            for l in m.labels.iter().filter(|l| l.versus.is_some()) {
                let v = l.versus.as_ref().expect("filtered");
                rows.push(vec![
                    m.metric.clone(),
                    with_unit(base.summary.median, &m.unit),
                    short(&l.label),
                    with_unit(l.summary.median, &m.unit),
                    change_text(v.change_pct, v.change_ci_pct),
                    p_text(v.p_adjusted),
                    verdict_text(v),
                    needs(l, c),
                ]);
            }
        }
    }
    let any_needs = rows.iter().any(|r| !r[7].is_empty());
    let mut header: Vec<String> = [
        "metric",
        &format!("{} (median)", short(&c.baseline)),
        "label",
        "median",
        change_head(c),
        "p adj",
        "verdict",
        "note",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if !any_needs {
        header.pop();
        for r in &mut rows {
            r.pop();
        }
    }
    // Two labels: an A/B table, each label's medians in a column of its
    // own (the label column would say the same on every row).
    let mut verdict_col = 6;
    if let [_, other] = c.labels.as_slice() {
        let other = if *other == c.baseline {
            &c.labels[0]
        } else {
            other
        };
        header[3] = format!("{} (median)", short(other));
        header.remove(2);
        for r in &mut rows {
            r.remove(2);
        }
        verdict_col = 5;
    }
    Section {
        title: "Scoreboard".into(),
        header,
        rows,
        numeric_from: usize::MAX,
        verdict_col: Some(verdict_col),
        groups,
        lead: None,
        break_at: None,
    }
}

/// The change column's head: the medians are shown beside it, so it says
/// what the change is of (the means for Welch; the Hodges-Lehmann shift
/// over the baseline's median for Mann-Whitney).
pub fn change_head(c: &Comparison) -> &'static str {
    match c.decider {
        crate::compare::Decider::Welch => "Δ mean [95% CI]",
        crate::compare::Decider::MannWhitney => "HL shift [95% CI]",
    }
}

/// A verdict as a row shows it: with what it rests on when that is
/// little (`worse (one boot each)`).
pub fn verdict_text(v: &crate::compare::Versus) -> String {
    match &v.rests_on {
        Some(r) if v.verdict.is_decided() => format!("{} ({r})", v.verdict.as_str()),
        _ => v.verdict.as_str().to_string(),
    }
}

/// "3 better, 1 worse, 9 equivalent, 2 inconclusive (Holm, alpha 0.05,
/// threshold 2 %)".
pub fn tally_line(c: &Comparison) -> String {
    let counts: Vec<String> = c
        .tally
        .iter()
        .map(|(v, n)| format!("{n} {}", v.as_str()))
        .collect();
    format!(
        "{} ({}, alpha {}, threshold {} %)",
        if counts.is_empty() {
            "nothing compared".to_string()
        } else {
            counts.join(", ")
        },
        c.correction.as_str(),
        c.alpha,
        c.threshold_pct
    )
}

/// The systems compared: what differs between the labels' fingerprints.
pub fn systems(c: &Comparison) -> Section {
    let mut header = vec!["".to_string()];
    header.extend(c.labels.iter().cloned());
    Section {
        title: "Systems compared".into(),
        header,
        rows: c
            .config_diff
            .iter()
            .map(|r| {
                std::iter::once(r.field.clone())
                    .chain(r.values.iter().cloned())
                    .collect()
            })
            .collect(),
        numeric_from: usize::MAX,
        verdict_col: None,
        groups: Vec::new(),
        lead: None,
        break_at: None,
    }
}

fn row(l: &LabelStats, label: String) -> Vec<String> {
    let s = &l.summary;
    let ci = if s.ci_low.is_nan() {
        "-".into()
    } else {
        format!("{}…{}", num(s.ci_low), num(s.ci_high))
    };
    let mut r = vec![
        label,
        s.n.to_string(),
        num(s.mean),
        num(s.median),
        if s.sd.is_nan() { "-".into() } else { num(s.sd) },
        ci,
        num(s.min),
        num(s.max),
    ];
    match &l.versus {
        None => r.extend([
            "baseline".into(),
            "".into(),
            "".into(),
            "".into(),
            "".into(),
            "".into(),
        ]),
        Some(v) => {
            r.push(change_text(v.change_pct, v.change_ci_pct));
            r.push(p_text(v.welch_p_value));
            let approx = if v.mann_whitney_exact == Some(false) {
                "≈"
            } else {
                ""
            };
            r.push(format!("{approx}{}", p_text(v.mann_whitney_p_value)));
            r.push(p_text(v.p_adjusted));
            r.push(if v.effect_size.is_nan() {
                "-".into()
            } else if v.effect_size > 0.0 {
                format!("+{}", num(v.effect_size))
            } else {
                num(v.effect_size)
            });
            r.push(v.verdict.as_str().to_string());
        }
    }
    r
}

/// Per-metric detail tables, one per metric per group, the group's
/// command line said once, above its first table.
pub fn details(c: &Comparison) -> Vec<Section> {
    let short = super::labels::labels_of(c);
    let mut out = Vec::new();
    for (g, title) in c.groups.iter().zip(group_titles(c)) {
        for (i, m) in g.metrics.iter().enumerate() {
            out.push(Section {
                title: format!("{} ({}, {})", m.metric, m.unit, direction(m)),
                header: [
                    "label",
                    "n",
                    "mean",
                    "median",
                    "sd",
                    "95% CI",
                    "min",
                    "max",
                    change_head(c),
                    "p Welch",
                    "p MW",
                    "p adj",
                    "HL shift",
                    "verdict",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect(),
                rows: m.labels.iter().map(|l| row(l, short(&l.label))).collect(),
                numeric_from: 1,
                verdict_col: Some(13),
                groups: Vec::new(),
                lead: (i == 0).then(|| title.clone()),
                // What the runs were, then how they compare.
                break_at: Some(8),
            });
        }
    }
    out
}

/// A group's short name for its trace rows: the benchmark, and the
/// scenario task when there is one (`schbench probe`).
fn group_short(g: &Group) -> String {
    match g.params.get("task").and_then(|t| t.as_str()) {
        Some(t) => format!("{} {t}", g.benchmark),
        None => g.benchmark.clone(),
    }
}

/// With `--trace` runs: per group and label, what the worst wake-ups
/// waited behind (`None` when no run of the comparison was traced).
pub fn waited_behind(c: &Comparison) -> Option<Section> {
    let short = super::labels::labels_of(c);
    let short = &short;
    let rows: Vec<Vec<String>> = c
        .groups
        .iter()
        .flat_map(|g| {
            g.waited_behind.iter().map(move |t| {
                vec![
                    group_short(g),
                    short(&t.label),
                    format!("{} of {} runs traced", t.summary.traced_runs, t.runs),
                    t.summary.line(),
                ]
            })
        })
        .collect();
    (!rows.is_empty()).then(|| Section {
        title: "What the worst wake-ups waited behind (--trace; each counted under what took most of its latency)".into(),
        header: vec![
            "probe".into(),
            "label".into(),
            "runs".into(),
            "the explained wake-ups waited behind".into(),
        ],
        rows,
        numeric_from: usize::MAX,
        verdict_col: None,
        groups: Vec::new(),
        lead: None,
        break_at: None,
    })
}

/// "How the kernel scheduled the run": the `sched.*` counters that
/// differ between labels, largest change first (`None` when no run has
/// them under two labels).
pub fn scheduling(c: &Comparison) -> Option<Section> {
    let s = c.scheduling.as_ref()?;
    let short = super::labels::labels_of(c);
    let rows = s
        .rows
        .iter()
        .map(|r| {
            vec![
                match &r.task {
                    Some(t) => format!("{} {t}", r.benchmark),
                    None => r.benchmark.clone(),
                },
                short(&r.label),
                format!("{} ({})", r.metric.trim_start_matches("sched."), r.unit),
                change_text(r.change_pct, r.change_ci_pct),
                r.verdict.as_str().to_string(),
            ]
        })
        .collect();
    Some(Section {
        title: format!(
            "How the kernel scheduled the run ({} tests of sched.* counters, a family of their own (the chance of any false verdict among them at most the report's alpha); {} did not differ{}; against {})",
            s.tests,
            s.not_different,
            if s.too_few_runs > 0 {
                format!(", {} too few runs", s.too_few_runs)
            } else {
                String::new()
            },
            short(&c.baseline)
        ),
        header: vec![
            "runs of".into(),
            "label".into(),
            "counter".into(),
            change_head(c).into(),
            "verdict".into(),
        ],
        rows,
        numeric_from: usize::MAX,
        verdict_col: Some(4),
        groups: Vec::new(),
        lead: None,
        break_at: None,
    })
}

#[cfg(test)]
mod tests {
    use crate::compare::{build, Decider, Options};
    use crate::store::RunRecord;

    /// Runs of hackbench -g 2 under labels a and b, with `params` added.
    fn hackbench_runs(extra: serde_json::Value, first_id: i64) -> Vec<RunRecord> {
        runs_of([1.0, 1.1, 1.2], [1.3, 1.4, 1.5], extra, first_id)
    }

    fn options() -> Options {
        Options {
            labels: vec!["a".into(), "b".into()],
            baseline: None,
            metrics: Vec::new(),
            alpha: 0.05,
            decider: Decider::Welch,
            correction: crate::stats::multiple::Correction::Holm,
            threshold_pct: 2.0,
            detect_pct: None,
            exclude_suspect: false,
            include_warmup: false,
            allow_emulated: false,
        }
    }

    /// Boots as boots in the notes, and a verdict that rests on one boot
    /// each says so in its own cell.
    #[test]
    fn notes_count_boots_and_thin_verdicts_say_what_they_rest_on() {
        let mut rs = Vec::new();
        for (label, means) in [("a", [100.0, 103.0, 97.0]), ("b", [101.0, 104.0, 98.0])] {
            for (bi, m) in means.iter().enumerate() {
                for k in 0..5 {
                    let fp = crate::fingerprint::Fingerprint {
                        boot_id: Some(format!("{label}-{bi}")),
                        ..Default::default()
                    };
                    let mut r = RunRecord::new(label, "bench", serde_json::json!({}), Some(fp));
                    r.id = rs.len() as i64;
                    r.metrics.push(crate::measure::Metric::new(
                        "t",
                        "s",
                        m + 0.01 * f64::from(k),
                        crate::measure::Better::Lower,
                    ));
                    rs.push(r);
                }
            }
        }
        let c = build(&rs, &options()).unwrap();
        let row = super::scoreboard(&c).rows[0].join(" ");
        assert!(
            row.contains("n = 3+3 boots")
                && row.contains("boots a side (more runs within the same boots add none)"),
            "{row}"
        );
        let mut v = c.groups[0].metrics[0].labels[1].versus.clone().unwrap();
        v.verdict = crate::compare::Verdict::Worse;
        v.rests_on = Some(crate::compare::verdict::ONE_BOOT.into());
        assert_eq!(super::verdict_text(&v), "worse (one boot each)");
        v.verdict = crate::compare::Verdict::Inconclusive;
        assert_eq!(super::verdict_text(&v), "inconclusive");
    }

    /// What a reader must know first (runs from emulated guests) comes
    /// before the scoreboard in every format.
    #[test]
    fn emulated_runs_are_said_above_the_scoreboard() {
        let mut rs = hackbench_runs(serde_json::json!({}), 1);
        for r in rs.iter_mut().filter(|r| r.label == "b") {
            r.settings["health"] =
                serde_json::json!({ "emulated": "the figures measure the emulator" });
        }
        let c = build(&rs, &options()).unwrap();
        let t = crate::report::terminal::render(&c, false, false);
        assert!(
            t.starts_with("emulated: 3 of 6 runs come from emulated guests"),
            "{t}"
        );
        let md = crate::report::markdown::render(&c, false, None);
        assert!(
            md.find("> **emulated: 3 of 6").unwrap() < md.find("Scoreboard").unwrap(),
            "{md}"
        );
        let html = crate::report::html::render(&c, &[], &Vec::new());
        assert!(html.find("warn above").unwrap() < html.find("<h2>Scoreboard").unwrap());
    }

    /// What an equivalent row and a hopelessly noisy one say in the note
    /// column: the 90 % interval equivalence was decided on; "not even
    /// ×10" rather than a factor in the thousands.
    #[test]
    fn notes_say_what_a_verdict_rests_on() {
        let o = options();
        let same = runs_of(
            [100.0, 100.1, 99.9],
            [100.05, 99.95, 100.1],
            serde_json::json!({}),
            0,
        );
        let c = build(&same, &o).unwrap();
        let row = &super::scoreboard(&c).rows[0];
        assert_eq!(row[5], "equivalent", "{row:?}");
        let note = row.last().unwrap();
        assert!(
            note.starts_with("decided on its 90 % interval, [") && note.ends_with("], within ±2 %"),
            "{note}"
        );
        let noisy = runs_of([1.0, 30.0, 2.0], [1.5, 0.2, 40.0], serde_json::json!({}), 0);
        let c = build(&noisy, &o).unwrap();
        let row = &super::scoreboard(&c).rows[0];
        assert_eq!(row[5], "inconclusive", "{row:?}");
        assert!(
            row.last()
                .unwrap()
                .contains(": not even ×10 either way; --detect 10 needs about "),
            "{row:?}"
        );
    }

    /// hackbench -g 2 runs, `a` under label a and `b` under label b.
    fn runs_of(
        a: [f64; 3],
        b: [f64; 3],
        extra: serde_json::Value,
        first_id: i64,
    ) -> Vec<RunRecord> {
        let mut p = serde_json::json!({"v": 1, "mode": "process", "transport": "socket",
            "groups": 2, "fds": 20, "loops": 100, "datasize": 100});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        let mut out = Vec::new();
        let values = a.iter().map(|v| ("a", v)).chain(b.iter().map(|v| ("b", v)));
        for (i, (label, v)) in values.enumerate() {
            let mut r = RunRecord::new(label, "hackbench", p.clone(), None);
            r.id = first_id + i as i64;
            r.metrics.push(crate::measure::Metric::new(
                "time",
                "s",
                *v,
                crate::measure::Better::Lower,
            ));
            out.push(r);
        }
        out
    }

    /// Groups that would read the same (an rt-tests import that leaves
    /// -F unknown beside runs that state it off) each say what sets them
    /// apart; a title says the command line once, defaults left out.
    #[test]
    fn twin_titles_say_what_sets_them_apart() {
        let mut runs = hackbench_runs(serde_json::json!({"fifo": false}), 0);
        runs.extend(hackbench_runs(serde_json::json!({"fifo": null}), 10));
        let o = options();
        let c = build(&runs, &o).unwrap();
        let mut titles = super::group_titles(&c);
        titles.sort();
        assert_eq!(
            titles,
            [
                "hackbench -g 2 [fifo unknown]",
                "hackbench -g 2 [fifo=false]"
            ]
        );
        let one = build(&hackbench_runs(serde_json::json!({"fifo": true}), 0), &o).unwrap();
        assert_eq!(super::group_titles(&one), ["hackbench -g 2 -F"]);
    }

    /// A change compare could not express as a percentage (a zero
    /// baseline) reads "n/a", never 0 % or inf.
    #[test]
    fn no_percentage_reads_n_a() {
        assert_eq!(super::change_text(None, None), "n/a");
    }
}
