//! A matrix's scheduler dimension (`--sched`): EEVDF, the kernel's own,
//! or a sched_ext scheduler attached for each run and detached after.
//!
//! A sched_ext scheduler attaches when its program starts and detaches
//! when it exits (SIGINT, or any death: the kernel drops the BPF
//! scheduler with its last link).  So each visit of a variant starts the
//! program in its own process group, dying with kbench, and waits for the
//! kernel to say it is enabled under a new `enable_seq` before the run
//! begins; the run's own audit (`lifecycle::sched_ext`) then fails it if
//! the scheduler did not stay for its whole length.  Variants interleave
//! in the matrix's seeded rounds like knob values, so the machine's drift
//! falls on each alike.

use crate::error::input;
use crate::sys::sched_ext;
use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One scheduler variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// Its name in labels (`…/sched=NAME`).
    pub name: String,
    /// The program and its arguments; `None`: EEVDF, nothing attached.
    pub command: Option<Vec<String>>,
}

/// `eevdf`, `NAME=COMMAND` (words split on spaces) or a bare `scx_NAME`.
pub fn parse(s: &str) -> std::result::Result<Variant, String> {
    let s = s.trim();
    let (name, command) = if s == "eevdf" {
        ("eevdf".to_string(), None)
    } else if let Some((name, cmd)) = s.split_once('=') {
        let words: Vec<String> = cmd.split_whitespace().map(String::from).collect();
        if words.is_empty() {
            return Err(format!("--sched {s}: no command after '='"));
        }
        (name.to_string(), Some(words))
    } else if let Some(name) = s.strip_prefix("scx_") {
        (name.to_string(), Some(vec![s.to_string()]))
    } else {
        return Err(format!(
            "--sched {s}: give eevdf, NAME=COMMAND (bpfland=scx_bpfland) or a scx_NAME on PATH"
        ));
    };
    if name.is_empty()
        || name.len() > 32
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
    {
        return Err(format!(
            "--sched {s}: the name '{}' must be 1-32 letters, digits, '_', '.' or '-' (it goes into labels)",
            name.escape_default()
        ));
    }
    if name == "eevdf" && command.is_some() {
        return Err(format!(
            "--sched {s}: eevdf is the kernel's own scheduler; name a sched_ext one otherwise"
        ));
    }
    Ok(Variant { name, command })
}

/// The program a variant starts, found as a shell would (`None` for
/// EEVDF).
pub fn program(v: &Variant) -> Result<Option<PathBuf>> {
    let Some(cmd) = &v.command else {
        return Ok(None);
    };
    let first = Path::new(&cmd[0]);
    if cmd[0].contains('/') {
        return if first.is_file() {
            Ok(Some(first.to_path_buf()))
        } else {
            Err(input(format!(
                "--sched {}: {} is not a file",
                v.name,
                first.display()
            )))
        };
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(first))
        .find(|p| p.is_file())
        .map(Some)
        .ok_or_else(|| {
            input(format!(
                "--sched {}: {} is not on PATH (give its path: {}=/path/to/{})",
                v.name, cmd[0], v.name, cmd[0]
            ))
        })
}

/// The variants checked before anything runs: distinct names, programs
/// found, and, where one attaches, a kernel with sched_ext, nothing
/// attached already, and root.  What the runs will record of each
/// (`lifecycle::sched_ext::ENV_SCHEDULER`): name, command, SHA-256.
pub fn check(variants: &[Variant]) -> Result<Vec<serde_json::Value>> {
    check_at(variants, Path::new(sched_ext::ROOT))
}

