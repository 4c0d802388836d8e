//! A sweep's curves as text: a table per curve (a row per point, each
//! label's median and 95 % interval, and per label against the baseline
//! the change and verdict), then the line that says where the curves part.
//! Used by `compare --curve FLAG` and by a matrix with `--vary`.

use super::labels::labels_of;
use super::sections::{change_text, with_unit, Section};
use crate::compare::curve::{parting, Curve};
use crate::compare::{command_words, Comparison};

fn direction(b: crate::measure::Better) -> &'static str {
    match b {
        crate::measure::Better::Lower => "lower is better",
        crate::measure::Better::Higher => "higher is better",
        crate::measure::Better::Neither => "no direction",
    }
}

/// One curve as a table.
pub fn section(c: &Comparison, curve: &Curve) -> Section {
    let short = labels_of(c);
    let labels: Vec<&String> = c.labels.iter().collect();
    let mut header = vec![curve.key.clone()];
    for l in &labels {
        header.push(format!("{} median [95% CI of the mean]", short(l)));
    }
    for l in labels.iter().filter(|l| ***l != c.baseline) {
        header.push(format!("{} change", short(l)));
        header.push("verdict".into());
    }
    let mut rows = Vec::new();
    for p in &curve.points {
        let mut row = vec![p.x.clone()];
        for l in &labels {
            row.push(match p.labels.iter().find(|s| &&s.label == l) {
                Some(s) => format!(
                    "{} [{}, {}]",
                    with_unit(s.summary.median, &curve.unit),
                    crate::text::table::num(s.summary.ci_low),
                    crate::text::table::num(s.summary.ci_high)
                ),
                None => "-".into(),
            });
        }
        for l in labels.iter().filter(|l| ***l != c.baseline) {
            match p
                .labels
                .iter()
                .find(|s| &&s.label == l)
                .and_then(|s| s.versus.as_ref())
            {
                Some(v) => {
                    row.push(change_text(v.change_pct, v.change_ci_pct));
                    row.push(v.verdict.as_str().into());
                }
                None => {
                    row.push("-".into());
                    row.push("-".into());
                }
            }
        }
        rows.push(row);
    }
    let mut fixed = command_words(&curve.benchmark, &curve.fixed).join(" ");
    if let Some(t) = curve.fixed.get("task").and_then(|t| t.as_str()) {
        fixed = format!("{fixed} · scenario task {t}")
            .trim_start()
            .to_string();
    }
    Section {
        title: format!(
            "{} {} by {} ({}, {}){}",
            curve.benchmark,
            curve.metric,
            curve.key,
            if curve.unit.is_empty() {
                "count"
            } else {
                &curve.unit
            },
            direction(curve.better),
            if fixed.is_empty() {
                String::new()
            } else {
                format!("; {fixed}")
            }
        ),
        header,
        rows,
        numeric_from: 1,
        verdict_col: if labels.len() == 2 { Some(4) } else { None },
        groups: Vec::new(),
        lead: None,
        break_at: None,
    }
}

/// Where each curve parts from the baseline's, a line per label.
pub fn parting_lines(c: &Comparison, curve: &Curve) -> Vec<String> {
    parting(curve, &c.baseline, labels_of(c))
}

