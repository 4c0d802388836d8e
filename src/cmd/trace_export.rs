//! `kbench runs trace ID -o FILE`: a traced run's kept windows as Chrome
//! trace-event JSON, which Perfetto and chrome://tracing open.

use crate::error::input;
use crate::session::Ctx;
use anyhow::Result;
use std::io::Write;
use std::path::Path;

pub fn run(ctx: &Ctx, id: i64, output: &Path) -> Result<()> {
    super::output::check(output)?;
    let store = ctx.store_for_reading()?;
    let Some(run) = store.load_run(id)? else {
        return Err(input(format!(
            "no run with id {id} in {}",
            store.describe()
        )));
    };
    let Some(a) = run
        .attachments
        .iter()
        .find(|a| a.kind == crate::trace::stored::KIND)
    else {
        let why = run.settings["trace"]["reason"]
            .as_str()
            .map(|r| format!(" (not traced: {r})"))
            .unwrap_or_default();
        return Err(input(format!(
            "run {id} has no trace{why}: measure with --trace to keep one"
        )));
    };
    let windows = crate::trace::stored::Windows::decode(&a.data)
        .map_err(|e| input(format!("run {id}: {e:#}")))?;
    let doc = crate::trace::perfetto::document(&windows, id);
    let text = serde_json::to_string(&doc)?;
    if output.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}")?;
        return Ok(());
    }
    super::output::write_file(output, text.as_bytes())?;
    ctx.info(&format!(
        "kbench: {} trace windows of run {id} written to {} (open it in https://ui.perfetto.dev)",
        windows.windows.len(),
        output.display()
    ));
    Ok(())
}
