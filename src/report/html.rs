//! The comparison as one self-contained HTML file: inline CSS and SVG, no
//! scripts, nothing fetched from the network.  The scoreboard comes
//! first; every metric's chart and detail table follow.

use super::footnotes::footnotes;
use super::sections::{details, scheduling, scoreboard, systems, tally_line, Section};
use super::svg::{escape, latency_cdf, strip_plot};
use crate::compare::Comparison;
use crate::store::RunRecord;
use anyhow::{Context, Result};
use hdrhistogram::Histogram;
use std::fmt::Write;

/// The HTML report, with every group's latency distributions merged
/// from its runs' histograms.
pub struct Html;

impl<'a> super::Format<super::Input<'a>> for Html {
    fn render(&self, i: &super::Input<'a>) -> Result<String> {
        let latency = latency_series(i.comparison, i.runs)?;
        let timelines = timelines(i.comparison, i.runs);
        let mut out = render(i.comparison, &latency, &timelines);
        if let Some(cs) = i.curves {
            // The curves first: a sweep is read by its curves.
            let mut block = String::from("<h2>Curves</h2>");
            for cv in cs {
                let s = super::curves::section(i.comparison, cv);
                let _ = write!(
                    block,
                    "<h3>{}</h3>{}",
                    escape(&s.title),
                    super::curves::svg(i.comparison, cv)
                );
                block.push_str(&table(&s, "curve"));
                for l in super::curves::parting_lines(i.comparison, cv) {
                    let _ = write!(block, "<p>{}</p>", escape(&l));
                }
            }
            out = out.replacen(
                "<h2>Scoreboard</h2>",
                &format!("{block}<h2>Scoreboard</h2>"),
                1,
            );
        }
        Ok(out)
    }
}

/// Timelines shown per label: its worst wake-ups over all its runs.
const TIMELINES: usize = 3;

/// Per group, each label's worst kept wake-ups drawn from its runs'
/// stored trace windows: (label, [(caption, svg)]).
type Timelines = Vec<Vec<LabelTimelines>>;
/// One label's drawn wake-ups: (label, [(caption, svg)]).
type LabelTimelines = (String, Vec<(String, String)>);

fn timelines(c: &Comparison, runs: &[RunRecord]) -> Timelines {
    let by_id: std::collections::HashMap<i64, &RunRecord> =
        runs.iter().map(|r| (r.id, r)).collect();
    let mut out = Vec::new();
    for g in &c.groups {
        let mut per = Vec::new();
        for t in &g.waited_behind {
            let mut wins = Vec::new();
            for id in g.run_ids.get(&t.label).into_iter().flatten() {
                let Some(run) = by_id.get(id) else { continue };
                for a in run
                    .attachments
                    .iter()
                    .filter(|a| a.kind == crate::trace::stored::KIND)
                {
                    // A window that does not decode is left out here; `runs
                    // show` says why.
                    if let Ok(w) = crate::trace::stored::Windows::decode(&a.data) {
                        for win in &w.windows {
                            wins.push((*id, win.clone(), w.cpus.clone(), w.irq_names.clone()));
                        }
                    }
                }
            }
            wins.sort_by_key(|w| std::cmp::Reverse(w.1.explanation.latency_ns));
            let drawn = wins
                .iter()
                .take(TIMELINES)
                .map(|(id, win, cpus, irqs)| {
                    (
                        format!("run {id}: {}", crate::trace::show::line(&win.explanation)),
                        super::timeline::svg(win, cpus, irqs),
                    )
                })
                .collect::<Vec<_>>();
            if !drawn.is_empty() {
                per.push((t.label.clone(), drawn));
            }
        }
        out.push(per);
    }
    out
}

/// Each label's merged latency histogram, for one group.
type Series = Vec<(String, Histogram<u64>)>;

/// Per group, each label's runs' "latency" histograms merged.
fn latency_series(c: &Comparison, runs: &[RunRecord]) -> Result<Vec<Series>> {
    let by_id: std::collections::HashMap<i64, &RunRecord> =
        runs.iter().map(|r| (r.id, r)).collect();
    let mut out = Vec::new();
    for g in &c.groups {
        let mut series = Vec::new();
        for label in &c.labels {
            let Some(ids) = g.run_ids.get(label) else {
                continue;
            };
            let mut merged: Option<Histogram<u64>> = None;
            for id in ids {
                let Some(run) = by_id.get(id) else {
                    continue;
                };
                for h in run.histograms.iter().filter(|h| h.name == "latency") {
                    let d = h.decode().with_context(|| format!("run {id}"))?;
                    match &mut merged {
                        Some(m) => m
                            .add(&d)
                            .map_err(|e| anyhow::anyhow!("merging histograms: {e:?}"))?,
                        None => merged = Some(d),
                    }
                }
            }
            if let Some(m) = merged {
                series.push((label.clone(), m));
            }
        }
        out.push(series);
    }
    Ok(out)
}

