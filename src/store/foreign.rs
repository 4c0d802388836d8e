//! A store that came from elsewhere — a guest's, a LAVA device's — read
//! as runs to keep here.
//!
//! Its bytes are untrusted: they are written to a private scratch file,
//! opened read-only, checked to hold real tables of a bounded size
//! (`check_foreign`), and every run must carry the label it was sent
//! for, so a guest can neither flood the host nor store under another
//! label.  The runs come back with no local id, ready to be saved.

use super::{Access, RunFilter, RunRecord, SqliteStore, Store};
use anyhow::{anyhow, Result};
use std::path::Path;

/// What a foreign store must hold.
pub struct Expect<'a> {
    /// The label its runs carry (`None`: any label, each a valid one, as
    /// a report's runs carry theirs).
    pub label: Option<&'a str>,
    /// Whether runs may sit below the label (`LABEL/...`), as a matrix's
    /// combinations do.
    pub below: bool,
    /// The most rows any one table may hold.
    pub max_rows: i64,
}

/// The runs in `bytes`, read through the scratch `file` (removed after).
pub fn runs(bytes: &[u8], file: &Path, want: &Expect) -> Result<Vec<RunRecord>> {
    let _ = std::fs::remove_file(file);
    crate::sys::private::replace(file, bytes, 0o600)?;
    let read = (|| {
        let store = SqliteStore::open(file, Access::ReadOnly)?;
        store.check_foreign(want.max_rows)?;
        store.load_runs(&RunFilter::default(), true)
    })();
    let _ = std::fs::remove_file(file);
    let mut runs = read.map_err(|e| {
        let e = format!("{e:#}");
        if e.contains("newer than this kbench understands") {
            // Upgrading the host is not the answer: the two sides differ.
            anyhow!("its store was written by a newer kbench than this one: run the same kbench on both sides")
        } else {
            anyhow!("its store: {e}")
        }
    })?;
    for r in &mut runs {
        match want.label {
            Some(l) => {
                let below =
                    want.below && r.label.strip_prefix(l).is_some_and(|t| t.starts_with('/'));
                if r.label != l && !below {
                    return Err(anyhow!(
                        "it stored a run under label '{}', not '{}'",
                        crate::text::clean(&r.label),
                        crate::text::clean(l)
                    ));
                }
            }
            None => {
                crate::values::label(&r.label).map_err(|e| {
                    anyhow!(
                        "it holds a run under a label kbench refuses: {}",
                        crate::text::clip(&e, 200)
                    )
                })?;
            }
        }
        r.id = 0;
    }
    Ok(runs)
}

/// The other way: `runs` as a store of their own, its file's bytes (a
/// report's bundle), written through the scratch `file` (removed after).
pub fn bytes_of(runs: &[RunRecord], file: &Path) -> Result<Vec<u8>> {
    let _ = std::fs::remove_file(file);
    let written = (|| {
        let mut s = SqliteStore::open(file, Access::ReadWrite)?;
        let fresh: Vec<RunRecord> = runs
            .iter()
            .cloned()
            .map(|mut r| {
                r.id = 0;
                r
            })
            .collect();
        s.save_runs(&fresh)?;
        drop(s);
        Ok(std::fs::read(file)?)
    })();
    let _ = std::fs::remove_file(file);
    written
}

/// Take a run from outside out of any experiment it says it was part of:
/// a report or a LAVA log is not kbench's to trust on where in a design
/// its runs stood, and a run that claims "campaign c1, round 4" would
/// otherwise count in a live campaign c1's `--rounds auto` look.  The
/// claim is kept under `imported_experiment`, which no experiment reads.
pub fn disown(r: &mut RunRecord) {
    if let Some(m) = r.settings.as_object_mut() {
        if let Some(tag) = m.remove("experiment") {
            m.insert("imported_experiment".into(), tag);
        }
    }
}

/// Mark a run's figures as not the kernel's: in its health (which
/// `compare` reads) and in a note.
pub fn mark_emulated(r: &mut RunRecord, why: &str) {
    if !r.settings["health"].is_object() {
        r.settings["health"] = serde_json::json!({});
    }
    r.settings["health"]["emulated"] = why.into();
    r.notes.push(format!("emulated: {why}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disowned_run_is_in_no_experiment_and_keeps_the_claim_apart() {
        let mut r = RunRecord::new("l", "b", serde_json::json!({}), None);
        crate::store::Tag::Campaign {
            id: "c1".into(),
            round: 4,
            position: 7,
            boot: "a".into(),
            boot_id: "b1".into(),
        }
        .set_on(&mut r);
        assert!(crate::store::Tag::of(&r).is_some());
        disown(&mut r);
        assert_eq!(crate::store::Tag::of(&r), None);
        assert_eq!(r.settings["imported_experiment"]["id"], "c1");
        // A run with no claim is left as it was.
        let mut plain = RunRecord::new("l", "b", serde_json::json!({}), None);
        let before = plain.settings.clone();
        disown(&mut plain);
        assert_eq!(plain.settings, before);
    }

    fn want() -> Expect<'static> {
        Expect {
            label: Some("A"),
            below: false,
            max_rows: 1000,
        }
    }

    /// A store of a newer schema from a guest is not met with "upgrade
    /// kbench" (the host is not the one behind), and a run under another
    /// label is refused.
    #[test]
    fn a_newer_or_mislabelled_store_is_refused_for_what_it_is() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("g.db");
        {
            let mut s = SqliteStore::open(&db, Access::ReadWrite).unwrap();
            s.save_run(&RunRecord::new("B", "b", serde_json::json!({}), None))
                .unwrap();
        }
        let bytes = std::fs::read(&db).unwrap();
        let file = d.path().join("scratch.db");
        let e = format!("{:#}", runs(&bytes, &file, &want()).unwrap_err());
        assert!(e.contains("under label 'B', not 'A'"), "{e}");
        assert!(!file.exists(), "the scratch file goes");
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch("PRAGMA user_version = 999")
            .unwrap();
        let bytes = std::fs::read(&db).unwrap();
        let e = format!("{:#}", runs(&bytes, &file, &want()).unwrap_err());
        assert!(e.contains("newer kbench") && !e.contains("upgrade"), "{e}");
    }
}
