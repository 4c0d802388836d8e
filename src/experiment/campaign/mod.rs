//! `kbench campaign`: an experiment across reboots, for settings only a
//! boot can change (kernels, `preempt=`, `mitigations=off`, `threadirqs`).
//!
//! `init` writes a plan into the store: the boots to compare (how each is
//! recognised: its release and words of its command line; how to boot it:
//! a GRUB entry or a kexec kernel), the kbench command or scenario to run
//! in each, and the order of blocks (alternating, A B B A …, or randomised
//! blocks from a seed).  `step` checks that the running system is the boot
//! the plan expects, runs that block (its runs tagged with the campaign,
//! block, round and boot id), marks it done, and boots the next one with
//! the plan's reboot command.  A boot into the wrong system pauses the
//! campaign instead of storing mislabelled runs; a block cut short (power
//! failure, kill) is run again, its partial runs removed first.  Each block
//! needs its own boot: that is what lets the comparison see boot-to-boot
//! variation, so a second block in one boot is refused.
//! `install-service` writes a systemd unit that runs `step` at every boot
//! until the plan is done; the last step removes it.

mod audit;
mod reboot;
mod rounds;
mod service;
pub mod settle;
mod status;
mod step;
mod watchdog;

pub use reboot::reboot_command;
pub use service::install_service;
pub use status::status;
pub use step::{step, StepOptions};

use crate::error::input;
use crate::session::Front;
use crate::store::{Kind, RunFilter, Store, Tag};
use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Where systemd units are installed by default.
pub const UNIT_DIR: &str = "/etc/systemd/system";

/// One boot of the comparison, and how to recognise and reach it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Boot {
    pub label: String,
    /// `uname -r` it must report.
    pub release: Option<String>,
    /// Words that must all appear in `/proc/cmdline`.
    pub cmdline: Vec<String>,
    /// What the reboot command boots: a GRUB menu entry or a kernel image.
    pub entry: Option<String>,
}

/// A block that was started.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Block {
    pub position: usize,
    pub label: String,
    pub boot_id: String,
    pub started: f64,
    pub ended: Option<f64>,
    /// `running`, `done` or `failed`; in [`Plan::lost`], `lost`: the
    /// machine came back on another system after the reboot into this
    /// block's (`boot_id` is the boot that came instead).
    pub status: String,
    /// What the block's system was, field by field ([`audit`]).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub audit: std::collections::BTreeMap<String, String>,
    /// How it differed from its label's first block (`field: before → now`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub differs: Vec<String>,
    /// The machine as the block found it, and how long it waited to
    /// settle ([`settle`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<settle::Settle>,
}

/// The boot a reboot was sent for and has not come up yet.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Awaiting {
    /// The block it is for.
    pub position: usize,
    /// The boot that sent the reboot.
    pub from_boot: String,
    /// When (Unix seconds).
    pub sent: f64,
}

/// The plan and its progress, as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub name: String,
    pub boots: Vec<Boot>,
    /// The kbench command each block runs (`run PRESET`, or a benchmark).
    pub command: Vec<String>,
    pub rounds: usize,
    /// `alternating` or `random`.
    pub order_kind: String,
    pub seed: Option<u64>,
    /// Boot index of each block, in order.
    pub order: Vec<usize>,
    /// The next block to run.
    pub next: usize,
    /// The reboot command template (`{entry}`, `{release}`, `{label}`).
    pub reboot: String,
    pub history: Vec<Block>,
    pub paused: Option<String>,
    /// The systemd unit that runs `step` at boot, when installed.
    pub service: Option<PathBuf>,
    pub created: f64,
    /// When `campaign abort` gave it up (its runs are kept).
    #[serde(default)]
    pub abandoned: Option<f64>,
    /// The reboot sent and not yet answered by the expected boot.
    #[serde(default)]
    pub awaiting: Option<Awaiting>,
    /// How many times in a row a lost boot is booted again before the
    /// campaign stops (the reboot-loop bound is this plus one).
    #[serde(default)]
    pub retries: usize,
    /// Every boot lost on the way, in order.
    #[serde(default)]
    pub lost: Vec<Block>,
    /// Boots of the next block lost since it last ran or the campaign
    /// paused.
    #[serde(default)]
    pub lost_in_row: usize,
    /// Pause when a block's system differs from its label's first block.
    #[serde(default)]
    pub strict: bool,
    /// `--rounds auto`: stop after a round once every label is decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<Auto>,
    /// The most seconds a block after a reboot waits to settle
    /// ([`settle`]); 0: it does not wait.
    #[serde(default = "default_settle_max_s")]
    pub settle_max_s: u64,
}

