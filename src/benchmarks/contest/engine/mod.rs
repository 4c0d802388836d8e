//! contest: the job a developer waits for, timed under each background
//! load (Con Kolivas' method).
//!
//! Each round runs `noload` (after dropping caches when permitted), then
//! `cacherun` (same job, warm caches), then every load in an order rotated
//! each round so slow drift does not favour one load.  Under a load, the
//! load is started, must demonstrably work, then the job is timed and the
//! load's work and CPU time over exactly the job's duration are read.

pub mod table;

use crate::benchmarks::job::engine::{Job, JobTimes};
use crate::error::Interrupted;
use crate::load::{self, LoadOptions, Report, Running};
use anyhow::Result;
use std::time::Duration;

/// The two rows that are not loads.
pub const NOLOAD: &str = "noload";
pub const CACHERUN: &str = "cacherun";

/// Block order for tables: noload, cacherun, then every load in the
/// loads table's order (contest's, as its result mails list them, and
/// `cpu` last), so every load contest can run has its block.
pub fn block_order() -> Vec<String> {
    [NOLOAD, CACHERUN]
        .into_iter()
        .chain(load::names())
        .map(str::to_string)
        .collect()
}

/// How long a load runs before the job starts: contest let each load get
/// going for a few seconds before the compile.
pub const SETTLE: Duration = Duration::from_secs(3);

/// contest compiled with `make -j(4 x CPUs)`.
pub fn default_jobs() -> usize {
    4 * crate::sys::cpus::online_here().len().max(1)
}

/// One timed job run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub load: String,
    pub times: JobTimes,
    /// The load's work and CPU during the job (None for noload/cacherun).
    pub load_report: Option<Report>,
    pub caches_dropped: bool,
    pub load_description: Option<String>,
}

/// The order of round `round`: noload, cacherun, then the loads rotated.
pub fn round_order(loads: &[String], round: u32) -> Vec<String> {
    let mut v = vec![NOLOAD.to_string(), CACHERUN.to_string()];
    let rest: Vec<&String> = loads
        .iter()
        .filter(|l| *l != NOLOAD && *l != CACHERUN)
        .collect();
    if !rest.is_empty() {
        let k = round as usize % rest.len();
        v.extend(
            rest[k..]
                .iter()
                .chain(rest[..k].iter())
                .map(|s| s.to_string()),
        );
    }
    v
}

/// Time the job once, watching `running` (if any) and Ctrl-C.
fn time_job(
    job: &Job,
    mut running: Option<&mut Running>,
    tick: &mut dyn FnMut(),
) -> Result<JobTimes> {
    let mut child = job.start()?;
    loop {
        if crate::sys::signals::stop_requested() {
            child.kill();
            return Err(Interrupted.into());
        }
        if let Some(r) = running.as_deref_mut() {
            if let Err(e) = r.check() {
                child.kill();
                return Err(e);
            }
        }
        if let Some(t) = child.wait(100)? {
            return Ok(t);
        }
        tick();
    }
}

/// Let the load run [`SETTLE`] before the job, watching it and Ctrl-C.
fn settle(running: &mut Running) -> Result<()> {
    let end = std::time::Instant::now() + SETTLE;
    while std::time::Instant::now() < end {
        if crate::sys::signals::stop_requested() {
            return Err(Interrupted.into());
        }
        running.check()?;
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// One step of the suite: the job timed beside load `load_name` (or
/// alone: noload after dropping caches, cacherun warm); `tick` is called
/// often while the job runs.
pub fn step(
    job: &Job,
    load_name: &str,
    opts: &LoadOptions,
    tick: &mut dyn FnMut(),
) -> Result<RunResult> {
    job.clean()?;
    let mut res = RunResult {
        load: load_name.to_string(),
        times: JobTimes::default(),
        load_report: None,
        caches_dropped: false,
        load_description: None,
    };
    match load_name {
        NOLOAD => {
            res.caches_dropped = crate::sys::proc::drop_caches().is_ok();
            res.times = time_job(job, None, tick)?;
        }
        CACHERUN => res.times = time_job(job, None, tick)?,
        _ => {
            let l = load::build(load_name, opts)?;
            res.load_description = Some(l.describe());
            let mut running = Running::start(l, opts)?;
            running.wait_working(Duration::from_secs(120))?;
            settle(&mut running)?;
            let mark = running.mark();
            let t = time_job(job, Some(&mut running), tick);
            let during = running.since(mark);
            running.stop();
            res.times = t?;
            res.load_report = Some(during);
        }
    }
    Ok(res)
}

/// The loads that can run here, and why the others cannot.
pub fn available(opts: &LoadOptions) -> (Vec<String>, Vec<(String, String)>) {
    let mut ok = Vec::new();
    let mut skipped = Vec::new();
    for name in load::KINDS
        .iter()
        .filter(|k| k.contest_default)
        .map(|k| k.name)
    {
        match load::build(name, opts) {
            Ok(_) => ok.push(name.to_string()),
            Err(e) => skipped.push((name.to_string(), format!("{e:#}"))),
        }
    }
    (ok, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_rotate_the_loads_after_noload_and_cacherun() {
        let loads: Vec<String> = ["process", "mem", "io"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            round_order(&loads, 0),
            ["noload", "cacherun", "process", "mem", "io"]
        );
        assert_eq!(
            round_order(&loads, 1),
            ["noload", "cacherun", "mem", "io", "process"]
        );
        assert_eq!(
            round_order(&loads, 2),
            ["noload", "cacherun", "io", "process", "mem"]
        );
        assert_eq!(round_order(&loads, 3), round_order(&loads, 0));
        assert_eq!(round_order(&[], 5), ["noload", "cacherun"]);
    }
}
