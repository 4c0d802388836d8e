//! `kbench sysinfo`: the fingerprint of the running system.

use crate::cli::SysinfoArgs;
use crate::fingerprint::Fingerprint;
use crate::session::{print_json, Ctx};
use crate::text::table;
use anyhow::Result;

pub fn run(ctx: &Ctx, args: &SysinfoArgs) -> Result<()> {
    if !args.root.is_dir() {
        return Err(crate::error::input(format!(
            "--root {} is not a directory",
            args.root.display()
        )));
    }
    let fp = Fingerprint::collect(&args.root);
    let scx = crate::sys::sched_ext::read_at(&args.root.join("sys/kernel/sched_ext"));
    if ctx.global.json {
        return print_json(
            "sysinfo",
            serde_json::json!({ "fingerprint": fp, "sched_ext": scx }),
        );
    }
    let mut r = rows(&fp);
    r.push(("sched_ext".into(), sched_ext_row(scx.as_ref())));
    println!("{}", table::kv(&r));
    Ok(())
}

/// What sched_ext is doing now: which scheduler is attached, and how many
/// times one was since boot.
fn sched_ext_row(s: Option<&crate::sys::sched_ext::State>) -> String {
    match s {
        None => "not in this kernel (CONFIG_SCHED_CLASS_EXT)".into(),
        Some(s) => format!(
            "{}{} (attached {} time{} since boot)",
            s.state,
            s.ops
                .as_deref()
                .map(|o| format!(": {o}"))
                .unwrap_or_default(),
            s.enable_seq,
            if s.enable_seq == 1 { "" } else { "s" }
        ),
    }
}

/// The fingerprint as label/value rows, most telling first.
pub fn rows(fp: &Fingerprint) -> Vec<(String, String)> {
    let dash = || "-".to_string();
    let o = |v: &Option<String>| v.clone().unwrap_or_else(dash);
    let mut r: Vec<(String, String)> = vec![
        ("fingerprint id".into(), fp.id.clone()),
        ("default label".into(), fp.default_label()),
        (
            "kernel".into(),
            format!("{} {}", o(&fp.sysname), o(&fp.release)),
        ),
        ("version".into(), o(&fp.version)),
        ("machine".into(), o(&fp.machine)),
        ("hostname".into(), o(&fp.hostname)),
        ("os".into(), o(&fp.os_release)),
        ("preempt mode".into(), o(&fp.preempt.mode)),
        ("preempt source".into(), fp.preempt.source.clone()),
        (
            "preempt dynamic".into(),
            fp.preempt
                .dynamic
                .map_or_else(dash, |d| if d { "yes".into() } else { "no".into() }),
        ),
        ("realtime".into(), o(&fp.preempt.realtime)),
        ("HZ".into(), fp.hz().map_or_else(dash, str::to_string)),
        (
            "config".into(),
            match (&fp.config_source, &fp.config_hash) {
                (Some(s), Some(h)) => format!("{s} sha256:{}", &h[..16.min(h.len())]),
                _ => "not found (no /proc/config.gz or /boot/config-<release>)".into(),
            },
        ),
        ("cmdline".into(), o(&fp.cmdline)),
    ];
    let cfg_keys = [
        "CONFIG_PREEMPT_RT",
        "CONFIG_PREEMPT_DYNAMIC",
        "CONFIG_NO_HZ_FULL",
        "CONFIG_NO_HZ_IDLE",
        "CONFIG_RCU_BOOST",
        "CONFIG_SCHED_AUTOGROUP",
        "CONFIG_SCHED_CLASS_EXT",
    ];
    for k in cfg_keys {
        if let Some(v) = fp.config.get(k) {
            r.push((k.trim_start_matches("CONFIG_").to_string(), v.clone()));
        }
    }
    for (k, v) in &fp.sched_knobs {
        r.push((k.clone(), v.clone()));
    }
    r.extend(machine_rows(fp));
    r
}

/// The machine's rows: THP, clocksource, vulnerabilities, CPUs, SMT,
/// NUMA, cpufreq, cpuidle, hypervisor, memory.
fn machine_rows(fp: &Fingerprint) -> Vec<(String, String)> {
    let dash = || "-".to_string();
    let o = |v: &Option<String>| v.clone().unwrap_or_else(dash);
    vec![
        (
            "THP enabled/defrag".into(),
            format!("{}/{}", o(&fp.thp_enabled), o(&fp.thp_defrag)),
        ),
        ("clocksource".into(), o(&fp.clocksource)),
        (
            "vulnerabilities".into(),
            fp.vulnerability_summary().unwrap_or_else(dash),
        ),
        ("cpu model".into(), o(&fp.cpu.model)),
        (
            "cpus online".into(),
            format!(
                "{} ({}), possible {}",
                fp.cpu.online_count.map_or_else(dash, |n| n.to_string()),
                o(&fp.cpu.online),
                o(&fp.cpu.possible)
            ),
        ),
        (
            "smt".into(),
            format!(
                "{}{}",
                o(&fp.cpu.smt_control),
                fp.cpu.smt_active.map_or(String::new(), |a| if a {
                    ", active".into()
                } else {
                    ", inactive".into()
                })
            ),
        ),
        ("numa nodes".into(), o(&fp.cpu.numa_nodes)),
        (
            "cpufreq".into(),
            if fp.cpu.freq_governors.is_empty() {
                "none (no cpufreq driver)".into()
            } else {
                let g: Vec<String> = fp
                    .cpu
                    .freq_governors
                    .iter()
                    .map(|(g, c)| format!("{g} on {c}"))
                    .collect();
                format!("{} ({})", o(&fp.cpu.freq_driver), g.join(", "))
            },
        ),
        (
            "cpuidle".into(),
            format!(
                "{} / {} [{}]",
                o(&fp.cpu.idle_driver),
                o(&fp.cpu.idle_governor),
                fp.cpu.idle_states.join(" ")
            ),
        ),
        (
            "hypervisor".into(),
            fp.cpu.hypervisor.clone().unwrap_or_else(|| "none".into()),
        ),
        ("memory".into(), fp.mem_total_kib.map_or_else(dash, gib)),
        ("swap".into(), fp.swap_total_kib.map_or_else(dash, gib)),
    ]
}

fn gib(kib: u64) -> String {
    format!("{:.1} GiB", kib as f64 / 1024.0 / 1024.0)
}