/// `--settle-max`'s default, also for plans made before it existed.
pub fn default_settle_max_s() -> u64 {
    60
}

/// `--rounds auto`'s decision: on which metric, at which error.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Auto {
    pub metric: String,
    pub alpha: f64,
    pub threshold_pct: f64,
}

/// What `init` needs.
#[derive(Clone, Debug)]
pub struct InitOptions {
    pub name: String,
    pub boots: Vec<Boot>,
    pub command: Vec<String>,
    pub rounds: usize,
    pub random: bool,
    pub seed: Option<u64>,
    /// `grub`, `kexec`, or a command template.
    pub reboot: String,
    /// Times a lost boot is booted again before the campaign stops.
    pub retries: usize,
    /// Pause when a block's system differs from its label's first block.
    pub strict: bool,
    /// `--rounds auto` (`rounds` is then its cap).
    pub auto: Option<Auto>,
    /// How kbench parses a whole command line, to check `command`.
    pub parse: super::ParseCommand,
    /// The most seconds a block after a reboot waits to settle.
    pub settle_max_s: u64,
}

/// The reboot command templates kbench knows.
/// `systemctl --no-block`: the reboot is queued and the step ends, so the
/// shutdown does not stop the step's own unit in the middle of its reboot
/// command (a SIGTERM that read as a failed reboot at 4 of 10 boots).
/// GRUB: a one-shot entry (the saved default untouched), and `recordfail`
/// cleared, which Debian's and Ubuntu's menus set at every boot and
/// which, left set by a boot that did not finish, stops the next one at
/// the menu with no one there to choose.
pub const GRUB: &str =
    "grub-reboot {entry} && grub-editenv - unset recordfail && systemctl --no-block reboot";
/// systemd-boot: a one-shot entry (`bootctl set-oneshot`), the default
/// untouched.
pub const SYSTEMD_BOOT: &str = "bootctl set-oneshot {entry} && systemctl --no-block reboot";
/// kexec boots with the running command line (`--reuse-cmdline`): boots
/// that differ by `cmdline=` are refused for it at `init`.
pub const KEXEC: &str =
    "kexec -l {entry} --initrd=/boot/initrd.img-{release} --reuse-cmdline && systemctl --no-block kexec";

/// Parse `LABEL=release=R,cmdline=WORD,entry=E` (`;` also separates; a
/// `,` separates only before a known key, so `isolcpus=1,2` survives).
pub fn parse_boot(spec: &str) -> Result<Boot> {
    let (label, rest) = spec.split_once('=').ok_or_else(|| {
        input(format!(
            "--boot '{spec}': give LABEL=release=R[,cmdline=WORD][,entry=E]"
        ))
    })?;
    let label = label.trim();
    // Held to --label's rules: a label is printed in every report.
    crate::values::label(label).map_err(|e| {
        input(format!(
            "--boot '{}': {e}",
            crate::text::clip(&crate::text::clean(spec), 120)
        ))
    })?;
    let mut parts: Vec<String> = Vec::new();
    for piece in rest.split(';') {
        for (i, bit) in piece.split(',').enumerate() {
            let known = ["release=", "cmdline=", "entry="]
                .iter()
                .any(|k| bit.trim_start().starts_with(k));
            match parts.last_mut() {
                Some(last) if i > 0 && !known => {
                    last.push(',');
                    last.push_str(bit);
                }
                _ => parts.push(bit.to_string()),
            }
        }
    }
    let mut b = Boot {
        label: label.to_string(),
        release: None,
        cmdline: Vec::new(),
        entry: None,
    };
    for p in parts {
        let (k, v) = p.trim().split_once('=').unwrap_or((p.trim(), ""));
        let v = v.trim();
        if v.is_empty() || v.chars().any(char::is_control) {
            return Err(input(format!("--boot {label}: '{k}' needs a value")));
        }
        match k {
            // What `uname -r` prints: nothing a shell reads as syntax.
            "release"
                if !v
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._+-~".contains(c)) =>
            {
                return Err(input(format!(
                    "--boot {label}: release '{v}' is not a kernel release (letters, digits and . _ + - ~ only)"
                )));
            }
            "release" => b.release = Some(v.to_string()),
            "cmdline" => b.cmdline.extend(v.split_whitespace().map(String::from)),
            // The reboot command takes it as an argument: never an option.
            "entry" if v.starts_with('-') => {
                return Err(input(format!(
                    "--boot {label}: entry '{v}' starts with '-', which the reboot command would read as an option"
                )));
            }
            "entry" => b.entry = Some(v.to_string()),
            _ => {
                return Err(input(format!(
                    "--boot {label}: unknown key '{k}' (use release=, cmdline=, entry=)"
                )))
            }
        }
    }
    if b.release.is_none() && b.cmdline.is_empty() {
        return Err(input(format!(
            "--boot {label}: say how to recognise it: release= (uname -r) and/or cmdline= (a word of /proc/cmdline)"
        )));
    }
    Ok(b)
}

