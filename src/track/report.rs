//! A tracked series as text, Markdown or JSON: each change point said as
//! a comparison between two labels (the change with its interval, the
//! adjusted p, the segments' medians and 90th percentiles on either side,
//! what differs between the two labels' systems), then how it was
//! decided.

use super::detect::{ChangePoint, Detection};
use super::series::Series;
use super::Tracked;
use crate::store::RunRecord;
use anyhow::Result;

/// For each series and change point, what differs between the systems
/// of the labels on either side of it (`field: before → after`).
pub fn systems(series: &[Series], d: &Detection, runs: &[RunRecord]) -> Vec<Vec<Vec<String>>> {
    series
        .iter()
        .zip(&d.per_series)
        .map(|(s, cps)| {
            cps.iter()
                .map(|c| {
                    let (a, b) = (&s.points[c.at - 1].label, &s.points[c.at].label);
                    let both: Vec<&RunRecord> = runs
                        .iter()
                        .filter(|r| &r.label == a || &r.label == b)
                        .collect();
                    let mut ignored = Vec::new();
                    crate::compare::config_diff::build(&both, &[a.clone(), b.clone()], &mut ignored)
                        .into_iter()
                        .filter(|row| row.values.len() == 2 && row.values[0] != row.values[1])
                        .filter(|row| row.field != "host")
                        .map(|row| format!("{}: {} → {}", row.field, row.values[0], row.values[1]))
                        .collect()
                })
                .collect()
        })
        .collect()
}

fn num(v: f64, unit: &str) -> String {
    crate::report::sections::with_unit(v, unit)
}

fn signed(v: f64) -> String {
    if v.is_finite() {
        format!("{v:+.1} %")
    } else {
        "–".into()
    }
}

/// One change point as a sentence.
pub fn sentence(s: &Series, c: &ChangePoint, systems: &[String]) -> String {
    let (a, b) = (&s.points[c.at - 1].label, &s.points[c.at].label);
    let ci = c
        .change_ci_pct
        .map_or(String::new(), |(lo, hi)| format!(" [{lo:+.1}, {hi:+.1}]"));
    let sys = if systems.is_empty() {
        "the systems do not differ".to_string()
    } else {
        format!("systems: {}", systems.join("; "))
    };
    format!(
        "between {a} and {b}: {}{ci} (mean of {} and {} boots; median {} → {}, {}; 90th percentile {} → {}, {}), a change in {}, p adj {}, {}; {sys}",
        signed(c.change_pct),
        c.units.0,
        c.units.1,
        num(c.median.0, &s.unit),
        num(c.median.1, &s.unit),
        signed(c.median_change_pct),
        num(c.p90.0, &s.unit),
        num(c.p90.1, &s.unit),
        signed(c.p90_change_pct),
        c.score,
        crate::report::sections::p_text(Some(c.p_adjusted)),
        if c.worse { "worse" } else { "better" },
    )
}

fn order_name(t: &Tracked) -> &'static str {
    match t.order {
        super::Order::Time => "by time",
        super::Order::Version => "by kernel version",
        super::Order::Given => "as given",
    }
}

/// The line that opens a report.
pub fn head(t: &Tracked) -> String {
    let n: usize = t.detection.per_series.iter().map(Vec::len).sum();
    let changed = t
        .detection
        .per_series
        .iter()
        .filter(|c| !c.is_empty())
        .count();
    format!(
        "{} labels ({}, {} → {}): {n} change point{} in {changed} of {} series",
        t.labels.len(),
        order_name(t),
        t.labels.first().map_or("", |k| k.label.as_str()),
        t.labels.last().map_or("", |k| k.label.as_str()),
        if n == 1 { "" } else { "s" },
        t.series.len()
    )
}

