//! responsiveness: what a user at the keyboard feels while CPU hogs run.
//!
//! Faithful to hamadmarri's os-scheduler-responsiveness-test, so old
//! numbers compare.  `prime` worker processes each test every odd number
//! in [10001, 10001·(np+1)) by trial division counting *down* from i−1
//! (deliberately costly) and report their elapsed time.  `interactive`
//! worker processes loop: sleep r seconds, r cycling through the sleep
//! pattern (default 1, 2, 3); then do a small task (r=1: 10,000 random
//! ints sorted; r=2: read an ~80 KB text file and print it; r=3: copy that
//! file line by line into another), and count `elapsed − r` as the
//! response time.  Interactive workers stop after `-t` seconds, and are
//! stopped when every prime worker is done.  Compiled code does the prime
//! work far faster than the original's Python did, so with `-t` the prime
//! workers repeat their range until the deadline, keeping the CPUs busy as
//! long as the probe runs; "prime time" is the first pass.
//!
//! kbench also keeps every iteration, so it reports the distribution and
//! splits the response into the wake-up overshoot (how late the sleep
//! returned) and the task's own work time.

mod interactive;
mod prime;

use crate::benchmarks::responsiveness::metrics as declared;
use crate::error::Interrupted;
use crate::measure::{Better, Measurement};
use crate::sys::proc::ExitKind;
use crate::sys::signals::stop_point;
use crate::sys::workers::WorkerGroup;
use crate::sys::{fd, signals, time};
use anyhow::{anyhow, Result};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;

/// What to run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    pub interactive: u32,
    pub prime: u32,
    pub np: u32,
    /// Interactive workers stop after this many seconds.
    pub time_limit_s: Option<f64>,
    /// Sleep pattern in seconds (already scaled).
    pub sleeps_s: Vec<f64>,
    /// Where printed output goes (`/dev/null` by default).
    pub print_to: PathBuf,
    /// Private temp dir holding the text file and its copy.
    #[serde(skip)]
    pub workdir: PathBuf,
}

/// One interactive iteration, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Iteration {
    /// Elapsed minus the requested sleep: the original's figure.
    pub response_ns: u64,
    /// How late the sleep returned.
    pub overshoot_ns: u64,
    /// The task's own time after waking.
    pub work_ns: u64,
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Per prime worker: seconds of its first pass over the range.
    pub prime_s: Vec<f64>,
    /// Per prime worker: passes made (more than one only with `-t`).
    pub prime_passes: Vec<u64>,
    /// Per interactive worker: its iterations.
    pub interactive: Vec<Vec<Iteration>>,
    pub wall_s: f64,
}

impl Outcome {
    pub fn iterations(&self) -> impl Iterator<Item = &Iteration> {
        self.interactive.iter().flatten()
    }

    pub fn runs(&self) -> usize {
        self.iterations().count()
    }

    /// Mean response in seconds over every iteration of every worker (the
    /// seed's "os latency" for one interactive worker).
    pub fn avg_response_s(&self) -> f64 {
        let n = self.runs();
        if n == 0 {
            return f64::NAN;
        }
        self.iterations().map(|i| i.response_ns as f64).sum::<f64>() / n as f64 / 1e9
    }

    /// Sum of every iteration's response, in seconds: what the original
    /// prints as `total response time`, and the 2023 seed's "os latency"
    /// ("the total response time was captured"; about 15 iterations in
    /// 30 s there).
    pub fn total_response_s(&self) -> f64 {
        self.iterations().map(|i| i.response_ns as f64).sum::<f64>() / 1e9
    }

    pub fn prime_mean_s(&self) -> f64 {
        if self.prime_s.is_empty() {
            f64::NAN
        } else {
            self.prime_s.iter().sum::<f64>() / self.prime_s.len() as f64
        }
    }

    pub fn measurement(&self) -> Measurement {
        /// Which time of an iteration a quantile is taken of.
        type Field = fn(&Iteration) -> u64;
        let mut m = Measurement::default();
        m.record(&declared::TOTAL_RESPONSE, self.total_response_s());
        m.record(&declared::AVG_RESPONSE, self.avg_response_s());
        let quantiles: [(&str, Field, f64); 6] = [
            ("p99_response", |i| i.response_ns, 0.99),
            ("p50_response", |i| i.response_ns, 0.5),
            ("max_response", |i| i.response_ns, 1.0),
            ("p50_overshoot", |i| i.overshoot_ns, 0.5),
            ("p99_overshoot", |i| i.overshoot_ns, 0.99),
            ("p50_work", |i| i.work_ns, 0.5),
        ];
        for (name, field, p) in quantiles {
            let mut v: Vec<u64> = self.iterations().map(field).collect();
            let q = nearest_rank(&mut v, p).map_or(f64::NAN, |x| x as f64 / 1e9);
            m.push(name, "s", q, Better::Lower);
        }
        m.record(&declared::RUNS, self.runs() as f64);
        if !self.prime_s.is_empty() {
            m.record(&declared::PRIME_TIME_MEAN, self.prime_mean_s());
        }
        m
    }
}