/// A campaign name: letters, digits, `-`, `_`, `.`, at most 64.
fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(input(format!(
            "campaign name '{}': use 1-64 letters, digits, '-', '_' or '.'",
            name.escape_default()
        )))
    }
}

fn load(store: &dyn Store, name: &str) -> Result<Plan> {
    check_name(name)?;
    let plan: Plan = super::plan::load(store, Kind::Campaign, name)?.ok_or_else(|| {
        input(format!(
            "no campaign '{name}' in {} (see `kbench campaign status`)",
            store.describe()
        ))
    })?;
    check_plan(&plan).map_err(|why| {
        input(format!(
            "campaign {name}: the stored plan is damaged ({why})"
        ))
    })?;
    Ok(plan)
}

/// What a stored plan must be for `step` and `status` to index it: every
/// block a boot of the plan, the next block within the order.
fn check_plan(p: &Plan) -> std::result::Result<(), String> {
    if p.boots.is_empty() {
        return Err("it has no boots".into());
    }
    if let Some(i) = p.order.iter().find(|&&i| i >= p.boots.len()) {
        return Err(format!(
            "its order names boot {i}, and it has {}",
            p.boots.len()
        ));
    }
    if p.next > p.order.len() {
        return Err(format!(
            "its next block {} is past its {} blocks",
            p.next,
            p.order.len()
        ));
    }
    Ok(())
}

fn save(store: &mut dyn Store, p: &Plan) -> Result<()> {
    super::plan::save(store, Kind::Campaign, &p.name, p)
}

/// What the reboot command needs of each boot: the placeholders it fills,
/// and, for kexec, one command line for all (it reuses the running one).
fn check_reboot(o: &InitOptions, reboot: &str) -> Result<()> {
    if reboot.contains("{entry}") {
        if let Some(b) = o.boots.iter().find(|b| b.entry.is_none()) {
            return Err(input(format!(
                "--boot {}: the reboot command needs entry= (the GRUB menu entry, the systemd-boot entry id, or the kernel image for kexec)",
                b.label
            )));
        }
    }
    if reboot.contains("{release}") {
        if let Some(b) = o.boots.iter().find(|b| b.release.is_none()) {
            return Err(input(format!(
                "--boot {}: the reboot command needs release=",
                b.label
            )));
        }
    }
    if reboot.contains("--reuse-cmdline") {
        let words = |b: &Boot| {
            let mut w = b.cmdline.clone();
            w.sort();
            w
        };
        let first = words(&o.boots[0]);
        if let Some(b) = o.boots.iter().find(|b| words(b) != first) {
            return Err(input(format!(
                "--boot {} and --boot {} differ by cmdline=, and kexec boots with the running command line (--reuse-cmdline), so one of them could never be reached: use --reboot grub with a menu entry per command line",
                o.boots[0].label, b.label
            )));
        }
    }
    Ok(())
}

