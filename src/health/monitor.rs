//! The monitor process: `kbench health-monitor`, started by the run
//! lifecycle beside every run.  It is its own process (fork and exec), so
//! kbench stays single-threaded while it forks workers, and its cost is
//! visible and measured.  It samples once per interval until its standard
//! input closes, then prints one JSON [`Health`](super::Health) line.

use super::sample::{self, CpuTimes};
use super::Health;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::time::Instant;

/// The monitor's process name (`ps` shows it).
pub const NAME: &str = "kbench-health";

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn psi() -> [(Option<u64>, Option<u64>); 3] {
    ["cpu", "io", "memory"].map(|r| {
        read(&format!("/proc/pressure/{r}"))
            .map(|t| sample::pressure(&t))
            .unwrap_or((None, None))
    })
}

/// Sum of the CPUs' thermal-throttle counters, where the machine has them.
fn thermal() -> Option<u64> {
    let mut found = false;
    let mut sum = 0;
    for cpu in crate::sys::cpus::online_here() {
        for f in ["core_throttle_count", "package_throttle_count"] {
            if let Some(v) = read(&format!(
                "/sys/devices/system/cpu/cpu{cpu}/thermal_throttle/{f}"
            ))
            .and_then(|t| t.trim().parse::<u64>().ok())
            {
                found = true;
                sum += v;
            }
        }
    }
    found.then_some(sum)
}

/// Current frequencies (kHz) of the online CPUs that report one.
fn freqs() -> Vec<u64> {
    crate::sys::cpus::online_here()
        .into_iter()
        .filter_map(|c| {
            read(&format!(
                "/sys/devices/system/cpu/cpu{c}/cpufreq/scaling_cur_freq"
            ))
            .and_then(|t| t.trim().parse().ok())
        })
        .collect()
}

/// `/dev/kmsg` from now on, to count "RT throttling activated" (the
/// kernel's only report of RT throttling); `None` where it cannot be read.
fn kmsg() -> Option<std::fs::File> {
    use std::io::Seek;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open("/dev/kmsg")
        .ok()?;
    f.seek(std::io::SeekFrom::End(0)).ok()?;
    Some(f)
}

fn kmsg_count(f: &mut std::fs::File, needle: &str) -> u64 {
    let mut n = 0;
    let mut buf = vec![0u8; 8192];
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => {
                if String::from_utf8_lossy(&buf[..k]).contains(needle) {
                    n += 1;
                }
            }
            // EPIPE: records were overwritten; go on from the next one.
            Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
            Err(_) => break,
        }
    }
    n
}