/// One curve as an SVG chart: the varied value on x (a log scale when
/// every point is a positive number and they span a factor of 4 or more,
/// else evenly spaced), the metric on y, per label its medians joined by
/// a line over the band of the means' 95 % intervals; a point whose
/// verdict against the baseline is decided (better, worse, equivalent) is
/// ringed.
pub fn svg(c: &Comparison, curve: &Curve) -> String {
    use std::fmt::Write;
    let (w, h, left, right, top, bottom) = (640.0_f64, 300.0_f64, 70.0, 150.0, 12.0, 36.0);
    let xs: Vec<f64> = curve
        .points
        .iter()
        .map(|p| p.x.parse::<f64>().unwrap_or(f64::NAN))
        .collect();
    let (xmin, xmax) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let log = curve.numeric && xmin > 0.0 && xmax / xmin >= 4.0;
    let n = curve.points.len().max(2);
    let px = |i: usize| -> f64 {
        let f = if curve.numeric && xmax > xmin {
            if log {
                (xs[i].ln() - xmin.ln()) / (xmax.ln() - xmin.ln())
            } else {
                (xs[i] - xmin) / (xmax - xmin)
            }
        } else {
            i as f64 / (n - 1) as f64
        };
        left + f * (w - left - right)
    };
    let vals = curve.points.iter().flat_map(|p| {
        p.labels
            .iter()
            .flat_map(|l| [l.summary.ci_low, l.summary.ci_high, l.summary.median])
    });
    let (mut lo, mut hi) = vals
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if hi <= lo {
        hi = lo + 1.0;
    }
    let py = |v: f64| top + (1.0 - (v - lo) / (hi - lo)) * (h - top - bottom);
    let short = labels_of(c);
    let mut s = format!(
        "<svg class=\"curve\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-size=\"11\">\
<line x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{:.1}\" stroke=\"#888\"/>\
<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#888\"/>",
        h - bottom,
        w - right,
        h - bottom,
        h - bottom
    );
    for (v, y) in [(hi, py(hi)), (lo, py(lo))] {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 4.0,
            y + 4.0,
            super::svg::escape(&with_unit(v, &curve.unit))
        );
    }
    for (i, p) in curve.points.iter().enumerate() {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            px(i),
            h - bottom + 14.0,
            super::svg::escape(&p.x)
        );
    }
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}{}</text>",
        (left + w - right) / 2.0,
        h - 4.0,
        super::svg::escape(&curve.key),
        if log { " (log scale)" } else { "" }
    );
    for (li, label) in c.labels.iter().enumerate() {
        series(
            &mut s,
            curve,
            li,
            label,
            &short,
            &px,
            &py,
            lo,
            (w - right, top),
        );
    }
    s.push_str("</svg>");
    s
}

/// One label's band, line, points and key entry on a curve's chart.
#[allow(clippy::too_many_arguments)]
fn series(
    s: &mut String,
    curve: &Curve,
    li: usize,
    label: &str,
    short: &dyn Fn(&str) -> String,
    px: &dyn Fn(usize) -> f64,
    py: &dyn Fn(f64) -> f64,
    lo: f64,
    (kx, ky): (f64, f64),
) {
    use std::fmt::Write;
    let col = super::svg::colour(li);
    let at: Vec<(usize, &crate::compare::LabelStats)> = curve
        .points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.labels.iter().find(|l| l.label == label).map(|l| (i, l)))
        .collect();
    if at.is_empty() {
        return;
    }
    let finite = |v: f64| if v.is_finite() { v } else { lo };
    let mut band: Vec<String> = at
        .iter()
        .map(|(i, l)| format!("{:.1},{:.1}", px(*i), py(finite(l.summary.ci_high))))
        .collect();
    band.extend(
        at.iter()
            .rev()
            .map(|(i, l)| format!("{:.1},{:.1}", px(*i), py(finite(l.summary.ci_low)))),
    );
    let line: Vec<String> = at
        .iter()
        .map(|(i, l)| format!("{:.1},{:.1}", px(*i), py(l.summary.median)))
        .collect();
    let _ = write!(
        s,
        "<polygon points=\"{}\" fill=\"{col}\" opacity=\".15\"/><polyline points=\"{}\" fill=\"none\" stroke=\"{col}\" stroke-width=\"2\"/>",
        band.join(" "),
        line.join(" ")
    );
    for (i, l) in &at {
        let decided = l
            .versus
            .as_ref()
            .map(|v| v.verdict.as_str())
            .filter(|v| matches!(*v, "better" | "worse" | "equivalent"));
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{col}\"><title>{} {}={}: median {}</title></circle>",
            px(*i),
            py(l.summary.median),
            super::svg::escape(&short(label)),
            super::svg::escape(&curve.key),
            super::svg::escape(&curve.points[*i].x),
            super::svg::escape(&with_unit(l.summary.median, &curve.unit))
        );
        if let Some(v) = decided {
            let _ = write!(
                s,
                "<circle class=\"decided\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"7\" fill=\"none\" stroke=\"{col}\" stroke-width=\"1.5\"><title>{v}</title></circle>",
                px(*i),
                py(l.summary.median)
            );
        }
    }
    let _ = write!(
        s,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{col}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
        kx + 10.0,
        ky + 16.0 * li as f64,
        kx + 24.0,
        ky + 16.0 * li as f64 + 9.0,
        super::svg::escape(&short(label))
    );
}
