//! The preemption model actually in effect, and where that answer came from.
//!
//! Order of trust: the live `sched/preempt` file in debugfs (the only
//! place that shows a runtime switch), then `preempt=` on the command line
//! (honoured only by PREEMPT_DYNAMIC kernels), then the configured default.
//! PREEMPT_RT kernels are `rt` whatever else is said.  When debugfs cannot
//! be read the reason is kept, since lockdown refusing it is common.

use super::config::KernelConfig;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The effective preemption mode and its provenance.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct PreemptInfo {
    /// `none`, `voluntary`, `full`, `lazy` or `rt`.
    pub mode: Option<String>,
    /// How the mode was found, e.g. "config default (CONFIG_PREEMPT_NONE); debugfs refused (lockdown?)".
    pub source: String,
    /// Does the kernel allow switching at boot/run time (PREEMPT_DYNAMIC)?
    pub dynamic: Option<bool>,
    /// Content of `/sys/kernel/realtime` when present.
    pub realtime: Option<String>,
    /// What debugfs said, or why it could not be read.
    pub debugfs: String,
}

/// Outcome of trying to read `sched/preempt` from debugfs.
#[derive(Clone, Debug, PartialEq)]
pub enum Debugfs {
    Mode(String),
    Unavailable(String),
}

pub fn detect(root: &Path, cmdline: Option<&str>, cfg: Option<&KernelConfig>) -> PreemptInfo {
    let realtime = super::read_trim(&root.join("sys/kernel/realtime"));
    decide(read_debugfs(root), realtime, cmdline, cfg)
}

/// Weigh the evidence: RT first, then debugfs, cmdline, config.
pub fn decide(
    dbg: Debugfs,
    realtime: Option<String>,
    cmdline: Option<&str>,
    cfg: Option<&KernelConfig>,
) -> PreemptInfo {
    let dynamic = cfg.map(|c| c.is_y("CONFIG_PREEMPT_DYNAMIC"));
    let is_rt =
        cfg.is_some_and(|c| c.is_y("CONFIG_PREEMPT_RT")) || realtime.as_deref() == Some("1");
    let debugfs = match &dbg {
        Debugfs::Mode(m) => format!("read: {m}"),
        Debugfs::Unavailable(why) => why.clone(),
    };
    let mut info = PreemptInfo {
        mode: None,
        source: String::new(),
        dynamic,
        realtime,
        debugfs,
    };
    if is_rt {
        info.mode = Some("rt".into());
        info.source = "PREEMPT_RT kernel (CONFIG_PREEMPT_RT or /sys/kernel/realtime)".into();
        return info;
    }
    let why_not_debugfs = match dbg {
        Debugfs::Mode(m) => {
            info.mode = Some(m);
            info.source = "debugfs sched/preempt".into();
            return info;
        }
        Debugfs::Unavailable(w) => w,
    };
    if dynamic != Some(false) {
        if let Some(m) = cmdline.and_then(cmdline_preempt) {
            info.mode = Some(m.clone());
            info.source = format!("preempt={m} on the kernel command line; {why_not_debugfs}");
            return info;
        }
    }
    if let Some(cfg) = cfg {
        if let Some((m, opt)) = configured(cfg) {
            let kind = if dynamic == Some(true) {
                "config default"
            } else {
                "config"
            };
            info.mode = Some(m.into());
            info.source = format!("{kind} ({opt}); {why_not_debugfs}");
            return info;
        }
    }
    info.source =
        format!("unknown: no kernel config, no preempt= on the cmdline; {why_not_debugfs}");
    info
}

/// The model chosen in the config.
fn configured(cfg: &KernelConfig) -> Option<(&'static str, &'static str)> {
    [
        ("CONFIG_PREEMPT_NONE", "none"),
        ("CONFIG_PREEMPT_VOLUNTARY", "voluntary"),
        ("CONFIG_PREEMPT_LAZY", "lazy"),
        ("CONFIG_PREEMPT", "full"),
    ]
    .into_iter()
    .find(|(opt, _)| cfg.is_y(opt))
    .map(|(opt, m)| (m, opt))
}

/// `preempt=` from a command line.
fn cmdline_preempt(cmdline: &str) -> Option<String> {
    cmdline
        .split_whitespace()
        .take_while(|w| *w != "--")
        .filter_map(|w| w.strip_prefix("preempt="))
        .last()
        .map(str::to_string)
}

/// Parse "none (voluntary) full lazy" → the bracketed entry.
fn parse_sched_preempt(text: &str) -> Option<String> {
    let open = text.find('(')?;
    let close = text[open..].find(')')? + open;
    Some(text[open + 1..close].trim().to_string())
}

