//! What `track --follow` says: a block per change point (between which
//! labels, whether it held with its figures, the culprit with its change
//! and interval, confirmed or a lead, what differs), then how sure the
//! chain is; as text, Markdown, HTML or one JSON document.

use super::state::{Again, Point, State};
use crate::bisect::Answer;
use crate::experiment::engine::Plan;
use crate::track::Tracked;

/// The formats of a follow's report: `track`'s.
pub use crate::track::Format;

fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{x:+.1} %"))
}

fn ci(x: Option<(f64, f64)>) -> String {
    x.map_or(String::new(), |(a, b)| format!(" [{a:+.1}, {b:+.1}]"))
}

fn short(rev: &str) -> &str {
    &rev[..rev.len().min(12)]
}

/// The plan's first line.
pub fn headline(t: &Tracked, plan: &Plan<State>) -> String {
    let n = plan.state.points.len();
    format!(
        "kbench follow {}: {} labels, {n} change point{} of {} to follow, each measured again with {} unit{} a side, interleaved",
        plan.id,
        t.labels.len(),
        if n == 1 { "" } else { "s" },
        plan.state.metric,
        plan.order.len() / n.max(1),
        if plan.order.len() / n.max(1) == 1 { "" } else { "s" },
    )
}

/// Whether a point held, in one line.
pub fn again_line(p: &Point, a: &Again) -> String {
    let what = if a.held {
        "held".to_string()
    } else {
        "did not hold: the series moved, but these two revisions measured side by side do not differ that way (the machine, not the code)".to_string()
    };
    format!(
        "{} → {} measured again ({} and {} units, interleaved): {}{}, {}; {what}",
        p.between[0],
        p.between[1],
        a.units[0],
        a.units[1],
        pct(a.change_pct),
        ci(a.ci_pct),
        a.verdict
    )
}

