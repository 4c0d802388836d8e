//! `campaign install-service`: a systemd unit that runs `campaign step`
//! at every boot until the plan is done (the last step removes it), its
//! values written as systemd reads them.

use super::*;
use std::path::Path;

/// `campaign install-service`: a oneshot unit that runs `step` at boot.
pub fn install_service(f: &Front, name: &str, unit_dir: Option<&Path>) -> Result<()> {
    let db = f.db();
    let mut store = f.write_store()?;
    let mut plan = load(store.as_ref(), name)?;
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| anyhow!("finding kbench's own binary: {e}"))?;
    // The service runs with another environment: name the store absolutely.
    let db_arg = match db.filter(|s| !s.trim().is_empty()) {
        Some(d) if crate::store::is_postgres(d) => d.to_string(),
        Some(d) => std::path::absolute(d)?.display().to_string(),
        None => crate::store::default_path().display().to_string(),
    };
    let system = unit_dir.is_none();
    let dir = unit_dir.unwrap_or(Path::new(UNIT_DIR));
    if !dir.is_dir() {
        return Err(input(format!(
            "{} is not a directory (no systemd here?)",
            dir.display()
        )));
    }
    let unit = dir.join(format!("kbench-campaign-{name}.service"));
    let text = format!(
        "{}\n\
         [Unit]\n\
         Description=kbench campaign {name}: run the next block after boot\n\
         After=multi-user.target\n\
         \n\
         [Service]\n\
         Type=oneshot\n\
         ExecStart={} --db {} campaign step {name}\n\
         StandardOutput=journal\n\
         \n\
         [Install]\n\
         WantedBy=multi-user.target\n",
        marker(name),
        systemd_quote(&exe.display().to_string()).ok_or_else(|| input(format!(
            "kbench's own path {} has a control character: a systemd unit cannot name it",
            crate::text::clean(&exe.display().to_string())
        )))?,
        systemd_quote(&db_arg).ok_or_else(|| input(format!(
            "--db {}: a path with a control character (a newline) cannot be written into a systemd unit",
            crate::text::clean(&db_arg)
        )))?,
    );
    // Through a new file renamed over the unit's name (a link planted
    // there is replaced, never written through), 0644 whatever the umask.
    crate::sys::private::replace(&unit, text.as_bytes(), 0o644).map_err(|e| {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            crate::error::privilege(format!("writing {} needs root", unit.display()))
        } else {
            anyhow!("writing {}: {e}", unit.display())
        }
    })?;
    plan.service = Some(unit.clone());
    save(store.as_mut(), &plan)?;
    f.line(&format!("wrote {}", unit.display()));
    if system {
        systemctl(f, &["daemon-reload"]);
        if systemctl(f, &["enable", &format!("kbench-campaign-{name}.service")]) {
            f.line("enabled: the next block runs at the next boot");
        }
    } else {
        f.line(&format!(
            "not in {UNIT_DIR}: enable it yourself with systemctl enable {}",
            unit.display()
        ));
    }
    Ok(())
}

/// The first line of every unit kbench writes: only a file that starts
/// with it is ever removed.
fn marker(name: &str) -> String {
    format!(
        "# Written by `kbench campaign install-service {name}`; removed when the campaign ends."
    )
}

/// Whether `unit` is a unit kbench wrote for campaign `name`: its own
/// name, a regular file (not a link), starting with kbench's line.
fn ours(unit: &Path, name: &str) -> bool {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    if unit.file_name().and_then(|n| n.to_str()) != Some(&format!("kbench-campaign-{name}.service"))
    {
        return false;
    }
    let Ok(mut f) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(unit)
    else {
        return false;
    };
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let want = marker(name);
    let mut head = vec![0u8; want.len()];
    f.read_exact(&mut head).is_ok() && head == want.as_bytes()
}

/// One argument of a unit's `ExecStart=`, as systemd reads it: quoted
/// when it holds anything but plain characters, with `\\` and `"` escaped,
/// `%` (specifiers) as `%%` and `$` (variables) as `$$`; `None` for text a
/// unit line cannot hold (a newline, any control character).
pub(super) fn systemd_quote(s: &str) -> Option<String> {
    if s.is_empty() || s.chars().any(char::is_control) {
        return None;
    }
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:+,=@".contains(c))
    {
        return Some(s.to_string());
    }
    Some(format!(
        "\"{}\"",
        s.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('%', "%%")
            .replace('$', "$$")
    ))
}

pub(super) fn systemctl(f: &Front, args: &[&str]) -> bool {
    match std::process::Command::new("systemctl").args(args).status() {
        Ok(s) if s.success() => true,
        Ok(s) => {
            f.note(&format!(
                "kbench: systemctl {} failed ({s})",
                args.join(" ")
            ));
            false
        }
        Err(e) => {
            f.note(&format!("kbench: systemctl {}: {e}", args.join(" ")));
            false
        }
    }
}

/// The end of a campaign removes its unit.
pub(super) fn remove_service(f: &Front, plan: &mut Plan, store: &mut dyn Store) -> Result<()> {
    let Some(unit) = plan.service.take() else {
        return Ok(());
    };
    // The plan is a store document others may write: only a unit kbench
    // wrote for this campaign is ever disabled or removed.
    if !ours(&unit, &plan.name) {
        f.note(&format!(
            "kbench: campaign {}: the plan names {} as its unit, which is not one kbench wrote for it: left alone",
            plan.name,
            crate::text::clean(&unit.display().to_string())
        ));
        return save(store, plan);
    }
    if unit.starts_with(UNIT_DIR) {
        if let Some(n) = unit.file_name() {
            systemctl(f, &["disable", &n.to_string_lossy()]);
        }
    }
    match std::fs::remove_file(&unit) {
        Ok(()) => f.line(&format!("removed {}", unit.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => f.note(&format!("kbench: removing {}: {e}", unit.display())),
    }
    if unit.starts_with(UNIT_DIR) {
        systemctl(f, &["daemon-reload"]);
    }
    save(store, plan)
}
