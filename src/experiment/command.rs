//! The kbench command an experiment runs (after `--`), checked before
//! anything runs: a benchmark or `run SCENARIO`, without the flags the
//! experiment sets itself, parsed by the whole command line's parser that
//! `cmd/` hands down.

use crate::error::input;
use anyhow::Result;

/// Commands a matrix may run.
fn runnable(cmd: &str) -> bool {
    cmd == "run" || crate::registry::find(cmd).is_some()
}

/// Check the command line given after `--` as kbench would parse it
/// (`parse`: the whole command line's parser, which lives above this layer
/// and is handed down by the command).
pub fn check_command(command: &[String], parse: super::ParseCommand) -> Result<()> {
    let first = command.first().ok_or_else(|| {
        input("give the kbench command to run after --, e.g. -- hackbench -l 200")
    })?;
    if !runnable(first) {
        return Err(input(format!(
            "an experiment runs a benchmark ({}) or `run SCENARIO`, not '{first}'",
            crate::registry::names().collect::<Vec<_>>().join(", ")
        )));
    }
    for a in command {
        let flag = a.split('=').next().unwrap_or("");
        if matches!(
            flag,
            "--label" | "--db" | "--no-store" | "--json" | "--against"
        ) {
            return Err(input(format!(
                "{flag} belongs before the experiment's own command, not in the command it runs (the experiment labels and stores every run)"
            )));
        }
    }
    let argv: Vec<String> = std::iter::once("kbench".to_string())
        .chain(command.iter().cloned())
        .collect();
    if let Err(e) = parse(&argv) {
        if matches!(
            e.kind(),
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
        ) {
            return Err(input(
                "the command after -- asks for help: run it on its own",
            ));
        }
        return Err(input(format!(
            "the command after --: {}",
            crate::text::one_line(&e.to_string()).trim_start_matches("error: ")
        )));
    }
    Ok(())
}