fn read_debugfs(root: &Path) -> Debugfs {
    let path = root.join("sys/kernel/debug/sched/preempt");
    match std::fs::read_to_string(&path) {
        Ok(t) => match parse_sched_preempt(&t) {
            Some(m) => Debugfs::Mode(m),
            None => {
                Debugfs::Unavailable(format!("debugfs sched/preempt unparsable: {:?}", t.trim()))
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && root == Path::new("/") => {
            read_debugfs_private_mount()
        }
        Err(e) => classify(&e),
    }
}

/// What a failed read of `sched/preempt` means.
pub fn classify(e: &std::io::Error) -> Debugfs {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => {
            Debugfs::Unavailable("debugfs refused (lockdown?)".into())
        }
        std::io::ErrorKind::NotFound => Debugfs::Unavailable("debugfs not mounted".into()),
        _ => Debugfs::Unavailable(format!("debugfs unreadable: {e}")),
    }
}

/// When debugfs is not mounted and we are root, read it through a private
/// mount namespace (see `sys::mount`): the machine's mounts stay as they
/// were.
fn read_debugfs_private_mount() -> Debugfs {
    use crate::sys::mount::{in_private_namespace, Op};
    if !crate::sys::proc::is_root() {
        return Debugfs::Unavailable("debugfs not mounted (root could mount it)".into());
    }
    match in_private_namespace("debugfs", "/sys/kernel/debug", "sched/preempt", Op::Read) {
        Ok(t) => parse_sched_preempt(&String::from_utf8_lossy(&t))
            .map(Debugfs::Mode)
            .unwrap_or_else(|| Debugfs::Unavailable("debugfs sched/preempt unparsable".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Debugfs::Unavailable(
            "debugfs has no sched/preempt (kernel without PREEMPT_DYNAMIC?)".into(),
        ),
        Err(e) if e.raw_os_error().is_none() => {
            Debugfs::Unavailable("debugfs not mounted and could not be mounted".into())
        }
        Err(e) => classify(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bracketed_mode() {
        assert_eq!(
            parse_sched_preempt("none (voluntary) full\n").as_deref(),
            Some("voluntary")
        );
        assert_eq!(parse_sched_preempt("none voluntary full").as_deref(), None);
    }

    fn dynamic_none_config() -> KernelConfig {
        KernelConfig::parse(
            "CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_NONE=y\n# CONFIG_PREEMPT is not set\n",
            "t",
        )
    }

    #[test]
    fn lockdown_refusal_falls_back_to_config_and_says_why() {
        let refused = classify(&std::io::Error::from_raw_os_error(libc::EPERM));
        let info = decide(refused, None, Some("quiet"), Some(&dynamic_none_config()));
        assert_eq!(info.mode.as_deref(), Some("none"));
        assert_eq!(
            info.source,
            "config default (CONFIG_PREEMPT_NONE); debugfs refused (lockdown?)"
        );
        assert_eq!(info.dynamic, Some(true));
    }

    #[test]
    fn debugfs_beats_cmdline_and_cmdline_beats_config() {
        let cfg = dynamic_none_config();
        let live = decide(
            Debugfs::Mode("lazy".into()),
            None,
            Some("preempt=full"),
            Some(&cfg),
        );
        assert_eq!(live.mode.as_deref(), Some("lazy"));
        assert_eq!(live.source, "debugfs sched/preempt");
        let cmd = decide(
            Debugfs::Unavailable("debugfs not mounted".into()),
            None,
            Some("preempt=full"),
            Some(&cfg),
        );
        assert_eq!(cmd.mode.as_deref(), Some("full"));
        assert!(
            cmd.source
                .starts_with("preempt=full on the kernel command line"),
            "{}",
            cmd.source
        );
    }

    #[test]
    fn cmdline_ignored_without_preempt_dynamic() {
        let cfg = KernelConfig::parse("CONFIG_PREEMPT_VOLUNTARY=y\n", "t");
        let info = decide(
            Debugfs::Unavailable("x".into()),
            None,
            Some("preempt=full"),
            Some(&cfg),
        );
        assert_eq!(info.mode.as_deref(), Some("voluntary"));
        assert!(
            info.source.starts_with("config (CONFIG_PREEMPT_VOLUNTARY)"),
            "{}",
            info.source
        );
    }

    #[test]
    fn rt_wins() {
        let cfg = KernelConfig::parse("CONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT_DYNAMIC=y\n", "t");
        let info = decide(Debugfs::Mode("full".into()), None, None, Some(&cfg));
        assert_eq!(info.mode.as_deref(), Some("rt"));
        let info = decide(
            Debugfs::Unavailable("x".into()),
            Some("1".into()),
            None,
            None,
        );
        assert_eq!(info.mode.as_deref(), Some("rt"));
    }

    #[test]
    fn cmdline_preempt_ignores_init_args() {
        assert_eq!(
            cmdline_preempt("quiet preempt=full").as_deref(),
            Some("full")
        );
        assert_eq!(cmdline_preempt("quiet -- preempt=full"), None);
        assert_eq!(cmdline_preempt("quiet"), None);
    }
}
