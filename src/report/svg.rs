//! Charts as inline SVG, written directly: a strip plot of each label's
//! runs with the mean and its 95 % CI, and latency CDFs on a "nines"
//! scale from the stored HdrHistograms.  Text is left to the browser's
//! fonts, so no font is embedded and no plotting crate is needed.

use crate::compare::MetricComparison;
use crate::text::table::num;
use hdrhistogram::Histogram;
use std::fmt::Write;

const COLOURS: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
];

/// Colour for the `i`th label.
pub fn colour(i: usize) -> &'static str {
    COLOURS[i % COLOURS.len()]
}

pub fn escape(s: &str) -> String {
    crate::text::clean(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Every run as a dot, per label, with the mean (tick) and 95 % CI (bar).
pub fn strip_plot(m: &MetricComparison) -> String {
    let (w, left, right, row_h, top) = (640.0, 170.0, 20.0, 30.0, 10.0);
    let h = top + row_h * m.labels.len() as f64 + 30.0;
    let vals = m.labels.iter().flat_map(|l| {
        l.values.iter().copied().chain(
            [l.summary.ci_low, l.summary.ci_high]
                .into_iter()
                .filter(|v| v.is_finite()),
        )
    });
    let (mut lo, mut hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if !lo.is_finite() {
        return String::new();
    }
    if hi - lo < 1e-12 * hi.abs().max(1.0) {
        lo -= 0.5 * lo.abs().max(1.0) * 0.01;
        hi += 0.5 * hi.abs().max(1.0) * 0.01;
    }
    let pad = (hi - lo) * 0.05;
    // A positive metric's axis never shows values below zero.
    let positive = m.labels.iter().all(|l| l.values.iter().all(|v| *v > 0.0));
    let (lo, hi) = (
        if positive {
            (lo - pad).max(0.0)
        } else {
            lo - pad
        },
        hi + pad,
    );
    let x = |v: f64| left + (v - lo) / (hi - lo) * (w - left - right);
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\">");
    let axis_y = top + row_h * m.labels.len() as f64 + 5.0;
    let _ = write!(
        s,
        "<line x1=\"{left}\" y1=\"{axis_y}\" x2=\"{}\" y2=\"{axis_y}\" stroke=\"#888\"/>",
        w - right
    );
    for k in 0..=4 {
        let v = lo + (hi - lo) * k as f64 / 4.0;
        let _ = write!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{axis_y}\" x2=\"{0:.1}\" y2=\"{1}\" stroke=\"#888\"/><text x=\"{0:.1}\" y=\"{2}\" font-size=\"11\" text-anchor=\"middle\">{3}</text>",
            x(v),
            axis_y + 4.0,
            axis_y + 17.0,
            escape(&num(v))
        );
    }
    for (i, l) in m.labels.iter().enumerate() {
        let y = top + row_h * (i as f64 + 0.5);
        let c = colour(i);
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{}</text>",
            left - 8.0,
            y + 4.0,
            escape(&l.label)
        );
        if l.summary.ci_low.is_finite() {
            let _ = write!(
                s,
                "<line x1=\"{:.1}\" y1=\"{y}\" x2=\"{:.1}\" y2=\"{y}\" stroke=\"{c}\" stroke-width=\"6\" stroke-opacity=\"0.25\"/>",
                x(l.summary.ci_low),
                x(l.summary.ci_high)
            );
        }
        let _ = write!(s, "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"{c}\" stroke-width=\"2\"/>", x(l.summary.mean), y - 9.0, y + 9.0);
        for v in &l.values {
            let _ = write!(s, "<circle cx=\"{:.1}\" cy=\"{y}\" r=\"3.5\" fill=\"{c}\" fill-opacity=\"0.7\"><title>{}</title></circle>", x(*v), escape(&num(*v)));
        }
    }
    s.push_str("</svg>");
    s
}