/// What a report that found nothing could have seen: the series with no
/// change point, the smallest shift between halves the tests could have
/// passed in them (the median over those series), and the series too
/// short to test.
pub fn unseen(t: &Tracked, quiet: usize) -> String {
    let d = &t.detection;
    let could: Vec<f64> = d
        .per_series
        .iter()
        .zip(&d.detectable_pct)
        .filter(|(c, _)| c.is_empty())
        .filter_map(|(_, x)| *x)
        .collect();
    let quiet = quiet.saturating_sub(d.withheld);
    let mut line = format!("{quiet} series show no change point");
    if !could.is_empty() {
        line.push_str(&format!(
            "; in them a shift in level of about {:.1} % between the halves could have been seen (the median over those series)",
            crate::stats::describe::median(&could)
        ));
    }
    let untested = t.series.len().saturating_sub(d.tests + d.withheld);
    if untested > 0 {
        line.push_str(&format!(
            "; {untested} series too short to test (a split needs {} units a side)",
            super::detect::MIN_UNITS
        ));
    }
    line.push('.');
    line
}

/// The median, over the series, of how much one-boot labels differ from
/// one to the next, in %.
fn label_spread(d: &Detection) -> Option<f64> {
    let v: Vec<f64> = d.label_spread_pct.iter().flatten().copied().collect();
    (!v.is_empty()).then(|| crate::stats::describe::median(&v))
}

/// How it was decided: the footer of every format.
pub fn footer(t: &Tracked) -> String {
    let d = &t.detection;
    let spread = label_spread(d).map_or(String::new(), |x| {
        format!(
            "; here one-boot labels differ from one to the next by {x:.1} % (the median over the series)"
        )
    });
    format!(
        "change points: tests over each series' units, its boots (a label of one boot is one unit, its runs' mean; a label of several gives its boot means): for a shift in level the largest two-sample t over the splits, referred to its exact null for normal units (below {} units; rank CUSUM with Wilcoxon scores from there), for spread or a tail Mood's rank scores, and the spread of runs within one-boot labels (the largest t on its logarithm), a split between two labels with at least {} units a side; the false discovery rate is held at {} across all {} series of this report (Benjamini-Hochberg: {} found changed; with no change anywhere, the chance of any change point is at most {}), each side then tested again at the level BH reached; a change point must move the median or the 90th percentile by at least {} % (--threshold). The bound assumes that, with no change, boots vary alike at every label: it covers boot-to-boot variation, not a trend or a label measured under other conditions{spread}",
        super::detect::RANKS_FROM,
        super::detect::MIN_UNITS,
        d.q,
        d.tests,
        d.found,
        d.q,
        d.threshold_pct
    )
}

/// The terminal report, as a format.
pub struct Table;
/// Markdown, as a format.
pub struct Markdown;
/// JSON, as a format.
pub struct Json;

impl crate::report::Format<Tracked> for Table {
    fn render(&self, t: &Tracked) -> Result<String> {
        Ok(text(t))
    }
}

impl crate::report::Format<Tracked> for Markdown {
    fn render(&self, t: &Tracked) -> Result<String> {
        Ok(markdown(t))
    }
}

impl crate::report::Format<Tracked> for Json {
    fn render(&self, t: &Tracked) -> Result<String> {
        json(t)
    }
}

/// The terminal report.
pub fn text(t: &Tracked) -> String {
    let w = crate::text::width();
    let mut out = format!(
        "{}\n\n",
        crate::text::wrap(&crate::text::clean(&head(t)), w)
    );
    for e in t.emulated.iter().chain(&t.ejections) {
        out.push_str(&crate::text::wrap(&crate::text::clean(e), w));
        out.push('\n');
    }
    if t.emulated.is_some() || !t.ejections.is_empty() {
        out.push('\n');
    }
    for (i, s) in t.series.iter().enumerate() {
        let cps = &t.detection.per_series[i];
        if cps.is_empty() {
            continue;
        }
        let spread = t.detection.label_spread_pct[i].map_or(String::new(), |x| {
            format!("; labels differ by {x:.1} % from one to the next")
        });
        out.push_str(&crate::text::clean(&format!(
            "{} · {} ({}, {} is better{spread})",
            s.title(),
            s.metric,
            s.unit,
            s.better.as_str()
        )));
        out.push('\n');
        for (j, c) in cps.iter().enumerate() {
            let line = sentence(s, c, &t.systems[i][j]);
            out.push_str("  ");
            out.push_str(
                &crate::text::wrap(&crate::text::clean(&line), w - 2).replace('\n', "\n  "),
            );
            out.push('\n');
        }
        out.push('\n');
    }
    let quiet = t.series.len()
        - t.detection
            .per_series
            .iter()
            .filter(|c| !c.is_empty())
            .count();
    out.push_str(&crate::text::wrap(&unseen(t, quiet), w));
    out.push('\n');
    out.push_str(&crate::text::wrap(&crate::text::clean(&footer(t)), w));
    out.push('\n');
    out
}

