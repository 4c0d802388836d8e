//! Knobs a matrix sets: where each one lives, how to read the value in
//! effect, how to write one, and whether it can be written here at all.
//!
//! A knob is a sysctl (`kernel.sched_autogroup_enabled`), a file under
//! `/proc/sys` or `/sys`, or one of the named common cases.  Nothing
//! outside `/proc/sys` and `/sys` is ever written: a matrix runs as root,
//! and a knob path is user input.  Choice files (THP's `[always] madvise
//! never`, debugfs `sched/preempt`'s `none (voluntary) full`) list what
//! they accept, so a value they do not list is refused before anything
//! changes.

use crate::error::{input, privilege};
use crate::sys::mount::{in_private_namespace, Op};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// Where a knob's value lives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Location {
    /// One file: a sysctl or a sysfs attribute.
    File(PathBuf),
    /// The same attribute of every CPU (cpufreq's governor): written to
    /// all, read from all (they must agree).
    PerCpu(Vec<PathBuf>),
    /// A file inside debugfs, reached through a private mount when debugfs
    /// is not mounted (so the machine's mounts are left as they were).
    Debugfs(String),
}

/// A knob and the values a matrix gives it.
#[derive(Clone, Debug)]
pub struct Knob {
    /// As the user named it, and as it appears in labels.
    pub name: String,
    pub location: Location,
    pub values: Vec<String>,
}

/// Most values one knob may take, and most combinations of a matrix.
pub const MAX_VALUES: usize = 16;
pub const MAX_COMBINATIONS: usize = 64;

/// A knob kbench knows by name, declared once: what it is (for help and
/// messages) and how it is found on this machine.
pub struct Named {
    pub name: &'static str,
    pub what: &'static str,
    find: fn() -> Result<Location>,
}

/// The named knobs; `matrix --help` lists them from here.
pub const NAMED: &[Named] = &[
    Named {
        name: "preempt",
        what: "preemption mode of a PREEMPT_DYNAMIC kernel (debugfs sched/preempt)",
        find: || Ok(Location::Debugfs("sched/preempt".into())),
    },
    Named {
        name: "governor",
        what: "cpufreq governor of every CPU (cpu*/cpufreq/scaling_governor)",
        find: governors,
    },
    Named {
        name: "thp",
        what: "transparent huge pages (/sys/kernel/mm/transparent_hugepage/enabled)",
        find: || {
            Ok(Location::File(
                "/sys/kernel/mm/transparent_hugepage/enabled".into(),
            ))
        },
    },
    Named {
        name: "autogroup",
        what: "scheduler autogroups (kernel.sched_autogroup_enabled)",
        find: || {
            Ok(Location::File(
                "/proc/sys/kernel/sched_autogroup_enabled".into(),
            ))
        },
    },
    Named {
        name: "rt_runtime",
        what: "real-time throttling budget in us, -1 for none (kernel.sched_rt_runtime_us)",
        find: || {
            Ok(Location::File(
                "/proc/sys/kernel/sched_rt_runtime_us".into(),
            ))
        },
    },
];

/// The named knobs for help: `name: what it is`, one a line.
pub fn named_help() -> String {
    NAMED
        .iter()
        .map(|k| format!("  {:<11} {}", k.name, k.what))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every CPU's cpufreq governor, where the machine has them.
fn governors() -> Result<Location> {
    let mut files: Vec<PathBuf> = crate::sys::cpus::online_here()
        .iter()
        .map(|c| {
            PathBuf::from(format!(
                "/sys/devices/system/cpu/cpu{c}/cpufreq/scaling_governor"
            ))
        })
        .filter(|p| p.exists())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(input(
            "--knob governor: this machine has no cpufreq governors (no /sys/devices/system/cpu/cpu*/cpufreq: a VM, or a kernel without cpufreq)",
        ));
    }
    Ok(Location::PerCpu(files))
}

