//! Reports: turning stored results into text, tables and charts.
//!
//! Only presentation lives here; numbers come from `compare` and `stats`.
//! One file per format; the terminal and Markdown renderers share the
//! format-neutral [`sections`].

pub mod bundle;
pub mod csv;
pub mod curves;
pub mod footnotes;
pub mod html;
pub mod kcidb;
pub mod labels;
pub mod markdown;
pub mod sections;
pub mod seed2023;
pub mod svg;
pub mod terminal;
pub mod timeline;

use crate::compare::Comparison;
use crate::store::RunRecord;

/// What every format is given: the comparison, the runs it was built
/// from (for what a format draws from them: latency distributions, the
/// 2023 article's tables), and how to show it.
pub struct Input<'a> {
    pub comparison: &'a Comparison,
    pub runs: &'a [RunRecord],
    /// Colour for a terminal.
    pub colour: bool,
    /// Every metric's detail, not only the scoreboard.
    pub details: bool,
    /// With `--curve`: the curves over that parameter, shown instead of the
    /// scoreboard.
    pub curves: Option<&'a [crate::compare::curve::Curve]>,
}

/// One way to read a report: every format of a comparison
/// (`Format<Input>`) and of a series (`track`'s, `Format<Tracked>`) is one
/// of these, and the command only chooses which.
pub trait Format<In: ?Sized> {
    fn render(&self, input: &In) -> anyhow::Result<String>;
}

/// The comparison as JSON, with its schema version.
pub struct Json;

impl<'a> Format<Input<'a>> for Json {
    fn render(&self, i: &Input<'a>) -> anyhow::Result<String> {
        let mut body = serde_json::to_value(i.comparison)?;
        if let (Some(o), Some(c)) = (body.as_object_mut(), i.curves) {
            o.insert("curves".into(), serde_json::to_value(c)?);
        }
        if let Some(o) = body.as_object_mut() {
            o.insert(
                "schema_version".into(),
                crate::session::JSON_SCHEMA_VERSION.into(),
            );
            o.insert("kind".into(), "compare".into());
        }
        Ok(serde_json::to_string_pretty(&body)? + "\n")
    }
}
