//! Examples for every subcommand's `--help`, in one table.
//!
//! Benchmarks are registered at run time (their flags are their own), so
//! their examples cannot sit in a derive attribute beside them; keeping
//! every command's here, applied to the built command tree
//! ([`with_examples`]), means one place to read and one test that each
//! line still parses as the command line does (a renamed flag breaks it).

/// (subcommand path, example lines), each line a whole command.
pub const EXAMPLES: &[(&str, &[&str])] = &[
    ("sysinfo", &["kbench sysinfo", "kbench --json sysinfo"]),
    (
        "hackbench",
        &[
            "kbench --label stock hackbench --groups 10 --loops 1000 --runs 10",
            "kbench --label stock hackbench --pipe --threads --runs auto",
            "kbench --label xanmod hackbench --runs 10 --against stock",
        ],
    ),
    (
        "cyclictest",
        &[
            "kbench --label rt cyclictest --priority 98 --interval 1000 --duration 60s --runs 3",
            "kbench --label rt cyclictest --smp --histogram 400 --isolate",
        ],
    ),
    (
        "responsiveness",
        &["kbench --label stock responsiveness --runs 5"],
    ),
    (
        "coldwalk",
        &["kbench --label stock coldwalk /usr --runs 5"],
    ),
    (
        "job",
        &["kbench --label stock job --job-cmd 'make -j2' --job-dir /usr/src/linux --runs 3"],
    ),
    (
        "load",
        &["kbench load process --duration 30s", "kbench load io --size 1G"],
    ),
    (
        "contest",
        &[
            "kbench --label stock contest --loads process,io --runs 3",
            "kbench contest --show",
        ],
    ),
    (
        "schbench",
        &["kbench --label stock schbench --message-threads 2 --threads 4 --runtime 30 --runs 5"],
    ),
    ("interbench", &["kbench --label stock interbench --time 10"]),
    (
        "compare",
        &[
            "kbench compare",
            "kbench --label stock --label xanmod compare --format markdown",
            "kbench compare --format html --output report.html",
            "kbench compare --format html --bundle --output report.html",
            "kbench compare --fail-on worse",
        ],
    ),
    (
        "import",
        &[
            "kbench --label stock import --format hackbench hackbench.log",
            "kbench import --format csv results.csv",
            "kbench --db check.db import --format report report.html",
        ],
    ),
    (
        "run",
        &[
            "kbench run quick",
            "kbench --label xanmod run xanmod-clear-2023 --scale 0.05",
            "kbench run my-scenario.toml --var rounds=5",
        ],
    ),
    (
        "presets",
        &["kbench presets list", "kbench presets show quick"],
    ),
    ("presets list", &["kbench presets list"]),
    ("presets show", &["kbench presets show quick"]),
    (
        "push",
        &["kbench push --to postgres://kbench@db.example/kbench"],
    ),
    (
        "pull",
        &["kbench pull --from postgres://kbench@db.example/kbench --since 2026-11-01"],
    ),
    (
        "runs",
        &[
            "kbench runs list --last 20",
            "kbench runs show 42",
            "kbench runs delete 41 42",
        ],
    ),
    (
        "runs list",
        &["kbench runs list --last 20", "kbench --label xanmod runs list"],
    ),
    ("runs show", &["kbench runs show 42", "kbench --json runs show 42"]),
    ("runs trace", &["kbench runs trace 42 --output worst.txt"]),
    ("runs delete", &["kbench runs delete 41 42"]),
    ("labels", &["kbench labels", "kbench --json labels"]),
    (
        "list",
        &[
            "kbench list",
            "kbench list metrics cyclictest",
            "kbench list loads",
        ],
    ),
    (
        "completions",
        &["kbench completions bash > /etc/bash_completion.d/kbench"],
    ),
    ("man", &["kbench man > kbench.1"]),
    (
        "campaign",
        &[
            "kbench campaign init cmp --boot stock=release=6.1.0-28-amd64 --boot rt=release=6.1.0-28-rt-amd64 --reboot kexec -- hackbench --runs 5",
            "kbench campaign install-service cmp",
            "kbench campaign status cmp",
        ],
    ),
    (
        "campaign init",
        &[
            "kbench campaign init cmp --boot stock=release=6.1.0-28-amd64 --boot rt=release=6.1.0-28-rt-amd64 --reboot kexec -- hackbench --runs 5",
            "kbench campaign init aa --aa --rounds 4 --boot a=release=6.1.0-28-amd64 --boot b=release=6.1.0-28-amd64,cmdline=mitigations=off --scenario quick",
        ],
    ),
    (
        "campaign step",
        &["kbench campaign step cmp", "kbench campaign step cmp --no-reboot"],
    ),
    ("campaign abort", &["kbench campaign abort cmp"]),
    (
        "campaign status",
        &["kbench campaign status", "kbench campaign status cmp"],
    ),
    (
        "campaign install-service",
        &["kbench campaign install-service cmp"],
    ),
    (
        "export",
        &["kbench export kcidb --output kcidb.json"],
    ),
    (
        "export kcidb",
        &[
            "kbench export kcidb --output kcidb.json",
            "kbench --label stock --label rt export kcidb",
        ],
    ),
    (
        "lava",
        &[
            "kbench lava job --kernel vmlinuz-6.1.0-50-amd64=std --kernel vmlinuz-6.1.0-50-rt-amd64=rt --rootfs rootfs.img --output jobs -- cyclictest --duration 60s",
            "kbench lava import jobs/*.log --device qemu01",
        ],
    ),
    (
        "lava job",
        &["kbench lava job --kernel vmlinuz-6.1.0-50-amd64=std --kernel vmlinuz-6.1.0-50-rt-amd64=rt --rootfs rootfs.img --boots 3 --output jobs -- cyclictest --duration 60s"],
    ),
    (
        "lava test",
        &["kbench lava test --plan lava-1a2b3c --boot 3 -- cyclictest --duration 60s"],
    ),
    (
        "lava import",
        &["kbench lava import jobs/*.log --device qemu01"],
    ),
    ("restore", &["kbench restore"]),
];

