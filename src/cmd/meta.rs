//! Shell completions and the man page, generated from the clap definitions.

use crate::cli::Shell;
use anyhow::Result;

pub fn completions(shell: Shell) -> Result<()> {
    use clap_complete::Shell as S;
    let s = match shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
        Shell::Elvish => S::Elvish,
        Shell::Powershell => S::PowerShell,
    };
    clap_complete::generate(
        s,
        &mut crate::cli::command(),
        "kbench",
        &mut std::io::stdout(),
    );
    Ok(())
}

/// The man page: clap's sections, and EXIT STATUS and ENVIRONMENT before
/// VERSION (what a script and a service unit need, which clap cannot
/// know).
pub fn man() -> Result<()> {
    use std::io::Write;
    let mut page = Vec::new();
    clap_mangen::Man::new(crate::cli::command()).render(&mut page)?;
    let page = String::from_utf8(page)?;
    let at = page.find(".SH VERSION").unwrap_or(page.len());
    let mut out = std::io::stdout().lock();
    out.write_all(&page.as_bytes()[..at])?;
    out.write_all(extra_sections().to_roff().as_bytes())?;
    out.write_all(&page.as_bytes()[at..])?;
    Ok(())
}

/// (name, what it means), one `.TP` entry each.
fn entries<'a>(
    roff: &mut roff::Roff,
    title: &str,
    items: impl IntoIterator<Item = (String, &'a str)>,
) {
    roff.control("SH", [title]);
    for (name, what) in items {
        roff.control("TP", []);
        roff.text([roff::bold(name)]);
        roff.text([roff::roman(what)]);
    }
}

fn extra_sections() -> roff::Roff {
    use crate::bisect::decide;
    use crate::error;
    let mut r = roff::Roff::new();
    let codes: [(i32, &str); 7] = [
        (0, "Success; for decide, the candidate is like --good."),
        (
            1,
            "A failure that is not the input's: a benchmark that failed, a missing privilege or resource (the line says which and how to get it); for decide, the candidate is like --bad.",
        ),
        (
            error::EXIT_USAGE,
            "Bad input: an unknown command or flag, a value out of range, a label or run that does not exist, a comparison that compares nothing, a damaged store. One line says what and how to fix it.",
        ),
        (
            error::EXIT_GATE,
            "compare --fail-on or track --fail-on found what it was told to fail on (or, on emulated runs, could not tell); the report was written in full.",
        ),
        (
            decide::EXIT_CANNOT_TELL,
            "decide cannot tell within --max-runs (git bisect run skips the commit).",
        ),
        (
            decide::EXIT_ABORT,
            "decide could not decide at all (the ends, the store, emulated runs): git bisect run stops.",
        ),
        (
            error::EXIT_INTERRUPTED,
            "Interrupted by Ctrl-C or SIGTERM; what finished was kept and every changed setting restored.",
        ),
    ];
    entries(
        &mut r,
        "EXIT STATUS",
        codes.map(|(c, w)| (c.to_string(), w)),
    );
    let vars: [(&str, &str); 5] = [
        ("KBENCH_DB", "The result store, as --db: a SQLite file or a postgres:// URL (an empty value is unset)."),
        ("XDG_DATA_HOME", "Without --db or KBENCH_DB the store is $XDG_DATA_HOME/kbench/results.db (an absolute path only), else ~/.local/share/kbench/results.db, else /var/lib/kbench/results.db."),
        ("KBENCH_MAX_STEAL_PCT, KBENCH_MAX_OUTSIDE_CPU_PCT, KBENCH_MAX_FREQ_SPREAD_PCT", "The limits above which a run is marked suspect (defaults 2, 5 and 10 %); the values in effect are stored with each run."),
        ("LAVA_TOKEN", "The LAVA server token for lava import --server: read from the environment only, so it stays out of the process list."),
        ("NO_COLOR, CLICOLOR_FORCE, TERM=dumb", "No colour when NO_COLOR is set or TERM is dumb; colour even into a pipe with CLICOLOR_FORCE."),
    ];
    entries(&mut r, "ENVIRONMENT", vars.map(|(n, w)| (n.to_string(), w)));
    r
}
