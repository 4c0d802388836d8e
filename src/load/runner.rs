//! Starting, watching and stopping a load.
//!
//! Workers are forked into one process group.  A janitor process, in a
//! group of its own, waits for kbench to die (`PR_SET_PDEATHSIG`) and then
//! removes the load's private directory, so files go even when kbench is
//! killed with SIGKILL; external tools (tar, dbench) get their own
//! parent-death signal before `exec`.  When the load stops, the workers
//! end, the folder and claim go, and only then the janitor: a kill at any
//! moment of that leaves nothing (with the janitor ended first, one that
//! came between left the folder for good).

use super::{Load, LoadOptions};
use crate::sys::shared::SharedCounters;
use crate::sys::tempdir::PrivateDir;
use crate::sys::workers::WorkerGroup;
use crate::sys::{sched, signals};
use anyhow::{anyhow, Context, Result};
use serde::Serialize;
use std::time::{Duration, Instant};

const JANITOR: usize = usize::MAX;

/// What a load did between two moments.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    pub load: String,
    pub unit: String,
    /// Work done, in `unit`.
    pub work: f64,
    /// CPU time of the load's processes (user + system), seconds.
    pub cpu_s: f64,
    pub wall_s: f64,
}

impl Report {
    pub fn rate(&self) -> f64 {
        self.work / self.wall_s.max(1e-9)
    }

    /// CPU time over wall time, in % (over 100 on SMP, as contest).
    pub fn cpu_percent(&self) -> f64 {
        self.cpu_s / self.wall_s.max(1e-9) * 100.0
    }
}

/// A started load.
pub struct Running {
    load: Box<dyn Load>,
    group: WorkerGroup,
    counters: SharedCounters,
    /// Released when the load is dropped.
    _claim: Option<super::claims::Claim>,
    dir: Option<PrivateDir>,
    started: Instant,
    /// Last, so it is ended after the folder and claim have gone.
    janitor: WorkerGroup,
}

/// The janitor: sleep until the parent dies, then remove `dir` and the
/// load's disk claim.
fn janitor(dir: &std::path::Path, claim: &std::path::Path, parent: libc::pid_t) -> i32 {
    crate::sys::proc::sleep_until_parent_dies(parent);
    let _ = std::fs::remove_file(claim);
    crate::sys::tempdir::remove_when_left(dir);
    0
}

/// Run the load's set-up; past a second, show how far it is (on a
/// terminal only: indicatif draws nothing elsewhere).
fn prepare_with_progress(load: &mut dyn Load, dir: &std::path::Path) -> Result<()> {
    let start = std::time::Instant::now();
    let name = load.name();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut report = |done: u64, total: u64| {
        if start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let b = bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::with_draw_target(
                Some(total),
                indicatif::ProgressDrawTarget::stderr(),
            );
            b.set_style(
                indicatif::ProgressStyle::with_template(&format!(
                    "preparing the {name} load {{bar:30}} {{bytes}}/{{total_bytes}}"
                ))
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b
        });
        b.set_position(done);
    };
    let r = load.prepare(dir, &mut report);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    r
}

impl Running {
    /// Prepare the load, fork its workers and its janitor.
    ///
    /// The janitor is forked first, told where the load's folder and disk
    /// claim will be, so nothing the load creates can outlive a `kill -9`
    /// of kbench, not even during set-up.
    pub fn start(mut load: Box<dyn Load>, opts: &LoadOptions) -> Result<Running> {
        let base = load.location().unwrap_or_else(|| opts.base_dir());
        let path = PrivateDir::plan(&base, load.name());
        let claim_path = super::claims::plan();
        // On an error or a panic, locals go in reverse: the workers are
        // killed, then their folder and claim go, then the janitor.
        let parent = std::process::id() as libc::pid_t;
        let mut janitor_group = WorkerGroup::new()?;
        janitor_group.spawn_janitor(JANITOR, || janitor(&path, &claim_path, parent))?;
        let (dir_slot, claim_slot);
        let mut group = WorkerGroup::new()?;
        dir_slot = PrivateDir::create(path.clone()).map_err(|e| {
            crate::error::input(format!(
                "{} load: cannot create a folder in {}: {e}",
                load.name(),
                base.display()
            ))
        })?;
        claim_slot = match load.disk_claim() {
            Some(bytes) => Some(super::claims::claim(claim_path, &base, bytes, load.name())?),
            None => None,
        };
        prepare_with_progress(load.as_mut(), dir_slot.path())?;
        let n = load.workers();
        let counters = SharedCounters::new(n).context("mapping load counters")?;
        for i in 0..n {
            let (load, counters, path) = (&load, &counters, &path);
            group.spawn(i, move || {
                // Named for what it is, in ps and in --trace's explanations.
                crate::sys::proc::set_name(&format!("kbench-{}", load.name()));
                if let Err(e) = place(opts) {
                    eprintln!("kbench: {} load: {e:#}", load.name());
                    return 20;
                }
                load.run_worker(i, path, counters.get(i))
            })?;
        }
        crate::sys::hooks::injected_panic("load-started");
        Ok(Running {
            load,
            group,
            counters,
            _claim: claim_slot,
            dir: Some(dir_slot),
            started: Instant::now(),
            janitor: janitor_group,
        })
    }