/// [`check`] against sched_ext's files under `root`.
fn check_at(variants: &[Variant], root: &Path) -> Result<Vec<serde_json::Value>> {
    for (i, v) in variants.iter().enumerate() {
        if variants[..i].iter().any(|w| w.name == v.name) {
            return Err(input(format!("--sched {}: given twice", v.name)));
        }
    }
    let mut out = Vec::new();
    for v in variants {
        let doc = match program(v)? {
            None => serde_json::json!({ "name": v.name, "attached": false }),
            Some(p) => serde_json::json!({
                "name": v.name,
                "command": v.command,
                "program": p.display().to_string(),
                "sha256": crate::fingerprint::sha256_file(&p).map_err(|e| anyhow!("--sched {}: reading {}: {e}", v.name, p.display()))?,
            }),
        };
        out.push(doc);
    }
    if variants.iter().any(|v| v.command.is_some()) {
        let Some(now) = sched_ext::read_at(root) else {
            return Err(input(
                "--sched: this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT, Linux 6.12 or later): only --sched eevdf runs on it",
            ));
        };
        if now.state != "disabled" {
            return Err(input(format!(
                "--sched: a sched_ext scheduler is attached already ({}, state {}): stop it first (systemctl stop scx_loader or scx, or end its program), then run the matrix",
                now.ops.as_deref().unwrap_or("unnamed"),
                now.state
            )));
        }
        if !crate::sys::proc::is_root() {
            return Err(crate::error::privilege(
                "--sched: attaching a sched_ext scheduler loads BPF: run kbench matrix as root (sudo)",
            ));
        }
    }
    Ok(out)
}

/// A sched_ext scheduler attached for one run.
pub struct Attached {
    child: Child,
    name: String,
    log: PathBuf,
    _scratch: crate::sys::janitor::Scratch,
    /// Seconds from start to the kernel's `enabled`.
    pub attach_s: f64,
    /// The kernel's `enable_seq` for this attachment.
    enable_seq: u64,
}

/// How long a scheduler may take to attach (minutes under TCG).
const ATTACH_LIMIT: Duration = Duration::from_secs(120);

