//! The monitor process: `kbench health-monitor`, started by the run
//! lifecycle beside every run.  It is its own process (fork and exec), so
//! kbench stays single-threaded while it forks workers, and its cost is
//! visible and measured.  It samples once per interval until its standard
//! input closes, then prints one JSON [`Health`] line.

use super::sample::{self, CpuTimes};
use super::Health;
use crate::sys::procfs::{self, cpustat};
use crate::sys::procstat::{self, ProcStat};
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::time::Instant;

/// The monitor's process name (`ps` shows it).
pub const NAME: &str = "kbench-health";

fn psi() -> [(Option<u64>, Option<u64>); 3] {
    ["cpu", "io", "memory"].map(procfs::pressure)
}

/// Sum of the CPUs' thermal-throttle counters, where the machine has them.
fn thermal() -> Option<u64> {
    let mut found = false;
    let mut sum = 0;
    for cpu in crate::sys::cpus::online_here() {
        for f in ["core_throttle_count", "package_throttle_count"] {
            if let Some(v) = procfs::read(&format!(
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

/// The online CPUs' current-frequency files, where the machine has them
/// (looked for once: on a machine without, sampling reads nothing).
fn freq_files() -> Vec<String> {
    crate::sys::cpus::online_here()
        .into_iter()
        .map(|c| format!("/sys/devices/system/cpu/cpu{c}/cpufreq/scaling_cur_freq"))
        .filter(|p| std::path::Path::new(p).exists())
        .collect()
}

/// Current frequencies (kHz) from those files.
fn freqs(files: &[String]) -> Vec<u64> {
    let mut buf = [0u8; 64];
    files
        .iter()
        .filter_map(|f| procfs::small_file(f, &mut buf)?.trim().parse().ok())
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

/// kbench's processes in a scan of `/proc`.
fn own_in(procs: &HashMap<i32, ProcStat>, root: i32) -> Vec<i32> {
    procs
        .keys()
        .filter(|pid| sample::descends(procs, **pid, root))
        .copied()
        .collect()
}

/// Ticks of kbench's processes `own` (from [`own_in`] on `procs`): each
/// one's own and those of the children it waited for, so a worker that
/// ended and was reaped during the run still counts as kbench's.
fn own_ticks(procs: &HashMap<i32, ProcStat>, own: &[i32]) -> u64 {
    own.iter()
        .filter_map(|pid| procs.get(pid))
        .map(|p| p.ticks.saturating_add(p.child_ticks))
        .fold(0, u64::saturating_add)
}

/// Below this much CPU (s), what named processes do not account for is
/// tick rounding, not a process that ended during the run.
const UNNAMED_MIN_S: f64 = 0.05;

/// The three names that used most CPU outside kbench between the two
/// scans (a process born during the run counts from 0), and what
/// processes that ended during the run used, when `outside_s` (from
/// `/proc/stat`) is that much more than the named ones add up to.
fn outside_top(
    base: &HashMap<i32, (u64, u64)>,
    now: &HashMap<i32, ProcStat>,
    root: i32,
    outside_s: f64,
    hz: f64,
) -> Vec<(String, f64)> {
    let mut by_name: BTreeMap<String, f64> = BTreeMap::new();
    for (pid, p) in now {
        if sample::descends(now, *pid, root) {
            continue;
        }
        // A pid reused since the first scan counts from 0.  (Not by name:
        // a kernel worker's name changes with the work it does.)
        let before = match base.get(pid) {
            Some((start, t)) if *start == p.start => *t,
            _ => 0,
        };
        let used = p.ticks.saturating_sub(before) as f64 / hz;
        if used > 0.0 {
            *by_name.entry(p.name.clone()).or_default() += used;
        }
    }
    let named: f64 = by_name.values().sum();
    let mut top: Vec<(String, f64)> = by_name.into_iter().collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1));
    top.truncate(3);
    if outside_s - named >= UNNAMED_MIN_S {
        top.push((
            "processes that ended during the run".into(),
            outside_s - named,
        ));
        top.sort_by(|a, b| b.1.total_cmp(&a.1));
        top.truncate(3);
    }
    top
}

/// What the monitor read at the start of the run.
struct At {
    start: Instant,
    stat0: std::collections::BTreeMap<String, CpuTimes>,
    psi0: [(Option<u64>, Option<u64>); 3],
    oom0: Option<u64>,
    thermal0: Option<u64>,
    /// Processes outside kbench then: (start time, CPU ticks).
    base: HashMap<i32, (u64, u64)>,
    /// CPU ticks of kbench's own processes then.
    own0: u64,
}

/// The run's health from what was read at its start (`at`), at its end
/// (`procs1`, `own1`: processes and kbench's ticks) and between (the CPU
/// frequencies seen, the kernel log, kbench's run delay).
fn health(
    at: &At,
    procs1: &HashMap<i32, ProcStat>,
    own1: u64,
    root: i32,
    (fmin, fmax): (u64, u64),
    kmsg: Option<&mut std::fs::File>,
    delay: &HashMap<i32, (u64, u64)>,
) -> Health {
    let wall = at.start.elapsed().as_secs_f64();
    let hz = crate::sys::proc::clock_ticks_per_s();
    let stat1 = cpustat::read()
        .map(|l| sample::cpu_times(&l))
        .unwrap_or_default();
    let d = |k: &str| match (stat1.get(k), at.stat0.get(k)) {
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
    let outside_s = (all.busy as f64 - own1.saturating_sub(at.own0) as f64).max(0.0) / hz;
    let top = outside_top(&at.base, procs1, root, outside_s, hz);
    let psi1 = psi();
    let ms = |a: Option<u64>, b: Option<u64>| Some(a?.saturating_sub(b?) as f64 / 1000.0);
    let me = std::process::id() as i32;
    let mine = procstat::read(me).map_or(0, |p| p.ticks);
    Health {
        wall_s: wall,
        steal_pct: pct(all.steal, all.total()),
        max_cpu_steal_pct: max_steal,
        iowait_pct: pct(all.iowait, all.total()),
        irq_pct: pct(all.irq, all.total()),
        softirq_pct: pct(all.softirq, all.total()),
        psi_cpu_some_ms: ms(psi1[0].0, at.psi0[0].0),
        psi_io_some_ms: ms(psi1[1].0, at.psi0[1].0),
        psi_io_full_ms: ms(psi1[1].1, at.psi0[1].1),
        psi_memory_some_ms: ms(psi1[2].0, at.psi0[2].0),
        psi_memory_full_ms: ms(psi1[2].1, at.psi0[2].1),
        outside_cpu_pct: outside_s / wall.max(1e-9) * 100.0,
        outside_top: top,
        oom_kills: procfs::vmstat("oom_kill")
            .zip(at.oom0)
            .map(|(a, b)| a.saturating_sub(b)),
        rt_throttled: kmsg.map(|f| kmsg_count(f, "RT throttling activated")),
        thermal_throttles: thermal().zip(at.thermal0).map(|(a, b)| a.saturating_sub(b)),
        freq_min_khz: (fmax > 0).then_some(fmin),
        freq_max_khz: (fmax > 0).then_some(fmax),
        own_run_delay_ms: delay
            .values()
            .map(|(a, b)| b.saturating_sub(*a))
            .sum::<u64>() as f64
            / 1e6,
        monitor_cpu_pct: mine as f64 / hz / wall.max(1e-9) * 100.0,
    }
}

/// Run the monitor: sample every `interval_ms` until stdin closes, then
/// print the summary.  `root` is the kbench process whose descendants are
/// kbench's own.  With `threads_only` (kbench starts no process during the
/// run) kbench's processes are read at the start and the end only: the
/// once-a-second walk of its process tree is there to catch processes that
/// come and go, and waking for it beside a thread-only benchmark costs the
/// run CPU time (about 0.1 ms a wake-up) and puts a thread on a CPU the
/// benchmark's own once-a-second work may be waking on.  The monitor then
/// wakes only to read CPU frequencies, and not at all on a machine without
/// them.
pub fn run(root: i32, interval_ms: u64, threads_only: bool) -> anyhow::Result<()> {
    crate::sys::proc::set_name(NAME);
    let start = Instant::now();
    let me = std::process::id() as i32;
    let stat0 = cpustat::read()
        .map(|l| sample::cpu_times(&l))
        .unwrap_or_default();
    let psi0 = psi();
    let oom0 = procfs::vmstat("oom_kill");
    let thermal0 = thermal();
    let mut kmsg = kmsg();
    let mut fmin = u64::MAX;
    let mut fmax = 0u64;
    // CPU outside kbench: what every CPU did (`/proc/stat`) less what
    // kbench's processes did, so a process that lives for a moment between
    // two samples still counts.  Names come from a scan of `/proc` at the
    // start and one at the end, the only two: a scan reads every process's
    // file, which once a second would cost the monitor more than the rest.
    let procs0 = procstat::all();
    let base: HashMap<i32, (u64, u64)> = procs0
        .iter()
        .filter(|(pid, _)| !sample::descends(&procs0, **pid, root))
        .map(|(pid, p)| (*pid, (p.start, p.ticks)))
        .collect();
    let mut own = own_in(&procs0, root);
    let own0 = own_ticks(&procs0, &own);
    // Run delay of kbench's own processes: first and last seen.
    let mut delay: HashMap<i32, (u64, u64)> = HashMap::new();
    let mut account = |pids: &[i32], first: bool| {
        let mut buf = [0u8; 256];
        for pid in pids.iter().filter(|p| **p != me) {
            if let Some(d) = procfs::small_file(&procfs::pid_file(*pid, "schedstat"), &mut buf)
                .and_then(|t| procfs::parse_schedstat(t).map(|s| s.1))
            {
                let e = delay.entry(*pid).or_insert((if first { d } else { 0 }, d));
                e.1 = d;
            }
        }
    };
    drop(procs0);
    let freq_files = freq_files();
    // Everything is read once: the run may start (see `Monitor::start`).
    println!("ready");
    let _ = std::io::Write::flush(&mut std::io::stdout());
    account(&own, true);
    // Poll's "no timeout": sleep until stdin closes.
    let wait_ms = if threads_only && freq_files.is_empty() {
        -1
    } else {
        interval_ms as i32
    };
    loop {
        for f in freqs(&freq_files) {
            fmin = fmin.min(f);
            fmax = fmax.max(f);
        }
        let stop = crate::sys::fd::wait_readable(0, wait_ms).unwrap_or(true);
        if stop {
            break;
        }
        if !threads_only {
            own = sample::tree(root).unwrap_or_else(|| own_in(&procstat::all(), root));
            account(&own, false);
        }
    }
    let procs1 = procstat::all();
    let own_end = own_in(&procs1, root);
    account(&own_end, false);
    let own1 = own_ticks(&procs1, &own_end);
    let h = health(
        &At {
            start,
            stat0,
            psi0,
            oom0,
            thermal0,
            base,
            own0,
        },
        &procs1,
        own1,
        root,
        (fmin, fmax),
        kmsg.as_mut(),
        &delay,
    );
    println!("{}", serde_json::to_string(&h)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(ppid: i32, name: &str, ticks: u64, start: u64) -> ProcStat {
        ProcStat {
            state: 'S',
            ppid,
            pgrp: ppid,
            name: name.into(),
            ticks,
            child_ticks: 0,
            start,
        }
    }

    #[test]
    fn outside_cpu_is_named_across_renames_and_pid_reuse() {
        // kbench is 10 (its worker 11); 20 is a kernel worker that changed
        // its name; 30 ended and its pid went to another program; 40 was
        // born during the run.  At 100 ticks a second.
        let base = HashMap::from([(20, (5, 1000)), (30, (6, 500))]);
        let now = HashMap::from([
            (10, p(1, "kbench", 900, 1)),
            (11, p(10, "schbench-worker", 800, 2)),
            (20, p(2, "kworker/0:2-mm_percpu_wq", 1010, 5)),
            (30, p(1, "cron", 30, 70)),
            (40, p(1, "yes", 200, 80)),
        ]);
        // Named: kworker 0.1 s, cron 0.3 s, yes 2.0 s = 2.4 s; the CPUs
        // said 3.0 s, so 0.6 s went to processes that ended.
        let top = outside_top(&base, &now, 10, 3.0, 100.0);
        let names: Vec<(&str, String)> = top
            .iter()
            .map(|(n, s)| (n.as_str(), format!("{s:.2}")))
            .collect();
        assert_eq!(
            names,
            [
                ("yes", "2.00".into()),
                ("processes that ended during the run", "0.60".into()),
                ("cron", "0.30".into())
            ]
        );
        // Within tick rounding of the named ones, nothing is said of ended ones.
        let top = outside_top(&base, &now, 10, 2.42, 100.0);
        assert!(top.iter().all(|(n, _)| !n.contains("ended")), "{top:?}");
    }

    #[test]
    fn own_ticks_count_reaped_children_and_skip_others() {
        let mut k = p(1, "kbench", 100, 1);
        k.child_ticks = 50;
        let procs = HashMap::from([
            (10, k),
            (11, p(10, "kbench-health", 7, 2)),
            (12, p(11, "grandchild", 3, 3)),
            (20, p(1, "other", 1000, 4)),
        ]);
        assert_eq!(own_ticks(&procs, &own_in(&procs, 10)), 160);
    }

    #[test]
    fn the_tree_walk_finds_a_child_and_its_child() {
        // A shell whose child shell runs a sleep: three processes, each
        // forked by its parent's main thread.
        use std::os::unix::process::CommandExt;
        let mut c = std::process::Command::new("sh")
            .args(["-c", "sh -c 'sleep 5; :' & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        let root = c.id() as i32;
        let is_sleep = |pid: &i32| {
            procfs::read(&procfs::pid_file(*pid, "comm")).is_some_and(|n| n.trim() == "sleep")
        };
        let mut found = None;
        for _ in 0..200 {
            let t = sample::tree(root).expect("children files");
            if t.len() >= 3 && t.iter().any(is_sleep) {
                found = Some(t);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // The whole group: the shells and the sleep.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{root}")])
            .status();
        let _ = c.wait();
        let t = found.expect("the shell, its child shell and the sleep in the tree");
        assert_eq!(t[0], root);
        assert_eq!(t.len(), 3, "{t:?}");
    }
}
