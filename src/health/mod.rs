//! Run health: is a run's figure the kernel's, or the machine's?
//!
//! Beside every run the lifecycle starts a monitor process
//! ([`monitor`]) that reads, at the start and at the end: steal, iowait,
//! irq and softirq time from `/proc/stat`; PSI totals; CPU time of
//! processes that are not kbench's (all CPUs' busy time less kbench's
//! processes', so a process that lived for a moment counts too; the top
//! three by name from a scan of `/proc` at each end); OOM kills; RT
//! throttling (the kernel log's "RT throttling activated"); and
//! thermal-throttle counters.  About once a second it samples what only
//! sampling sees: the CPU frequency range where the machine has one, and
//! the run delay of kbench's own processes (found through their
//! `children` files: a few reads, where a scan of `/proc` would read every
//! process's file and cost the monitor more than it measures).  The result is stored with the run as
//! `health.*` metrics (compare leaves them out unless named) and a verdict
//! in the run's settings: **suspect**, with its reasons, when a threshold
//! below is crossed.  What the machine cannot tell is "not available",
//! never zero.

pub mod emulated;
pub mod irqs;
pub mod monitor;
pub mod sample;

use crate::measure::{Better, Measurement};
use serde::{Deserialize, Serialize};

/// Steal above this share of all CPU time makes a run suspect (%).
pub const MAX_STEAL_PCT: f64 = 2.0;
/// Processes outside kbench using more than this share of one CPU (%).
pub const MAX_OUTSIDE_CPU_PCT: f64 = 5.0;
/// CPU frequency varying by more than this much over the run (%).
pub const MAX_FREQ_SPREAD_PCT: f64 = 10.0;

/// The thresholds in effect: the defaults above, or
/// `KBENCH_MAX_STEAL_PCT`, `KBENCH_MAX_OUTSIDE_CPU_PCT` and
/// `KBENCH_MAX_FREQ_SPREAD_PCT` (a machine that always runs something
/// else may say how much it tolerates; the values are stored with the run).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    pub steal_pct: f64,
    pub outside_cpu_pct: f64,
    pub freq_spread_pct: f64,
}

impl Thresholds {
    pub fn from_env() -> Thresholds {
        let get = |k: &str, d: f64| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
                .unwrap_or(d)
        };
        Thresholds {
            steal_pct: get("KBENCH_MAX_STEAL_PCT", MAX_STEAL_PCT),
            outside_cpu_pct: get("KBENCH_MAX_OUTSIDE_CPU_PCT", MAX_OUTSIDE_CPU_PCT),
            freq_spread_pct: get("KBENCH_MAX_FREQ_SPREAD_PCT", MAX_FREQ_SPREAD_PCT),
        }
    }
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            steal_pct: MAX_STEAL_PCT,
            outside_cpu_pct: MAX_OUTSIDE_CPU_PCT,
            freq_spread_pct: MAX_FREQ_SPREAD_PCT,
        }
    }
}
/// Steal and outside CPU count only from this much time on (ms): `/proc`
/// counts in clock ticks (4 ms at HZ 250), so over a run of a few tens of
/// milliseconds one tick would otherwise read as 10 %.
pub const MIN_DISTURBANCE_MS: f64 = 50.0;
/// How often the monitor samples.
pub const INTERVAL_MS: u64 = 1000;

/// What the monitor saw over one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Health {
    pub wall_s: f64,
    /// Of all CPUs' time.
    pub steal_pct: f64,
    /// The worst single CPU.
    pub max_cpu_steal_pct: f64,
    pub iowait_pct: f64,
    pub irq_pct: f64,
    pub softirq_pct: f64,
    /// PSI stall time during the run, ms (`None`: no PSI here).
    pub psi_cpu_some_ms: Option<f64>,
    pub psi_io_some_ms: Option<f64>,
    pub psi_io_full_ms: Option<f64>,
    pub psi_memory_some_ms: Option<f64>,
    pub psi_memory_full_ms: Option<f64>,
    /// CPU of processes that are not kbench's, in % of one CPU.
    pub outside_cpu_pct: f64,
    /// The three that used most: name and CPU seconds.
    pub outside_top: Vec<(String, f64)>,
    pub oom_kills: Option<u64>,
    /// "RT throttling activated" in the kernel log (`None`: log unreadable).
    pub rt_throttled: Option<u64>,
    pub thermal_throttles: Option<u64>,
    pub freq_min_khz: Option<u64>,
    pub freq_max_khz: Option<u64>,
    /// Time kbench's own processes waited runnable, ms (main threads).
    pub own_run_delay_ms: f64,
    /// The monitor's own CPU, % of one CPU.
    pub monitor_cpu_pct: f64,
}

