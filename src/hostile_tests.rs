//! Hostile input, generated: every parser kbench has is fed inputs made
//! by proptest (random text, and text built from each format's own
//! vocabulary so the cases reach past the first check), and must return
//! within 5 s without panicking, and refuse with a message.  The suite
//! prints its seed and how many cases it ran (past the test harness's
//! capture, so CI logs show them); cases come from that seed, failures are
//! kept in `tests/regressions/` and replayed first (`seeded`).  The
//! command-line half is `tests/hostile.rs`.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

#[path = "../tests/common/seeded.rs"]
mod seeded;

/// Cases per parser (times `KBENCH_TEST_CASES` for a soak).
const CASES: u32 = 600;

static TOTAL: AtomicUsize = AtomicUsize::new(0);

/// Run `f` on a thread; an error says whether it panicked (with the
/// panic's message) or took over 5 s.
fn within_5s(f: impl FnOnce() + Send + 'static) -> Result<(), String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let h = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(5)) {
        Ok(()) => {
            let _ = h.join();
            Ok(())
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err("no answer within 5 s".into()),
        Err(_) => {
            let why = match h.join() {
                Err(p) => p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default(),
                Ok(()) => String::new(),
            };
            Err(format!("panicked: {why}"))
        }
    }
}

/// An error must say something (main prints it as one line, escaping
/// what it quotes: `tests/hostile.rs` checks that end to end).
fn one_line(what: &str, input: &str, msg: &str) {
    assert!(
        !msg.trim().is_empty(),
        "{what}: an empty error for {input:?}"
    );
}

/// Text made of `words` and random pieces: closer to the format than
/// pure noise, so parsers get past their first line.
fn text_of(words: &'static [&'static str]) -> BoxedStrategy<String> {
    let piece = prop_oneof![
        4 => proptest::sample::select(words).prop_map(str::to_string),
        1 => "[ -~]{0,12}",
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_map(|n| n.to_string()),
        1 => "\\PC{0,6}",
        1 => Just("\n".to_string()),
    ];
    proptest::collection::vec(piece, 0..40)
        .prop_map(|v| v.concat())
        .boxed()
}

/// Either vocabulary text or plain random text.
fn hostile(words: &'static [&'static str]) -> BoxedStrategy<String> {
    prop_oneof![3 => text_of(words), 1 => "\\PC{0,200}", 1 => any::<String>()].boxed()
}

/// How a case of one suite is kept in its regression file.
struct Codec<T> {
    encode: fn(&T) -> serde_json::Value,
    decode: fn(&serde_json::Value) -> Option<T>,
}

fn text_codec() -> Codec<String> {
    Codec {
        encode: |s| serde_json::Value::String(s.clone()),
        decode: |v| v.as_str().map(str::to_string),
    }
}

/// Run `check` on every saved case of suite `name`, then on `cases`
/// inputs generated from the printed seed; a case that panics or hangs is
/// saved as a regression case and fails the test with the seed that
/// replays it.
fn property<T: Send + 'static>(
    name: &str,
    strategy: impl Strategy<Value = T>,
    cases: u32,
    codec: Codec<T>,
    check: impl Fn(T) + Send + Sync + Clone + 'static,
) {
    let seed = seeded::seed();
    for saved in seeded::saved(name) {
        let input = (codec.decode)(&saved)
            .unwrap_or_else(|| panic!("{name}: a saved case does not decode: {saved}"));
        let c = check.clone();
        if let Err(why) = within_5s(move || c(input)) {
            panic!("{name}: saved regression case {saved} {why}");
        }
        TOTAL.fetch_add(1, Relaxed);
    }
    let mut runner = seeded::runner(name, seed);
    for k in 0..seeded::cases(cases) {
        let input = strategy
            .new_tree(&mut runner)
            .expect("a generated case")
            .current();
        let shown = (codec.encode)(&input);
        let c = check.clone();
        if let Err(why) = within_5s(move || c(input)) {
            let kept = seeded::save(name, &shown);
            panic!("{name}: case {k} of seed {seed} (KBENCH_TEST_SEED={seed} replays it) {why}; input {shown}; {kept}");
        }
        TOTAL.fetch_add(1, Relaxed);
    }
}