    pub fn name(&self) -> &'static str {
        self.load.name()
    }

    pub fn unit(&self) -> &'static str {
        self.load.unit()
    }

    /// Work done so far, in the load's unit.
    pub fn work(&self) -> f64 {
        self.counters.sum() as f64 * self.load.scale()
    }

    /// CPU seconds used so far by every live process of the load's group
    /// (workers and the tools they run, such as dbench's clients), each
    /// with the children it has reaped.
    pub fn cpu_s(&self) -> f64 {
        group_cpu_s(self.group.pgid())
    }

    pub fn elapsed_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// A snapshot to subtract later: (work, cpu_s, instant).
    pub fn mark(&self) -> (f64, f64, Instant) {
        (self.work(), self.cpu_s(), Instant::now())
    }

    /// What the load did since `mark`.
    pub fn since(&self, mark: (f64, f64, Instant)) -> Report {
        Report {
            load: self.name().into(),
            unit: self.unit().into(),
            work: self.work() - mark.0,
            cpu_s: self.cpu_s() - mark.1,
            wall_s: mark.2.elapsed().as_secs_f64(),
        }
    }

    /// Fail if any worker has ended (loads run until stopped).
    pub fn check(&mut self) -> Result<()> {
        let reaped = match self.janitor.reap_one(true)? {
            Some(r) => Some(r),
            None => self.group.reap_one(true)?,
        };
        if let Some((tag, how)) = reaped {
            let who = if tag == JANITOR {
                "janitor".to_string()
            } else {
                format!("worker {tag}")
            };
            return Err(anyhow!("{} load {who} died: {how}", self.name()));
        }
        Ok(())
    }

    /// Wait until the load has demonstrably done work, or fail.
    pub fn wait_working(&mut self, timeout: Duration) -> Result<()> {
        let end = Instant::now() + timeout;
        while self.work() <= 0.0 {
            self.check()?;
            if signals::stop_requested() {
                return Err(crate::error::Interrupted.into());
            }
            if Instant::now() > end {
                return Err(anyhow!(
                    "{} load did no work within {:.0} s",
                    self.name(),
                    timeout.as_secs_f64()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Stop every process, remove the files, and report the whole run.
    pub fn stop(mut self) -> Report {
        let report = Report {
            load: self.name().into(),
            unit: self.unit().into(),
            work: self.work(),
            cpu_s: self.cpu_s(),
            wall_s: self.elapsed_s(),
        };
        self.group.kill_and_reap();
        drop(self.dir.take());
        report
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.group.kill_and_reap();
    }
}

/// Apply CPUs, nice and policy in a worker.
fn place(opts: &LoadOptions) -> Result<()> {
    if let Some(cpus) = &opts.cpus {
        sched::set_affinity(0, cpus)?;
    }
    if let Some(n) = opts.nice {
        if crate::sys::proc::set_nice(n).is_err() {
            return Err(crate::error::privilege(format!(
                "nice {n} needs privilege: run as root or grant CAP_SYS_NICE"
            )));
        }
    }
    if let Some((p, prio)) = opts.policy {
        sched::set_policy(0, p, prio)?;
    }
    Ok(())
}

/// Sum of utime + stime + cutime + cstime over the processes of group
/// `pgid`, in seconds.  A reaped process's time lives on in its parent's
/// cutime/cstime, and only live processes are read, so nothing counts twice.
fn group_cpu_s(pgid: libc::pid_t) -> f64 {
    let ticks: u64 = crate::sys::procstat::all()
        .values()
        .filter(|p| p.pgrp == pgid)
        .map(|p| p.ticks.saturating_add(p.child_ticks))
        .fold(0, u64::saturating_add);
    let hz = crate::sys::proc::clock_ticks_per_s();
    ticks as f64 / hz
}

/// A `Command` for an external tool that dies with its parent.
pub fn tool(program: &str) -> std::process::Command {
    let mut c = std::process::Command::new(program);
    crate::sys::proc::on_exec(
        &mut c,
        crate::sys::proc::OnExec {
            die_with_parent: true,
            ..Default::default()
        },
    );
    c
}
