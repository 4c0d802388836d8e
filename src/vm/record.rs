//! A boot's result as stored runs: the guest's own runs, each with the
//! guest's fingerprint and what the VM was, or one failed run that says
//! why the boot gave none.
//!
//! Runs under TCG (or nested) are marked emulated in their health
//! (`settings.health.emulated`, with the reason), which `compare` reads:
//! it says so above the scoreboard and gives no verdict on them unless
//! `--allow-emulated`.

use super::channel::Report;
use super::image::Image;
use crate::fingerprint::Fingerprint;
use crate::store::{RunRecord, RunStatus};
use anyhow::{anyhow, Result};
use std::path::Path;

/// Everything about one boot that every run of it records.
pub struct Boot<'a> {
    pub label: &'a str,
    /// 1-based, of `of`.
    pub number: usize,
    pub of: usize,
    pub image: &'a Image,
    /// What the VM was: accelerator, vCPUs and placement, memory, QEMU,
    /// host steal and load; see `mod.rs`.
    pub vm: serde_json::Value,
    /// Why the figures are not the kernel's, when they are not.
    pub emulated: Option<&'a str>,
    pub command: &'a [String],
    /// When the boot started and ended (Unix seconds).
    pub started: f64,
    pub ended: f64,
    /// The experiment a run carries when the guest's command gave it none.
    pub experiment: Option<crate::store::Tag>,
}

impl Boot<'_> {
    fn tag(&self, r: &mut RunRecord) {
        r.settings["vm"] = self.vm.clone();
        if let (None, Some(t)) = (r.settings.get("experiment"), &self.experiment) {
            t.set_on(r);
        }
        if let Some(why) = self.emulated {
            crate::store::foreign::mark_emulated(r, why);
        }
    }
}

/// The guest's runs from the store it sent, tagged with the boot.
pub fn guest_runs(
    b: &Boot,
    report: &Report,
    store: &[u8],
    scratch: &Path,
) -> Result<Vec<RunRecord>> {
    if store.is_empty() {
        return Ok(Vec::new());
    }
    // A guest's runs carry its label exactly; only a matrix in the guest
    // labels its combinations below it (the guest of `A` stored under
    // `A/aa`, the calibration arm's label).
    let want = crate::store::foreign::Expect {
        label: Some(b.label),
        below: b.command.iter().any(|c| c == "matrix"),
        max_rows: MAX_GUEST_ROWS,
    };
    let mut runs = crate::store::foreign::runs(store, &scratch.join("guest.db"), &want)
        .map_err(|e| anyhow!("the guest: {e:#}"))?;
    // What went wrong in the guest is said once, on the boot's first run,
    // and cut to a size a note can be (a 5.6 MB list added to each of 200
    // runs made a 1 GB store).
    let mut problems = (!report.problems.is_empty()).then(|| {
        let all = report.problems.join("; ");
        let cut: String = all.chars().take(MAX_PROBLEMS_NOTE).collect();
        if cut.len() < all.len() {
            format!(
                "guest: {cut} … (cut: {} problems, {} bytes in all)",
                report.problems.len(),
                all.len()
            )
        } else {
            format!("guest: {cut}")
        }
    });
    for r in &mut runs {
        b.tag(r);
        let said = r.fingerprint.as_ref().and_then(|f| f.release.clone());
        if let (Some(want), Some(got)) = (&b.image.release, &said) {
            if want != got {
                r.notes.push(format!(
                    "the image says release {want}, the guest ran {got}"
                ));
            }
        }
        if let Some(p) = problems.take() {
            r.notes.push(p);
        }
    }
    Ok(runs)
}

/// The most rows a guest's table may hold (a guest measures once).
const MAX_GUEST_ROWS: i64 = 200_000;

/// The most of the guest's problems kept in a note, in characters.
const MAX_PROBLEMS_NOTE: usize = 4096;

/// The one run that stands for a boot that gave none: its reason and
/// the console's last lines, the fingerprint the image promised.
pub fn failed_boot(b: &Boot, reason: &str, tail: &[String], status: RunStatus) -> RunRecord {
    let mut r = RunRecord::new(
        b.label,
        "boot",
        serde_json::json!({ "command": b.command, "image": b.image.path.display().to_string() }),
        Some(promised(b.image)),
    );
    r.status = status;
    (r.started, r.ended) = (b.started, b.ended);
    r.notes
        .push(format!("boot {} of {} failed: {reason}", b.number, b.of));
    if !tail.is_empty() {
        r.notes
            .push(format!("the console's last lines:\n{}", tail.join("\n")));
    }
    r.settings["error"] = reason.into();
    b.tag(&mut r);
    r
}