/// Latency CDFs: x = latency (µs, log scale), y = percentile on a nines
/// scale (−log₁₀(1 − F): 1 = p90, 2 = p99, 3 = p99.9).
/// One distribution's points: each recorded value (µs, at least `floor`)
/// against its "nines" of the samples at or below it.
fn cdf_points(
    hh: &Histogram<u64>,
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
    floor: f64,
) -> String {
    let total = hh.len() as f64;
    let mut seen = 0u64;
    let mut pts = String::new();
    for v in hh.iter_recorded() {
        seen += v.count_at_value();
        let f = seen as f64 / total;
        let nines = if f >= 1.0 {
            total.log10()
        } else {
            -(1.0 - f).log10()
        };
        let us = (hh.highest_equivalent(v.value_iterated_to()) as f64 / 1000.0).max(floor);
        let _ = write!(pts, "{:.1},{:.1} ", x(us), y(nines));
    }
    pts
}

pub fn latency_cdf(series: &[(String, Histogram<u64>)]) -> String {
    let (w, h, left, bottom, top, right) = (640.0, 320.0, 60.0, 40.0, 10.0, 150.0);
    let nonempty: Vec<&(String, Histogram<u64>)> =
        series.iter().filter(|(_, hh)| !hh.is_empty()).collect();
    if nonempty.is_empty() {
        return String::new();
    }
    let min_ns = nonempty
        .iter()
        .map(|(_, hh)| hh.min().max(1))
        .min()
        .unwrap_or(1) as f64;
    let max_ns = nonempty
        .iter()
        .map(|(_, hh)| hh.max().max(2))
        .max()
        .unwrap_or(2) as f64;
    let (lx0, lx1) = (
        (min_ns / 1000.0).log10().floor(),
        (max_ns / 1000.0)
            .log10()
            .ceil()
            .max((min_ns / 1000.0).log10().floor() + 1.0),
    );
    let max_nines = nonempty
        .iter()
        .map(|(_, hh)| (hh.len() as f64).log10())
        .fold(1.0f64, f64::max)
        .ceil();
    let x = |us: f64| left + (us.log10() - lx0) / (lx1 - lx0) * (w - left - right);
    let y = |n: f64| h - bottom - n / max_nines * (h - bottom - top);
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\">");
    let _ = write!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>",
        w - left - right,
        h - top - bottom
    );
    let mut e = lx0;
    while e <= lx1 + 1e-9 {
        let xv = x(10f64.powf(e));
        let _ = write!(
            s,
            "<line x1=\"{xv:.1}\" y1=\"{top}\" x2=\"{xv:.1}\" y2=\"{}\" stroke=\"#ddd\"/><text x=\"{xv:.1}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{} µs</text>",
            h - bottom,
            h - bottom + 15.0,
            num(10f64.powf(e))
        );
        e += 1.0;
    }
    for n in 0..=(max_nines as i64) {
        let yv = y(n as f64);
        let label = match n {
            0 => "p0".to_string(),
            n => format!("p{}", 100.0 - 100.0 * 10f64.powi(-(n as i32))),
        };
        let _ = write!(s, "<line x1=\"{left}\" y1=\"{yv:.1}\" x2=\"{}\" y2=\"{yv:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{label}</text>", w - right, left - 5.0, yv + 4.0);
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">wake-up latency</text>",
        left + (w - left - right) / 2.0,
        h - 5.0
    );
    for (i, (name, hh)) in series.iter().enumerate() {
        if hh.is_empty() {
            continue;
        }
        let pts = cdf_points(hh, &x, &y, 10f64.powf(lx0));
        let c = colour(i);
        let _ = write!(
            s,
            "<polyline points=\"{pts}\" fill=\"none\" stroke=\"{c}\" stroke-width=\"1.8\"/>"
        );
        let ly = top + 16.0 + 18.0 * i as f64;
        let _ = write!(
            s,
            "<line x1=\"{0}\" y1=\"{ly}\" x2=\"{1}\" y2=\"{ly}\" stroke=\"{c}\" stroke-width=\"3\"/><text x=\"{2}\" y=\"{3}\" font-size=\"12\">{4}</text>",
            w - right + 10.0,
            w - right + 30.0,
            w - right + 35.0,
            ly + 4.0,
            escape(name)
        );
    }
    s.push_str("</svg>");
    s
}