/// A `Result<_, String>` parser: no panic, no hang, one-line errors.
fn string_parser<T: 'static>(
    name: &'static str,
    words: &'static [&'static str],
    f: fn(&str) -> Result<T, String>,
) {
    property(name, hostile(words), CASES, text_codec(), move |s| {
        if let Err(e) = f(&s) {
            one_line(name, &s, &e);
        }
    });
}

/// An `anyhow::Result` parser: as above, with the chain as one line.
fn anyhow_parser<T: 'static>(
    name: &'static str,
    words: &'static [&'static str],
    f: fn(&str) -> anyhow::Result<T>,
) {
    property(name, hostile(words), CASES, text_codec(), move |s| {
        if let Err(e) = f(&s) {
            one_line(name, &s, &format!("{e:#}"));
        }
    });
}

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "1e20",
    "1e400",
    "NaN",
    "inf",
    "-inf",
    "18446744073709551616",
    "4294967296",
    "9223372036854775808",
    "0.5",
    ".",
    "e",
    "",
    " ",
];
const DURATION: &[&str] = &[
    "s", "ms", "us", "m", "h", "d", "1", "0", "2.5", "1e20", "-", "NaN", " ",
];
const SIZE: &[&str] = &[
    "K", "M", "G", "T", "P", "E", "k", "m", "g", "1", "0", "1023", "1.5", "-", "i", "B",
];
const CPUS: &[&str] = &[
    "0",
    "1",
    "-",
    ",",
    "1023",
    "1024",
    "4096",
    "99999999999999999999",
    "2-1",
    " ",
    "all",
    "^",
];
const EXPR: &[&str] = &[
    "${", "}", "(", ")", "+", "-", "*", "/", "%", "cpus", "mem_gb", "scale", "1", "0", "1e308",
    ".", "max(", "min(", ",", " ", "$", "{", "nproc", "half", "x",
];
const TOML: &[&str] = &[
    "name = \"t\"\n",
    "[[phase]]\n",
    "name = \"p\"\n",
    "[[phase.task]]\n",
    "kind = \"hackbench\"\n",
    "kind = \"cyclictest\"\n",
    "kind = \"load\"\n",
    "role = \"background\"\n",
    "cpus = \"0\"\n",
    "priority = 4294967394\n",
    "nice = -21\n",
    "settle = \"1e20\"\n",
    "repeat = 0\n",
    "repeat = -1\n",
    "args = { groups = \"${cpus}\" }\n",
    "args = { duration = \"${(1/0)}\" }\n",
    "isolate = true\n",
    "[vars]\n",
    "x = \"${x}\"\n",
    "policy = \"fifo\"\n",
    "scale = 1e300\n",
    "=",
    "\"",
    "[",
    "]",
];
const HACKBENCH: &[&str] = &[
    "Running in process mode with 10 groups using 40 file descriptors each (== 400 tasks)\n",
    "Each sender will pass 100 messages of 100 bytes\n",
    "Time: ",
    "0.5",
    "\n",
    "Time: -1\n",
    "Time: NaN\n",
    "Running in threaded mode with ",
    "groups",
];
const CYCLICTEST: &[&str] = &[
    "T: 0 ( 1234) P:98 I:1000 C: 1000 Min: 1 Act: 2 Avg: 3 Max: 4\n",
    "T:",
    "P:",
    "I:",
    "C:",
    "Min:",
    "Act:",
    "Avg:",
    "Max:",
    "# Histogram\n",
    "000000 000001\t000002\n",
    "# Min Latencies:",
    "# Max Latencies:",
    "# Total:",
    "# Histogram Overflows:",
    "\t",
    "99999999999999999999",
    "-5",
];
const JSON: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"thread\"",
    "\"histogram\"",
    "\"0\"",
    ":",
    ",",
    "\"min\"",
    "\"max\"",
    "\"avg\"",
    "\"cycles\"",
    "1e999",
    "-1",
    "null",
    "true",
    "\"inversion\"",
    "\"num_threads\"",
];
const CSV: &[&str] = &[
    "label,benchmark,metric,value,unit,better\n",
    "a,b,c,1,ms,lower\n",
    ",",
    "\n",
    "\"",
    "NaN",
    "inf",
    "higher",
    "lower",
    "#",
    "\u{feff}",
    "s",
    "ops/s",
    "1e400",
    "-0",
];
const CONFIG: &[&str] = &[
    "CONFIG_PREEMPT=y\n",
    "CONFIG_HZ=250\n",
    "# CONFIG_X is not set\n",
    "=",
    "\"",
    "CONFIG_",
    "\n",
    "y",
    "m",
];
const PROC: &[&str] = &[
    "cpu ",
    "cpu0 ",
    "1 ",
    "2 ",
    "18446744073709551615 ",
    "\n",
    "some avg10=0.00 avg60=0.00 avg300=0.00 total=",
    "full ",
    "oom_kill ",
    "123",
    "(",
    ")",
    " S ",
    "-1",
];
const KNOB: &[&str] = &[
    "preempt=",
    "none,full",
    "thp=",
    "always,never",
    "kernel.sched_rt_runtime_us=",
    "/proc/sys/",
    "/sys/",
    "../",
    "=",
    ",",
    "/etc/passwd",
    "autogroup=0,1",
    "governor=",
];