/// A bisection's culprit, in one line.
pub fn culprit_line(b: &Answer) -> String {
    match &b.culprit {
        Some(c) => format!(
            "culprit {} \"{}\", {} against its parent {}: {}",
            c.rev,
            c.subject,
            if c.confirmed {
                "confirmed"
            } else {
                "a lead, not confirmed"
            },
            c.parent,
            c.changes
                .iter()
                .map(|(m, x, i)| format!("{m} {}{}", pct(Some(*x)), ci(*i)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("no culprit: {}", b.outcome),
    }
}

/// One point's lines.
fn point_lines(p: &Point, metric: &str) -> Vec<String> {
    let mut v = vec![format!(
        "change point {} → {} ({} → {}): {metric} {} in the series (p adj {:.4})",
        p.between[0],
        p.between[1],
        short(&p.revs[0]),
        short(&p.revs[1]),
        pct(Some(p.track_change_pct)),
        p.track_p_adjusted
    )];
    if let Some(why) = &p.cannot {
        v.push(format!("  not followed: {why}"));
    }
    if let Some(a) = &p.again {
        v.push(format!("  {}", again_line(p, a)));
    }
    if let Some(b) = &p.bisection {
        v.push(format!(
            "  bisected ({} units): {}",
            b.units,
            culprit_line(b)
        ));
        if b.culprit.is_some() {
            v.push("  what differs, culprit against parent:".into());
            if p.explanation.is_empty() {
                v.push("    no metric of their runs differs at this level".into());
            }
            for e in &p.explanation {
                v.push(format!(
                    "    {} {}: {:.4} → {:.4} {}, {}{} {}",
                    e.benchmark,
                    e.metric,
                    e.parent,
                    e.culprit,
                    e.unit,
                    pct(e.change_pct),
                    ci(e.ci_pct),
                    e.verdict
                ));
            }
        }
    } else if p.again.as_ref().is_some_and(|a| !a.held) {
        v.push("  nothing bisected".into());
    }
    v
}

/// How sure the chain is.
fn footer(plan: &Plan<State>) -> String {
    let a = plan.state.alpha;
    format!(
        "follow {}: change points from track at a false discovery rate of {a}; each measured again at {} and bisected only if it held; a culprit is confirmed only when measured afresh against its parent at {} (so the chance of a confirmed culprit for a change that is not there is at most {}); {:.0} s in all",
        plan.id,
        a / 2.0,
        a / 2.0,
        a / 2.0,
        crate::sys::time::unix_now() - plan.state.started
    )
}

/// The report in `format`.
pub fn render(format: Format, t: &Tracked, plan: &Plan<State>) -> String {
    let m = &plan.state.metric;
    let blocks: Vec<Vec<String>> = plan
        .state
        .points
        .iter()
        .map(|p| point_lines(p, m))
        .collect();
    let none = plan.state.points.is_empty().then(|| {
        format!(
            "no change point of {m} to follow: {}",
            crate::track::report::unseen(t, t.series.len())
        )
    });
    match format {
        Format::Json => json(t, plan),
        Format::Table => {
            let w = crate::text::width();
            let mut out = String::new();
            for b in blocks.iter().flatten().chain(&none) {
                out.push_str(&crate::text::wrap_indented(&crate::text::clean(b), w));
                out.push('\n');
            }
            out.push_str(&crate::text::wrap(&footer(plan), w));
            out.push('\n');
            out
        }
        Format::Markdown => {
            let mut out = format!("## kbench track --follow\n\n{}\n\n", headline(t, plan));
            for b in blocks.iter().flatten().chain(&none) {
                let indent = b.len() - b.trim_start().len();
                out.push_str(&format!(
                    "{}- {}\n",
                    " ".repeat(indent),
                    crate::text::clean(b.trim_start())
                ));
            }
            out.push_str(&format!("\n{}\n", footer(plan)));
            out
        }
        Format::Html => {
            let esc = |s: &str| {
                s.replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;")
            };
            let mut out = format!(
                "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>kbench follow {}</title></head><body>\n<h1>kbench track --follow</h1>\n<p>{}</p>\n",
                esc(&plan.id),
                esc(&headline(t, plan))
            );
            for b in &blocks {
                out.push_str("<section class=\"point\"><ul>\n");
                for l in b {
                    out.push_str(&format!("<li>{}</li>\n", esc(l.trim_start())));
                }
                out.push_str("</ul></section>\n");
            }
            if let Some(n) = &none {
                out.push_str(&format!("<p>{}</p>\n", esc(n)));
            }
            out.push_str(&format!(
                "<footer>{}</footer>\n</body></html>\n",
                esc(&footer(plan))
            ));
            out
        }
    }
}

/// The JSON document: `follow`, one entry a change point.
fn json(t: &Tracked, plan: &Plan<State>) -> String {
    let follow: Vec<serde_json::Value> = plan
        .state
        .points
        .iter()
        .map(|p| {
            let culprit = p
                .bisection
                .as_ref()
                .and_then(|b| b.culprit.as_ref())
                .map(|c| {
                    let first = c.changes.first();
                    serde_json::json!({
                        "rev": c.rev, "subject": c.subject, "parent": c.parent,
                        "confirmed": c.confirmed,
                        "change_pct": first.map(|x| x.1), "ci_pct": first.and_then(|x| x.2),
                        "changes": c.changes,
                    })
                });
            serde_json::json!({
                "between": p.between, "revs": p.revs,
                "track_change_pct": p.track_change_pct, "track_p_adjusted": p.track_p_adjusted,
                "held": p.held(), "again": p.again, "not_followed": p.cannot,
                "culprit": culprit,
                "bisection": p.bisection.as_ref().map(|b| serde_json::json!({
                    "id": b.id, "label": b.label, "units": b.units, "outcome": b.outcome,
                })),
                "explanation": p.explanation,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "id": plan.id, "metric": plan.state.metric, "alpha": plan.state.alpha,
        "labels": t.labels.iter().map(|k| k.label.clone()).collect::<Vec<_>>(),
        "follow": follow, "units_measured_again": plan.done,
        "footer": footer(plan),
    });
    crate::session::json_doc("follow", doc).unwrap_or_default() + "\n"
}
