//! Reports: turning stored or fresh results into text for people.
//!
//! Only presentation lives here; numbers come from benchmarks, the store
//! and `stats`.

pub mod table;