/// What the image says its kernel is, for a boot that never said.
fn promised(i: &Image) -> Fingerprint {
    let cfg = i.load_config();
    let mut fp = Fingerprint {
        fingerprint_version: crate::fingerprint::FINGERPRINT_VERSION,
        release: i.release.clone(),
        version: i.version.clone(),
        config_source: cfg.as_ref().map(|c| c.source.clone()),
        config_hash: cfg.as_ref().map(|c| c.hash.clone()),
        config: cfg.as_ref().map(|c| c.selected()).unwrap_or_default(),
        preempt: i.expected_preempt(""),
        ..Default::default()
    };
    fp.id = fp.compute_id();
    fp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Access, Store};

    /// A guest's store of one run a label in `labels`, as the bytes it
    /// sends, and an image (not a kernel: only its path is read here).
    fn guest(labels: &[&str]) -> (tempfile::TempDir, Vec<u8>, Image) {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("guest.db");
        {
            let mut s = crate::store::SqliteStore::open(&db, Access::ReadWrite).unwrap();
            for l in labels {
                s.save_run(&RunRecord::new(l, "bench", serde_json::json!({}), None))
                    .unwrap();
            }
        }
        let bytes = std::fs::read(&db).unwrap();
        let img = d.path().join("img");
        std::fs::write(&img, b"not a kernel").unwrap();
        let image = Image::inspect(&img).unwrap();
        (d, bytes, image)
    }

    fn boot<'a>(image: &'a Image, command: &'a [String]) -> Boot<'a> {
        Boot {
            label: "A",
            number: 1,
            of: 1,
            image,
            vm: serde_json::json!({}),
            emulated: None,
            command,
            started: 0.0,
            ended: 1.0,
            experiment: None,
        }
    }

    /// The guest's problems are one note, on the boot's first run, cut to
    /// a size (they were added whole to every run).
    #[test]
    fn the_guests_problems_are_one_note_a_boot() {
        let (_d, bytes, image) = guest(&["A", "A", "A"]);
        let report = Report {
            problems: vec!["x".repeat(1000); 100],
            ..Default::default()
        };
        let scratch = tempfile::tempdir().unwrap();
        let runs = guest_runs(&boot(&image, &[]), &report, &bytes, scratch.path()).unwrap();
        assert_eq!(runs.len(), 3);
        let with: Vec<usize> = runs
            .iter()
            .map(|r| r.notes.iter().filter(|n| n.starts_with("guest: ")).count())
            .collect();
        assert_eq!(with, vec![1, 0, 0]);
        let note = runs[0]
            .notes
            .iter()
            .find(|n| n.starts_with("guest: "))
            .unwrap();
        assert!(note.len() < 5000, "{}", note.len());
        assert!(note.contains("(cut: 100 problems"), "{note}");
    }

    /// A guest store whose `runs` is a view (of as many rows as it likes)
    /// is refused before a row is read.
    #[test]
    fn a_guest_store_with_a_view_for_a_table_is_refused() {
        let (d, _, image) = guest(&["A"]);
        let db = d.path().join("guest.db");
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(
                "ALTER TABLE runs RENAME TO real_runs; CREATE VIEW runs AS SELECT r.* FROM real_runs r, (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) SELECT i FROM n);",
            )
            .unwrap();
        let bytes = std::fs::read(&db).unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let e = guest_runs(
            &boot(&image, &[]),
            &Report::default(),
            &bytes,
            scratch.path(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("its runs is view, not a table"), "{e}");
    }

    /// The guest of `A` may not store runs under `A/aa` (another arm's
    /// label): labels are exact unless the guest ran a matrix.
    #[test]
    fn a_guests_runs_carry_its_label_exactly() {
        let (_d, bytes, image) = guest(&["A/aa"]);
        let scratch = tempfile::tempdir().unwrap();
        let bench = ["cyclictest".to_string()];
        let matrix = ["matrix".to_string()];
        for (command, ok) in [(&bench[..], false), (&matrix[..], true)] {
            let got = guest_runs(
                &boot(&image, command),
                &Report::default(),
                &bytes,
                scratch.path(),
            );
            assert_eq!(got.is_ok(), ok, "{command:?}: {:?}", got.map(|r| r.len()));
        }
    }
}