/// Start `v`'s program and wait until the kernel has it enabled.
pub fn attach(v: &Variant) -> Result<Attached> {
    let cmd = v.command.as_ref().expect("a sched_ext variant");
    let before = sched_ext::read().map(|s| s.enable_seq).unwrap_or(0);
    let scratch = crate::sys::janitor::Scratch::in_tmp("sched")?;
    let log = scratch.path().join("scheduler.log");
    let out = std::fs::File::create(&log)?;
    let mut c = Command::new(&cmd[0]);
    c.args(&cmd[1..])
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    crate::sys::proc::on_exec(
        &mut c,
        crate::sys::proc::OnExec {
            die_with_parent: true,
            own_group: true,
            ..Default::default()
        },
    );
    let started = Instant::now();
    let mut child = c
        .spawn()
        .map_err(|e| anyhow!("--sched {}: starting {}: {e}", v.name, cmd[0]))?;
    loop {
        if let Some(st) = child.try_wait()? {
            return Err(anyhow!(
                "--sched {}: {} exited ({st}) before it attached: {}",
                v.name,
                cmd[0],
                tail(&log)
            ));
        }
        if let Some(s) = sched_ext::read() {
            if s.enabled() && s.enable_seq > before {
                return Ok(Attached {
                    enable_seq: s.enable_seq,
                    child,
                    name: v.name.clone(),
                    log,
                    _scratch: scratch,
                    attach_s: started.elapsed().as_secs_f64(),
                });
            }
        }
        if started.elapsed() > ATTACH_LIMIT || crate::sys::signals::stop_requested() {
            crate::sys::proc::kill(-(child.id() as i32), libc::SIGKILL);
            let _ = child.wait();
            if crate::sys::signals::stop_requested() {
                return Err(crate::error::Interrupted.into());
            }
            return Err(anyhow!(
                "--sched {}: not enabled after {} s: {}",
                v.name,
                ATTACH_LIMIT.as_secs(),
                tail(&log)
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Attached {
    /// Is it still the kernel's scheduler, under the attachment it made?
    pub fn still_attached(&self) -> bool {
        sched_ext::read().is_some_and(|s| s.enabled() && s.enable_seq == self.enable_seq)
    }

    /// SIGINT to its group, then wait for it to exit and the kernel to say
    /// disabled (SIGKILL after 30 s); seconds it took.
    pub fn detach(mut self) -> Result<f64> {
        let started = Instant::now();
        let group = -(self.child.id() as i32);
        if self.child.try_wait()?.is_none() {
            crate::sys::proc::kill(group, libc::SIGINT);
        }
        let limit = Duration::from_secs(30);
        while self.child.try_wait()?.is_none() {
            if started.elapsed() > limit {
                crate::sys::proc::kill(group, libc::SIGKILL);
                self.child.wait()?;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        while sched_ext::read().is_some_and(|s| s.state != "disabled") {
            if started.elapsed() > limit * 2 {
                return Err(anyhow!(
                    "--sched {}: its program ended but sched_ext is not disabled: {}",
                    self.name,
                    tail(&self.log)
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(started.elapsed().as_secs_f64())
    }
}

/// The last lines a program wrote, for an error.
fn tail(p: &Path) -> String {
    let t = std::fs::read_to_string(p).unwrap_or_default();
    let lines: Vec<&str> = t.lines().filter(|l| !l.trim().is_empty()).collect();
    let last = lines[lines.len().saturating_sub(3)..].join(" | ");
    if last.is_empty() {
        "it said nothing".into()
    } else {
        crate::text::clean(&last).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_and_bad_ones_say_why() {
        assert_eq!(
            parse("eevdf").unwrap(),
            Variant {
                name: "eevdf".into(),
                command: None
            }
        );
        let v = parse("bpfland=scx_bpfland --slice-us 5000").unwrap();
        assert_eq!(v.name, "bpfland");
        assert_eq!(v.command.unwrap(), ["scx_bpfland", "--slice-us", "5000"]);
        let v = parse("scx_lavd").unwrap();
        assert_eq!(
            (v.name.as_str(), v.command.unwrap()),
            ("lavd", vec!["scx_lavd".to_string()])
        );
        for bad in [
            "",
            "cfs",
            "x=",
            "=scx_x",
            "a/b=scx_x",
            "eevdf=scx_x",
            "scx_",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let twice = [parse("eevdf").unwrap(), parse("eevdf").unwrap()];
        assert!(format!("{:#}", check(&twice).unwrap_err()).contains("given twice"));
        let missing = [parse("x=/nonexistent/scx_x").unwrap()];
        assert!(format!("{:#}", check(&missing).unwrap_err()).contains("is not a file"));
    }

    /// A kernel without sched_ext, or with a scheduler attached already
    /// (named), is refused before anything runs; EEVDF alone needs
    /// neither.
    #[test]
    fn no_sched_ext_or_one_attached_already_is_refused_with_its_name() {
        let sh = program(&parse("x=sh").unwrap_or(Variant {
            name: "x".into(),
            command: Some(vec!["sh".into()]),
        }))
        .unwrap()
        .unwrap();
        let both = [
            parse("eevdf").unwrap(),
            parse(&format!("mine={}", sh.display())).unwrap(),
        ];
        let d = tempfile::tempdir().unwrap();
        let e = format!("{:#}", check_at(&both, d.path()).unwrap_err());
        assert!(e.contains("this kernel has no sched_ext"), "{e}");
        assert!(check_at(&both[..1], d.path()).is_ok());
        std::fs::write(d.path().join("state"), "enabled\n").unwrap();
        std::fs::create_dir(d.path().join("root")).unwrap();
        std::fs::write(d.path().join("root/ops"), "lavd_1.0.6_x86_64\n").unwrap();
        let e = format!("{:#}", check_at(&both, d.path()).unwrap_err());
        assert!(
            e.contains(
                "a sched_ext scheduler is attached already (lavd_1.0.6_x86_64, state enabled)"
            ),
            "{e}"
        );
        std::fs::write(d.path().join("state"), "disabled\n").unwrap();
        let docs = check_at(&both, d.path());
        if crate::sys::proc::is_root() {
            let docs = docs.unwrap();
            assert_eq!(docs[1]["name"], "mine");
            assert_eq!(docs[1]["sha256"].as_str().unwrap().len(), 64);
        } else {
            assert!(format!("{:#}", docs.unwrap_err()).contains("root"));
        }
    }
}
