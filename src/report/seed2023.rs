//! The 2023 seed's layout: a block per label, a row per metric, the runs'
//! values side by side (`hackbench1  15.758s, 15.630s, 16.127s`), and
//! under each row of a compared label its verdict against the baseline.
//!
//! Runs of the `xanmod-clear-2023` preset are shown with the article's own
//! rows, names, units and order: hackbench1, hackbench2, cyclictest (max),
//! ls -R /usr with the "no bg_jobs" figure beside it, os latency (the
//! total response time) and bld kernel real/user/sys, one value per
//! repetition (the mean of a background task's completions within it).

use super::sections::{change_text, p_text, tally_line};
use crate::compare::Comparison;
use crate::store::RunRecord;

/// The preset whose runs get the article's rows.
pub const PRESET: &str = "xanmod-clear-2023";

/// (article row, task, metric) in the article's order.
const ARTICLE: &[(&str, &str, &str)] = &[
    ("hackbench1", "hackbench1", "time"),
    ("hackbench2", "hackbench2", "time"),
    ("cyclictest", "cyclictest", "max_us"),
    ("ls -R /usr", "ls-R", "wall"),
    ("os latency", "responsiveness", "total_response"),
];

fn task_of(r: &RunRecord) -> Option<&str> {
    r.params.get("task").and_then(|t| t.as_str())
}

fn from_preset(r: &RunRecord) -> bool {
    r.scenario
        .as_deref()
        .is_some_and(|s| s.split('/').next() == Some(PRESET))
}

/// Per repetition, the mean of `metric` over the label's runs of `task`.
fn per_rep(runs: &[&RunRecord], task: &str, metric: &str) -> Vec<f64> {
    let mut by: std::collections::BTreeMap<(String, i64), Vec<f64>> = Default::default();
    for r in runs.iter().filter(|r| task_of(r) == Some(task)) {
        if let Some(m) = r.metrics.iter().find(|m| m.name == metric) {
            by.entry((
                r.scenario.clone().unwrap_or_default(),
                r.repetition.unwrap_or(0),
            ))
            .or_default()
            .push(m.value);
        }
    }
    by.values()
        .map(|v| v.iter().sum::<f64>() / v.len() as f64)
        .collect()
}

/// `7m18.723s`, as `time` prints.
fn minutes(s: f64) -> String {
    format!("{}m{:.3}s", (s / 60.0).floor() as u64, s % 60.0)
}

/// The verdict line under a row, from the comparison's group for `task`.
fn verdict_line(c: &Comparison, label: &str, task: &str, metric: &str) -> Option<String> {
    let g = c
        .groups
        .iter()
        .find(|g| g.params.get("task").and_then(|t| t.as_str()) == Some(task))?;
    let m = g.metrics.iter().find(|m| m.metric == metric)?;
    let v = m
        .labels
        .iter()
        .find(|l| l.label == label)?
        .versus
        .as_ref()?;
    Some(format!(
        "vs {}: {}, p adj {}, {}",
        crate::text::clean(&c.baseline),
        change_text(v.change_pct, v.change_ci_pct),
        p_text(v.p_adjusted),
        v.verdict.as_str()
    ))
}

