//! Experiments, not anecdotes: comparisons run as designed experiments.
//!
//! A machine drifts (15-30 % between batches on a shared VM), so running
//! one setting three times and then the other three times confounds the
//! setting with time.  [`matrix`] interleaves the settings of runtime knobs
//! within one boot, in blocked and randomised order (every round visits each
//! combination once, in a fresh seeded order), so drift falls on every
//! setting alike.  [`campaign`] does the same across reboots for what needs
//! one (kernels, boot parameters), and the comparison then takes the boot
//! as its unit, because runs within one boot are not independent of it.
//!
//! Both run kbench commands as child processes, tagged through
//! [`ENV`]: each run records the experiment, its round and position in its
//! settings, and the knob values read back from the kernel in its
//! fingerprint.

pub mod campaign;
pub mod knob;
pub mod matrix;
pub mod order;
pub mod restore;

use crate::store::RunRecord;

/// The experiment a stored run belongs to: (kind, id), if any.
pub fn of(r: &RunRecord) -> Option<(&str, &str)> {
    let e = r.settings.get("experiment")?;
    Some((e.get("kind")?.as_str()?, e.get("id")?.as_str()?))
}

pub use crate::fingerprint::identity::{identity, Identity};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap::SplitMix;

    /// Knob and boot specs and whole `matrix`/`campaign`/`interbench` command lines
    /// made of hostile pieces: every one parses or is refused, none panics.
    #[test]
    fn generated_specs_and_command_lines_never_panic() {
        let vocab = [
            "autogroup",
            "thp",
            "preempt",
            "governor",
            "rt_runtime",
            "kernel.",
            "sched_",
            ".",
            "=",
            ",",
            ";",
            "/",
            "..",
            "/proc/sys/",
            "/sys/",
            "/sys/kernel/debug/",
            "\0",
            "\n",
            "é",
            "[",
            "]",
            "(",
            ")",
            "release=",
            "cmdline=",
            "entry=",
            " ",
            "0",
            "1",
            "-1",
            "99999999999999999999",
            "always",
            "never",
            "'",
            "\"",
            "$(",
            "%",
            "{entry}",
        ];
        let flags = [
            "matrix",
            "campaign",
            "init",
            "step",
            "status",
            "install-service",
            "--knob",
            "--rounds",
            "auto",
            "auto:2",
            "auto:0",
            "--seed",
            "-1",
            "--metric",
            "--alpha",
            "2",
            "--threshold",
            "--dry-run",
            "--",
            "hackbench",
            "run",
            "quick",
            "--boot",
            "--order",
            "random",
            "--reboot",
            "--scenario",
            "--unit-dir",
            "--label",
            "x",
            "autogroup=0,1",
        ];
        let mut rng = SplitMix(0x6b62);
        let mut pick = |n: usize| (rng.next_u64() % n as u64) as usize;
        for _ in 0..4000 {
            let len = pick(9);
            let s: String = (0..len).map(|_| vocab[pick(vocab.len())]).collect();
            let _ = knob::parse(&s);
            let _ = campaign::parse_boot(&s);
            let len = pick(10);
            let mut argv = vec!["kbench".to_string()];
            argv.extend((0..len).map(|_| {
                if pick(4) == 0 {
                    vocab[pick(vocab.len())].to_string()
                } else {
                    flags[pick(flags.len())].to_string()
                }
            }));
            if let Ok(cli) = <crate::cli::Cli as clap::Parser>::try_parse_from(&argv) {
                match cli.command {
                    crate::cli::Command::Matrix(m) => {
                        let _ = matrix::check_command(&m.command);
                    }
                    crate::cli::Command::Bench(b) if b.name == "interbench" => {
                        if let Ok(a) = crate::lifecycle::entry::args::<
                            crate::benchmarks::interbench::args::InterbenchArgs,
                        >(&b.matches)
                        {
                            let _ = crate::benchmarks::interbench::options(&a);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}
