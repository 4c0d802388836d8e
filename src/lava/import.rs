//! `kbench lava import`: a boot's runs from LAVA job logs.
//!
//! A log is `lava-run`'s output (a JSON line an event; the device's
//! console is the `target` lines) or a console log as plain text.  Each
//! boot's bundle is checked and its store read as a guest's is (bounded,
//! its labels checked), and its runs are stored with the guest's own
//! fingerprint (boot id and all), so the boot is the unit of every later
//! comparison.  A boot whose test failed, or whose bundle is cut or does
//! not check, is stored as one failed run that says why.  Runs keep their
//! ids (a uuid each; a failed boot's is made from the plan, the boot and
//! the reason), so importing a log twice adds nothing.

use super::bundle::{self, Boot, Found};
use crate::store::{RunFilter, RunRecord, RunStatus, Tag};
use anyhow::{anyhow, Result};
use sha2::{Digest, Sha256};
use std::io::BufRead;
use std::path::PathBuf;

/// What to import.
pub struct Options {
    pub logs: Vec<PathBuf>,
    /// A LAVA server and one of its finished jobs (`--server`, `--job`).
    pub server: Option<(String, u64)>,
    /// The device's name, kept with each run.
    pub device: Option<String>,
    /// The store, verbosity and voice.
    pub front: crate::session::Front,
}

/// The most rows a boot's store may hold (a boot measures a little).
const MAX_ROWS: i64 = 200_000;
/// The longest log line read (longer ones are no console line of ours).
const MAX_LINE: usize = 1 << 20;

/// The console lines of a log.
fn console_lines(path: &PathBuf) -> Result<Vec<String>> {
    let f = std::fs::File::open(path)
        .map_err(|e| crate::error::input(format!("{}: {e}", path.display())))?;
    lines_of(std::io::BufReader::new(f))
}

/// The console lines of a log read from `r`: lava-run's events are JSON
/// lines (a YAML flow map each, with YAML tags in result lines), a LAVA
/// server's `output.yaml` the same as a YAML list (`- {…}`); only the
/// device's console (`target`) matters here.  Any other line is a
/// console line as plain text.
pub(crate) fn lines_of(r: impl BufRead) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for line in r.split(b'\n') {
        let line = line?;
        if line.len() > MAX_LINE {
            continue;
        }
        let line = String::from_utf8_lossy(&line).into_owned();
        let event = line.strip_prefix("- ").unwrap_or(&line);
        if event.starts_with('{') {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(event) {
                if v["lvl"] == "target" {
                    if let Some(m) = v["msg"].as_str() {
                        out.push(m.to_string());
                    }
                }
                continue;
            }
        }
        out.push(line);
    }
    Ok(out)
}

/// A log's console lines, and where it came from.
type Log = (Vec<String>, String);

/// The logs' console lines, each with where it came from, and the
/// device (as given, or as the server says).
fn all_lines(o: &Options) -> Result<(Vec<Log>, Option<String>)> {
    let mut logs = Vec::new();
    let mut device = o.device.clone();
    if let Some((server, job)) = &o.server {
        let got = super::rest::fetch(server, *job)?;
        logs.push((lines_of(&got.log[..])?, got.source));
        device = device.or(got.device);
    }
    for log in &o.logs {
        logs.push((console_lines(log)?, log.display().to_string()));
    }
    if logs.is_empty() {
        return Err(crate::error::input(
            "give the job logs to import, or --server URL --job ID",
        ));
    }
    Ok((logs, device))
}