/// The nearest-rank percentile (Hyndman & Fan 1996, type 1): the smallest
/// value with at least `p` of the sample at or below it.  Sorts `v`.
pub fn nearest_rank(v: &mut [u64], p: f64) -> Option<u64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let rank = (p * v.len() as f64).ceil().max(1.0) as usize;
    Some(v[rank.min(v.len()) - 1])
}

/// Size of the generated text file, about the original's `almarri`.
pub const TEXT_BYTES: usize = 80 * 1024;

/// Write the text file the interactive tasks read: ~80 KB of lines.
pub fn write_text_file(path: &std::path::Path) -> std::io::Result<()> {
    let mut text = String::with_capacity(TEXT_BYTES + 100);
    let words = [
        "scheduler",
        "latency",
        "wakeup",
        "preempt",
        "runqueue",
        "timer",
        "kernel",
        "task",
    ];
    let mut n = 0usize;
    while text.len() < TEXT_BYTES {
        for k in 0..10 {
            text.push_str(words[(n * 7 + k * 3) % words.len()]);
            text.push(' ');
        }
        text.push_str(&format!("line {n}\n"));
        n += 1;
    }
    std::fs::write(path, text)
}

/// Run the probe.  Workers are real processes; results come back over
/// pipes (one record per finished iteration, so a stopped worker's
/// completed iterations are kept, as in the original).
pub fn run(opts: &Options) -> Result<Outcome> {
    if opts.prime == 0 && opts.time_limit_s.is_none() {
        return Err(crate::error::input(
            "with no prime workers (-p 0) the interactive workers need a time limit: give -t SECONDS",
        ));
    }
    let text = opts.workdir.join("almarri");
    write_text_file(&text)?;
    let start = time::mono_ns();
    let deadline_ns = opts.time_limit_s.map(|t| start + (t * 1e9) as u64);
    let mut group = WorkerGroup::new()?;
    let (prime_pipes, inter_pipes) = start_workers(opts, deadline_ns, &mut group)?;
    // Drain interactive pipes continuously so a long run never fills them.
    let mut inter_bufs: Vec<Vec<u8>> = vec![Vec::new(); inter_pipes.len()];
    for p in &inter_pipes {
        fd::set_nonblocking(p.as_raw_fd());
    }
    if let Err(e) = wait_all(opts, &mut group, &inter_pipes, &mut inter_bufs) {
        group.kill_and_reap();
        return Err(e);
    }
    drain(&inter_pipes, &mut inter_bufs);
    let wall_s = (time::mono_ns() - start) as f64 / 1e9;
    collect(prime_pipes, inter_bufs, wall_s)
}

/// Fork the prime workers, then the interactive ones; the read ends of
/// their result pipes, in that order.
fn start_workers(
    opts: &Options,
    deadline_ns: Option<u64>,
    group: &mut WorkerGroup,
) -> Result<(Vec<OwnedFd>, Vec<OwnedFd>)> {
    let mut prime_pipes = Vec::new();
    let mut inter_pipes = Vec::new();
    // Ctrl-C while starting: every fork waits behind the hogs already
    // running, so it is heard between them (the group drops and kills what
    // exists).
    for i in 0..opts.prime {
        stop_point()?;
        let (r, w) = fd::pipe()?;
        let np = opts.np;
        group.spawn(i as usize, move || {
            crate::sys::proc::set_name("kbench-prime");
            prime::worker(np, deadline_ns, w.as_raw_fd())
        })?;
        prime_pipes.push(r);
    }
    for i in 0..opts.interactive {
        stop_point()?;
        let (r, w) = fd::pipe()?;
        let o = opts.clone();
        group.spawn((opts.prime + i) as usize, move || {
            crate::sys::proc::set_name("kbench-interact");
            interactive::worker(&o, deadline_ns, w.as_raw_fd())
        })?;
        inter_pipes.push(r);
    }
    Ok((prime_pipes, inter_pipes))
}

