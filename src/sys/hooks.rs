//! The test hooks: environment variables the tests use to reach paths a
//! real machine rarely takes (a missing tracefs, a kernel without
//! schedstat, a failure or a panic at a chosen point, a simulated kernel
//! identity).  All in one place, and none honoured by a release build:
//! whoever sets a root kbench's environment (a sudo rule that keeps it, a
//! unit's `Environment=`) must not steer where it writes or what it says.
//! `hooks_are_debug_only` below reads every `KBENCH_` variable of `src/`
//! and fails if one is read outside this file and the settings kbench
//! documents for users.

/// The variable `name`, in a debug build; `None` in a release build.
fn hook(name: &str) -> Option<String> {
    if cfg!(debug_assertions) {
        std::env::var(name).ok()
    } else {
        None
    }
}

/// `KBENCH_TRACEFS`: a folder used as tracefs (tests name a missing one
/// to see tracing refused).
pub fn tracefs() -> Option<String> {
    hook("KBENCH_TRACEFS")
}

/// `KBENCH_SIMULATE_NO_SCHEDSTAT`: act as a kernel without schedstat.
pub fn no_schedstat() -> bool {
    hook("KBENCH_SIMULATE_NO_SCHEDSTAT").is_some()
}

/// `KBENCH_INJECT_PANIC`: the point at which to panic.
pub fn panic_point() -> Option<String> {
    hook("KBENCH_INJECT_PANIC")
}

/// In debug builds, panic at `point` when `KBENCH_INJECT_PANIC` names it:
/// the tests show that a panic leaves no file and no process behind.
pub fn injected_panic(point: &str) {
    if panic_point().is_some_and(|p| p == point) {
        panic!("panic injected by KBENCH_INJECT_PANIC at {point}");
    }
}

/// `KBENCH_INJECT_FAILURE`: the repetition (from 1) to fail.
pub fn failing_repetition() -> Option<String> {
    hook("KBENCH_INJECT_FAILURE")
}

/// `KBENCH_TEST_IDENTITY`: a kernel identity (JSON) to report instead of
/// this machine's.
pub fn identity() -> Option<String> {
    hook("KBENCH_TEST_IDENTITY")
}

/// `KBENCH_HACKBENCH_VERIFY`: hackbench checks every message it passes.
pub fn hackbench_verify() -> bool {
    hook("KBENCH_HACKBENCH_VERIFY").is_some()
}

#[cfg(test)]
mod tests {
    /// Every `KBENCH_` variable read in `src/` outside the tests is a
    /// hook of this file or one of the settings users are told of.
    #[test]
    fn hooks_are_debug_only() {
        const SETTINGS: &[&str] = &[
            "KBENCH_DB",
            "KBENCH_MAX_OUTSIDE_CPU_PCT",
            "KBENCH_MAX_STEAL_PCT",
            "KBENCH_MAX_FREQ_SPREAD_PCT",
            "KBENCH_EXPERIMENT",
            "KBENCH_ROOT_PID",
        ];
        let mut bad = Vec::new();
        let mut stack = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src"
        ))];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                if p.ends_with("sys/hooks.rs") || p.extension().is_none_or(|x| x != "rs") {
                    continue;
                }
                let name = p.file_name().unwrap().to_string_lossy();
                if name == "tests.rs" || name.ends_with("_tests.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                // What the tests read for themselves is not a hook.
                let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap();
                for (i, line) in code.lines().enumerate() {
                    for call in ["env::var(\"KBENCH_", "env::var_os(\"KBENCH_"] {
                        let Some(at) = line.find(call) else { continue };
                        let name: String = line[at + call.len() - 7..]
                            .chars()
                            .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                            .collect();
                        if !SETTINGS.contains(&name.as_str()) {
                            bad.push(format!("{}:{}: {name}", p.display(), i + 1));
                        }
                    }
                }
            }
        }
        assert!(bad.is_empty(), "read outside sys/hooks.rs: {bad:?}");
    }
}