/// The command tree with each subcommand's examples at the head of its
/// after-help (before the block of flags every measuring run shares);
/// a command whose own help already gives examples keeps them.
pub fn with_examples(cmd: clap::Command) -> clap::Command {
    add(cmd, "")
}

fn add(cmd: clap::Command, path: &str) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    names.into_iter().fold(cmd, |c, name| {
        let here = if path.is_empty() {
            name.clone()
        } else {
            format!("{path} {name}")
        };
        c.mut_subcommand(&name, |s| {
            let s = add(s, &here);
            match EXAMPLES.iter().find(|(p, _)| *p == here) {
                Some((_, lines)) => {
                    let old = s.get_after_help().map(|h| h.to_string());
                    if old.as_deref().is_some_and(|h| h.contains("Examples")) {
                        return s;
                    }
                    let block = format!("Examples:\n  {}", lines.join("\n  "));
                    s.after_help(
                        crate::session::global::with_block(Some(block), &old.unwrap_or_default())
                            .trim_end()
                            .to_string(),
                    )
                }
                None => s,
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand a person can call, by path.
    fn visible(cmd: &clap::Command, path: &str, out: &mut Vec<(String, String)>) {
        for s in cmd.get_subcommands() {
            if s.is_hide_set() || s.get_name() == "help" {
                continue;
            }
            let here = format!("{path} {}", s.get_name()).trim().to_string();
            let mut s = s.clone();
            out.push((here.clone(), s.render_long_help().to_string()));
            visible(&s, &here, out);
        }
    }

    #[test]
    fn every_subcommand_shows_examples() {
        let mut all = Vec::new();
        visible(&super::super::command(), "", &mut all);
        assert!(all.len() > 30, "{}", all.len());
        let missing: Vec<&str> = all
            .iter()
            .filter(|(_, help)| !help.contains("Examples"))
            .map(|(p, _)| p.as_str())
            .collect();
        assert!(missing.is_empty(), "no examples in: {missing:?}");
    }

    /// Each example is a command line kbench accepts (up to a shell
    /// redirect): a flag renamed or a value no longer taken fails here.
    #[test]
    fn every_example_parses() {
        for (path, lines) in EXAMPLES {
            for line in *lines {
                let words = shlex::split(line).unwrap_or_else(|| panic!("{path}: {line}"));
                let args: Vec<String> = words
                    .into_iter()
                    .take_while(|w| w != ">" && w != "|")
                    .collect();
                assert_eq!(args[0], "kbench", "{line}");
                if let Err(e) = super::super::command().try_get_matches_from(&args) {
                    panic!("{path}: `{line}` does not parse: {e}");
                }
            }
        }
    }
}
