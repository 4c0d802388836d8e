//! Hostile command lines, generated: each case is a quick, harmless base
//! command (tiny durations, `--dry-run`, `--no-store`) with one to three of
//! that command's own flags (read from its `--help`) given hostile values
//! (overflowing, negative, not-a-number, empty, control characters,
//! unicode).  Every case must end by itself within 5 s, or at once on
//! Ctrl-C (a valid but long request, such as four billion loops, may run;
//! it must still stop when asked); never panic; refuse bad input with
//! exit 2 and one line; and leave no process and no temp file behind.
//! The parser half is `src/hostile_tests.rs`.

use crate::common::{marked, seeded, wait_for, Env};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::time::{Duration, Instant};

/// Quick, harmless commands to build on.
const BASES: &[&[&str]] = &[
    &["hackbench", "-l", "5", "--no-store"],
    &["cyclictest", "-D", "0.3", "--no-store", "-q"],
    &["schbench", "-r", "1", "-w", "0", "--no-store"],
    &["load", "cpu", "--duration", "0.3s", "--no-store"],
    &[
        "load",
        "mem",
        "--size",
        "16M",
        "--duration",
        "0.3s",
        "--no-store",
    ],
    &["responsiveness", "-t", "1", "--no-store"],
    &["coldwalk", "TREE_FIXTURE", "--no-drop", "--no-store"],
    &[
        "interbench",
        "-t",
        "1",
        "-W",
        "Audio",
        "-w",
        "None",
        "--no-store",
    ],
    &["job", "--job-cmd", "true", "--runs", "1", "--no-store"],
    &["run", "quick", "--dry-run"],
    &["contest", "--dry-run"],
    &[
        "matrix",
        "--knob",
        "autogroup=0,1",
        "--dry-run",
        "--",
        "hackbench",
        "-l",
        "5",
    ],
    &[
        "vm",
        "--kernel",
        "KERNEL_FIXTURE",
        "--aa",
        "--dry-run",
        "--",
        "hackbench",
        "-l",
        "5",
    ],
    &[
        "bisect",
        "--candidates",
        "a",
        "b",
        "--metric",
        "time:lower",
        "--dry-run",
    ],
    &["decide", "--good", "a", "--bad", "b", "--candidate", "c"],
    &["compare"],
    &["runs", "list"],
    &["import", "HACKBENCH_FIXTURE"],
    &["labels"],
    &["list", "metrics"],
    &["sysinfo"],
    &["presets"],
];

/// Flags never given hostile values: they would reach outside the test
/// (another store, the network, cgroups of the whole machine).
const LEFT_ALONE: &[&str] = &[
    "--db",
    "--to",
    "--from",
    "--isolate",
    "--after",
    "--help",
    "-h",
    "--version",
    "-V",
];

const VALUES: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1e20",
    "1e400",
    "NaN",
    "inf",
    "-inf",
    "18446744073709551616",
    "-9223372036854775809",
    "4294967296",
    "4294967394",
    "2147483648",
    "99999999999",
    "",
    " ",
    "abc",
    "1,2,,3",
    "0-",
    "3-1",
    "1024",
    "4096",
    "0x10",
    "1.5.5",
    "\u{202e}rtl",
    "a\x1b[31mred",
    "line\nbreak",
    "tab\there",
    "nul\u{7f}",
    "🦀",
    "../../../etc/passwd",
    "${(1/0)}",
    "%s%n",
    "-",
    "--",
    "1ms",
    "1d",
    "0s",
    "-5s",
    "1e-300",
];

/// A command's flags, from its `--help`.
fn flags_of(env: &Env, base: &[&str]) -> Vec<String> {
    let sub: Vec<&str> = base
        .iter()
        .take_while(|a| !a.starts_with('-'))
        .copied()
        .filter(|a| !a.contains('/') && !a.contains('_') && *a != "quick")
        .collect();
    let out = env.cmd().args(&sub).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let mut flags = Vec::new();
    for line in help.lines() {
        for word in line.split_whitespace().take(3) {
            let w = word.trim_end_matches(',');
            if w.starts_with('-') && w.len() > 1 && w.chars().nth(1) != Some(' ') {
                let f = w.split('=').next().unwrap().to_string();
                if !LEFT_ALONE.contains(&f.as_str()) && !flags.contains(&f) {
                    flags.push(f);
                }
            }
        }
    }
    flags
}

/// How one case ended.
enum Ending {
    Exited(std::process::Output),
    /// Still running at 5 s, then stopped by SIGINT in time.
    StoppedOnCtrlC,
    /// Panicked, or ignored Ctrl-C (what it printed, or why).
    Panicked(String),
}

