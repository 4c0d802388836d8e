//! A report to stdout, or to the file `-o` names.

use crate::error::input;
use anyhow::Result;
use std::path::Path;

/// Print `text`, or write it to `to`.
pub fn emit(to: Option<&Path>, text: &str) -> Result<()> {
    match to {
        Some(p) => {
            std::fs::write(p, text).map_err(|e| input(format!("cannot write {}: {e}", p.display())))
        }
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
