//! Putting knobs back: a restore record is written before the first knob
//! changes, and a janitor process applies it if kbench dies without doing
//! so itself (SIGKILL); after a crash of the machine's kbench, `kbench
//! restore` applies every record left.  Records live beside the isolation
//! ones ([`crate::isolate`]), as `knobs-<pid>.json`.

use super::knob::Location;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One knob's value before the experiment.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Saved {
    pub name: String,
    pub location: Location,
    pub original: String,
}

/// What to put back.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    pub knobs: Vec<Saved>,
}

/// The record file of process `pid`.
pub fn file_of(pid: u32) -> PathBuf {
    crate::isolate::record_dir().join(format!("knobs-{pid}.json"))
}

/// Is this file name a knob record?
pub fn is_record(name: &str) -> bool {
    name.starts_with("knobs-") && name.ends_with(".json")
}

/// Write every original value back; the names of those that could not be.
pub fn undo(r: &Record) -> Vec<String> {
    let mut failed = Vec::new();
    for s in &r.knobs {
        if s.location.read().is_ok_and(|now| now == s.original) {
            continue;
        }
        match s.location.write(&s.original) {
            Ok(back) if back == s.original => {}
            Ok(back) => failed.push(format!("{} (reads {back}, was {})", s.name, s.original)),
            Err(e) => failed.push(format!("{} ({e})", s.name)),
        }
    }
    failed
}

impl Record {
    /// Whether every knob in it is one kbench could have changed (see
    /// [`Location::check`]), with a value it could have read.
    fn check(&self) -> Result<(), String> {
        for s in &self.knobs {
            s.location.check()?;
            if s.original.len() > 4096 || s.original.contains('\0') {
                return Err(format!("{}: its value is not a knob's", s.name));
            }
        }
        Ok(())
    }
}

/// The record in `file`, if this user wrote it (nobody else could have
/// changed it) and it names only knobs kbench could have changed.
fn read_record(file: &Path) -> Result<Record> {
    crate::isolate::read_checked(file, Record::check)
}

/// Apply the record in `file` and remove it; a line saying what was done.
pub fn undo_file(file: &Path) -> Result<String> {
    let r = read_record(file)?;
    let failed = undo(&r);
    if !failed.is_empty() {
        anyhow::bail!(
            "{}: could not restore {}; `kbench restore` retries",
            file.display(),
            failed.join(", ")
        );
    }
    crate::isolate::drop_record(file)?;
    Ok(format!(
        "restored: {} to the values before the matrix ({})",
        r.knobs
            .iter()
            .map(|s| format!("{}={}", s.name, s.original))
            .collect::<Vec<_>>()
            .join(", "),
        file.display()
    ))
}

/// The record of a running experiment: written (atomically) before the
/// first change; on drop the originals go back and the record goes.
pub struct Guard {
    record: Record,
    file: PathBuf,
    janitor: Option<std::process::Child>,
}

impl Guard {
    /// Save the originals and start the janitor.
    pub fn new(record: Record) -> Result<Guard> {
        let file = file_of(std::process::id());
        crate::isolate::write_record(&file, &serde_json::to_vec_pretty(&record)?)?;
        let janitor = crate::isolate::spawn_janitor().ok();
        Ok(Guard {
            record,
            file,
            janitor,
        })
    }

    /// Put every knob back now; errors name the knobs left changed.
    pub fn restore(&mut self) -> Result<()> {
        let failed = undo(&self.record);
        // The record goes before its janitor: a SIGKILL between the two
        // leaves neither (the janitor finds no record).
        if failed.is_empty() {
            let _ = crate::isolate::drop_record(&self.file);
        }
        crate::sys::janitor::end(self.janitor.take());
        if failed.is_empty() {
            Ok(())
        } else {
            anyhow::bail!(
                "could not restore {}; the record {} stays for `kbench restore`",
                failed.join(", "),
                self.file.display()
            )
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.file.exists() {
            let _ = self.restore();
        }
    }
}
