//! What a person reads, read on a real pseudo-terminal: colours sent as
//! escapes (never spelled out as `\x1b` text), none in a pipe, with
//! `NO_COLOR` or `--color never`; lines within the terminal's width;
//! progress bars that leave no trace once done.

use crate::common::pty::{self, Screen};
use crate::common::Env;

/// Two labels of testbench runs that differ: b's figure is 20 % higher,
/// and lower is better, so b is worse.
fn store() -> Env {
    let env = Env::new();
    for (label, values) in [
        ("a", [10.0, 10.1, 9.9, 10.05, 9.95]),
        ("b", [12.0, 12.1, 11.9, 12.05, 11.95]),
    ] {
        for v in values {
            env.ok(&["--label", label, "testbench", "--value", &v.to_string()]);
        }
    }
    env
}

fn on_terminal(env: &Env, args: &[&str], cols: u16, extra_env: &[(&str, &str)]) -> Screen {
    let mut c = env.cmd();
    c.args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    for (k, v) in extra_env {
        c.env(k, v);
    }
    pty::run(c, cols)
}

fn widest(s: &Screen) -> usize {
    s.lines()
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
}

#[test]
fn compare_on_a_terminal_is_coloured_and_fits() {
    let env = store();
    for cols in [80u16, 120] {
        let s = on_terminal(
            &env,
            &["compare", "--label", "a", "--label", "b"],
            cols,
            &[],
        );
        assert_eq!(s.code, 0, "{}", s.bytes);
        assert!(s.coloured(), "no colour on a terminal:\n{}", s.bytes);
        assert!(!s.escapes_as_text(), "escapes shown as text:\n{}", s.bytes);
        assert!(
            s.bytes.contains("\x1b[31mworse\x1b[0m"),
            "the verdict painted red: {:?}",
            s.bytes
        );
        assert!(
            widest(&s) <= cols as usize,
            "a line wider than {cols} columns:\n{}",
            s.plain()
        );
    }
}