/// The article's table for labels measured with the preset; `None` when
/// no run came from it.
pub fn render_article(c: &Comparison, runs: &[RunRecord]) -> Option<String> {
    if !runs.iter().any(from_preset) {
        return None;
    }
    let mut out = String::new();
    for label in &c.labels {
        let mine: Vec<&RunRecord> = runs
            .iter()
            .filter(|r| &r.label == label && from_preset(r))
            .collect();
        if mine.is_empty() {
            continue;
        }
        out.push_str(&format!("{}\n\n", crate::text::clean(label)));
        let mut row = |name: &str, text: String, verdict: Option<String>| {
            out.push_str(&format!("   {name:10}  {text}\n"));
            if let Some(v) = verdict {
                out.push_str(&format!("   {:10}  {v}\n", ""));
            }
        };
        // A row the article has and these runs lack is said, never dropped.
        let lacking = |task: &str| {
            format!(
                "no value: no complete run of the preset's task {task} under this label (`kbench runs list --label {}` shows what was stored)",
                crate::text::clean(label)
            )
        };
        for &(name, task, metric) in ARTICLE {
            let vals = per_rep(&mine, task, metric);
            if vals.is_empty() {
                row(name, lacking(task), None);
                continue;
            }
            let text: Vec<String> = vals
                .iter()
                .map(|v| match metric {
                    "max_us" => format!("{v:.0}"),
                    "total_response" => format!("{v:.6}"),
                    _ => format!("{v:.3}s"),
                })
                .collect();
            let mut text = text.join(", ");
            if task == "ls-R" {
                let alone = per_rep(&mine, "ls-R-alone", "wall");
                if !alone.is_empty() {
                    let mean = alone.iter().sum::<f64>() / alone.len() as f64;
                    text.push_str(&format!(" (no bg_jobs {mean:.3}s)"));
                }
            }
            row(name, text, verdict_line(c, label, task, metric));
        }
        let (real, user, sys) = (
            per_rep(&mine, "build", "time"),
            per_rep(&mine, "build", "user"),
            per_rep(&mine, "build", "sys"),
        );
        if real.is_empty() {
            row("bld kernel", lacking("build"), None);
        } else {
            let text: Vec<String> = real
                .iter()
                .zip(&user)
                .zip(&sys)
                .map(|((r, u), s)| {
                    format!(
                        "real {}, user {}, sys {}",
                        minutes(*r),
                        minutes(*u),
                        minutes(*s)
                    )
                })
                .collect();
            row(
                "bld kernel",
                text.join("; "),
                verdict_line(c, label, "build", "time"),
            );
        }
        out.push('\n');
    }
    if c.labels.len() > 1 {
        out.push_str(&tally_line(c));
        out.push('\n');
    }
    Some(out)
}

fn value(v: f64, unit: &str) -> String {
    match unit {
        // Sub-second figures as the seed printed its os latency.
        "s" if v.abs() < 1.0 => format!("{v:.6}"),
        "s" => format!("{v:.3}s"),
        "us" => format!("{v:.0}"),
        "" | "count" => format!("{v}"),
        u => format!("{v:.3} {u}"),
    }
}

pub fn render(c: &Comparison) -> String {
    let mut names = Vec::new();
    let titles = super::sections::group_titles(c);
    for (g, title) in c.groups.iter().zip(&titles) {
        let many = c
            .groups
            .iter()
            .filter(|o| o.benchmark == g.benchmark)
            .count()
            > 1;
        for m in &g.metrics {
            let mut n = format!("{} {}", g.benchmark, m.metric);
            if many {
                n.push_str(&format!(" [{}]", super::sections::title_rest(g, title)));
            }
            names.push(n);
        }
    }
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for label in &c.labels {
        out.push_str(&crate::text::clean(label));
        out.push_str("\n\n");
        let mut i = 0;
        for g in &c.groups {
            for m in &g.metrics {
                let name = &names[i];
                i += 1;
                if let Some(l) = m.labels.iter().find(|l| &l.label == label) {
                    let vals: Vec<String> = l.values.iter().map(|v| value(*v, &m.unit)).collect();
                    let name = crate::text::clean(name);
                    out.push_str(&format!("   {name:width$}  {}\n", vals.join(", ")));
                    if let Some(v) = &l.versus {
                        out.push_str(&format!(
                            "   {:width$}  vs {}: {}, p adj {}, {}\n",
                            "",
                            crate::text::clean(&c.baseline),
                            change_text(v.change_pct, v.change_ci_pct),
                            p_text(v.p_adjusted),
                            v.verdict.as_str()
                        ));
                    }
                }
            }
        }
        out.push('\n');
    }
    if c.labels.len() > 1 {
        out.push_str(&tally_line(c));
        out.push('\n');
    }
    out
}

/// The 2023 comparison's article layout (`--layout seed2023`): its
/// tables when the runs are the recipe's, else its summary.
pub struct Article;

