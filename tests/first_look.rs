//! The README's first look, walked as a newcomer would: its code block's
//! commands run as written (without `sudo`, the suite at a twentieth of
//! its length) on a fresh store, and the comparison ends in a verdict on
//! every row; the mistakes a newcomer makes next get one line each, with
//! the fix.

use crate::common::Env;

/// The commands of the README block that follows "## A first look".
fn first_look_commands() -> Vec<Vec<String>> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = readme
        .split("## A first look")
        .nth(1)
        .expect("the README has its first look");
    let block = section
        .split("```sh")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    block
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            shlex::split(l)
                .unwrap()
                .into_iter()
                .skip_while(|w| w == "sudo")
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_readme_first_look_ends_in_a_verdict_on_every_row() {
    let cmds = first_look_commands();
    assert_eq!(cmds.len(), 3, "{cmds:?}");
    let env = Env::new();
    let mut said = Vec::new();
    for c in &cmds {
        assert_eq!(c[0], "kbench", "{c:?}");
        let mut args: Vec<&str> = c[1..].iter().map(String::as_str).collect();
        if args[0] == "run" {
            args.extend(["--scale", "0.05"]);
        }
        let o = env.run(&args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{c:?}: {err}");
        said.push((String::from_utf8_lossy(&o.stdout).into_owned(), err));
    }
    // Each run names its next step with its own label: the first the
    // other side, the second the very compare the README types next.
    let next = |i: usize| said[i].1.lines().last().unwrap_or("").to_string();
    assert!(
        said[0].1.contains("next: boot the other kernel")
            && next(0).ends_with("--label B && kbench compare --label stock --label B"),
        "{}",
        said[0].1
    );
    assert_eq!(next(1), format!("next: {}", cmds[2].join(" ")));
    let report = &said[2].0;
    // The scoreboard's tally (the scheduling section's counters, some in
    // only some runs, are the explanation, not the answer).
    let tally = report
        .lines()
        .find(|l| l.contains("(Holm, alpha"))
        .unwrap_or_else(|| panic!("no tally: {report}"));
    assert!(!tally.contains("too few runs"), "{tally}");
    let verdicts = ["better", "worse", "equivalent", "inconclusive", "different"];
    let rows = report
        .lines()
        .skip_while(|l| !l.starts_with("Scoreboard"))
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("Notes"))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .collect::<Vec<_>>();
    assert!(rows.len() >= 10, "{report}");
    for r in rows {
        assert!(
            verdicts.iter().any(|v| r.trim_end().ends_with(v)),
            "a row without a verdict: {r}"
        );
    }
}

/// A compare with nothing to compare, a metric no run has, a typo and a
/// command given to a matrix without `--`: each one line naming the fix,
/// exit 2.
#[test]
fn a_newcomers_mistakes_get_one_line_with_the_fix() {
    let env = Env::new();
    let small_hackbench = |label: &str| {
        env.ok(&[
            "--label",
            label,
            "hackbench",
            "-g",
            "1",
            "-f",
            "2",
            "-l",
            "10",
        ]);
    };
    small_hackbench("a");
    let cases: [(&[&str], &str); 6] = [
        (&["compare", "--label", "a"], "give a second --label"),
        (&["compare", "--label", "a", "--label", "a2", "--metric", "nosuch"], "no complete runs for label 'a2'"),
        (&["runn", "quick"], "tip: some similar subcommands exist: 'runs', 'run'"),
        (&["hackbench", "--group", "2"], "tip: a similar argument exists: '--groups'"),
        (&["compare", "--html"], "--format html"),
        (
            &["matrix", "--knob", "autogroup=0,1", "hackbench", "-g", "2"],
            "put `--` before the command it runs: kbench matrix --knob autogroup=0,1 -- hackbench -g 2",
        ),
    ];
    for (args, fix) in cases {
        let err = env.fails(args, 2);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(fix), "{args:?}: {err}");
    }
    small_hackbench("b");
    let err = env.fails(
        &[
            "compare", "--label", "a", "--label", "b", "--metric", "nosuch",
        ],
        2,
    );
    assert!(
        err.contains("no run of a, b has metric nosuch: these runs have"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}