#[test]
fn no_colour_when_asked_or_not_a_terminal() {
    let env = store();
    let args = ["compare", "--label", "a", "--label", "b"];
    let s = on_terminal(&env, &args, 100, &[("NO_COLOR", "1")]);
    assert_eq!(s.code, 0);
    assert!(!s.bytes.contains('\x1b'), "NO_COLOR: {:?}", s.bytes);
    assert!(s.plain().contains("worse"));
    let mut never = args.to_vec();
    never.extend(["--color", "never"]);
    let s = on_terminal(&env, &never, 100, &[]);
    assert!(!s.bytes.contains('\x1b'), "--color never: {:?}", s.bytes);
    // A pipe: plain text, unless asked for.
    let piped = env.ok(&args);
    assert!(
        !piped.contains('\x1b') && !piped.contains("\\x1b"),
        "{piped}"
    );
    let mut always = args.to_vec();
    always.extend(["--color", "always"]);
    let forced = env.ok(&always);
    assert!(forced.contains("\x1b[31mworse\x1b[0m"), "{forced:?}");
    // Without its escapes, the painted report is the plain one.
    assert_eq!(pty::strip_sgr(&forced), piped);
    // A bad value is one line and exit 2.
    let err = env.fails(&["compare", "--color", "sometimes"], 2);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn runs_list_paints_its_status_column() {
    let env = store();
    env.fails(&["--label", "c", "testbench", "--fail-at", "1"], 1);
    let s = on_terminal(&env, &["runs", "list"], 120, &[]);
    assert_eq!(s.code, 0, "{}", s.bytes);
    assert!(s.bytes.contains("\x1b[32mcomplete\x1b[0m"), "{:?}", s.bytes);
    assert!(s.bytes.contains("\x1b[31mfailed\x1b[0m"), "{:?}", s.bytes);
    assert!(!s.escapes_as_text());
    assert!(widest(&s) <= 120, "{}", s.plain());
}

/// A scenario's progress bar is drawn on the terminal and cleared when the
/// scenario ends: the lines left are the results, no bar among them.
#[test]
fn a_scenario_progress_bar_ends_cleanly() {
    let env = Env::new();
    let file = env.dir.path().join("two.toml");
    std::fs::write(
        &file,
        "name = \"two\"\nruns = 2\n[[phase]]\nname = \"one\"\n[[phase.task]]\nkind = \"testbench\"\nargs = { seconds = 0.4 }\n[[phase]]\nname = \"two\"\n[[phase.task]]\nkind = \"testbench\"\nargs = { seconds = 0.4, value = 2 }\n",
    )
    .unwrap();
    let s = on_terminal(&env, &["run", file.to_str().unwrap()], 100, &[]);
    assert_eq!(s.code, 0, "{}", s.bytes);
    assert!(!s.escapes_as_text(), "{}", s.bytes);
    assert!(
        s.bytes.contains("phases,"),
        "no progress bar was drawn: {}",
        s.bytes
    );
    let lines = s.lines();
    assert!(
        lines.iter().all(|l| !l.contains("phases,")),
        "a progress bar left on screen: {lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("runs stored")),
        "{lines:#?}"
    );
    assert!(widest(&s) <= 100, "{}", s.plain());
}

/// What the experiments print on a terminal: a matrix's progress and
/// closing report, `track`'s series and `campaign status`, at 80 and 120
/// columns: no escape spelled out, no line wider than the terminal, and
/// the campaign's state painted.
#[test]
fn matrix_track_and_campaign_status_fit_a_terminal() {
    let env = store();
    for cols in [80u16, 120] {
        let s = on_terminal(
            &env,
            &[
                "matrix",
                "--vary",
                "value=1,2",
                "--rounds",
                "2",
                "--seed",
                "3",
                "--",
                "testbench",
                "--seconds",
                "0.05",
            ],
            cols,
            &[],
        );
        assert_eq!(s.code, 0, "{}", s.bytes);
        assert!(!s.escapes_as_text(), "{}", s.bytes);
        assert!(s.plain().contains("round 2/2"), "{}", s.plain());
        assert!(
            widest(&s) <= cols as usize,
            "matrix at {cols}:\n{}",
            s.plain()
        );
        let s = on_terminal(&env, &["--label", "a", "--label", "b", "track"], cols, &[]);
        assert!(!s.escapes_as_text(), "{}", s.bytes);
        assert!(
            widest(&s) <= cols as usize,
            "track at {cols}:\n{}",
            s.plain()
        );
    }
    env.campaign("t", &[], "true", &["testbench"]);
    let step = env
        .cmd()
        .args(["campaign", "step", "t"])
        .env(
            "KBENCH_TEST_IDENTITY",
            r#"{"release":"test-b","cmdline":"","boot_id":"b1"}"#,
        )
        .output()
        .unwrap();
    assert_eq!(step.status.code(), Some(1), "a wrong boot pauses");
    for cols in [80u16, 120] {
        let s = on_terminal(&env, &["campaign", "status", "t"], cols, &[]);
        assert_eq!(s.code, 0, "{}", s.bytes);
        assert!(s.coloured(), "{:?}", s.bytes);
        assert!(!s.escapes_as_text(), "{}", s.bytes);
        assert!(s.plain().contains("paused"), "{}", s.plain());
        assert!(
            widest(&s) <= cols as usize,
            "campaign status at {cols}:\n{}",
            s.plain()
        );
    }
}

/// Each command's help lists what it reads: the flags of a measuring run
/// are in one block under the benchmarks', `run`'s and (--isolate) `vm`'s
/// help, and under no other command's (`campaign init --help` listed
/// --precision, --against, --isolate and --time-budget); they are still
/// taken where given.
#[test]
fn help_fits_the_command() {
    let env = Env::new();
    let help = |args: &[&str]| {
        let mut a = args.to_vec();
        a.push("--help");
        env.ok(&a)
    };
    let measuring = ["--precision", "--against", "--isolate", "--time-budget"];
    for args in [
        &["campaign", "init"][..],
        &["compare"],
        &["runs", "list"],
        &["track"],
        &["labels"],
    ] {
        let h = help(args);
        for f in measuring {
            assert!(!h.contains(f), "{args:?} --help lists {f}:\n{h}");
        }
    }
    for args in [&["hackbench"][..], &["cyclictest"], &["run"]] {
        let h = help(args);
        assert!(h.contains("Options of a measuring run:"), "{args:?}:\n{h}");
        for f in measuring {
            assert!(h.contains(f), "{args:?} --help lacks {f}");
        }
    }
    let h = help(&["vm"]);
    assert!(h.contains("--isolate") && !h.contains("--precision"), "{h}");
    // The options every command takes are one block of their own, after
    // the command's.
    for args in [&["labels"][..], &["compare"], &["hackbench"]] {
        let h = help(args);
        let (own, global) = (h.find("Options:").unwrap(), h.find("Global options:"));
        assert!(global.is_some_and(|g| g > own), "{args:?}:\n{h}");
        let own_block = &h[own..global.unwrap()];
        assert!(!own_block.contains("--db "), "{args:?}:\n{h}");
    }
    env.ok(&["testbench", "--precision", "5", "--no-store"]);
}