/// `campaign init`.
pub fn init(f: &Front, o: &InitOptions) -> Result<()> {
    check_name(&o.name)?;
    if o.boots.len() < 2 {
        return Err(input(
            "a campaign compares at least two boots: give --boot twice or more",
        ));
    }
    for (i, b) in o.boots.iter().enumerate() {
        if o.boots[..i].iter().any(|x| x.label == b.label) {
            return Err(input(format!("--boot {}: label given twice", b.label)));
        }
    }
    crate::experiment::command::check_command(&o.command, o.parse)?;
    let reboot = match o.reboot.as_str() {
        "grub" => GRUB.to_string(),
        "systemd-boot" => SYSTEMD_BOOT.to_string(),
        "kexec" => KEXEC.to_string(),
        other => other.to_string(),
    };
    check_reboot(o, &reboot)?;
    let blocks = if o.random {
        let seed = o.seed.unwrap_or_else(super::order::fresh_seed);
        (
            super::order::blocks(o.boots.len(), o.rounds, seed),
            Some(seed),
        )
    } else {
        (super::order::alternating(o.boots.len(), o.rounds), None)
    };
    let mut store = f.write_store()?;
    if super::plan::exists(store.as_ref(), Kind::Campaign, &o.name)? {
        return Err(input(format!(
            "campaign '{}' already exists in {} (choose another name)",
            o.name,
            store.describe()
        )));
    }
    let plan = Plan {
        name: o.name.clone(),
        boots: o.boots.clone(),
        command: o.command.clone(),
        rounds: o.rounds,
        order_kind: if o.random { "random" } else { "alternating" }.into(),
        seed: blocks.1,
        order: blocks.0.into_iter().flatten().collect(),
        next: 0,
        reboot,
        history: Vec::new(),
        paused: None,
        service: None,
        created: crate::sys::time::unix_now(),
        abandoned: None,
        awaiting: None,
        retries: o.retries,
        lost: Vec::new(),
        lost_in_row: 0,
        strict: o.strict,
        auto: o.auto.clone(),
        settle_max_s: o.settle_max_s,
    };
    save(store.as_mut(), &plan)?;
    let running = crate::experiment::identity();
    if !running
        .cmdline
        .split_whitespace()
        .any(|w| w.starts_with("panic="))
    {
        f.note("kbench: warning: this kernel's command line has no panic=N: a test kernel that panics or cannot find its root waits for good instead of rebooting, and the campaign cannot go on by itself (add panic=10 to GRUB_CMDLINE_LINUX, or to each boot's entry)");
    }
    f.note(&format!(
        "kbench: {}",
        watchdog::sentence(
            &watchdog::devices(std::path::Path::new("/sys/class/watchdog")),
            &watchdog::systemd(),
            plan.reboot.contains("kexec"),
            watchdog::kept_through_reboot(&running.cmdline),
        )
    ));
    f.line(&format!(
        "campaign {}: {} blocks ({} boots x {} rounds, {} order) of `kbench {}`, stored in {}",
        plan.name,
        plan.order.len(),
        plan.boots.len(),
        plan.rounds,
        plan.order_kind,
        plan.command.join(" "),
        store.describe()
    ));
    f.line(&format!("order: {}", order_line(&plan)));
    f.line(&format!(
        "next: boot {} and run `kbench campaign step {}` (or `kbench campaign install-service {}` to run each step at boot)",
        plan.boots[plan.order[0]].label, plan.name, plan.name
    ));
    Ok(())
}

/// Ids of the runs one block stored.
pub(super) fn block_runs(
    store: &dyn Store,
    plan: &Plan,
    label: &str,
    position: usize,
) -> Result<Vec<i64>> {
    Ok(block_records(store, plan, label, position)?
        .into_iter()
        .map(|r| r.id)
        .collect())
}

/// The runs one block stored.
pub(super) fn block_records(
    store: &dyn Store,
    plan: &Plan,
    label: &str,
    position: usize,
) -> Result<Vec<crate::store::RunRecord>> {
    let filter = RunFilter {
        labels: vec![label.to_string()],
        ..Default::default()
    };
    Ok(store
        .load_runs(&filter, false)?
        .into_iter()
        .filter(|r| {
            Tag::of(r).is_some_and(|t| {
                t.is(Kind::Campaign, &plan.name) && t.position() == Some(position + 1)
            })
        })
        .collect())
}

