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

/// A bar per counter of the scheduling section (the `sched.*` counters
/// that differ): the change as a bar from zero, its interval as a whisker,
/// on a symmetric scale clipped at ±400 % (a longer bar is drawn to the
/// edge and its figure says the rest), named by label and counter, in the
/// verdict's colour (better green, worse red, different blue).
pub fn change_bars(c: &crate::compare::Comparison) -> String {
    let short = super::labels::labels_of(c);
    // From the figures themselves, not their text (a change past +1000 %
    // is written as a factor there).
    let rows: Vec<(String, String, (f64, f64, f64))> = c
        .scheduling
        .iter()
        .flat_map(|s| s.rows.iter())
        .filter_map(|r| {
            let (lo, hi) = r.change_ci_pct?;
            let v = (r.change_pct?, lo, hi);
            (v.0.is_finite() && v.1.is_finite() && v.2.is_finite()).then(|| {
                let name = format!(
                    "{} {}",
                    short(&r.label),
                    r.metric.trim_start_matches("sched.")
                );
                (name, r.verdict.as_str().to_string(), v)
            })
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let (w, left, row_h) = (900.0_f64, 420.0_f64, 18.0_f64);
    let h = row_h * rows.len() as f64 + 24.0;
    let max = rows
        .iter()
        .map(|r| r.2 .0.abs().max(r.2 .1.abs()).max(r.2 .2.abs()))
        .fold(1.0_f64, f64::max)
        .min(400.0);
    let mid = left + (w - left - 20.0) / 2.0;
    let x = |v: f64| mid + v.clamp(-max, max) / max * (w - left - 20.0) / 2.0;
    let mut out = format!(
        "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-size=\"11\">\
<line x1=\"{mid:.1}\" x2=\"{mid:.1}\" y1=\"0\" y2=\"{:.1}\" stroke=\"#888\"/>",
        h - 20.0
    );
    for (i, (name, verdict, (c, lo, hi))) in rows.iter().enumerate() {
        let y = row_h * i as f64 + 4.0;
        let col = match verdict.as_str() {
            "better" => "#1a7f37",
            "worse" => "#cf222e",
            _ => "#0969da",
        };
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\
<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{col}\"><title>{c:+.1}% [{lo:+.1}, {hi:+.1}]</title></rect>\
<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#222\"/>",
            left - 6.0,
            y + 11.0,
            escape(name),
            x(*c).min(mid),
            (x(*c) - mid).abs().max(1.0),
            row_h - 6.0,
            x(*lo),
            x(*hi),
            y + (row_h - 6.0) / 2.0,
            y + (row_h - 6.0) / 2.0
        );
    }
    let _ = write!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">-{max:.0}%</text><text x=\"{mid:.1}\" y=\"{:.1}\" text-anchor=\"middle\">0</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">+{max:.0}%</text></svg>",
        x(-max),
        h - 6.0,
        h - 6.0,
        x(max),
        h - 6.0
    );
    out
}
