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

pub fn man() -> Result<()> {
    let cmd = crate::cli::command();
    clap_mangen::Man::new(cmd).render(&mut std::io::stdout())?;
    Ok(())
}
