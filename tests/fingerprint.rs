//! `kbench sysinfo` on this machine and on fixture trees of other kinds of
//! machine.

use crate::common::{put, put_gz, Env};
use std::path::Path;

fn base(root: &Path, release: &str, cmdline: &str) {
    put(root, "proc/sys/kernel/osrelease", release);
    put(root, "proc/sys/kernel/ostype", "Linux");
    put(root, "proc/sys/kernel/version", "#1 SMP PREEMPT");
    put(root, "proc/sys/kernel/hostname", "fixture");
    put(root, "proc/sys/kernel/arch", "x86_64");
    put(root, "proc/cmdline", cmdline);
    put(root, "proc/sys/kernel/sched_autogroup_enabled", "0");
    put(root, "proc/sys/kernel/sched_rt_runtime_us", "-1");
    put(
        root,
        "proc/meminfo",
        "MemTotal: 65536000 kB\nSwapTotal: 1024 kB\n",
    );
    put(
        root,
        "proc/cpuinfo",
        "processor : 0\nmodel name : Fixture CPU 9000\nflags : fpu sse\n",
    );
    put(root, "sys/devices/system/cpu/online", "0-63");
    put(root, "sys/devices/system/cpu/possible", "0-63");
    put(
        root,
        "sys/devices/system/cpu/cpuidle/current_driver",
        "intel_idle",
    );
    put(
        root,
        "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
        "performance",
    );
    put(
        root,
        "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor",
        "powersave",
    );
    put(
        root,
        "sys/kernel/mm/transparent_hugepage/enabled",
        "always [madvise] never",
    );
}

fn sysinfo(root: &Path) -> serde_json::Value {
    let env = Env::new();
    let v = env.json(&["sysinfo", "--root", root.to_str().unwrap()]);
    assert_eq!(v["schema_version"], 1);
    v["fingerprint"].clone()
}

#[test]
fn this_machine_reports_preempt_mode_with_source() {
    let env = Env::new();
    let v = env.json(&["sysinfo"]);
    assert_eq!(v["schema_version"], 1);
    let fp = &v["fingerprint"];
    assert!(fp["preempt"]["mode"].is_string(), "{fp}");
    assert!(!fp["preempt"]["source"].as_str().unwrap().is_empty());
    assert_eq!(fp["id"].as_str().unwrap().len(), 12);
    assert!(fp["cpu"]["online_count"].as_u64().unwrap() >= 1);
    let text = env.ok(&["sysinfo"]);
    assert!(text.contains("preempt source"), "{text}");
}

#[test]
fn preempt_rt_machine() {
    let t = tempfile::tempdir().unwrap();
    base(t.path(), "6.1.54-rt15", "quiet");
    put_gz(
        t.path(),
        "proc/config.gz",
        "CONFIG_PREEMPT_RT=y\nCONFIG_HZ_1000=y\nCONFIG_HZ=1000\nCONFIG_RCU_BOOST=y\nCONFIG_NET=y\n",
    );
    put(t.path(), "sys/kernel/realtime", "1");
    let fp = sysinfo(t.path());
    assert_eq!(fp["preempt"]["mode"], "rt");
    assert_eq!(fp["config"]["CONFIG_HZ"], "1000");
    assert_eq!(fp["config"]["CONFIG_RCU_BOOST"], "y");
    assert!(
        fp["config"].get("CONFIG_NET").is_none(),
        "only scheduling options are kept"
    );
    assert_eq!(fp["config_source"], "/proc/config.gz");
    assert_eq!(fp["config_hash"].as_str().unwrap().len(), 64);
    assert_eq!(fp["cpu"]["online_count"], 64);
    assert_eq!(fp["cpu"]["freq_governors"]["performance"], "0");
    assert_eq!(fp["sched_knobs"]["sched_rt_runtime_us"], "-1");
    assert_eq!(fp["thp_enabled"], "madvise");
}

#[test]
fn preempt_dynamic_booted_with_preempt_full() {
    let t = tempfile::tempdir().unwrap();
    base(
        t.path(),
        "6.6.0-xanmod1",
        "root=/dev/sda1 preempt=full quiet",
    );
    put(
        t.path(),
        "boot/config-6.6.0-xanmod1",
        "CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_VOLUNTARY=y\n# CONFIG_PREEMPT is not set\nCONFIG_HZ=500\n",
    );
    let fp = sysinfo(t.path());
    assert_eq!(fp["preempt"]["mode"], "full");
    let src = fp["preempt"]["source"].as_str().unwrap();
    assert!(
        src.contains("preempt=full on the kernel command line"),
        "{src}"
    );
    assert!(src.contains("debugfs not mounted"), "{src}");
    assert_eq!(fp["config_source"], "/boot/config-6.6.0-xanmod1");
    assert_eq!(fp["preempt"]["dynamic"], true);
}

#[test]
fn machine_without_config() {
    let t = tempfile::tempdir().unwrap();
    base(t.path(), "5.10.0", "quiet");
    let fp = sysinfo(t.path());
    assert!(fp["preempt"]["mode"].is_null());
    assert!(fp["config_hash"].is_null());
    assert!(fp["preempt"]["source"]
        .as_str()
        .unwrap()
        .starts_with("unknown"));
    let env = Env::new();
    let text = env.ok(&["sysinfo", "--root", t.path().to_str().unwrap()]);
    assert!(text.contains("not found"), "{text}");
}

#[test]
fn debugfs_present_is_trusted() {
    let t = tempfile::tempdir().unwrap();
    base(t.path(), "6.12.0", "preempt=none");
    put_gz(
        t.path(),
        "proc/config.gz",
        "CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_NONE=y\n",
    );
    put(
        t.path(),
        "sys/kernel/debug/sched/preempt",
        "none voluntary (full) lazy\n",
    );
    let fp = sysinfo(t.path());
    assert_eq!(fp["preempt"]["mode"], "full");
    assert_eq!(fp["preempt"]["source"], "debugfs sched/preempt");
}

#[test]
fn empty_tree_is_recorded_as_absent_not_an_error() {
    let t = tempfile::tempdir().unwrap();
    let fp = sysinfo(t.path());
    assert!(fp["release"].is_null());
    assert_eq!(fp["id"].as_str().unwrap().len(), 12);
}

#[test]
fn bad_root_is_an_input_error() {
    let env = Env::new();
    let err = env.fails(&["sysinfo", "--root", "/nonexistent/kbench"], 2);
    assert!(err.contains("not a directory"), "{err}");
}

/// `sysinfo` says what sched_ext is doing: the scheduler attached and how
/// many times one was since boot, or that the kernel has none.
#[test]
fn sysinfo_shows_the_sched_ext_state() {
    let env = Env::new();
    let t = tempfile::tempdir().unwrap();
    let text = env.ok(&["sysinfo", "--root", t.path().to_str().unwrap()]);
    assert!(text.contains("not in this kernel"), "{text}");
    put(t.path(), "sys/kernel/sched_ext/state", "enabled\n");
    put(t.path(), "sys/kernel/sched_ext/enable_seq", "3\n");
    put(
        t.path(),
        "sys/kernel/sched_ext/root/ops",
        "lavd_1.0.6_x86_64_unknown_linux_gnu\n",
    );
    let text = env.ok(&["sysinfo", "--root", t.path().to_str().unwrap()]);
    assert!(
        text.contains("enabled: lavd_1.0.6_x86_64_unknown_linux_gnu (attached 3 times since boot)"),
        "{text}"
    );
    let v = env.json(&["sysinfo", "--root", t.path().to_str().unwrap()]);
    assert_eq!(v["sched_ext"]["enable_seq"], 3);
}