impl Health {
    /// Why the run is suspect (empty: it is not).
    pub fn reasons(&self, t: &Thresholds) -> Vec<String> {
        let mut r = Vec::new();
        // CPU-time a percentage stands for: of all CPUs (steal), of one (outside).
        let ncpu = crate::sys::cpus::online_here().len().max(1) as f64;
        let ms = |pct: f64, cpus: f64| pct / 100.0 * self.wall_s * cpus * 1000.0;
        if self.steal_pct > t.steal_pct && ms(self.steal_pct, ncpu) >= MIN_DISTURBANCE_MS {
            r.push(format!(
                "steal {:.1}% of CPU time (over {}%)",
                self.steal_pct, t.steal_pct
            ));
        }
        if self.outside_cpu_pct > t.outside_cpu_pct
            && ms(self.outside_cpu_pct, 1.0) >= MIN_DISTURBANCE_MS
        {
            let top: Vec<String> = self
                .outside_top
                .iter()
                .map(|(n, s)| format!("{} {s:.2} s", crate::text::clean(n)))
                .collect();
            r.push(format!(
                "processes outside kbench used {:.0}% of a CPU (over {}%: {})",
                self.outside_cpu_pct,
                t.outside_cpu_pct,
                top.join(", ")
            ));
        }
        if let Some(n @ 1..) = self.oom_kills {
            r.push(format!("{n} OOM kill(s)"));
        }
        if let Some(n @ 1..) = self.rt_throttled {
            r.push(format!("RT throttling activated {n} time(s)"));
        }
        if let Some(n @ 1..) = self.thermal_throttles {
            r.push(format!("{n} thermal throttle event(s)"));
        }
        if let (Some(lo), Some(hi)) = (self.freq_min_khz, self.freq_max_khz) {
            let spread = (hi - lo) as f64 / hi.max(1) as f64 * 100.0;
            if spread > t.freq_spread_pct {
                r.push(format!(
                    "CPU frequency varied {spread:.0}% ({lo}-{hi} kHz, over {}%)",
                    t.freq_spread_pct
                ));
            }
        }
        r
    }

    /// What this machine could not tell.
    pub fn not_available(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.psi_cpu_some_ms.is_none() {
            v.push("PSI");
        }
        if self.oom_kills.is_none() {
            v.push("OOM kill counter");
        }
        if self.rt_throttled.is_none() {
            v.push("RT throttling (kernel log unreadable)");
        }
        if self.thermal_throttles.is_none() {
            v.push("thermal throttle counters");
        }
        if self.freq_max_khz.is_none() {
            v.push("CPU frequency");
        }
        v
    }

    /// `health.*` metrics (informational: compare leaves names with a dot
    /// out unless asked), only for what was available.
    pub fn measurement(&self) -> Measurement {
        let mut m = Measurement::default();
        let n = Better::Neither;
        m.push("health.steal_pct", "%", self.steal_pct, n);
        m.push("health.max_cpu_steal_pct", "%", self.max_cpu_steal_pct, n);
        m.push("health.iowait_pct", "%", self.iowait_pct, n);
        m.push("health.irq_pct", "%", self.irq_pct, n);
        m.push("health.softirq_pct", "%", self.softirq_pct, n);
        m.push("health.outside_cpu_pct", "%", self.outside_cpu_pct, n);
        m.push("health.own_run_delay_ms", "ms", self.own_run_delay_ms, n);
        m.push("health.monitor_cpu_pct", "%", self.monitor_cpu_pct, n);
        for (name, v) in [
            ("health.psi_cpu_some_ms", self.psi_cpu_some_ms),
            ("health.psi_io_some_ms", self.psi_io_some_ms),
            ("health.psi_io_full_ms", self.psi_io_full_ms),
            ("health.psi_memory_some_ms", self.psi_memory_some_ms),
            ("health.psi_memory_full_ms", self.psi_memory_full_ms),
        ] {
            if let Some(v) = v {
                m.push(name, "ms", v, n);
            }
        }
        for (name, v) in [
            ("health.oom_kills", self.oom_kills),
            ("health.rt_throttled", self.rt_throttled),
            ("health.thermal_throttles", self.thermal_throttles),
        ] {
            if let Some(v) = v {
                m.push(name, "count", v as f64, n);
            }
        }
        m
    }

    /// The run's `settings.health`: the verdict, its reasons, what was not
    /// available, and the thresholds used.
    pub fn settings(&self, t: &Thresholds) -> serde_json::Value {
        let reasons = self.reasons(t);
        serde_json::json!({
            "suspect": !reasons.is_empty(),
            "reasons": reasons,
            "not_available": self.not_available(),
            "outside_top": self.outside_top,
            "thresholds": {
                "steal_pct": t.steal_pct, "outside_cpu_pct": t.outside_cpu_pct,
                "freq_spread_pct": t.freq_spread_pct, "oom_kills": 0, "rt_throttled": 0,
                "min_disturbance_ms": MIN_DISTURBANCE_MS,
                "thermal_throttles": 0,
            },
        })
    }
}

