//! Generated cases that can be replayed.  Every generated-input test draws
//! its cases from one seed, printed at its start: a fixed one, so CI runs
//! the same cases every time, unless `KBENCH_TEST_SEED` gives another.
//! `KBENCH_TEST_CASES` multiplies the number of cases, for a long soak.
//! A case that fails is appended to `tests/regressions/<suite>.jsonl` (one
//! JSON value a line) and every case saved there is replayed first on
//! every run, so a failure found once is tested for ever after.
//!
//! This file is compiled twice: into the integration tests (through
//! `common`) and into the unit tests (`src/hostile_tests.rs`, by path), so
//! both halves of the hostile suite share one rule.

#![allow(dead_code)]

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::PathBuf;

/// The seed CI uses: the same cases on every fresh clone.
pub const DEFAULT_SEED: u64 = 0x6b62_656e_6368;

/// `KBENCH_TEST_SEED`, else [`DEFAULT_SEED`]; a value that is not a
/// number stops the test with a message rather than running other cases.
pub fn seed() -> u64 {
    match std::env::var("KBENCH_TEST_SEED") {
        Ok(s) => s
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("KBENCH_TEST_SEED={s:?} is not a whole number")),
        Err(_) => DEFAULT_SEED,
    }
}

/// `base` cases, times `KBENCH_TEST_CASES` when it is set (a soak).
pub fn cases(base: u32) -> u32 {
    match std::env::var("KBENCH_TEST_CASES") {
        Ok(s) => {
            let k: u32 = s
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("KBENCH_TEST_CASES={s:?} is not a whole number"));
            base.saturating_mul(k.max(1))
        }
        Err(_) => base,
    }
}

/// Say a line past the harness's capture, so it is in every CI log.
pub fn say(line: &str) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
}

/// A runner for suite `suite` drawing from `seed` mixed with the suite's
/// name (each suite its own stream, all from the one printed seed).
pub fn runner(suite: &str, seed: u64) -> TestRunner {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    // FNV-1a of the suite's name: a stable, dependency-free mix.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in suite.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    key[8..16].copy_from_slice(&h.to_le_bytes());
    TestRunner::new_with_rng(
        Config {
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &key),
    )
}

/// The regression file of `suite`.
pub fn regression_file(suite: &str) -> PathBuf {
    let name: String = suite
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions")
        .join(format!("{name}.jsonl"))
}

/// Every case saved for `suite`, oldest first.
pub fn saved(suite: &str) -> Vec<serde_json::Value> {
    let path = regression_file(suite);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}: a saved case is not JSON: {e}", path.display()))
        })
        .collect()
}

/// Keep a failing case of `suite` (once) and say where it went.
pub fn save(suite: &str, case: &serde_json::Value) -> String {
    let path = regression_file(suite);
    if saved(suite).contains(case) {
        return format!("already saved in {}", path.display());
    }
    let _ = std::fs::create_dir_all(path.parent().expect("a parent"));
    let line = format!("{}\n", serde_json::to_string(case).expect("JSON"));
    let ok = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()));
    match ok {
        Ok(()) => format!("saved as a regression case in {}", path.display()),
        Err(e) => format!("could not be saved in {}: {e}", path.display()),
    }
}
