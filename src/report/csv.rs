//! The comparison as CSV: one row per group × metric × label with every
//! statistic, written by the `csv` crate (RFC 4180 quoting).

use crate::compare::{params_text, Comparison};

fn field(s: &str) -> String {
    crate::text::clean(s).into_owned()
}

/// A label's cell: a label is anyone's text, and one a spreadsheet would
/// read as a formula (`=HYPERLINK(…)`, or `+`, `-`, `@`, a tab or a
/// carriage return first) is led by a `'`, which spreadsheets show as
/// text (OWASP's advice on CSV injection).
fn label(s: &str) -> String {
    let c = crate::text::clean(s);
    if c.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{c}")
    } else {
        c.into_owned()
    }
}

#[cfg(test)]
#[test]
fn formulas_stay_text() {
    assert_eq!(label("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
    assert_eq!(label("@SUM(A1)"), "'@SUM(A1)");
    assert_eq!(label("6.1.0-rt"), "6.1.0-rt");
    assert_eq!(field("-g 2"), "-g 2", "parameters are kbench's spelling");
}

fn f(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map_or(String::new(), |x| format!("{x}"))
}

const HEADER: &str = "benchmark,params,metric,unit,better,label,baseline,n,mean,median,sd,ci_low,ci_high,min,max,change_pct,change_ci_low_pct,change_ci_high_pct,welch_p_value,mann_whitney_p_value,p_adjusted,tost_p_adjusted,effect_size,cohens_d,significant,verdict,detectable_change_pct";

pub fn render(c: &Comparison) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let _ = w.write_record(HEADER.split(','));
    for g in &c.groups {
        for m in &g.metrics {
            for l in &m.labels {
                let s = &l.summary;
                let v = l.versus.as_ref();
                let cols = [
                    field(&g.benchmark),
                    field(&params_text(&g.params)),
                    field(&m.metric),
                    field(&m.unit),
                    m.better.as_str().into(),
                    label(&l.label),
                    label(&c.baseline),
                    s.n.to_string(),
                    f(Some(s.mean)),
                    f(Some(s.median)),
                    f(Some(s.sd)),
                    f(Some(s.ci_low)),
                    f(Some(s.ci_high)),
                    f(Some(s.min)),
                    f(Some(s.max)),
                    f(v.and_then(|v| v.change_pct)),
                    f(v.and_then(|v| v.change_ci_pct).map(|c| c.0)),
                    f(v.and_then(|v| v.change_ci_pct).map(|c| c.1)),
                    f(v.and_then(|v| v.welch_p_value)),
                    f(v.and_then(|v| v.mann_whitney_p_value)),
                    f(v.and_then(|v| v.p_adjusted)),
                    f(v.and_then(|v| v.tost_p_adjusted)),
                    f(v.map(|v| v.effect_size)),
                    f(v.map(|v| v.cohens_d)),
                    v.and_then(|v| v.significant)
                        .map_or(String::new(), |b| b.to_string()),
                    field(v.map_or("baseline", |v| v.verdict.as_str())),
                    f(v.and_then(|v| v.detectable_change_pct)),
                ];
                let _ = w.write_record(&cols);
            }
        }
    }
    // What one label has and another lacks: a row each, verdict
    // "missing", what is missing in the metric column.
    let n = HEADER.split(',').count();
    for m in &c.missing {
        let mut cols = vec![String::new(); n];
        cols[2] = field(m);
        cols[25] = "missing".into();
        let _ = w.write_record(&cols);
    }
    // Writing to memory cannot fail.
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The comparison as CSV, a row a metric and label.
pub struct Csv;

impl<'a> super::Format<super::Input<'a>> for Csv {
    fn render(&self, i: &super::Input<'a>) -> anyhow::Result<String> {
        Ok(render(i.comparison))
    }
}
