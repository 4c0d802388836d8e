//! `kbench restore`: apply every restore record a kbench left behind (the
//! knobs a matrix changed, the cpusets `--isolate` made) and remove the
//! trace instances of kbench processes that are gone (`--trace`), or, as the
//! janitor (`--after PID`), those of one kbench once it has died.  Records
//! of a kbench that is still running are its own business and are left
//! alone.

use crate::experiment::restore as knobs;
use anyhow::Result;
use std::path::PathBuf;

pub fn run(after: Option<i32>, remove: &[std::path::PathBuf]) -> Result<()> {
    if let Some(pid) = after {
        crate::sys::proc::set_name("kbench-restore");
        crate::sys::proc::sleep_until_parent_dies(pid);
        for dir in remove {
            crate::isolate::remove_private_dir(dir);
        }
        crate::isolate::undo_left_by(pid);
        crate::trace::tracefs::remove_left(Some(pid));
        let file = knobs::file_of(pid as u32);
        if file.exists() {
            let _ = knobs::undo_file(&file);
        }
        return Ok(());
    }
    let mut done = 0;
    let mut refused = 0;
    for name in crate::trace::tracefs::remove_left(None) {
        println!("removed: the trace instance {name} of a kbench that is gone");
        done += 1;
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(crate::isolate::record_dir())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let owner = name
            .trim_start_matches("knobs-")
            .trim_end_matches(".json")
            .parse::<i32>()
            .ok();
        if let Some(pid) = owner.filter(|p| kbench_alive(*p)) {
            println!(
                "skipped: {} belongs to kbench {pid}, which is still running and restores it itself",
                path.display()
            );
            continue;
        }
        let undone = if knobs::is_record(&name) {
            knobs::undo_file(&path)
        } else {
            crate::isolate::undo_file(&path)
        };
        match undone {
            Ok(line) => {
                println!("{line}");
                done += 1;
            }
            // A record that is not this user's to apply, or that names what
            // kbench never changes, is left where it is, and said.
            Err(e) if e.downcast_ref::<crate::error::Refused>().is_some() => {
                println!("{}", crate::text::clean(&e.to_string()));
                refused += 1;
            }
            Err(e) => return Err(e),
        }
    }
    if refused > 0 {
        return Err(crate::error::input(format!(
            "{refused} restore record(s) refused (see above): remove them once you know where they came from"
        )));
    }
    if done == 0 {
        println!("nothing to restore");
    }
    Ok(())
}

/// Is `pid` a live kbench process (not a zombie)?
fn kbench_alive(pid: i32) -> bool {
    if pid == std::process::id() as i32 {
        return false;
    }
    crate::sys::procstat::read(pid).is_some_and(|p| p.name.starts_with("kbench") && p.state != 'Z')
}