/// Markdown, for a mailing list or an issue.
pub fn markdown(t: &Tracked) -> String {
    let cell = |s: &str| crate::text::clean(s).replace('|', "\\|");
    let mut out = format!("## kbench track\n\n{}\n\n", cell(&head(t)));
    for e in t.emulated.iter().chain(&t.ejections) {
        out.push_str(&format!("- {}\n", cell(e)));
    }
    if t.emulated.is_some() || !t.ejections.is_empty() {
        out.push('\n');
    }
    for (i, s) in t.series.iter().enumerate() {
        let cps = &t.detection.per_series[i];
        if cps.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "### {} · {}\n\n",
            cell(&s.title()),
            cell(&s.metric)
        ));
        out.push_str("| between | and | change [95% CI] | median | 90th pct | p adj | kind | systems |\n|---|---|---:|---|---|---:|---|---|\n");
        for (j, c) in cps.iter().enumerate() {
            let ci = c
                .change_ci_pct
                .map_or(String::new(), |(lo, hi)| format!(" [{lo:+.1}, {hi:+.1}]"));
            out.push_str(&format!(
                "| {} | {} | {}{ci} | {} → {} | {} → {} | {} | {}, {} | {} |\n",
                cell(&s.points[c.at - 1].label),
                cell(&s.points[c.at].label),
                signed(c.change_pct),
                num(c.median.0, &s.unit),
                num(c.median.1, &s.unit),
                num(c.p90.0, &s.unit),
                num(c.p90.1, &s.unit),
                crate::report::sections::p_text(Some(c.p_adjusted)),
                c.score,
                if c.worse { "worse" } else { "better" },
                cell(&t.systems[i][j].join("; ")),
            ));
        }
        out.push('\n');
    }
    out.push_str(&format!("*{}*\n", cell(&footer(t))));
    out
}

/// JSON, with the schema version every document carries.
pub fn json(t: &Tracked) -> Result<String> {
    let series: Vec<serde_json::Value> = t
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            serde_json::json!({
                "benchmark": s.benchmark, "params": s.params, "title": s.title(),
                "metric": s.metric, "unit": s.unit, "better": s.better,
                "labels": s.points.iter().map(|p| p.label.clone()).collect::<Vec<_>>(),
                "values": s.points.iter().map(|p| p.values.clone()).collect::<Vec<_>>(),
                "boots": s.points.iter().map(|p| p.boots).collect::<Vec<_>>(),
                "label_spread_pct": t.detection.label_spread_pct[i],
                "change_points": t.detection.per_series[i].iter().enumerate().map(|(j, c)| {
                    let mut v = serde_json::to_value(c).unwrap_or_default();
                    v["between"] = serde_json::json!([s.points[c.at - 1].label, s.points[c.at].label]);
                    v["systems"] = serde_json::json!(t.systems[i][j]);
                    v
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = serde_json::json!({
        "schema_version": crate::session::JSON_SCHEMA_VERSION,
        "kind": "track",
        "order": order_name(t),
        "labels": t.labels.iter().map(|k| serde_json::json!({"label": k.label, "release": k.release, "first": k.first})).collect::<Vec<_>>(),
        "series": series,
        "tests": t.detection.tests,
        "found": t.detection.found,
        "q": t.detection.q,
        "threshold_pct": t.detection.threshold_pct,
        "label_spread_pct": label_spread(&t.detection),
        "ejections": t.ejections,
        "emulated": t.emulated,
        "withheld": t.detection.withheld,
        "method": footer(t),
    });
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}
