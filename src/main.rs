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

mod bench;
mod cli;
mod cmd;
mod compare;
mod contest;
mod error;
mod experiment;
mod fingerprint;
mod health;
mod import;
mod isolate;
mod job;
mod lifecycle;
mod load;
mod registry;
mod report;
mod scenario;
mod stats;
mod store;
// The one home of `unsafe`: thin wrappers over the Linux calls the
// standard library lacks, each block with its SAFETY comment.
#[allow(unsafe_code)]
mod sys;

fn main() {
    quiet_on_broken_pipe();
    let cli = cli::Cli::parse_process_args();
    let code = match cmd::dispatch(cli) {
        Ok(()) => 0,
        Err(err) => exit_code_for(&err),
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
        return 0;
    }
    if err.downcast_ref::<error::Interrupted>().is_some() {
        eprintln!("kbench: interrupted; what finished was kept");
        return error::EXIT_INTERRUPTED;
    }
    if let Some(g) = err.downcast_ref::<error::GateFailed>() {
        eprintln!("kbench: {g}");
        return error::EXIT_GATE;
    }
    if let Some(u) = err.downcast_ref::<error::UserError>() {
        eprintln!("kbench: {u}");
        return u.exit_code();
    }
    eprintln!("kbench: error: {err:#}");
    1
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
            std::process::exit(0);
        }
        default(info);
    }));
}