fn order_line(p: &Plan) -> String {
    p.order
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            let mark = if i < p.next {
                "✓"
            } else if i == p.next {
                "→"
            } else {
                ""
            };
            format!("{mark}{}", p.boots[b].label)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Does the running system match `b`?  `Err(why not)` when it does not.
fn matches(b: &Boot, id: &crate::experiment::Identity) -> std::result::Result<(), String> {
    if let Some(r) = &b.release {
        if r != &id.release {
            return Err(format!("release {} (expected {r})", id.release));
        }
    }
    let words: Vec<&str> = id.cmdline.split_whitespace().collect();
    if let Some(w) = b.cmdline.iter().find(|w| !words.contains(&w.as_str())) {
        return Err(format!(
            "no '{w}' on the kernel command line ({})",
            id.cmdline
        ));
    }
    Ok(())
}

/// `campaign abort`: the unit removed, the plan marked abandoned (a
/// later `step` does nothing), every run kept.
pub fn abort(f: &Front, name: &str) -> Result<()> {
    let _driving =
        crate::experiment::lock::hold(f, "campaign", name, &format!("campaign {name}"), false)?;
    let mut store = f.write_store()?;
    let mut plan = load(store.as_ref(), name)?;
    plan.abandoned = Some(crate::sys::time::unix_now());
    plan.paused = None;
    save(store.as_mut(), &plan)?;
    service::remove_service(f, &mut plan, store.as_mut())?;
    let runs: usize = plan.history.iter().filter(|b| b.status == "done").count();
    f.line(&format!(
        "campaign {name} abandoned after {runs} of {} blocks; its runs are kept (kbench runs list --label …)",
        plan.order.len()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::reboot::*;
    use super::service::*;
    use super::*;

    #[test]
    fn boot_specs() {
        let b = parse_boot("rt=release=6.1.0-rt,cmdline=preempt=full,entry=Advanced>RT").unwrap();
        assert_eq!(b.label, "rt");
        assert_eq!(b.release.as_deref(), Some("6.1.0-rt"));
        assert_eq!(b.cmdline, vec!["preempt=full"]);
        assert_eq!(b.entry.as_deref(), Some("Advanced>RT"));
        let b = parse_boot("iso=cmdline=isolcpus=1,2;release=6.1").unwrap();
        assert_eq!(b.cmdline, vec!["isolcpus=1,2"]);
        for bad in [
            "x",
            "x=",
            "=release=1",
            "x=entry=e",
            "x=colour=red",
            "x=release=1,entry=--help",
            "x=release=",
            "a\u{202e}b=release=1",
        ] {
            assert!(parse_boot(bad).is_err(), "{bad}");
        }
        let long = format!("{}=release=1", "l".repeat(201));
        assert!(format!("{:#}", parse_boot(&long).unwrap_err()).contains("1-200 characters"));
    }

    #[test]
    fn placeholders_are_quoted() {
        let b = Boot {
            label: "a b".into(),
            release: Some("6.1".into()),
            cmdline: vec![],
            entry: Some("Debian; rm -rf /".into()),
        };
        assert_eq!(
            reboot_command(GRUB, &b),
            "grub-reboot 'Debian; rm -rf /' && grub-editenv - unset recordfail && systemctl --no-block reboot"
        );
        assert_eq!(
            reboot_command("echo {label} {release}", &b),
            "echo 'a b' 6.1"
        );
    }

    /// A value that reads like a placeholder is not filled again: one
    /// pass, each value quoted once (the old fill, one placeholder after
    /// the other, ran `touch` through `{release}` inside the entry).
    #[test]
    fn a_value_is_never_filled_twice() {
        let b = Boot {
            label: "{entry}".into(),
            release: Some("6.1".into()),
            cmdline: vec![],
            entry: Some("{release}".into()),
        };
        assert_eq!(
            reboot_command("grub-reboot {entry} # {label} {", &b),
            "grub-reboot '{release}' # '{entry}' {"
        );
        let e = parse_boot("b=release=$(touch /tmp/x),entry={release}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not a kernel release"), "{e}");
        assert!(parse_boot("b=release=6.1.0-18-amd64+rt~1").is_ok());
    }

    /// Unit lines hold what they are given and nothing more: `$` and `%`
    /// escaped, a newline refused (it would start a line of its own).
    #[test]
    fn unit_values_are_escaped_or_refused() {
        assert_eq!(
            systemd_quote("/var/lib/kbench/r.db").unwrap(),
            "/var/lib/kbench/r.db"
        );
        assert_eq!(
            systemd_quote("/tmp/a b/$HOME%i\\\"").unwrap(),
            "\"/tmp/a b/$$HOME%%i\\\\\\\"\""
        );
        assert!(systemd_quote("/tmp/x\nExecStartPre=/bin/evil").is_none());
        assert!(systemd_quote("").is_none());
    }

    #[test]
    fn identity_matching() {
        let id = crate::experiment::Identity {
            release: "6.1.0-18-amd64".into(),
            cmdline: "BOOT_IMAGE=/vmlinuz ro preempt=full quiet".into(),
            boot_id: "x".into(),
        };
        let mut b = parse_boot("a=release=6.1.0-18-amd64,cmdline=preempt=full").unwrap();
        assert!(matches(&b, &id).is_ok());
        b.cmdline = vec!["preempt=none".into()];
        assert!(matches(&b, &id).unwrap_err().contains("preempt=none"));
        b.release = Some("6.6".into());
        assert!(matches(&b, &id).unwrap_err().contains("release"));
    }
}