fn expr(s: &str) -> Result<String, String> {
    let vars = crate::scenario::schema::machine_vars(1.0);
    crate::scenario::expr::expand(s, &vars)
}

fn scenario(s: &str) -> anyhow::Result<crate::scenario::Scenario> {
    crate::scenario::schema::parse("hostile.toml", s, None, &[])
}

fn csv(s: &str) -> anyhow::Result<Vec<crate::import::Imported>> {
    crate::import::csv::parse(s, None, None)
}

fn config(s: &str) -> Result<(), String> {
    let c = crate::fingerprint::KernelConfig::parse(s, "hostile");
    let _ = c.selected();
    Ok(())
}

fn proc_files(s: &str) -> Result<(), String> {
    use crate::sys::procfs;
    let _ = crate::health::sample::cpu_times(&procfs::cpustat::parse(s));
    let _ = procfs::parse_pressure(s);
    let _ = procfs::parse_vmstat(s, "oom_kill");
    let _ = procfs::cgroup::parse(s);
    let _ = procfs::cgroup::parse_autogroup(s);
    let _ = procfs::meminfo::Meminfo::parse(s);
    let _ = procfs::mounts::parse(s);
    let _ = procfs::status::field(s, "Tgid");
    let _ = crate::sys::procstat::parse(s);
    let _ = crate::sys::procfs::parse_schedstat(s);
    Ok(())
}

/// A stored histogram blob: bounded before it is decoded, whatever it says.
fn histogram_blob(bytes: Vec<u8>) {
    let h = crate::store::StoredHistogram {
        name: "hostile".into(),
        unit: "ns".into(),
        data: bytes,
    };
    if let Err(e) = h.decode() {
        one_line("histogram blob", "(bytes)", &format!("{e:#}"));
    }
}

/// Blobs: random bytes, and valid headers with random bounds and lengths.
fn blobs() -> BoxedStrategy<Vec<u8>> {
    let header = (
        any::<u32>(),
        0u32..8,
        any::<u64>(),
        any::<u64>(),
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(len, digits, low, high, rest)| {
            let mut b = Vec::new();
            b.extend_from_slice(&0x1c84_9313u32.to_be_bytes());
            b.extend_from_slice(&len.to_be_bytes());
            b.extend_from_slice(&0u32.to_be_bytes());
            b.extend_from_slice(&digits.to_be_bytes());
            b.extend_from_slice(&low.to_be_bytes());
            b.extend_from_slice(&high.to_be_bytes());
            b.extend_from_slice(&1f64.to_bits().to_be_bytes());
            b.extend_from_slice(&rest);
            b
        });
    prop_oneof![proptest::collection::vec(any::<u8>(), 0..200), header].boxed()
}

/// Result frames: noise, and a frame's first line with random lengths,
/// checksums and bodies.
fn frames() -> BoxedStrategy<Vec<u8>> {
    let framed = (
        0u64..2000,
        "[0-9a-f]{0,64}",
        proptest::collection::vec(any::<u8>(), 0..300),
        any::<bool>(),
    )
        .prop_map(|(len, sum, body, end)| {
            let mut f = format!("KBENCH-RESULT 1 {len} {sum}\n").into_bytes();
            f.extend(body);
            if end {
                f.extend_from_slice(b"\nKBENCH-END\n");
            }
            f
        });
    prop_oneof![proptest::collection::vec(any::<u8>(), 0..300), framed].boxed()
}