/// Parse `NAME=V1,V2,…` (a named knob, a dotted sysctl or a path).
pub fn parse(spec: &str) -> Result<Knob> {
    let (name, values) = spec.split_once('=').ok_or_else(|| {
        input(format!(
            "--knob '{spec}': give NAME=VALUE,VALUE (e.g. autogroup=0,1)"
        ))
    })?;
    let name = name.trim();
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
    if let Some(bad) = values
        .iter()
        .find(|v| v.is_empty() || v.len() > 256 || v.chars().any(|c| c.is_control() || c == '/'))
    {
        return Err(input(format!(
            "--knob {name}: '{}' is not a value (empty, too long, or with '/' or control characters)",
            bad.escape_default()
        )));
    }
    if values.len() > MAX_VALUES {
        return Err(input(format!("--knob {name}: at most {MAX_VALUES} values")));
    }
    for (i, v) in values.iter().enumerate() {
        if values[..i].contains(v) {
            return Err(input(format!("--knob {name}: value '{v}' given twice")));
        }
    }
    Ok(Knob {
        location: locate(name)?,
        name: name.to_string(),
        values,
    })
}

/// Where the knob called `name` lives.
fn locate(name: &str) -> Result<Location> {
    if let Some(k) = NAMED.iter().find(|k| k.name == name) {
        return (k.find)();
    }
    if name.starts_with('/') {
        let allowed = |p: &Path| p.starts_with("/proc/sys") || p.starts_with("/sys");
        let given = Path::new(name);
        if !allowed(given) || name.contains("/../") || name.ends_with("/..") {
            return Err(input(format!(
                "--knob {name}: only files under /proc/sys and /sys can be knobs"
            )));
        }
        if !given.exists() {
            return Err(input(format!(
                "--knob {name}: absent: no such file on this kernel"
            )));
        }
        let real = given
            .canonicalize()
            .map_err(|e| input(format!("--knob {name}: {e}")))?;
        if !allowed(&real) {
            return Err(input(format!(
                "--knob {name}: leads to {} (outside /proc/sys and /sys)",
                real.display()
            )));
        }
        if real.starts_with("/sys/kernel/debug") {
            let rel = real.strip_prefix("/sys/kernel/debug").unwrap_or(&real);
            return Ok(Location::Debugfs(rel.to_string_lossy().into_owned()));
        }
        return Ok(Location::File(real));
    }
    let dotted = !name.is_empty()
        && name.len() <= 200
        && name.split('.').all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        });
    if !dotted || !name.contains('.') {
        return Err(input(format!(
            "--knob {name}: not a knob: use a sysctl name (kernel.sched_autogroup_enabled), a path under /proc/sys or /sys, or one of {}",
            NAMED.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
        )));
    }
    let path = PathBuf::from("/proc/sys").join(name.replace('.', "/"));
    if !path.exists() {
        return Err(input(format!(
            "--knob {name}: absent: no {} on this kernel",
            path.display()
        )));
    }
    Ok(Location::File(path))
}

/// Whether `p` is a knob file: it is there, a regular file, and it is,
/// symlinks resolved, under /proc/sys or /sys (not debugfs, which is
/// reached as [`Location::Debugfs`]).
fn knob_file(p: &Path) -> Result<(), String> {
    let under = |q: &Path| {
        (q.starts_with("/proc/sys/") || q.starts_with("/sys/"))
            && !q.starts_with("/sys/kernel/debug")
    };
    if !under(p) {
        return Err(format!(
            "{} is not a file under /proc/sys or /sys",
            p.display()
        ));
    }
    let real = p
        .canonicalize()
        .map_err(|e| format!("{}: {e}", p.display()))?;
    if !under(&real) {
        return Err(format!(
            "{} is not a file under /proc/sys or /sys",
            p.display()
        ));
    }
    match std::fs::metadata(&real) {
        Ok(m) if m.is_file() => Ok(()),
        _ => Err(format!("{} is not a knob file", p.display())),
    }
}

