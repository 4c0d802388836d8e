//! A tracked series as one HTML page: for every series with a change
//! point, its chart (a point per label at its mean with the range of its
//! values, each segment's median as a level, the change points marked,
//! the labels whose system differs from the one before marked on the
//! axis) and its change points as a table; then the method.  Inline
//! SVG, no script, nothing fetched.

use super::series::Series;
use super::Tracked;
use crate::report::svg::{colour, escape};
use std::fmt::Write;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}\
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:left}\
td.n{text-align:right;font-variant-numeric:tabular-nums}h2{border-bottom:2px solid #ddd;padding-bottom:.2em}\
.worse{color:#cf222e;font-weight:600}.better{color:#1a7f37;font-weight:600}p.method{font-size:12px;color:#555}";

/// Where values and labels fall on a chart.
struct Frame {
    w: f64,
    h: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    n: usize,
    lo: f64,
    hi: f64,
}

impl Frame {
    fn of(s: &Series) -> Option<Frame> {
        let all = s.points.iter().flat_map(|p| p.values.iter().copied());
        let (mut lo, mut hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        if !lo.is_finite() {
            return None;
        }
        if hi - lo < 1e-12 * hi.abs().max(1.0) {
            lo -= lo.abs().max(1.0) * 0.01;
            hi += hi.abs().max(1.0) * 0.01;
        }
        let pad = (hi - lo) * 0.06;
        Some(Frame {
            w: 1000.0,
            h: 320.0,
            left: 70.0,
            right: 70.0,
            top: 14.0,
            bottom: 70.0,
            n: s.points.len(),
            lo: lo - pad,
            hi: hi + pad,
        })
    }

    fn x(&self, k: f64) -> f64 {
        self.left + (k + 0.5) / self.n as f64 * (self.w - self.left - self.right)
    }

    fn y(&self, v: f64) -> f64 {
        self.top + (self.hi - v) / (self.hi - self.lo) * (self.h - self.top - self.bottom)
    }

    fn axis(&self) -> f64 {
        self.h - self.bottom
    }
}

/// The value axis and each segment's median as a level.
fn levels(o: &mut String, f: &Frame, s: &Series, cps: &[super::detect::ChangePoint]) {
    let _ = write!(
        o,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>",
        f.left,
        f.axis(),
        f.w - f.right,
        f.axis()
    );
    for q in [0.0, 0.5, 1.0] {
        let v = f.lo + (f.hi - f.lo) * q;
        let _ = write!(
            o,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            f.left - 6.0,
            f.y(v) + 4.0,
            escape(&crate::report::sections::with_unit(v, &s.unit))
        );
    }
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(cps.iter().map(|c| c.at))
        .chain(std::iter::once(f.n))
        .collect();
    for (k, seg) in bounds.windows(2).enumerate() {
        let vals: Vec<f64> = s.points[seg[0]..seg[1]]
            .iter()
            .flat_map(|p| p.values.iter().copied())
            .collect();
        let m = crate::stats::describe::median(&vals);
        let _ = write!(
            o,
            "<line class=\"level\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"2\" opacity=\"0.6\"><title>segment {}: median {}</title></line>",
            f.x(seg[0] as f64 - 0.5),
            f.y(m),
            f.x(seg[1] as f64 - 0.5),
            f.y(m),
            colour(k + 2),
            k + 1,
            escape(&crate::report::sections::with_unit(m, &s.unit))
        );
    }
}

/// A point per label (its values' range and mean), a mark under each
/// label whose system differs from the one before, and some labels' names.
fn points(o: &mut String, f: &Frame, s: &Series, cps: &[super::detect::ChangePoint]) {
    let every = f.n.div_ceil(16).max(1);
    for (k, p) in s.points.iter().enumerate() {
        let (mn, mx) = p
            .values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(*v), b.max(*v))
            });
        let mean = crate::stats::describe::mean(&p.values);
        let x = f.x(k as f64);
        let _ = write!(
            o,
            "<line class=\"range\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#999\"/><circle class=\"point\" cx=\"{x:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{}\"><title>{}: mean {} of {} value(s)</title></circle>",
            f.y(mn),
            f.y(mx),
            f.y(mean),
            colour(0),
            escape(&p.label),
            escape(&crate::report::sections::with_unit(mean, &s.unit)),
            p.values.len()
        );
        if k > 0 && p.system.is_some() && s.points[k - 1].system != p.system {
            let _ = write!(
                o,
                "<path class=\"system\" d=\"M{x:.1} {:.1} l-4 8 h8 z\" fill=\"#9a6700\"><title>{}: its system differs from {}'s</title></path>",
                f.axis() + 2.0,
                escape(&p.label),
                escape(&s.points[k - 1].label)
            );
        }
        if k % every == 0 || k + 1 == f.n || cps.iter().any(|c| c.at == k) {
            let y = f.axis() + 16.0;
            let _ = write!(
                o,
                "<text x=\"{x:.1}\" y=\"{y:.1}\" transform=\"rotate(40 {x:.1} {y:.1})\">{}</text>",
                escape(&p.label)
            );
        }
    }
}

/// The chart of one series.
fn chart(t: &Tracked, i: usize, s: &Series) -> String {
    let cps = &t.detection.per_series[i];
    let Some(f) = Frame::of(s) else {
        return String::new();
    };
    let mut o = format!(
        "<svg class=\"series\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" font-size=\"11\">",
        f.w, f.h
    );
    levels(&mut o, &f, s, cps);
    points(&mut o, &f, s, cps);
    for c in cps {
        let cx = f.x(c.at as f64 - 0.5);
        let _ = write!(
            o,
            "<line class=\"changepoint\" x1=\"{cx:.1}\" y1=\"{}\" x2=\"{cx:.1}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"><title>change point between {} and {}: {:+.1} %</title></line>",
            f.top,
            f.axis(),
            if c.worse { "#cf222e" } else { "#1a7f37" },
            escape(&s.points[c.at - 1].label),
            escape(&s.points[c.at].label),
            c.change_pct
        );
    }
    o.push_str("</svg>");
    o
}

/// The HTML page, as a format.
pub struct Html;

impl crate::report::Format<Tracked> for Html {
    fn render(&self, t: &Tracked) -> anyhow::Result<String> {
        Ok(render(t))
    }
}

pub fn render(t: &Tracked) -> String {
    let mut out = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>kbench track</title><style>{STYLE}</style></head><body><h1>kbench track</h1><p>{}</p>",
        escape(&super::report::head(t))
    );
    for e in t.emulated.iter().chain(&t.ejections) {
        let _ = write!(out, "<p class=\"note\">{}</p>", escape(e));
    }
    for (i, s) in t.series.iter().enumerate() {
        let cps = &t.detection.per_series[i];
        if cps.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            "<h2>{} · {} <small>({}, {} is better)</small></h2><figure>{}</figure>",
            escape(&s.title()),
            escape(&s.metric),
            escape(&s.unit),
            s.better.as_str(),
            chart(t, i, s)
        );
        out.push_str("<table class=\"changes\"><thead><tr><th>change point</th><th></th></tr></thead><tbody>");
        for (j, c) in cps.iter().enumerate() {
            let _ = write!(
                out,
                "<tr><td class=\"{}\">{}</td><td>{}</td></tr>",
                if c.worse { "worse" } else { "better" },
                if c.worse { "worse" } else { "better" },
                escape(&super::report::sentence(s, c, &t.systems[i][j]))
            );
        }
        out.push_str("</tbody></table>");
    }
    let _ = writeln!(
        out,
        "<p class=\"method\">{}</p></body></html>",
        escape(&super::report::footer(t))
    );
    out
}