/// Reap every worker, draining the interactive pipes meanwhile; when the
/// last prime worker is done the interactive ones are killed (as in the
/// original).  A worker that fails, or Ctrl-C, ends the wait.
fn wait_all(
    opts: &Options,
    group: &mut WorkerGroup,
    inter_pipes: &[OwnedFd],
    inter_bufs: &mut [Vec<u8>],
) -> Result<()> {
    let mut primes_left = opts.prime as usize;
    let mut inter_left = opts.interactive as usize;
    while primes_left + inter_left > 0 {
        if signals::stop_requested() {
            return Err(Interrupted.into());
        }
        drain(inter_pipes, inter_bufs);
        let Some((tag, how)) = group.reap_one(true)? else {
            std::thread::sleep(std::time::Duration::from_millis(20));
            continue;
        };
        let is_prime = tag < opts.prime as usize;
        if is_prime {
            primes_left -= 1
        } else {
            inter_left -= 1
        }
        let killed_by_us = !is_prime && primes_left == 0 && how == ExitKind::Signal(libc::SIGKILL);
        if how != ExitKind::Code(0) && !killed_by_us {
            let (kind, n) = if is_prime {
                ("prime", tag)
            } else {
                ("interactive", tag - opts.prime as usize)
            };
            return Err(anyhow!("responsiveness {kind} worker {n} failed: {how}"));
        }
        if is_prime && primes_left == 0 && opts.prime > 0 {
            // Like the original: interactive work ends with the primes.
            group.signal_all(libc::SIGKILL);
        }
    }
    Ok(())
}

/// Each prime worker's time and passes, and each interactive worker's
/// iterations, from what they sent.
fn collect(prime_pipes: Vec<OwnedFd>, inter_bufs: Vec<Vec<u8>>, wall_s: f64) -> Result<Outcome> {
    let mut out = Outcome {
        wall_s,
        ..Default::default()
    };
    for p in prime_pipes {
        let mut b = Vec::new();
        std::fs::File::from(p).read_to_end(&mut b)?;
        if b.len() < 16 {
            return Err(anyhow!("a prime worker ended without reporting its time"));
        }
        out.prime_s.push(f64::from_ne_bytes(b[..8].try_into()?));
        out.prime_passes
            .push(u64::from_ne_bytes(b[8..16].try_into()?));
    }
    for b in inter_bufs {
        out.interactive
            .push(b.chunks_exact(24).map(interactive::decode).collect());
    }
    Ok(out)
}

fn drain(pipes: &[OwnedFd], bufs: &mut [Vec<u8>]) {
    let mut chunk = [0u8; 4096];
    for (p, b) in pipes.iter().zip(bufs.iter_mut()) {
        while let Ok(n @ 1..) = crate::sys::fd::read(p.as_raw_fd(), &mut chunk) {
            b.extend_from_slice(&chunk[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_matches_hand_computed() {
        let mut v: Vec<u64> = (1..=10).collect();
        assert_eq!(nearest_rank(&mut v, 0.5), Some(5));
        assert_eq!(nearest_rank(&mut v, 0.9), Some(9));
        assert_eq!(nearest_rank(&mut v, 0.99), Some(10));
        assert_eq!(nearest_rank(&mut v, 0.0), Some(1));
        assert_eq!(nearest_rank(&mut [], 0.5), None);
        let mut w = vec![30, 10, 20];
        assert_eq!(nearest_rank(&mut w, 0.5), Some(20));
    }

    #[test]
    fn text_file_is_about_80_kb() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t");
        write_text_file(&p).unwrap();
        let n = std::fs::metadata(&p).unwrap().len() as usize;
        assert!((TEXT_BYTES..TEXT_BYTES + 200).contains(&n), "{n}");
    }

    #[test]
    fn summary_metrics() {
        let it = |r| Iteration {
            response_ns: r,
            overshoot_ns: r / 2,
            work_ns: r / 2,
        };
        let o = Outcome {
            prime_s: vec![1.0, 3.0],
            prime_passes: vec![1, 1],
            interactive: vec![vec![it(1_000_000), it(3_000_000)]],
            wall_s: 5.0,
        };
        assert!((o.avg_response_s() - 0.002).abs() < 1e-12);
        assert!((o.total_response_s() - 2.0 * o.avg_response_s()).abs() < 1e-12);
        assert_eq!(o.prime_mean_s(), 2.0);
        let m = o.measurement();
        let get = |n: &str| m.metrics.iter().find(|x| x.name == n).unwrap().value;
        assert_eq!(get("runs"), 2.0);
        assert!((get("total_response") - o.total_response_s()).abs() < 1e-12);
        assert_eq!(get("max_response"), 0.003);
        assert_eq!(get("p50_response"), 0.001);
    }
}
