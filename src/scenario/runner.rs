//! Running a scenario: each task a child kbench (the same command a user
//! would type), placed on its CPUs with its policy and nice level, its
//! runs tagged with the scenario run, phase and repetition through the
//! environment.  Background tasks restart when they end early and get
//! SIGINT (then SIGKILL) when the probes are done; a failing task fails its
//! repetition, everything in the phase is stopped, and the scenario goes
//! on unless told to stop at the first failure.

use super::{Phase, Role, Scenario, Task};
use crate::error::Interrupted;
use crate::sys::{proc, signals};
use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::session::inherited::{
    ENV_ISOLATION, ENV_PHASE, ENV_PLACEMENT, ENV_REP, ENV_ROOT, ENV_SCENARIO, ENV_TASK, ENV_VARS,
};

/// Where the runs go and under which label.
pub struct Target {
    pub db: PathBuf,
    pub label: String,
    /// `name/unique id` of this scenario run.
    pub id: String,
    /// The kbench process whose descendants are kbench's own (this one, or
    /// the experiment's that started it).
    pub root_pid: i32,
    /// The variables the user set (`--var`), stored in every task's
    /// parameters as `var.NAME`, so that runs at different values of a
    /// variable (a sweep's points) are compared apart.
    pub vars: Vec<(String, String)>,
}

/// What the runner reports as it goes.
pub trait Progress {
    fn phase(&mut self, rep: u32, phase: &Phase);
    fn tick(&mut self);
    fn done(&mut self, rep: u32, phase: &Phase, failure: Option<&str>);
}

/// A running task.
struct Running<'a> {
    task: &'a Task,
    child: Child,
    stderr: PathBuf,
    restarts: u32,
}

fn spawn<'a>(
    task: &'a Task,
    t: &Target,
    phase: &str,
    rep: u32,
    scratch: &Path,
    n: u32,
) -> Result<Running<'a>> {
    let exe = std::env::current_exe().map_err(|e| anyhow!("finding kbench's own binary: {e}"))?;
    let stderr = scratch.join(format!("{}-{phase}-{n}.err", task.name).replace('/', "_"));
    let err = std::fs::File::create(&stderr)?;
    let mut c = Command::new(exe);
    c.arg("--db")
        .arg(&t.db)
        .arg("--label")
        .arg(&t.label)
        .arg("-q")
        .arg(&task.kind)
        .args(&task.argv);
    c.stdin(Stdio::null()).stdout(Stdio::null()).stderr(err);
    let placement = serde_json::json!({
        "cpus": task.cpus.as_ref().map(|c| crate::sys::cpus::format_list(c)),
        "policy": task.policy.map(|p| p.0.name()), "priority": task.policy.map(|p| p.1),
        "nice": task.nice, "role": task.role,
        "session": if task.own_session { "own" } else { "shared" },
    });
    c.env(ENV_ROOT, std::process::id().to_string())
        .env(ENV_SCENARIO, &t.id)
        .env(ENV_PHASE, phase)
        .env(ENV_REP, rep.to_string())
        .env(ENV_TASK, &task.name)
        .env(ENV_PLACEMENT, placement.to_string());
    if !t.vars.is_empty() {
        let vars: serde_json::Map<String, serde_json::Value> = t
            .vars
            .iter()
            .map(|(k, v)| (k.clone(), v.clone().into()))
            .collect();
        c.env(ENV_VARS, serde_json::Value::Object(vars).to_string());
    }
    crate::sys::proc::on_exec(
        &mut c,
        crate::sys::proc::OnExec {
            die_with_parent: true,
            own_session: task.own_session,
            cpus: task.cpus.as_deref().map(crate::sys::sched::cpu_set),
            nice: task.nice,
            policy: task
                .policy
                .map(|(p, prio)| (p.raw(), if p.is_realtime() { prio } else { 0 })),
            ..Default::default()
        },
    );
    let child = c.spawn().map_err(|e| {
        if e.raw_os_error() == Some(libc::EPERM) {
            crate::error::privilege(format!(
                "task {}: its policy or nice level needs privilege: run as root",
                task.name
            ))
        } else {
            anyhow!("starting task {}: {e}", task.name)
        }
    })?;
    Ok(Running {
        task,
        child,
        stderr,
        restarts: 0,
    })
}

