//! The commands that are not benchmarks (compare, import, runs, labels,
//! push and pull, sysinfo, run and presets, matrix and campaign, restore,
//! completions and man), and [`dispatch`], which sends each command line
//! to its command or to its benchmark's registry entry.  Benchmarks live
//! in `benchmarks/<name>/`, each run through `lifecycle::drive`; the
//! plumbing every command shares (the fingerprint, the label, the store)
//! is `session::Ctx`.

mod bisect;
mod compare;
mod experiment;
mod import;
mod lava;
mod list;
mod meta;
mod output;
mod push;
mod restore;
mod run;
mod runs;
mod sysinfo;
mod trace_export;
mod track;
mod vm;

use crate::cli::{Cli, Command};
use crate::session::Ctx;
use anyhow::Result;

pub fn dispatch(cli: Cli) -> Result<()> {
    crate::sys::signals::install();
    let many_labels_ok = matches!(
        &cli.command,
        Command::Runs(_)
            | Command::Labels
            | Command::Compare(_)
            | Command::Export(_)
            | Command::Track(_)
    ) || matches!(&cli.command, Command::Bench(b)
        if crate::registry::find(b.name).is_some_and(|e| (e.many_labels)(&b.matches)));
    if cli.global.label.len() > 1 && !many_labels_ok {
        return Err(crate::error::input(
            "give one --label to name what is measured (several only for compare, runs and contest --show)",
        ));
    }
    if cli.global.label.iter().any(|l| l.trim().is_empty()) {
        return Err(crate::error::input("--label must not be empty"));
    }
    let ctx = Ctx::new(cli.global);
    match cli.command {
        Command::Sysinfo(a) => sysinfo::run(&ctx, &a),
        Command::Bench(b) => match crate::registry::find(b.name) {
            Some(e) => (e.run)(&ctx, &b.matches),
            None => Err(crate::error::input(format!("unknown benchmark {}", b.name))),
        },
        Command::Compare(a) => compare::run(&ctx, &a),
        Command::Export(crate::cli::ExportCommand::Kcidb(a)) => {
            let mut a = a.clone();
            a.format = crate::cli::ReportFormat::Kcidb;
            compare::run(&ctx, &a)
        }
        Command::Import(a) => import::run(&ctx, &a),
        Command::Run(a) => run::run(&ctx, &a),
        Command::Presets { cmd } => run::presets(&ctx, cmd),
        Command::Push(a) => push::push(&ctx, &a),
        Command::Pull(a) => push::pull(&ctx, &a),
        Command::Runs(r) => runs::run(&ctx, r),
        Command::Labels => runs::labels(&ctx),
        Command::List { what, benchmark } => list::run(&ctx, what, benchmark.as_deref()),
        Command::Completions { shell } => meta::completions(shell),
        Command::Man => meta::man(),
        Command::Matrix(a) => experiment::matrix(&ctx, &a),
        Command::Campaign(c) => experiment::campaign(&ctx, &c),
        Command::Vm(a) => vm::vm(&ctx, &a),
        Command::Lava(c) => lava::lava(&ctx, &c),
        Command::VmGuest => vm::guest(),
        Command::Bisect(a) => bisect::bisect(&ctx, &a),
        Command::Decide(a) => bisect::decide(&ctx, &a),
        Command::Track(a) => track::track(&ctx, &a),
        Command::Restore { after, remove } => restore::run(after, &remove),
        Command::HealthMonitor {
            root,
            interval_ms,
            threads_only,
        } => crate::health::monitor::run(root, interval_ms, threads_only),
    }
}