impl<'a> super::Format<super::Input<'a>> for Article {
    fn render(&self, i: &super::Input<'a>) -> anyhow::Result<String> {
        Ok(render_article(i.comparison, i.runs).unwrap_or_else(|| render(i.comparison)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Better, Metric};

    /// Runs as the preset stores them, with the article's figures for Clear
    /// 6.1.53 ltscurrent and XanMod 6.1.54 (the build once per repetition,
    /// as the article's single build figure repeated).
    /// label, hackbench1, hackbench2, cyclictest, ls -R, no bg_jobs, os
    /// latency, build real/user/sys (s).
    type Figures = (
        &'static str,
        [f64; 3],
        [f64; 3],
        [f64; 3],
        [f64; 3],
        f64,
        [f64; 3],
        [f64; 3],
    );

    fn article_runs() -> Vec<RunRecord> {
        let figures: [Figures; 2] = [
            (
                "clear",
                [15.758, 15.630, 16.127],
                [16.731, 16.553, 16.835],
                [7900.0, 330.0, 358.0],
                [11.164, 11.128, 11.187],
                9.641,
                [0.100391, 0.102956, 0.232901],
                [438.723, 7689.374, 698.517],
            ),
            (
                "xanmod",
                [14.716, 14.627, 14.597],
                [15.213, 15.225, 15.132],
                [376.0, 342.0, 333.0],
                [12.104, 12.015, 11.949],
                9.688,
                [0.059826, 0.058776, 0.058987],
                [437.296, 7647.707, 700.550],
            ),
        ];
        let mut out = Vec::new();
        let mut id = 0;
        let mut add = |label: &str, task: &str, rep: i64, metrics: &[(&str, &str, f64)]| {
            let mut r = RunRecord::new(label, "x", serde_json::json!({ "task": task }), None);
            id += 1;
            r.id = id;
            r.scenario = Some(format!("{PRESET}/{label}"));
            r.repetition = Some(rep);
            for (n, u, v) in metrics {
                r.metrics.push(Metric::new(*n, *u, *v, Better::Lower));
            }
            out.push(r);
        };
        for (label, h1, h2, cyc, ls, alone, lat, build) in figures {
            for rep in 0..3 {
                let k = rep as usize;
                add(label, "hackbench1", rep, &[("time", "s", h1[k])]);
                add(label, "hackbench2", rep, &[("time", "s", h2[k])]);
                add(label, "cyclictest", rep, &[("max_us", "us", cyc[k])]);
                add(label, "ls-R", rep, &[("wall", "s", ls[k])]);
                add(label, "ls-R-alone", rep, &[("wall", "s", alone)]);
                add(
                    label,
                    "responsiveness",
                    rep,
                    &[("total_response", "s", lat[k])],
                );
                add(
                    label,
                    "build",
                    rep,
                    &[
                        ("time", "s", build[0]),
                        ("user", "s", build[1]),
                        ("sys", "s", build[2]),
                    ],
                );
            }
        }
        out
    }

    /// The article's labels, compared as `compare` does by default.
    fn opts() -> crate::compare::Options {
        crate::compare::Options {
            labels: vec!["clear".into(), "xanmod".into()],
            baseline: None,
            metrics: Vec::new(),
            alpha: 0.05,
            decider: crate::compare::Decider::Welch,
            correction: crate::stats::multiple::Correction::Holm,
            threshold_pct: crate::stats::DEFAULT_THRESHOLD_PCT,
            detect_pct: None,
            exclude_suspect: false,
            include_warmup: false,
            allow_emulated: false,
        }
    }

    #[test]
    fn a_row_without_values_is_said_not_dropped() {
        let runs: Vec<RunRecord> = article_runs()
            .into_iter()
            .filter(|r| task_of(r) != Some("hackbench2"))
            .collect();
        let o = opts();
        let c = crate::compare::build(&runs, &o).unwrap();
        let text = render_article(&c, &runs).unwrap();
        assert!(
            text.contains("   hackbench2  no value: no complete run of the preset's task hackbench2 under this label"),
            "{text}"
        );
    }

    #[test]
    fn the_preset_shows_the_articles_rows_in_its_order() {
        let runs = article_runs();
        let o = opts();
        let c = crate::compare::build(&runs, &o).unwrap();
        let text = render_article(&c, &runs).unwrap();
        let clear = text.split("xanmod\n").next().unwrap();
        let want = "clear

   hackbench1  15.758s, 15.630s, 16.127s
   hackbench2  16.731s, 16.553s, 16.835s
   cyclictest  7900, 330, 358
   ls -R /usr  11.164s, 11.128s, 11.187s (no bg_jobs 9.641s)
   os latency  0.100391, 0.102956, 0.232901
   bld kernel  real 7m18.723s, user 128m9.374s, sys 11m38.517s; real 7m18.723s, user 128m9.374s, sys 11m38.517s; real 7m18.723s, user 128m9.374s, sys 11m38.517s

";
        assert_eq!(clear, want);
        assert!(
            text.contains(
                "   hackbench1  14.716s, 14.627s, 14.597s\n               vs clear: -7.5%"
            ),
            "{text}"
        );
        assert!(
            text.contains("   os latency  0.059826, 0.058776, 0.058987\n"),
            "{text}"
        );
        let runs_elsewhere: Vec<RunRecord> = runs
            .into_iter()
            .map(|mut r| {
                r.scenario = None;
                r
            })
            .collect();
        assert!(render_article(&c, &runs_elsewhere).is_none());
    }
}
