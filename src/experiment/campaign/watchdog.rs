//! What brings the machine back when a test kernel hangs rather than
//! panics: a hardware watchdog, and whether systemd keeps it armed.
//!
//! `panic=N` reboots a kernel that panics.  A kernel that hangs (a driver
//! stuck in the initramfs, a deadlock before the step runs) resets the
//! machine only if a watchdog is counting through the reboot and into the
//! next kernel.  systemd owns `/dev/watchdog` on a machine that uses it
//! (`RuntimeWatchdogSec=` while running, `RebootWatchdogSec=` through a
//! reboot, `KExecWatchdogSec=` through a kexec), and a second opener is
//! refused, so kbench does not arm it itself: `campaign init` says what
//! the machine has and what its systemd does with it, so a person knows
//! whether a hang ends the campaign until someone resets the machine.
//! Whether a watchdog armed for the reboot stays armed into the next
//! kernel is the driver's choice (many stop theirs at reboot) unless the
//! kernel's command line overrides it (`watchdog.stop_on_reboot=0`); that
//! is said too.

use std::path::Path;

/// One watchdog device, as sysfs shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Device {
    pub name: String,
    pub identity: String,
    pub timeout_s: Option<u64>,
}

/// systemd's watchdog settings, as `systemctl show` prints them (`None`:
/// not known, no systemd).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Systemd {
    pub runtime: Option<String>,
    pub reboot: Option<String>,
    pub kexec: Option<String>,
}