fn run_case(env: &Env, argv: &[String], tmp: &std::path::Path, mark: &str) -> Ending {
    let (k, v) = mark.split_once('=').unwrap();
    let mut child = env
        .cmd()
        .args(argv)
        .env("TMPDIR", tmp)
        .env(k, v)
        // Files a case asks for (`--print-to " "`) land here, not in the
        // checkout.
        .current_dir(tmp.parent().unwrap().join("cwd"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Drain the pipes on threads so a chatty case cannot block.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut so, &mut b);
        b
    });
    let t_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut se, &mut b);
        b
    });
    let start = Instant::now();
    let mut interrupted = false;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        let t = start.elapsed();
        if !interrupted && t > Duration::from_secs(5) {
            send_signal(child.id(), "INT");
            interrupted = true;
        }
        if t > Duration::from_secs(12) {
            let _ = child.kill();
            let _ = child.wait();
            return Ending::Panicked("ignored Ctrl-C for 7 s".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = std::process::Output {
        status,
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
    };
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("panicked") || out.status.code() == Some(101) {
        return Ending::Panicked(err.into_owned());
    }
    if interrupted {
        return Ending::StoppedOnCtrlC;
    }
    Ending::Exited(out)
}

/// `kill -SIG PID`.
fn send_signal(pid: u32, sig: &str) {
    let _ = std::process::Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status();
}

#[test]
fn hostile_command_lines_end_cleanly() {
    let env = Env::new();
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::create_dir(env.dir.path().join("cwd")).unwrap();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/hackbench-3runs.txt"
    );
    let tree_dir = env.dir.path().join("tree");
    crate::common::put(&tree_dir, "a/b/c.txt", "x");
    let tree = tree_dir.to_str().unwrap();
    // A file with a bzImage's boot header, for `vm --dry-run`.
    let kernel_path = env.dir.path().join("vmlinuz-6.1.0-test");
    let mut image = vec![0u8; 0x1000];
    image[0x202..0x206].copy_from_slice(b"HdrS");
    image[0x20E..0x210].copy_from_slice(&0x600u16.to_le_bytes());
    image[0x800..0x820].copy_from_slice(b"6.1.0-test (x@y) #1 SMP PREEMPT ");
    std::fs::write(&kernel_path, image).unwrap();
    let kernel = kernel_path.to_str().unwrap();
    for b in crate::common::registered_benchmarks(&env) {
        assert!(
            BASES.iter().any(|base| base[0] == b),
            "{b} has no base command in the hostile table"
        );
    }
    let mark = format!("KBENCH_HOSTILE_MARK={}", std::process::id());
    let flags: Vec<Vec<String>> = BASES.iter().map(|b| flags_of(&env, b)).collect();
    for (b, f) in BASES.iter().zip(&flags) {
        assert!(!f.is_empty(), "no flags read from {b:?} --help");
    }
    let case = (0..BASES.len()).prop_flat_map(|i| {
        let n = flags[i].len();
        (
            Just(i),
            proptest::collection::vec(
                (0..n, proptest::sample::select(VALUES), any::<bool>()),
                1..4,
            ),
        )
    });
    const SUITE: &str = "command lines";
    let seed = seeded::seed();
    seeded::say(&format!(
        "hostile command lines: seed {seed} (KBENCH_TEST_SEED to change, KBENCH_TEST_CASES to multiply the cases)"
    ));
    let mut runner = seeded::runner(SUITE, seed);
    // Saved failures first (as they were generated: the fixture's path is
    // a placeholder), then this seed's cases.
    let saved: Vec<Vec<String>> = seeded::saved(SUITE)
        .into_iter()
        .map(|v| serde_json::from_value(v).expect("a saved command line is a list of words"))
        .collect();
    let generated = seeded::cases(300);
    let cases = saved.len() + generated as usize;
    let mut argvs = saved.into_iter();
    let (mut refused, mut ran, mut ctrl_c) = (0, 0, 0);
    let mut failures: Vec<String> = Vec::new();
    for k in 0..cases {
        let template = argvs.next().unwrap_or_else(|| {
            let (i, picks) = case.new_tree(&mut runner).unwrap().current();
            let mut argv: Vec<String> = BASES[i].iter().map(|a| a.to_string()).collect();
            // Flags go before a matrix's `--`, after everything else.
            let at = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
            for (f, value, glued) in picks {
                let flag = &flags[i][f];
                let words = if glued && flag.starts_with("--") {
                    vec![format!("{flag}={value}")]
                } else {
                    vec![flag.clone(), value.to_string()]
                };
                for (k, w) in words.into_iter().enumerate() {
                    argv.insert(at + k, w);
                }
            }
            argv
        });
        let argv: Vec<String> = template
            .iter()
            .map(|a| {
                a.replace("HACKBENCH_FIXTURE", fixture)
                    .replace("TREE_FIXTURE", tree)
                    .replace("KERNEL_FIXTURE", kernel)
            })
            .collect();
        let failed = match run_case(&env, &argv, &tmp, &mark) {
            Ending::StoppedOnCtrlC => {
                ctrl_c += 1;
                None
            }
            Ending::Exited(out) => {
                let err = String::from_utf8_lossy(&out.stderr);
                match out.status.code() {
                    Some(0) => {
                        ran += 1;
                        None
                    }
                    Some(2) => {
                        refused += 1;
                        let lines: Vec<&str> = err.trim_end().lines().collect();
                        (lines.len() != 1
                            || !lines[0].starts_with("kbench: ")
                            || lines[0].chars().any(|c| c.is_control()))
                        .then(|| format!("not one clean line: {err:?}"))
                    }
                    code => {
                        refused += 1;
                        err.trim()
                            .is_empty()
                            .then(|| format!("exit {code:?} said nothing"))
                    }
                }
            }
            Ending::Panicked(err) => Some(format!("panicked: {err}")),
        };
        if let Some(why) = failed {
            let kept = seeded::save(SUITE, &serde_json::json!(template));
            failures.push(format!(
                "case {k} of seed {seed} (KBENCH_TEST_SEED={seed} replays it): kbench {argv:?}: {why}; {kept}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        wait_for(10, || marked(&mark).is_empty()),
        "processes left behind: {:?}",
        marked(&mark)
    );
    assert!(
        wait_for(10, || std::fs::read_dir(&tmp).unwrap().next().is_none()),
        "temp files left: {:?}",
        std::fs::read_dir(&tmp)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect::<Vec<_>>()
    );
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!(
            "hostile command lines: {cases} cases, seed {seed} ({refused} refused, {ran} ran, {ctrl_c} stopped by Ctrl-C), no panic, nothing left behind\n"
        )
        .as_bytes(),
    );
}