/// Kernel images: noise, and a boot header whose version offset points
/// anywhere (past the end among it).
fn images() -> BoxedStrategy<Vec<u8>> {
    let header = (
        any::<u16>(),
        any::<u16>(),
        proptest::collection::vec(any::<u8>(), 0..0x1200),
    )
        .prop_map(|(proto, at, rest)| {
            let mut b = vec![0u8; 0x210];
            b[0x202..0x206].copy_from_slice(b"HdrS");
            b[0x206..0x208].copy_from_slice(&proto.to_le_bytes());
            b[0x20E..0x210].copy_from_slice(&at.to_le_bytes());
            b.extend(rest);
            b
        });
    prop_oneof![proptest::collection::vec(any::<u8>(), 0..600), header].boxed()
}

/// Stored metric rows of any name, unit, value and direction go through
/// compare and every report format.
fn metric_rows(rows: Vec<(String, String, f64, u8, bool)>) {
    use crate::compare::{Decider, Options};
    use crate::measure::{Better, Metric};
    use crate::stats::multiple::Correction;
    let rows_len = rows.len();
    let mut runs = Vec::new();
    for (i, (name, unit, value, better, second)) in rows.into_iter().enumerate() {
        let label = if second { "b" } else { "a" };
        let mut r = crate::store::RunRecord::new(label, "bench", serde_json::json!({}), None);
        r.id = i as i64;
        let better = [Better::Lower, Better::Higher, Better::Neither][better as usize % 3];
        r.metrics.push(Metric::new(name, &unit, value, better));
        runs.push(r);
    }
    let o = Options {
        labels: vec!["a".into(), "b".into()],
        baseline: None,
        metrics: Vec::new(),
        alpha: 0.05,
        decider: if rows_len.is_multiple_of(2) {
            Decider::Welch
        } else {
            Decider::MannWhitney
        },
        correction: Correction::Holm,
        threshold_pct: crate::stats::DEFAULT_THRESHOLD_PCT,
        detect_pct: None,
        exclude_suspect: false,
        include_warmup: false,
        allow_emulated: false,
    };
    if let Ok(c) = crate::compare::build(&runs, &o) {
        let _ = crate::report::terminal::render(&c, false, true);
        let _ = crate::report::markdown::render(&c, true, None);
        let _ = crate::report::csv::render(&c);
        let _ = crate::report::html::render(&c, &[], &Vec::new());
        let _ = crate::report::seed2023::render(&c);
    }
}