/// Run the monitor: sample every `interval_ms` until stdin closes, then
/// print the summary.  `root` is the kbench process whose descendants are
/// kbench's own.
pub fn run(root: i32, interval_ms: u64) -> anyhow::Result<()> {
    crate::sys::proc::set_name(NAME);
    let start = Instant::now();
    let me = std::process::id() as i32;
    let stat0 = read("/proc/stat")
        .map(|t| sample::proc_stat(&t))
        .unwrap_or_default();
    let psi0 = psi();
    let oom0 = read("/proc/vmstat").and_then(|t| sample::vmstat(&t, "oom_kill"));
    let thermal0 = thermal();
    let mut kmsg = kmsg();
    let mut fmin = u64::MAX;
    let mut fmax = 0u64;
    // Outside CPU: ticks at first sight (0 for processes born during the run).
    let mut procs = sample::processes();
    let mut base: HashMap<i32, u64> = procs
        .iter()
        .filter(|(pid, _)| !sample::descends(&procs, **pid, root))
        .map(|(pid, p)| (*pid, p.ticks))
        .collect();
    let mut last_outside: HashMap<i32, (String, u64)> = HashMap::new();
    // Run delay of kbench's own processes: first and last seen.
    let mut delay: HashMap<i32, (u64, u64)> = HashMap::new();
    let mut account = |procs: &HashMap<i32, sample::ProcStat>, first: bool| {
        for (pid, p) in procs {
            if sample::descends(procs, *pid, root) {
                if *pid == me {
                    continue;
                }
                if let Some(d) = read(&format!("/proc/{pid}/schedstat"))
                    .and_then(|t| sample::schedstat_delay(&t))
                {
                    let e = delay.entry(*pid).or_insert((if first { d } else { 0 }, d));
                    e.1 = d;
                }
            } else {
                base.entry(*pid).or_insert(0);
                last_outside.insert(*pid, (p.name.clone(), p.ticks));
            }
        }
    };
    // Everything is read once: the run may start (see `Monitor::start`).
    println!("ready");
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let mut first = true;
    loop {
        account(&procs, first);
        first = false;
        for f in freqs() {
            fmin = fmin.min(f);
            fmax = fmax.max(f);
        }
        let stop = crate::sys::fd::wait_readable(0, interval_ms as i32).unwrap_or(true);
        procs = sample::processes();
        if stop {
            account(&procs, false);
            break;
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let hz = crate::sys::proc::clock_ticks_per_s();
    let stat1 = read("/proc/stat")
        .map(|t| sample::proc_stat(&t))
        .unwrap_or_default();
    let d = |k: &str| match (stat1.get(k), stat0.get(k)) {
        (Some(a), Some(b)) => a.minus(b),
        _ => CpuTimes::default(),
    };
    let all = d("cpu");
    let pct = |x: u64, t: u64| {
        if t == 0 {
            0.0
        } else {
            x as f64 / t as f64 * 100.0
        }
    };
    let max_steal = stat1
        .keys()
        .filter(|k| k.len() > 3)
        .map(|k| {
            let c = d(k);
            pct(c.steal, c.total())
        })
        .fold(0.0, f64::max);
    let mut by_name: BTreeMap<String, f64> = BTreeMap::new();
    for (pid, (name, ticks)) in &last_outside {
        let used = ticks.saturating_sub(*base.get(pid).unwrap_or(&0)) as f64 / hz;
        if used > 0.0 {
            *by_name.entry(name.clone()).or_default() += used;
        }
    }
    let outside_s: f64 = by_name.values().sum();
    let mut top: Vec<(String, f64)> = by_name.into_iter().collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1));
    top.truncate(3);
    let psi1 = psi();
    let ms = |a: Option<u64>, b: Option<u64>| Some(a?.saturating_sub(b?) as f64 / 1000.0);
    let mine = read(&format!("/proc/{me}/stat"))
        .and_then(|t| sample::proc_pid_stat(&t))
        .map_or(0, |p| p.ticks);
    let h = Health {
        wall_s: wall,
        steal_pct: pct(all.steal, all.total()),
        max_cpu_steal_pct: max_steal,
        iowait_pct: pct(all.iowait, all.total()),
        irq_pct: pct(all.irq, all.total()),
        softirq_pct: pct(all.softirq, all.total()),
        psi_cpu_some_ms: ms(psi1[0].0, psi0[0].0),
        psi_io_some_ms: ms(psi1[1].0, psi0[1].0),
        psi_io_full_ms: ms(psi1[1].1, psi0[1].1),
        psi_memory_some_ms: ms(psi1[2].0, psi0[2].0),
        psi_memory_full_ms: ms(psi1[2].1, psi0[2].1),
        outside_cpu_pct: outside_s / wall.max(1e-9) * 100.0,
        outside_top: top,
        oom_kills: read("/proc/vmstat")
            .and_then(|t| sample::vmstat(&t, "oom_kill"))
            .zip(oom0)
            .map(|(a, b)| a.saturating_sub(b)),
        rt_throttled: kmsg
            .as_mut()
            .map(|f| kmsg_count(f, "RT throttling activated")),
        thermal_throttles: thermal().zip(thermal0).map(|(a, b)| a.saturating_sub(b)),
        freq_min_khz: (fmax > 0).then_some(fmin),
        freq_max_khz: (fmax > 0).then_some(fmax),
        own_run_delay_ms: delay
            .values()
            .map(|(a, b)| b.saturating_sub(*a))
            .sum::<u64>() as f64
            / 1e6,
        monitor_cpu_pct: mine as f64 / hz / wall.max(1e-9) * 100.0,
    };
    println!("{}", serde_json::to_string(&h)?);
    Ok(())
}