const STYLE: &str =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}\
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}\
th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left}\
td.n{text-align:right;font-variant-numeric:tabular-nums}\
.better{color:#1a7f37;font-weight:600}.worse{color:#cf222e;font-weight:600}\
.equivalent{color:#0969da}.inconclusive{color:#9a6700}p.tally{font-weight:600}\
.warn{color:#9a6700}h2{border-bottom:2px solid #ddd;padding-bottom:.2em}\
tr.group th{background:#f6f8fa;font-weight:600;white-space:normal}td{white-space:nowrap}\
td.note{white-space:normal;min-width:16em;font-size:12px}thead th{white-space:nowrap}span.nw{white-space:nowrap}figure{margin:.5em 0 1em}figcaption{font-size:12px;margin-bottom:2px}p.legend{font-size:12px}";

/// Prose that may wrap, escaped, with each `--flag VALUE` kept on one
/// line (a browser breaks after a hyphen: `--` at one line's end and
/// `detect` at the next's).
fn keep_flags_whole(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if words[i].starts_with("--") {
            let end = (i + 2).min(words.len());
            out.push(format!(
                "<span class=\"nw\">{}</span>",
                escape(&words[i..end].join(" "))
            ));
            i = end;
        } else {
            out.push(escape(words[i]));
            i += 1;
        }
    }
    out.join(" ")
}

fn table(s: &Section, class: &str) -> String {
    if s.rows.is_empty() {
        return String::new();
    }
    let mut t = format!("<table class=\"{class}\"><thead><tr>");
    for h in &s.header {
        let _ = write!(t, "<th>{}</th>", escape(h));
    }
    t.push_str("</tr></thead><tbody>");
    for (i, r) in s.rows.iter().enumerate() {
        if let Some((_, g)) = s.groups.iter().find(|(at, _)| *at == i) {
            let _ = write!(
                t,
                "<tr class=\"group\"><th colspan=\"{}\">{}</th></tr>",
                s.header.len(),
                escape(g)
            );
        }
        t.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let class = match c.as_str() {
                "better" | "worse" | "equivalent" | "inconclusive" if Some(i) == s.verdict_col => {
                    format!(" class=\"{c}\"")
                }
                _ if i >= s.numeric_from => " class=\"n\"".to_string(),
                // Prose: it wraps, so the figures beside it stay in view.
                _ if s.header.get(i).is_some_and(|h| h == "note") => " class=\"note\"".to_string(),
                _ => String::new(),
            };
            let text = if class.contains("note") {
                keep_flags_whole(c)
            } else {
                escape(c)
            };
            let _ = write!(t, "<td{class}>{text}</td>");
        }
        t.push_str("</tr>");
    }
    t.push_str("</tbody></table>");
    t
}

/// The group's traced labels: what their worst wake-ups waited behind,
/// and the worst of them drawn.
fn traced(out: &mut String, g: &crate::compare::Group, drawn: Option<&Vec<LabelTimelines>>) {
    if g.waited_behind.is_empty() {
        return;
    }
    out.push_str("<h3>What the worst wake-ups waited behind (--trace)</h3><table class=\"traced\"><thead><tr><th>label</th><th>traced</th><th>the explained wake-ups waited behind (each under what took most of its latency)</th></tr></thead><tbody>");
    for t in &g.waited_behind {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}/{}</td><td>{}</td></tr>",
            escape(&t.label),
            t.summary.traced_runs,
            t.runs,
            escape(&t.summary.line())
        );
    }
    out.push_str("</tbody></table>");
    let Some(drawn) = drawn.filter(|d| !d.is_empty()) else {
        return;
    };
    out.push_str(&super::timeline::legend());
    for (label, shown) in drawn {
        let _ = write!(out, "<h4>{}: the {} worst</h4>", escape(label), shown.len());
        for (caption, svg) in shown {
            let _ = write!(
                out,
                "<figure><figcaption>{}</figcaption>{svg}</figure>",
                escape(caption)
            );
        }
    }
}

/// `latency[g]` holds, for group `g`, each label's merged latency
/// histogram (empty when the group has none); `timelines[g]` its traced
/// labels' worst wake-ups, drawn.
pub fn render(
    c: &Comparison,
    latency: &[Vec<(String, Histogram<u64>)>],
    timelines: &Timelines,
) -> String {
    let title = format!("kbench: {}", c.labels.join(" vs "));
    let mut out = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body><h1>{}</h1>",
        escape(&title),
        escape(&title)
    );
    for a in &c.above {
        let _ = write!(out, "<p class=\"warn above\">{}</p>", escape(a));
    }
    let _ = write!(
        out,
        "<h2>Scoreboard</h2>{}<p class=\"tally\">{}</p>",
        table(&scoreboard(c), "scoreboard"),
        escape(&tally_line(c))
    );
    let secs = details(c);
    let _ = write!(
        out,
        "<h2>Systems compared</h2>{}",
        table(&systems(c), "systems")
    );
    if let Some(s) = scheduling(c) {
        let _ = write!(
            out,
            "<h2>How the kernel scheduled the run</h2><p>{}</p>{}{}",
            escape(&s.title),
            super::svg::change_bars(c),
            table(&s, "scheduling")
        );
    }
    if !c.warnings.is_empty() {
        out.push_str("<ul class=\"warn\">");
        for w in &c.warnings {
            let _ = write!(out, "<li>{}</li>", escape(w));
        }
        out.push_str("</ul>");
    }
    let mut k = 0;
    let titles = super::sections::group_titles(c);
    for ((gi, g), title) in c.groups.iter().enumerate().zip(&titles) {
        let _ = write!(
            out,
            "<h2>{} <small>{}</small></h2>",
            escape(&g.benchmark),
            escape(super::sections::title_rest(g, title))
        );
        if let Some(series) = latency.get(gi).filter(|s| !s.is_empty()) {
            let _ = write!(
                out,
                "<h3>Latency distribution (all runs of each label)</h3>{}",
                latency_cdf(series)
            );
        }
        traced(&mut out, g, timelines.get(gi));
        for m in &g.metrics {
            let s = &secs[k];
            k += 1;
            let _ = write!(
                out,
                "<h3>{}</h3>{}{}",
                escape(&s.title),
                strip_plot(m),
                table(s, "details")
            );
        }
    }
    out.push_str("<p>");
    for f in footnotes(c).iter().skip(1) {
        let _ = write!(out, "{}<br>", escape(f));
    }
    out.push_str("</p></body></html>\n");
    out
}
