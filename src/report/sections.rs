//! A comparison as format-neutral sections (a title, a header, rows),
//! shared by the terminal and Markdown renderers.

use super::table::num;
use crate::compare::{params_text, Comparison, LabelStats, MetricComparison};

/// One titled table.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Columns from this one on hold numbers.
    pub numeric_from: usize,
}

/// A p-value for people: four decimals, or "<0.0001".
pub fn p_text(p: Option<f64>) -> String {
    match p {
        None => "-".into(),
        Some(p) if p < 1e-4 => "<0.0001".into(),
        Some(p) => format!("{p:.4}"),
    }
}

fn direction(m: &MetricComparison) -> &'static str {
    match m.better {
        crate::bench::Better::Lower => "lower is better",
        crate::bench::Better::Higher => "higher is better",
        crate::bench::Better::Neither => "no direction",
    }
}

fn row(l: &LabelStats) -> Vec<String> {
    let s = &l.summary;
    let ci = if s.ci_low.is_nan() {
        "-".into()
    } else {
        format!("{}…{}", num(s.ci_low), num(s.ci_high))
    };
    let mut r = vec![
        l.label.clone(),
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
        ]),
        Some(v) => {
            let star = if v.significant == Some(true) {
                " *"
            } else {
                ""
            };
            r.push(format!("{:+.1}%{star}", v.change_pct));
            r.push(p_text(v.welch_p_value));
            let approx = if v.mann_whitney_exact == Some(false) {
                "≈"
            } else {
                ""
            };
            r.push(format!("{approx}{}", p_text(v.mann_whitney_p_value)));
            r.push(if v.effect_size.is_nan() {
                "-".into()
            } else if v.effect_size > 0.0 {
                format!("+{}", num(v.effect_size))
            } else {
                num(v.effect_size)
            });
            r.push(v.verdict.clone());
        }
    }
    r
}

/// The sections of a comparison: systems, then one per metric per group.
pub fn sections(c: &Comparison) -> Vec<Section> {
    let mut out = Vec::new();
    let mut header = vec!["".to_string()];
    header.extend(c.labels.iter().cloned());
    out.push(Section {
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
    });
    for g in &c.groups {
        for m in &g.metrics {
            let p = params_text(&g.params);
            out.push(Section {
                title: format!(
                    "{} {}{} ({}, {})",
                    g.benchmark,
                    m.metric,
                    if p.is_empty() {
                        String::new()
                    } else {
                        format!(" [{p}]")
                    },
                    m.unit,
                    direction(m)
                ),
                header: [
                    "label", "n", "mean", "median", "sd", "95% CI", "min", "max", "change",
                    "p Welch", "p MW", "HL shift", "verdict",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect(),
                rows: m.labels.iter().map(row).collect(),
                numeric_from: 1,
            });
        }
    }
    out
}

/// The lines under the tables: how to read them, and warnings.
pub fn footnotes(c: &Comparison) -> Vec<String> {
    let test = match c.decider {
        crate::compare::Decider::Welch => "Welch's t-test",
        crate::compare::Decider::MannWhitney => "the Mann-Whitney U test",
    };
    let mut v = vec![
        format!(
            "baseline {}; * = significant at alpha = {} by {test}; p MW is exact below 20 runs a side (≈ marks the normal approximation); HL shift = Hodges-Lehmann estimate of label − baseline; no verdict below {} runs a side",
            c.baseline,
            c.alpha,
            crate::compare::MIN_RUNS
        ),
    ];
    v.extend(c.warnings.iter().map(|w| format!("warning: {w}")));
    v
}