#[test]
fn hostile_inputs_never_panic_or_hang() {
    let seed = seeded::seed();
    seeded::say(&format!(
        "hostile input: seed {seed} (KBENCH_TEST_SEED to change, KBENCH_TEST_CASES to multiply the cases)"
    ));
    string_parser("duration", DURATION, |s| {
        crate::sys::time::parse_duration(s).map(|_| ())
    });
    string_parser("cli duration", DURATION, |s| {
        crate::values::duration(s).map(|_| ())
    });
    string_parser("size", SIZE, |s| crate::sys::size::parse(s).map(|_| ()));
    string_parser("cli size", SIZE, |s| crate::values::size(s).map(|_| ()));
    string_parser("cpu list", CPUS, |s| {
        crate::sys::cpus::parse_list(s).map(|_| ())
    });
    string_parser("cli cpu list", CPUS, |s| {
        crate::values::cpu_list(s).map(|_| ())
    });
    string_parser("online cpus", CPUS, |s| {
        crate::sys::cpus::parse_online(s).map(|_| ())
    });
    string_parser("schbench pinning", CPUS, |s| {
        crate::values::pinning(s).map(|_| ())
    });
    string_parser("sleep pattern", NUMBERS, |s| {
        crate::values::sleep_pattern(s).map(|_| ())
    });
    string_parser("runs", NUMBERS, |s| crate::values::runs(s).map(|_| ()));
    string_parser(
        "load list",
        &["io", "mem", "cpu", ",", "nonsense", " "],
        |s| crate::values::load_list(s).map(|_| ()),
    );
    string_parser("expression", EXPR, expr);
    anyhow_parser("scenario TOML", TOML, scenario);
    anyhow_parser(
        "hackbench import",
        HACKBENCH,
        crate::benchmarks::hackbench::import::parse,
    );
    anyhow_parser(
        "cyclictest import",
        CYCLICTEST,
        crate::benchmarks::cyclictest::import::parse,
    );
    anyhow_parser(
        "cyclictest JSON import",
        JSON,
        crate::benchmarks::cyclictest::import_json::parse,
    );
    anyhow_parser("CSV import", CSV, csv);
    anyhow_parser("matrix knob", KNOB, crate::experiment::knob::parse);
    string_parser("kernel config", CONFIG, config);
    string_parser("/proc files", PROC, proc_files);
    string_parser("numbers", NUMBERS, |s| crate::values::size(s).map(|_| ()));

    string_parser(
        "sched variant",
        &[
            "eevdf",
            "scx_",
            "bpfland",
            "=",
            "scx_bpfland",
            " ",
            "--slice-us",
            "/",
            "\u{1b}",
            "\u{e9}",
            "..",
        ],
        |s| crate::experiment::sched::parse(s).map(|_| ()),
    );
    string_parser(
        "lava bundle",
        &[
            "KBENCH-LAVA-BUNDLE ",
            "KBENCH-LAVA-END ",
            "KBENCH-LAVA-FAILED ",
            "l1 ",
            "2 ",
            "rt ",
            "99999999999 ",
            "4 ",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "\n",
            "QUJD",
            "dGVzdA==",
            "=",
            "\r",
            "\u{0}",
        ],
        |s| {
            // Every line read, whatever it holds; a bundle whose length or
            // checksum does not match is a failure, never a store.
            for f in crate::lava::bundle::decode(s.lines()) {
                if let crate::lava::bundle::Found::Store(_, bytes) = f {
                    assert!(bytes.len() <= crate::lava::bundle::MAX_BYTES);
                }
            }
            Ok(())
        },
    );
    anyhow_parser(
        "lava server address",
        &[
            "http://", "https://", "ftp://", "lava", ".example", ":8080", "/", "?", "#", " ",
            "\u{0}", "\n", "\u{e9}", "[::1]",
        ],
        crate::lava::rest::root,
    );
    anyhow_parser(
        "lava log lines",
        &[
            "- ",
            "{",
            "}",
            "\"lvl\": ",
            "\"target\"",
            "\"msg\": ",
            "\"x\"",
            ", ",
            "\n",
            "\\e",
            "KBENCH-LAVA-BUNDLE ",
            "!!python/tuple",
            "\u{0}",
            "\u{e9}",
        ],
        |s| crate::lava::import::lines_of(s.as_bytes()),
    );
    string_parser(
        "lava boot method",
        &["u-boot", "ipxe", "grub", "qemu", "-", " ", "U", "\u{0}"],
        crate::lava::actions::Method::named,
    );
    string_parser(
        "report bundle",
        &[
            "KBENCH-REPORT-BUNDLE v1 ",
            "KBENCH-REPORT-END",
            "10 ",
            "99999999999 ",
            "-1 ",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "\n",
            "H4sIAAAAAAAA/w==",
            "QUJD",
            "=",
            "<script>",
            "-->",
            "\r",
            "\u{0}",
        ],
        |s| {
            // A bundle that does not check is an error, never a store.
            if let Ok(Some(bytes)) = crate::report::bundle::decode(s) {
                assert!(bytes.len() <= crate::report::bundle::MAX_BYTES);
            }
            Ok(())
        },
    );
    string_parser(
        "vm kernel",
        &[
            "/boot/vmlinuz",
            "=",
            ";",
            "preempt=full",
            "a",
            " ",
            "\u{1b}",
        ],
        |s| crate::vm::plan::parse_kernel(s).map(|_| ()),
    );
    let bytes = || Codec {
        encode: |b: &Vec<u8>| serde_json::json!(b),
        decode: |v: &serde_json::Value| serde_json::from_value(v.clone()).ok(),
    };
    property("vm result frame", frames(), CASES, bytes(), |b| {
        if let Err(e) = crate::vm::channel::decode(&b) {
            one_line("vm result frame", "(bytes)", &e.to_string());
        }
    });
    property("kernel image header", images(), CASES, bytes(), |b| {
        let _ = crate::vm::image::read_version(&b);
    });
    property(
        "module info",
        proptest::collection::vec(any::<u8>(), 0..300),
        CASES,
        bytes(),
        |b| {
            let _ = crate::vm::modules::modinfo_depends(&b);
        },
    );
    property(
        "histogram blob",
        blobs(),
        CASES,
        Codec {
            encode: |b| serde_json::json!(b),
            decode: |v| serde_json::from_value(v.clone()).ok(),
        },
        histogram_blob,
    );
    let rows = proptest::collection::vec(
        (
            "\\PC{0,12}",
            "\\PC{0,4}",
            any::<f64>(),
            0u8..3,
            any::<bool>(),
        ),
        0..24,
    );
    property(
        "metric rows",
        rows,
        CASES / 3,
        Codec {
            // f64 by its bits: NaN and infinities are cases too, and JSON
            // has no spelling for them.
            encode: |r| {
                serde_json::json!(r
                    .iter()
                    .map(|(a, b, v, k, w)| (a, b, v.to_bits(), k, w))
                    .collect::<Vec<_>>())
            },
            decode: |v| {
                let rows: Vec<(String, String, u64, u8, bool)> =
                    serde_json::from_value(v.clone()).ok()?;
                Some(
                    rows.into_iter()
                        .map(|(a, b, v, k, w)| (a, b, f64::from_bits(v), k, w))
                        .collect(),
                )
            },
        },
        metric_rows,
    );
    let n = TOTAL.load(Relaxed);
    // Written to stderr directly: the harness captures only print macros,
    // and the count belongs in every CI log.
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!(
            "hostile input: {n} cases (seed {seed}, saved regression cases first), no panic, no hang, every refusal with a message\n"
        )
        .as_bytes(),
    );
    assert!(n >= 10_000, "only {n} cases");
}

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
        "lava",
        "job",
        "import",
        "--server",
        "--job",
        "--boot-method",
        "u-boot",
        "grub",
        "--kernel-type",
        "zimage",
        "--dtb",
        "--device-type",
    ];
    let mut rng = crate::stats::bootstrap::SplitMix(0x6b62);
    let mut pick = |n: usize| (rng.next_u64() % n as u64) as usize;
    for _ in 0..4000 {
        let len = pick(9);
        let s: String = (0..len).map(|_| vocab[pick(vocab.len())]).collect();
        let _ = crate::experiment::knob::parse(&s);
        let _ = crate::experiment::campaign::parse_boot(&s);
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
                    let _ =
                        crate::experiment::command::check_command(&m.command, crate::cli::check);
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

/// A stored trace as kbench writes it: two CPUs, one window explained,
/// three events; what the mutations of [`trace_attachments`] start from.
const TRACE_JSON: &str = r#"{"irq_names":{"7":"eth0"},"cpus":[0,1],"windows":[{"explanation":{"latency_ns":50000,"tid":100,"comm":"probe","cpu":1,"expected_ns":1000000,"parts":[{"kind":"irq","irq":7,"name":"eth0","ns":30000},{"kind":"probe","ns":20000}],"woken_by":{"pid":0,"comm":"swapper","cpu":1,"context":"timer","after_ns":-5},"migrations":[[0,1]],"lost_events":false},"events":[{"t":1000,"cpu":1,"pid":0,"e":"irq_entry","irq":7},{"t":31000,"cpu":1,"pid":0,"e":"irq_exit","irq":7},{"t":40000,"cpu":1,"pid":0,"e":"switch","prev_pid":0,"prev_prio":120,"prev_state":0,"prev_comm":"swapper","next_pid":100,"next_prio":0,"next_comm":"probe"}]}]}"#;

/// Pieces a mutation puts into [`TRACE_JSON`]: the numbers that overflow
/// sums and allocations, and JSON's structure.
const TRACE_WORDS: &[&str] = &[
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967295",
    "2000000",
    "0",
    "-1",
    "1e308",
    "null",
    "[",
    "]",
    "{",
    "}",
    ",",
    "\"",
    "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]",
];

/// Where each number of `json` is (byte spans of its digits and sign).
fn number_spans(json: &str) -> Vec<(usize, usize)> {
    let b = json.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = (b[i].is_ascii_digit() || b[i] == b'-')
            && i > 0
            && matches!(b[i - 1], b':' | b'[' | b',');
        if starts {
            let j = (i + 1..b.len())
                .find(|&j| !b[j].is_ascii_digit())
                .unwrap_or(b.len());
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// gzip of `json`, as a stored trace is.
fn gzip(json: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(json).unwrap();
    z.finish().unwrap()
}

/// Attachments: random bytes, gzip of random text, and [`TRACE_JSON`]
/// with up to four pieces put in at random places (each gzipped).
fn trace_attachments() -> BoxedStrategy<Vec<u8>> {
    let mutated = proptest::collection::vec(
        (
            0usize..TRACE_JSON.len(),
            0usize..TRACE_WORDS.len(),
            0usize..12,
        ),
        1..5,
    )
    .prop_map(|edits| {
        let mut t = TRACE_JSON.to_string();
        for (at, w, cut) in edits {
            let at = (0..=at.min(t.len()))
                .rev()
                .find(|&i| t.is_char_boundary(i))
                .unwrap_or(0);
            let end = (at + cut).min(t.len());
            let end = (end..=t.len())
                .find(|&i| t.is_char_boundary(i))
                .unwrap_or(t.len());
            t.replace_range(at..end, TRACE_WORDS[w]);
        }
        gzip(t.as_bytes())
    });
    // Whole numbers of the sample swapped for others: each field's value
    // at the edges (u64::MAX as a latency, 2 million as a CPU).
    let spans = number_spans(TRACE_JSON);
    let numbers =
        proptest::collection::vec((0usize..spans.len(), 0usize..9), 1..4).prop_map(move |swaps| {
            let mut t = TRACE_JSON.to_string();
            let mut chosen: Vec<(usize, usize)> = swaps;
            chosen.sort_by_key(|c| std::cmp::Reverse(spans[c.0].0));
            chosen.dedup_by_key(|c| c.0);
            for (i, w) in chosen {
                let (a, b) = spans[i];
                t.replace_range(a..b, TRACE_WORDS[w]);
            }
            gzip(t.as_bytes())
        });
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        "\\PC{0,200}".prop_map(|t| gzip(t.as_bytes())),
        mutated.clone(),
        mutated,
        numbers.clone(),
        numbers,
    ]
    .boxed()
}

/// A stored trace decodes within its limits or is refused with a
/// message; what decodes is shown, exported and drawn without a panic.
fn trace_attachment(bytes: Vec<u8>) {
    match crate::trace::stored::Windows::decode(&bytes) {
        Err(e) => one_line("trace attachment", "(bytes)", &format!("{e:#}")),
        Ok(w) => {
            let _ = crate::trace::perfetto::document(&w, 1);
            for win in &w.windows {
                let _ = crate::trace::show::line(&win.explanation);
                let _ = crate::report::timeline::svg(win, &w.cpus, &w.irq_names);
            }
        }
    }
}

/// The trace attachment decoder and everything that reads what it
/// returns, on 10,000 generated attachments (seed printed; failures kept
/// as regression cases).  The start is checked to decode, so the
/// mutations begin from a real trace.
#[test]
fn crafted_trace_attachments_never_panic_or_allocate_without_bound() {
    let w = crate::trace::stored::Windows::decode(&gzip(TRACE_JSON.as_bytes()))
        .expect("the sample trace decodes");
    assert_eq!(w.windows.len(), 1);
    assert_eq!(w.windows[0].events.len(), 3);
    let seed = seeded::seed();
    property(
        "trace attachment",
        trace_attachments(),
        10_000,
        Codec {
            encode: |b| serde_json::json!(b),
            decode: |v| serde_json::from_value(v.clone()).ok(),
        },
        trace_attachment,
    );
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("trace attachments: 10,000 generated cases (seed {seed}), no panic, no hang\n")
            .as_bytes(),
    );
}