impl Location {
    /// Whether this location is one kbench could have chosen for a knob
    /// (what a restore record says is checked with this before anything
    /// is written): a file under /proc/sys or /sys that is there, every
    /// CPU's cpufreq governor, or a plain path inside debugfs.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Location::File(p) => knob_file(p),
            Location::PerCpu(files) => files.iter().try_for_each(|f| {
                let name = f.to_string_lossy();
                let cpu = name
                    .strip_prefix("/sys/devices/system/cpu/cpu")
                    .and_then(|r| r.strip_suffix("/cpufreq/scaling_governor"))
                    .unwrap_or("");
                if cpu.is_empty() || !cpu.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("{name} is not a CPU's cpufreq governor"));
                }
                knob_file(f)
            }),
            Location::Debugfs(rel) => {
                let plain = !rel.is_empty()
                    && rel.len() <= 200
                    && Path::new(rel)
                        .components()
                        .all(|c| matches!(c, std::path::Component::Normal(_)))
                    && rel
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
                if plain {
                    Ok(())
                } else {
                    Err(format!("debugfs/{rel} is not a plain path inside debugfs"))
                }
            }
        }
    }

    /// How it is shown in messages.
    pub fn shown(&self) -> String {
        match self {
            Location::File(p) => p.display().to_string(),
            Location::PerCpu(f) => format!(
                "{} (and {} more CPUs)",
                f[0].display(),
                f.len().saturating_sub(1)
            ),
            Location::Debugfs(rel) => format!("/sys/kernel/debug/{rel}"),
        }
    }

    /// The raw text of the knob's file(s).
    fn read_raw(&self) -> std::io::Result<String> {
        match self {
            Location::File(p) => std::fs::read_to_string(p),
            Location::PerCpu(files) => {
                let mut first: Option<String> = None;
                for f in files {
                    let t = std::fs::read_to_string(f)?;
                    match &first {
                        None => first = Some(t),
                        Some(v) if selected(v) != selected(&t) => {
                            return Ok(format!("{} (CPUs differ)", t.trim()));
                        }
                        Some(_) => {}
                    }
                }
                Ok(first.unwrap_or_default())
            }
            Location::Debugfs(rel) => {
                debugfs(rel, Op::Read).map(|b| String::from_utf8_lossy(&b).into_owned())
            }
        }
    }

    fn write_raw(&self, value: &str) -> std::io::Result<()> {
        // A knob is a file that is there: never created.
        let put = |p: &Path| {
            use std::io::Write;
            std::fs::OpenOptions::new()
                .write(true)
                .open(p)?
                .write_all(value.as_bytes())
        };
        match self {
            Location::File(p) => put(p),
            Location::PerCpu(files) => files.iter().try_for_each(|f| put(f)),
            Location::Debugfs(rel) => debugfs(rel, Op::Write(value.as_bytes())).map(|_| ()),
        }
    }

    /// The value in effect.
    pub fn read(&self) -> std::io::Result<String> {
        self.read_raw().map(|t| selected(&t))
    }

    /// The values the file lists as accepted, for choice files.
    pub fn choices(&self) -> Option<Vec<String>> {
        self.read_raw().ok().and_then(|t| choices(&t))
    }

    /// Write `value` and read back what took effect.
    pub fn write(&self, value: &str) -> std::io::Result<String> {
        self.write_raw(value)?;
        self.read()
    }
}

/// The selected entry of a choice file (`[x]` or `(x)`), else the text
/// with its whitespace collapsed.
pub fn selected(text: &str) -> String {
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(i) = text.find(open) {
            if let Some(j) = text[i..].find(close) {
                if text.split_whitespace().count() > 1 {
                    return text[i + 1..i + j].trim().to_string();
                }
            }
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every entry of a choice file, marks removed; `None` for plain files.
pub fn choices(text: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let marked = words.iter().any(|w| {
        (w.starts_with('[') && w.ends_with(']')) || (w.starts_with('(') && w.ends_with(')'))
    });
    (marked && words.len() > 1).then(|| {
        words
            .iter()
            .map(|w| {
                w.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')'))
                    .to_string()
            })
            .collect()
    })
}

/// Read or write a debugfs file: through the mounted debugfs, or through a
/// private mount namespace (see `sys::mount`) when it is not mounted.
fn debugfs(rel: &str, op: Op<'_>) -> std::io::Result<Vec<u8>> {
    if let Err(why) = Location::Debugfs(rel.to_string()).check() {
        return Err(std::io::Error::new(ErrorKind::InvalidInput, why));
    }
    let mounted = Path::new("/sys/kernel/debug");
    if mounted.join("sched").exists() {
        let path = mounted.join(rel);
        return match op {
            Op::Read => std::fs::read(path),
            Op::Write(b) => std::fs::write(path, b).map(|()| Vec::new()),
        };
    }
    if !crate::sys::proc::is_root() {
        return Err(std::io::Error::new(
            ErrorKind::PermissionDenied,
            "debugfs is not mounted",
        ));
    }
    in_private_namespace("debugfs", "/sys/kernel/debug", rel, op)
}

