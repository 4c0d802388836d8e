//! CPU, topology, frequency and idle-state facts.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Processor and power-management facts.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct CpuInfo {
    pub model: Option<String>,
    pub online: Option<String>,
    pub possible: Option<String>,
    pub online_count: Option<usize>,
    pub smt_control: Option<String>,
    pub smt_active: Option<bool>,
    pub numa_nodes: Option<String>,
    /// Governor → CPUs using it (compact list).
    pub freq_governors: BTreeMap<String, String>,
    pub freq_driver: Option<String>,
    pub idle_driver: Option<String>,
    pub idle_governor: Option<String>,
    pub idle_states: Vec<String>,
    /// Hypervisor vendor (`KVM`, `Xen`, …), or "present" when only the CPU flag says so.
    pub hypervisor: Option<String>,
}

impl CpuInfo {
    pub fn collect(root: &Path) -> CpuInfo {
        let rd = |p: &str| super::read_trim(&root.join(p));
        let cpuinfo =
            std::fs::read_to_string(crate::sys::procfs::under(root, "cpuinfo")).unwrap_or_default();
        let model = cpuinfo.lines().find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        });
        let online = rd("sys/devices/system/cpu/online");
        let online_list = online
            .as_deref()
            .and_then(|s| crate::sys::cpus::parse_list(s).ok());
        let mut governors: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut freq_driver = None;
        for &c in online_list.iter().flatten() {
            let base = format!("sys/devices/system/cpu/cpu{c}/cpufreq");
            if let Some(g) = rd(&format!("{base}/scaling_governor")) {
                governors.entry(g).or_default().push(c);
            }
            if freq_driver.is_none() {
                freq_driver = rd(&format!("{base}/scaling_driver"));
            }
        }
        let idle_states = (0..16)
            .map_while(|i| {
                rd(&format!(
                    "sys/devices/system/cpu/cpu0/cpuidle/state{i}/name"
                ))
            })
            .collect();
        let flag_hv = cpuinfo
            .lines()
            .find(|l| l.starts_with("flags"))
            .is_some_and(|l| l.split_whitespace().any(|f| f == "hypervisor"));
        let hypervisor = rd("sys/hypervisor/type")
            .or_else(|| {
                if root == Path::new("/") && flag_hv {
                    cpuid_hypervisor()
                } else {
                    None
                }
            })
            .or_else(|| rd("sys/class/dmi/id/sys_vendor").filter(|_| flag_hv))
            .or_else(|| flag_hv.then(|| "present (cpuinfo flag)".to_string()));
        CpuInfo {
            model,
            online_count: online_list.as_ref().map(Vec::len),
            online,
            possible: rd("sys/devices/system/cpu/possible"),
            smt_control: rd("sys/devices/system/cpu/smt/control"),
            smt_active: rd("sys/devices/system/cpu/smt/active").map(|v| v == "1"),
            numa_nodes: rd("sys/devices/system/node/online"),
            freq_governors: governors
                .into_iter()
                .map(|(g, cpus)| (g, crate::sys::cpus::format_list(&cpus)))
                .collect(),
            freq_driver,
            idle_driver: rd("sys/devices/system/cpu/cpuidle/current_driver"),
            idle_governor: rd("sys/devices/system/cpu/cpuidle/current_governor")
                .or_else(|| rd("sys/devices/system/cpu/cpuidle/current_governor_ro")),
            idle_states,
            hypervisor,
        }
    }
}

/// The hypervisor vendor signature from CPUID leaf 0x4000_0000.
#[cfg(target_arch = "x86_64")]
fn cpuid_hypervisor() -> Option<String> {
    // CPUID is always available on x86_64; leaf 0x40000000 is reserved for
    // hypervisors and reads as zeros or garbage on bare metal, which the
    // printable check below rejects.
    let mut sig = Vec::with_capacity(12);
    for w in crate::sys::sched::cpuid_bcd(0x4000_0000) {
        sig.extend_from_slice(&w.to_le_bytes());
    }
    let s: String = sig
        .iter()
        .take_while(|b| **b != 0)
        .map(|&b| b as char)
        .collect();
    let s = s.trim().to_string();
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_graphic()) {
        return None;
    }
    Some(match s.as_str() {
        "KVMKVMKVM" => "KVM".into(),
        "Microsoft Hv" => "Hyper-V".into(),
        "VMwareVMware" => "VMware".into(),
        "XenVMMXenVMM" => "Xen".into(),
        "TCGTCGTCGTCG" => "QEMU (TCG)".into(),
        "ACRNACRNACRN" => "ACRN".into(),
        " lrpepyh  vr" => "Parallels".into(),
        "bhyve bhyve " => "bhyve".into(),
        _ => s,
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_hypervisor() -> Option<String> {
    None
}