/// Is a stored run marked suspect?
pub fn is_suspect(settings: &serde_json::Value) -> bool {
    settings["health"]["suspect"].as_bool() == Some(true)
}

/// Why a stored run's figures are the emulator's (a `kbench vm` guest
/// under TCG or nested virtualisation), if they are.
pub fn emulated(settings: &serde_json::Value) -> Option<&str> {
    settings["health"]["emulated"].as_str()
}

/// The ids of the suspect runs among `runs`.
pub fn suspect_ids<'a>(runs: impl IntoIterator<Item = &'a crate::store::RunRecord>) -> Vec<i64> {
    runs.into_iter()
        .filter(|r| is_suspect(&r.settings))
        .map(|r| r.id)
        .collect()
}

/// The line a report ends with when some of its runs are suspect
/// (wrapped to the terminal's width).
pub fn suspect_line(runs: &[crate::store::RunRecord]) -> Option<String> {
    let ids = suspect_ids(runs);
    (!ids.is_empty()).then(|| {
        crate::text::wrap(&format!(
            "suspect: {} of {} runs were disturbed by the machine (steal, other processes, OOM, throttling): runs {}; `kbench runs show ID` says how, `compare --exclude-suspect` leaves them out",
            ids.len(),
            runs.len(),
            crate::text::id_list(&ids)
        ), crate::text::width())
    })
}

/// The parent's handle on a running monitor.
pub struct Monitor {
    child: std::process::Child,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl Monitor {
    /// Start the monitor process; `Err` says why there is none.
    /// `threads_only`: the run starts no process (see [`monitor::run`]).
    /// It counts only when kbench's processes are this one's: as a task
    /// of a scenario, its siblings (loads, hackbench's process groups)
    /// come and go beside it.
    /// `root`: the kbench process whose descendants are kbench's own.
    pub fn start(root: i32, threads_only: bool) -> Result<Monitor, String> {
        use std::process::Stdio;
        let threads_only = threads_only && root == std::process::id() as i32;
        let exe = std::env::current_exe().map_err(|e| format!("kbench's own path: {e}"))?;
        let mut cmd = std::process::Command::new(exe);
        cmd.args([
            "health-monitor",
            "--root",
            &root.to_string(),
            "--interval-ms",
            &INTERVAL_MS.to_string(),
        ])
        .args(threads_only.then_some("--threads-only"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
        crate::sys::proc::on_exec(
            &mut cmd,
            crate::sys::proc::OnExec {
                die_with_parent: true,
                ..Default::default()
            },
        );
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("starting the monitor: {e}"))?;
        let stdout = child.stdout.take().ok_or("the monitor has no output")?;
        let mut mon = Monitor {
            child,
            out: std::io::BufReader::new(stdout),
        };
        // Wait until it has read its starting figures, so its start-up
        // never overlaps the measurement.
        let mut line = String::new();
        match std::io::BufRead::read_line(&mut mon.out, &mut line) {
            Ok(_) if line.trim() == "ready" => Ok(mon),
            _ => Err("the monitor did not start".into()),
        }
    }

    /// Stop it and read what it saw.
    pub fn finish(mut self) -> Result<Health, String> {
        use std::io::Read;
        drop(self.child.stdin.take());
        let mut out = String::new();
        let _ = self.out.read_to_string(&mut out);
        let _ = self.child.wait();
        serde_json::from_str(out.trim()).map_err(|e| format!("the monitor's report: {e}"))
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_make_a_run_suspect_with_reasons() {
        let clean = Health {
            wall_s: 10.0,
            steal_pct: 1.0,
            outside_cpu_pct: 4.0,
            oom_kills: Some(0),
            ..Default::default()
        };
        let t = Thresholds::default();
        assert!(clean.reasons(&t).is_empty());
        assert!(clean.not_available().contains(&"CPU frequency"));
        assert!(!clean.not_available().contains(&"OOM kill counter"));
        let busy = Health {
            steal_pct: 3.0,
            outside_cpu_pct: 90.0,
            outside_top: vec![("yes".into(), 9.0)],
            oom_kills: Some(1),
            freq_min_khz: Some(1_000_000),
            freq_max_khz: Some(3_000_000),
            ..clean.clone()
        };
        let r = busy.reasons(&t).join("; ");
        assert!(r.contains("steal 3.0%"), "{r}");
        assert!(r.contains("yes 9.00 s"), "{r}");
        assert!(r.contains("1 OOM kill"), "{r}");
        assert!(r.contains("frequency varied 67%"), "{r}");
        assert!(is_suspect(
            &serde_json::json!({ "health": busy.settings(&t) })
        ));
        // Not available is left out of the metrics, never stored as zero.
        let names: Vec<String> = clean
            .measurement()
            .metrics
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert!(names.contains(&"health.oom_kills".to_string()));
        assert!(!names.contains(&"health.thermal_throttles".to_string()));
    }
}