/// Every watchdog device under `class` (`/sys/class/watchdog`).
pub fn devices(class: &Path) -> Vec<Device> {
    let mut out: Vec<Device> = std::fs::read_dir(class)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let read = |f: &str| {
                std::fs::read_to_string(e.path().join(f))
                    .map(|s| crate::text::clean(s.trim()).into_owned())
                    .ok()
            };
            Device {
                name: e.file_name().to_string_lossy().into_owned(),
                identity: read("identity").unwrap_or_else(|| "unknown".into()),
                timeout_s: read("timeout").and_then(|t| t.parse().ok()),
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// systemd's settings, from `systemctl show` (nothing when it fails).
pub fn systemd() -> Systemd {
    std::process::Command::new("systemctl")
        .args(["show", "-p", "RuntimeWatchdogUSec"])
        .args(["-p", "RebootWatchdogUSec", "-p", "KExecWatchdogUSec"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| parse_show(&String::from_utf8_lossy(&o.stdout)))
        .unwrap_or_default()
}

/// `KEY=VALUE` lines of `systemctl show`.
fn parse_show(text: &str) -> Systemd {
    let get = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(|v| crate::text::clean(v.trim()).into_owned())
    };
    Systemd {
        runtime: get("RuntimeWatchdogUSec"),
        reboot: get("RebootWatchdogUSec"),
        kexec: get("KExecWatchdogUSec"),
    }
}

/// Is a systemd watchdog setting on (a time, not 0 or empty)?
fn on(v: &Option<String>) -> bool {
    v.as_deref()
        .is_some_and(|v| !v.is_empty() && v != "0" && v != "off")
}

/// What the running kernel's command line says of watchdogs at reboot
/// (`watchdog.stop_on_reboot=`, the watchdog core's parameter): `Some(true)`
/// kept running into the next kernel (0), `Some(false)` stopped (1),
/// `None` each driver's choice (many stop theirs, QEMU's i6300esb among
/// them).
pub fn kept_through_reboot(cmdline: &str) -> Option<bool> {
    cmdline
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("watchdog.stop_on_reboot="))
        .next_back()
        .and_then(|v| match v {
            "0" => Some(true),
            "1" => Some(false),
            _ => None,
        })
}

/// The sentence `campaign init` says, for a campaign that reboots by
/// kexec (`kexec`) or otherwise, on a kernel whose command line keeps
/// watchdogs through a reboot or not (`kept`, see
/// [`kept_through_reboot`]).
pub fn sentence(devices: &[Device], sd: &Systemd, kexec: bool, kept: Option<bool>) -> String {
    let Some(first) = devices.first() else {
        return "watchdog: none on this machine, so a test kernel that hangs without panicking waits for someone to reset the machine".into();
    };
    let names: Vec<String> = devices
        .iter()
        .map(|d| match d.timeout_s {
            Some(t) => format!("{} ({}, {t} s)", d.name, d.identity),
            None => format!("{} ({})", d.name, d.identity),
        })
        .collect();
    let (key, through, what) = if kexec {
        ("KExecWatchdogSec", &sd.kexec, "kexec")
    } else {
        ("RebootWatchdogSec", &sd.reboot, "reboot")
    };
    let show = |k: &str, v: &Option<String>| format!("{k}={}", v.as_deref().unwrap_or("?"));
    let settings = format!(
        "{}, {}",
        show("RuntimeWatchdogSec", &sd.runtime),
        show(key, through)
    );
    if on(&sd.runtime) && on(through) {
        let into = match kept {
            Some(true) => "and this kernel keeps it running into the next one (watchdog.stop_on_reboot=0), so a kernel that hangs is reset".to_string(),
            Some(false) => "but this kernel stops it at reboot (watchdog.stop_on_reboot=1), so a kernel that hangs is not reset: set watchdog.stop_on_reboot=0 on the command line".to_string(),
            None => format!(
                "so a kernel that hangs is reset if the watchdog stays armed into it: many drivers stop theirs at reboot{}, so add watchdog.stop_on_reboot=0 to the command line",
                if kexec { "" } else { " and firmware may too" }
            ),
        };
        format!(
            "watchdog: {}; systemd keeps it armed while running and through the {what} ({settings}), {into}",
            names.join(", "),
        )
    } else {
        format!(
            "watchdog: {}, but systemd does not keep it armed through the {what} ({settings}), so a kernel that hangs without panicking waits for someone: set RuntimeWatchdogSec={} and {key}=10min in /etc/systemd/system.conf{} to have it reset",
            names.join(", "),
            first.timeout_s.unwrap_or(30).clamp(10, 60),
            if kept == Some(true) {
                ""
            } else {
                ", and watchdog.stop_on_reboot=0 on the kernel's command line"
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev() -> Vec<Device> {
        vec![Device {
            name: "watchdog0".into(),
            identity: "i6300ESB timer".into(),
            timeout_s: Some(30),
        }]
    }

    #[test]
    fn systemctl_show_is_read_by_key() {
        let s =
            parse_show("RuntimeWatchdogUSec=30s\nRebootWatchdogUSec=10min\nKExecWatchdogUSec=0\n");
        assert_eq!(s.runtime.as_deref(), Some("30s"));
        assert_eq!(s.reboot.as_deref(), Some("10min"));
        assert_eq!(s.kexec.as_deref(), Some("0"));
        assert_eq!(parse_show(""), Systemd::default());
        // A value that is not one line of plain text is cleaned.
        let s = parse_show("RuntimeWatchdogUSec=\u{1b}[31m30s\n");
        assert!(!s.runtime.unwrap().contains('\u{1b}'));
    }

    #[test]
    fn the_sentence_says_what_a_hang_would_do() {
        let none = sentence(&[], &Systemd::default(), false, None);
        assert!(none.contains("none on this machine"), "{none}");
        let armed = Systemd {
            runtime: Some("30s".into()),
            reboot: Some("10min".into()),
            kexec: Some("0".into()),
        };
        let s = sentence(&dev(), &armed, false, None);
        assert!(s.contains("watchdog0 (i6300ESB timer, 30 s)"), "{s}");
        assert!(
            s.contains("keeps it armed") && s.contains("RebootWatchdogSec=10min"),
            "{s}"
        );
        assert!(s.contains("add watchdog.stop_on_reboot=0"), "{s}");
        let s = sentence(&dev(), &armed, false, Some(true));
        assert!(
            s.contains("keeps it running into the next one") && s.contains("is reset"),
            "{s}"
        );
        let s = sentence(&dev(), &armed, false, Some(false));
        assert!(s.contains("is not reset"), "{s}");
        // The same systemd does not arm it for a kexec.
        let s = sentence(&dev(), &armed, true, None);
        assert!(
            s.contains("does not keep it armed through the kexec"),
            "{s}"
        );
        assert!(
            s.contains("KExecWatchdogSec=10min in /etc/systemd/system.conf"),
            "{s}"
        );
        let s = sentence(&dev(), &Systemd::default(), false, None);
        assert!(s.contains("RuntimeWatchdogSec=?"), "{s}");
        assert!(s.contains("and watchdog.stop_on_reboot=0"), "{s}");
        let s = sentence(&dev(), &Systemd::default(), false, Some(true));
        assert!(!s.contains("stop_on_reboot"), "{s}");
    }

    #[test]
    fn the_command_line_says_whether_watchdogs_outlive_a_reboot() {
        assert_eq!(
            kept_through_reboot("ro quiet watchdog.stop_on_reboot=0"),
            Some(true)
        );
        assert_eq!(
            kept_through_reboot("watchdog.stop_on_reboot=1"),
            Some(false)
        );
        // The last word wins, as the kernel reads it.
        assert_eq!(
            kept_through_reboot("watchdog.stop_on_reboot=0 watchdog.stop_on_reboot=1"),
            Some(false)
        );
        assert_eq!(kept_through_reboot("watchdog.stop_on_reboot=-1"), None);
        assert_eq!(kept_through_reboot("root=/dev/vda"), None);
    }

    #[test]
    fn devices_are_read_from_sysfs() {
        let d = tempfile::tempdir().unwrap();
        for (n, id, t) in [("watchdog1", "b", "x"), ("watchdog0", "a\n", "20\n")] {
            std::fs::create_dir(d.path().join(n)).unwrap();
            std::fs::write(d.path().join(n).join("identity"), id).unwrap();
            std::fs::write(d.path().join(n).join("timeout"), t).unwrap();
        }
        let v = devices(d.path());
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].name, "watchdog0");
        assert_eq!(v[0].identity, "a");
        assert_eq!(v[0].timeout_s, Some(20));
        assert_eq!(v[1].timeout_s, None);
        assert!(devices(&d.path().join("absent")).is_empty());
    }
}
