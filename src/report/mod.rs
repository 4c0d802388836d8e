//! Reports: turning stored results into text, tables and charts.
//!
//! Only presentation lives here; numbers come from `compare` and `stats`.
//! One file per format; the terminal and Markdown renderers share the
//! format-neutral [`sections`].

pub mod csv;
pub mod html;
pub mod markdown;
pub mod sections;
pub mod seed2023;
pub mod svg;
pub mod terminal;
