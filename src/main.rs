//! kbench: is one Linux kernel more responsive than another?
//!
//! `main` is the short story: parse the command line, hand it to `cmd`
//! (which plans, runs, stores and reports), and turn the outcome into an
//! exit code and at most one line of error.

#![deny(
    unsafe_code,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]

mod benchmarks;
mod bisect;
mod cli;
mod cmd;
mod compare;
mod error;
mod experiment;
mod fingerprint;
mod health;
#[cfg(test)]
mod hostile_tests;
mod import;
mod isolate;
mod lava;
mod lifecycle;
mod load;
mod measure;
mod registry;
mod report;
mod scenario;
mod session;
mod stats;
mod store;
mod text;
mod trace;
mod track;
mod values;
mod vm;
// The one home of `unsafe`: thin wrappers over the Linux calls the
// standard library lacks, each block with its SAFETY comment.
#[allow(unsafe_code)]
mod sys;

fn main() {
    quiet_on_broken_pipe();
    let cli = cli::Cli::parse_process_args();
    text::colour::choose(cli.global.color.choice());
    if matches!(cli.command, cli::Command::Decide(_)) {
        error::failures_exit(bisect::decide::EXIT_ABORT);
    }
    // A panic unwinds (the release profile keeps unwinding on purpose):
    // every temp dir, worker group and load is dropped on the way out, so a
    // bug leaves no file and no process behind; then one line says so.
    let code = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cmd::dispatch(cli))) {
        Ok(Ok(())) => 0,
        Ok(Err(err)) => exit_code_for(&err),
        Err(_) => {
            say("kbench: internal error (a bug in kbench; the message above says where): what it had started was stopped and removed");
            error::failure_exit().unwrap_or(101)
        }
    };
    std::process::exit(code);
}

/// Print the error as one line and pick the exit code.
fn exit_code_for(err: &anyhow::Error) -> i32 {
    let broken_pipe = err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return error::failure_exit().unwrap_or(0);
    }
    if err.downcast_ref::<error::Interrupted>().is_some() {
        say("kbench: interrupted; what finished was kept");
        return error::EXIT_INTERRUPTED;
    }
    if let Some(x) = err.downcast_ref::<error::Exit>() {
        if let Some(m) = &x.message {
            say(&format!("kbench: {}", text::clean(m)));
        }
        return x.code;
    }
    if let Some(g) = err.downcast_ref::<error::GateFailed>() {
        say(&format!("kbench: {g}"));
        return error::EXIT_GATE;
    }
    if let Some(u) = err.downcast_ref::<error::UserError>() {
        // One line, whatever the input it quotes held (a newline or a
        // terminal escape in a value is shown escaped, not obeyed).
        say(&format!("kbench: {}", text::clean(&u.to_string())));
        return u.exit_code();
    }
    if let Some(why) = damaged_store(err) {
        say(&format!("kbench: the result store is damaged ({why}): restore it from a backup or pass another --db"));
        return error::EXIT_USAGE;
    }
    // Other failures may carry a failed job's stderr, a line each: the
    // lines stay, their control characters are escaped.
    let shown: Vec<String> = format!("{err:#}")
        .split('\n')
        .map(|l| text::clean(l).into_owned())
        .collect();
    say(&format!("kbench: error: {}", shown.join("\n")));
    1
}

/// A line on stderr; a stderr that cannot take it (a closed pipe, a full
/// disk) changes nothing about the exit code.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// SQLite's own word that a store's file is damaged (not a database, a
/// malformed page), wherever in a command it was read.
fn damaged_store(err: &anyhow::Error) -> Option<String> {
    err.chain()
        .find_map(|e| match e.downcast_ref::<rusqlite::Error>() {
            Some(rusqlite::Error::SqliteFailure(f, msg))
                if matches!(
                    f.code,
                    rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase
                ) =>
            {
                Some(text::clean(msg.as_deref().unwrap_or("malformed")).into_owned())
            }
            // A value that is not what its column holds (text that is not
            // UTF-8): said with the run, never as a bare "Conversion error".
            Some(rusqlite::Error::FromSqlConversionFailure(_, _, why)) => {
                Some(text::clean(&why.to_string()).into_owned())
            }
            Some(rusqlite::Error::Utf8Error(_)) => Some("text that is not UTF-8".into()),
            _ => None,
        })
}

/// `kbench … | head` must end quietly with status 0, as ripgrep does.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("Broken pipe") {
            std::process::exit(error::failure_exit().unwrap_or(0));
        }
        default(info);
    }));
}