/// The kernel's lockdown mode (`none`, `integrity`, `confidentiality`),
/// from securityfs (read through a private mount namespace when it is not
/// mounted).
pub fn lockdown_mode() -> Option<String> {
    let mounted = Path::new("/sys/kernel/security/lockdown");
    if let Ok(t) = std::fs::read_to_string(mounted) {
        return Some(selected(&t));
    }
    if !crate::sys::proc::is_root() {
        return None;
    }
    in_private_namespace("securityfs", "/sys/kernel/security", "lockdown", Op::Read)
        .ok()
        .map(|b| selected(&String::from_utf8_lossy(&b)))
}

/// Why a knob cannot be read or written, as the one-line error a user
/// gets before the experiment starts.
pub fn refusal(k: &Knob, what: &str, e: &std::io::Error) -> anyhow::Error {
    let shown = k.location.shown();
    let debugfs = matches!(k.location, Location::Debugfs(_));
    match e.kind() {
        ErrorKind::NotFound if debugfs => input(format!(
            "--knob {}: absent: {shown} does not exist on this kernel{}",
            k.name,
            if k.name == "preempt" {
                " (not a PREEMPT_DYNAMIC kernel: choose the preemption mode at boot, with a campaign)"
            } else {
                ""
            }
        )),
        ErrorKind::NotFound => input(format!("--knob {}: absent: {shown} does not exist", k.name)),
        ErrorKind::PermissionDenied if !crate::sys::proc::is_root() => privilege(format!(
            "--knob {}: {what} {shown} needs root: run kbench matrix with sudo",
            k.name
        )),
        ErrorKind::PermissionDenied if debugfs => {
            let mode = lockdown_mode();
            privilege(format!(
                "--knob {}: {what} {shown} is refused by the kernel's lockdown{}: debugfs is closed even to root; boot with lockdown off, or compare {} across boots with `kbench campaign` (preempt= on the kernel command line)",
                k.name,
                match mode.as_deref() {
                    Some(m) if m != "none" => format!(" ({m})"),
                    _ => " (EPERM as root)".into(),
                },
                if k.name == "preempt" { "preemption modes" } else { "its values" }
            ))
        }
        ErrorKind::PermissionDenied => privilege(format!(
            "--knob {}: {what} {shown} is refused by the kernel even to root (a read-only attribute, or lockdown)",
            k.name
        )),
        ErrorKind::InvalidInput => input(format!(
            "--knob {}: the kernel does not accept that value for {shown}",
            k.name
        )),
        _ => input(format!("--knob {}: {what} {shown}: {e}", k.name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every named knob in the table is found by its name: a location a
    /// restore record would accept, or a refusal that names it.
    #[test]
    fn every_named_knob_is_found_by_its_name() {
        for k in NAMED {
            match parse(&format!("{}=a,b", k.name)) {
                Ok(knob) => {
                    assert_eq!(knob.name, k.name);
                    assert!(knob.location.check().is_ok(), "{}", k.name);
                }
                Err(e) => assert!(e.to_string().contains(k.name), "{}: {e}", k.name),
            }
            assert!(named_help().contains(k.name));
        }
    }

    #[test]
    fn choice_files_and_plain_values() {
        assert_eq!(selected("always [madvise] never\n"), "madvise");
        assert_eq!(selected("none (voluntary) full\n"), "voluntary");
        assert_eq!(selected("1\n"), "1");
        assert_eq!(selected("4\t4\t1\t7\n"), "4 4 1 7");
        assert_eq!(
            choices("always [madvise] never").unwrap(),
            vec!["always", "madvise", "never"]
        );
        assert_eq!(choices("none (voluntary) full").unwrap().len(), 3);
        assert_eq!(choices("950000"), None);
    }

    #[test]
    fn specs_are_checked_before_anything_is_touched() {
        let k = parse("autogroup=0,1").unwrap();
        assert_eq!(
            k.location,
            Location::File("/proc/sys/kernel/sched_autogroup_enabled".into())
        );
        assert_eq!(k.values, vec!["0", "1"]);
        let k = parse("kernel.sched_autogroup_enabled=1").unwrap();
        assert_eq!(
            k.location,
            Location::File("/proc/sys/kernel/sched_autogroup_enabled".into())
        );
        assert_eq!(
            parse("preempt=none,full").unwrap().location,
            Location::Debugfs("sched/preempt".into())
        );
        for bad in [
            "autogroup",
            "autogroup=",
            "autogroup=0,,1",
            "autogroup=0,0",
            "/etc/passwd=x",
            "/proc/sys/../../etc/passwd=x",
            "kernel..x=1",
            "kernel.no_such_knob_here=1",
            "nonsense=1",
            "autogroup=a/b",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