/// Import the logs into the store.
pub fn run(o: &Options) -> Result<()> {
    let (logs, device) = all_lines(o)?;
    let mut found: Vec<(Found, String)> = Vec::new();
    for (lines, from) in &logs {
        for f in bundle::decode(lines.iter().map(String::as_str)) {
            found.push((f, from.clone()));
        }
    }
    // One result a boot: a whole store over any failure said of it.
    found.sort_by_key(|(f, _)| match f {
        Found::Store(b, _) => (b.clone(), 0),
        Found::Failed(b, _) => (b.clone(), 1),
    });
    found.dedup_by(|later, first| boot_of(&later.0) == boot_of(&first.0));
    if found.is_empty() {
        return Err(crate::error::input(format!(
            "no kbench boot in {} (a job's log with `kbench lava test` in it)",
            logs.iter()
                .map(|(_, from)| from.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let mut store = o.front.write_store()?;
    // Runs keep their ids, so a run is new when its id is: one listing.
    let mut known: std::collections::HashSet<String> = store
        .list_runs(&RunFilter::default())?
        .into_iter()
        .map(|r| r.uuid)
        .collect();
    let mut added = 0;
    let scratch = crate::sys::janitor::Scratch::in_tmp("lava")?;
    let (mut boots, mut failed) = (0, 0);
    for (f, log) in &found {
        let runs = match f {
            Found::Store(b, bytes) => match guest_runs(b, bytes, &scratch.path().join("boot.db")) {
                Ok(runs) => runs,
                Err(e) => vec![failed_boot(b, &format!("{e:#}"))],
            },
            Found::Failed(b, why) => vec![failed_boot(b, why)],
        };
        let b = boot_of(f);
        if runs
            .iter()
            .all(|r| r.benchmark == "boot" && r.status == RunStatus::Failed)
        {
            failed += 1;
        } else {
            boots += 1;
        }
        let runs: Vec<RunRecord> = runs
            .into_iter()
            .map(|mut r| {
                r.set_settings(serde_json::json!({ "lava": {
                    "plan": b.plan, "boot": b.boot, "device": device, "log": log,
                }}));
                r
            })
            .collect();
        added += runs.iter().filter(|r| known.insert(r.uuid.clone())).count();
        store.save_runs(&runs)?;
    }
    if !o.front.quiet {
        o.front.line(&format!(
            "lava import: {boots} boot(s) with runs, {failed} failed boot(s); {added} run(s) new in {} (a boot imported before adds nothing)",
            store.describe()
        ));
    }
    Ok(())
}

fn boot_of(f: &Found) -> &Boot {
    match f {
        Found::Store(b, _) | Found::Failed(b, _) => b,
    }
}

/// The runs in a boot's store, checked as a guest's.
fn guest_runs(b: &Boot, bytes: &[u8], file: &std::path::Path) -> Result<Vec<RunRecord>> {
    let want = crate::store::foreign::Expect {
        label: Some(&b.label),
        below: true,
        max_rows: MAX_ROWS,
    };
    let mut runs = crate::store::foreign::runs(bytes, file, &want)?;
    if runs.is_empty() {
        return Err(anyhow!("its store holds no run"));
    }
    for r in &mut runs {
        // What the log says of its runs' experiment is not trusted: each
        // is a unit of the boot the bundle's header names, as a failed
        // boot's stand-in is.
        crate::store::foreign::disown(r);
        Tag::Lava {
            id: b.plan.clone(),
            boot: b.boot,
        }
        .set_on(r);
        let tcg = r
            .fingerprint
            .as_ref()
            .and_then(|f| f.cpu.hypervisor.as_deref())
            == Some("QEMU (TCG)");
        if tcg {
            crate::store::foreign::mark_emulated(r, "the device is a QEMU guest under TCG (CPUID says so): the figures measure the emulator, not the kernel");
        }
    }
    Ok(runs)
}

/// The one run that stands for a boot that gave none.
fn failed_boot(b: &Boot, why: &str) -> RunRecord {
    let mut r = RunRecord::new(
        &b.label,
        "boot",
        serde_json::json!({ "plan": b.plan, "boot": b.boot }),
        None,
    );
    r.status = RunStatus::Failed;
    r.uuid = crate::fingerprint::hex(&Sha256::digest(
        format!("lava {} {} {why}", b.plan, b.boot).as_bytes(),
    ))[..32]
        .to_string();
    r.notes.push(format!("LAVA boot {} failed: {why}", b.boot));
    Tag::Lava {
        id: b.plan.clone(),
        boot: b.boot,
    }
    .set_on(&mut r);
    r
}
