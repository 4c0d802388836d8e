//! KCIDB's own validator for the tests that write KCIDB documents.

use std::path::{Path, PathBuf};
use std::process::Command;

/// KCIDB's own validator (the kcidb-io package from PyPI), installed once
/// into a virtual environment of its own (`/var/cache/kbench-test-kcidb`).
pub fn python() -> Result<PathBuf, String> {
    let venv = PathBuf::from("/var/cache/kbench-test-kcidb");
    let py = venv.join("bin/python");
    let ok = |py: &Path| {
        Command::new(py)
            .args(["-c", "import kcidb_io"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if ok(&py) {
        return Ok(py);
    }
    let made = Command::new("/usr/bin/python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .map_err(|e| e.to_string())?;
    if !made.status.success() {
        return Err(format!(
            "python3 -m venv: {}",
            String::from_utf8_lossy(&made.stderr)
        ));
    }
    let pip = Command::new(venv.join("bin/pip"))
        .args(["install", "-q", "kcidb-io"])
        .output()
        .map_err(|e| e.to_string())?;
    if !pip.status.success() || !ok(&py) {
        return Err(format!(
            "pip install kcidb-io: {}",
            String::from_utf8_lossy(&pip.stderr)
        ));
    }
    Ok(py)
}

/// Whether `file` is a KCIDB v5.3 document exactly, by kcidb-io; its
/// issues and incidents counted.
pub fn validate(py: &Path, file: &Path) -> Result<(usize, usize), String> {
    let out = Command::new(py)
        .arg("-c")
        .arg("import json, sys, kcidb_io\nd = json.load(open(sys.argv[1]))\nkcidb_io.schema.V5_3.validate(d)\nassert kcidb_io.schema.V5_3.is_compatible_exactly(d)\nprint(len(d.get('issues', [])), len(d.get('incidents', [])))\n")
        .arg(file)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut n = text
        .split_whitespace()
        .map(|x| x.parse::<usize>().unwrap_or(0));
    Ok((n.next().unwrap_or(0), n.next().unwrap_or(0)))
}