/// Stop children: SIGINT, then SIGKILL after a grace period.  A child
/// already reaped is never signalled: its PID may belong to another
/// process by now.  An unreaped child (running or a zombie) still holds
/// its PID, so signalling it reaches only it.
fn stop_all(children: &mut [Running]) {
    stop_children(children.iter_mut().map(|r| &mut r.child), libc::SIGINT);
}

/// Background tasks whose phase ended as planned: stopped with the
/// planned-stop signal, so each stores its run as complete (its work
/// counted up to then) rather than interrupted.
fn stop_as_planned(children: &mut [Running]) {
    stop_children(
        children.iter_mut().map(|r| &mut r.child),
        crate::sys::signals::PLANNED_STOP,
    );
}

/// [`stop_all`] on the processes themselves, with `sig` first.
fn stop_children<'a>(children: impl Iterator<Item = &'a mut std::process::Child>, sig: i32) {
    let mut children: Vec<&mut std::process::Child> = children.collect();
    for c in children.iter_mut() {
        if matches!(c.try_wait(), Ok(None)) {
            proc::kill(c.id() as i32, sig);
        }
    }
    let end = Instant::now() + Duration::from_secs(10);
    for r in children.iter_mut() {
        loop {
            match r.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() > end => {
                    let _ = r.kill();
                    let _ = r.wait();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }
}

/// Run one phase; `Err` only for interruption, `Ok(Some(msg))` on failure.
fn phase(
    ph: &Phase,
    t: &Target,
    rep: u32,
    scratch: &Path,
    progress: &mut dyn Progress,
) -> Result<Option<String>> {
    if ph.drop_caches && proc::drop_caches().is_err() {
        return Ok(Some(format!(
            "phase {}: dropping caches needs root (run as root, or set drop_caches = false)",
            ph.name
        )));
    }
    let mut background = Vec::new();
    for task in ph.tasks.iter().filter(|t| t.role == Role::Background) {
        match spawn(task, t, &ph.name, rep, scratch, 0) {
            Ok(r) => background.push(r),
            Err(e) => {
                stop_all(&mut background);
                return Err(e);
            }
        }
    }
    let settle_end = Instant::now() + ph.settle;
    while Instant::now() < settle_end {
        if signals::stop_requested() {
            stop_all(&mut background);
            return Err(Interrupted.into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut probes = Vec::new();
    for task in ph.tasks.iter().filter(|t| t.role == Role::Probe) {
        match spawn(task, t, &ph.name, rep, scratch, 0) {
            Ok(r) => probes.push(r),
            Err(e) => {
                stop_all(&mut probes);
                stop_all(&mut background);
                return Err(e);
            }
        }
    }
    let mut failure = None;
    let mut done = vec![false; probes.len()];
    while done.iter().any(|d| !d) && failure.is_none() {
        if signals::stop_requested() {
            stop_all(&mut probes);
            stop_all(&mut background);
            return Err(Interrupted.into());
        }
        for (i, p) in probes.iter_mut().enumerate() {
            if done[i] {
                continue;
            }
            if let Some(st) = p.child.try_wait()? {
                done[i] = true;
                if !st.success() {
                    failure = Some(format!(
                        "task {} failed ({st}){}",
                        p.task.name,
                        crate::benchmarks::job::engine::timed::tail(&p.stderr)
                    ));
                }
            }
        }
        for b in background.iter_mut() {
            if let Some(st) = b.child.try_wait()? {
                if !st.success() {
                    failure = Some(format!(
                        "background task {} failed ({st}){}",
                        b.task.name,
                        crate::benchmarks::job::engine::timed::tail(&b.stderr)
                    ));
                    break;
                }
                b.restarts += 1;
                let task = b.task;
                let restarts = b.restarts;
                let mut nb = spawn(task, t, &ph.name, rep, scratch, restarts)?;
                nb.restarts = restarts;
                *b = nb;
            }
        }
        progress.tick();
        std::thread::sleep(Duration::from_millis(50));
    }
    stop_all(&mut probes);
    if failure.is_none() {
        stop_as_planned(&mut background);
    } else {
        stop_all(&mut background);
    }
    Ok(failure)
}

/// How a scenario run went.
pub struct Outcome {
    /// One line per failed repetition.
    pub failures: Vec<String>,
    /// Repetitions started.
    pub reps: u32,
    /// Why `runs = "auto"` stopped before its cap.
    pub stopped: Option<String>,
}

/// Run every repetition of every phase (with `runs = "auto"`, until every
/// probe is precise).  Fails fast on the first failure when asked.
pub fn run(
    sc: &Scenario,
    t: &Target,
    fail_fast: bool,
    progress: &mut dyn Progress,
    store: &dyn crate::store::Store,
) -> Result<Outcome> {
    let scratch = crate::sys::janitor::Scratch::in_tmp("scenario")?;
    // Isolation covers every phase; the tasks record it (ENV_ISOLATION).
    let _isolated = if sc.isolate {
        match crate::isolate::apply(None, t.root_pid) {
            crate::isolate::Outcome::Isolated(i) => {
                std::env::set_var(ENV_ISOLATION, i.summary.to_string());
                Some(i)
            }
            crate::isolate::Outcome::NotPossible(why) => {
                eprintln!("kbench: not isolated: {why}; the scenario goes on");
                std::env::set_var(
                    ENV_ISOLATION,
                    serde_json::json!({ "isolated": false, "asked": true, "reason": why })
                        .to_string(),
                );
                None
            }
        }
    } else {
        None
    };
    let mut out = Outcome {
        failures: Vec::new(),
        reps: 0,
        stopped: None,
    };
    for rep in 0..sc.runs {
        out.reps = rep + 1;
        let mut failed = false;
        for ph in &sc.phases {
            progress.phase(rep, ph);
            let r = phase(ph, t, rep, scratch.path(), progress);
            let failure = match r {
                Ok(f) => f,
                Err(e) => {
                    progress.done(rep, ph, Some("interrupted"));
                    return Err(e);
                }
            };
            progress.done(rep, ph, failure.as_deref());
            if let Some(f) = failure {
                out.failures
                    .push(format!("repetition {} phase {}: {f}", rep + 1, ph.name));
                if fail_fast {
                    return Ok(out);
                }
                failed = true;
                break; // the rest of this repetition is skipped
            }
        }
        if let (Some(p), false) = (sc.auto_precision, failed) {
            if let Some(why) = super::auto::decided(sc, p, store, &t.id, rep + 1)? {
                out.stopped = Some(why);
                break;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    /// A probe that has ended and been reaped is never signalled again:
    /// its PID may be another process's by now.  Reuse is forced through
    /// `ns_last_pid` (root only): an unrelated `sleep` is given the reaped
    /// probe's PID, and stopping the scenario's children must leave it
    /// running.
    #[test]
    fn a_reaped_child_is_not_signalled_even_when_its_pid_is_reused() {
        if !crate::sys::proc::is_root() {
            eprintln!("skipped: forcing PID reuse through ns_last_pid needs root");
            return;
        }
        // Other tests fork too: try until the PID is ours.
        for _ in 0..50 {
            let mut probe = std::process::Command::new("true").spawn().unwrap();
            let pid = probe.id();
            probe.wait().unwrap(); // reaped, as the runner reaps a probe
            if std::fs::write("/proc/sys/kernel/ns_last_pid", (pid - 1).to_string()).is_err() {
                eprintln!("skipped: ns_last_pid is not writable here");
                return;
            }
            let mut stranger = std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .unwrap();
            if stranger.id() != pid {
                let _ = stranger.kill();
                let _ = stranger.wait();
                continue;
            }
            super::stop_children(std::iter::once(&mut probe), libc::SIGINT);
            std::thread::sleep(std::time::Duration::from_millis(100));
            let alive = matches!(stranger.try_wait(), Ok(None));
            let _ = stranger.kill();
            let _ = stranger.wait();
            assert!(
                alive,
                "the process that took the reaped probe's PID was signalled"
            );
            return;
        }
        panic!("could not get a reused PID in 50 tries");
    }
}
