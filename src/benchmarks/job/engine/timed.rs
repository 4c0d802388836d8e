//! Running a job and timing it: wall time from just before `fork` to the
//! moment the job exits (a pidfd wakes us at once), and the user and
//! system CPU of the job and every descendant it waited for, from
//! `wait4`'s rusage, as `time` reports.  The job runs in its own process
//! group so Ctrl-C or a failure can stop all of it.

use anyhow::{anyhow, Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// What one timed run of a job cost.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct JobTimes {
    pub wall_s: f64,
    pub user_s: f64,
    pub sys_s: f64,
}

impl JobTimes {
    /// (user + sys) / wall × 100: over 100 % on SMP, as contest.
    pub fn cpu_percent(&self) -> f64 {
        (self.user_s + self.sys_s) / self.wall_s.max(1e-9) * 100.0
    }
}

/// A job that is running.
pub struct TimedChild {
    pid: libc::pid_t,
    pidfd: Option<std::os::fd::OwnedFd>,
    start: Instant,
    stderr: PathBuf,
    what: String,
    done: bool,
}

/// Start `argv` in `dir`, stdout discarded, stderr kept in `stderr_file`
/// (in the job's scratch folder, which records the job's process group
/// so that its janitor ends the compilers a SIGKILL of kbench would leave
/// running).
pub fn start(argv: &[String], dir: &Path, stderr_file: &Path) -> Result<TimedChild> {
    let (prog, args) = argv
        .split_first()
        .ok_or_else(|| anyhow!("empty job command"))?;
    let err = std::fs::File::create(stderr_file)
        .with_context(|| format!("creating {}", stderr_file.display()))?;
    let mut cmd = Command::new(prog);
    // The compilers' temporary files go into the scratch folder too, so a
    // SIGKILL that stops them mid-file leaves none in the system's /tmp.
    if let Some(scratch) = stderr_file.parent() {
        cmd.env("TMPDIR", scratch);
    }
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err);
    crate::sys::proc::on_exec(
        &mut cmd,
        crate::sys::proc::OnExec {
            die_with_parent: true,
            own_group: true,
            ..Default::default()
        },
    );
    let start = Instant::now();
    let child = cmd
        .spawn()
        .map_err(|e| crate::error::input(format!("cannot run job command '{prog}': {e}")))?;
    let pid = child.id() as libc::pid_t;
    // The std handle is dropped without waiting: we reap with wait4 below.
    drop(child);
    if let Some(scratch) = stderr_file.parent() {
        crate::sys::janitor::watch_group(scratch, pid);
    }
    let pidfd = crate::sys::proc::pidfd_open(pid);
    Ok(TimedChild {
        pid,
        pidfd,
        start,
        stderr: stderr_file.to_path_buf(),
        what: argv.join(" "),
        done: false,
    })
}

impl TimedChild {
    /// Wait up to `timeout_ms` for the job; `Ok(Some)` when it ended
    /// successfully, `Err` when it failed (with its stderr tail).
    pub fn wait(&mut self, timeout_ms: i32) -> Result<Option<JobTimes>> {
        use std::os::fd::AsRawFd;
        if let Some(fd) = &self.pidfd {
            if !crate::sys::fd::wait_readable(fd.as_raw_fd(), timeout_ms)? {
                return Ok(None);
            }
        }
        let (status, ru) = match crate::sys::proc::wait4(self.pid, self.pidfd.is_some()) {
            Ok(Some(r)) => r,
            Ok(None) => {
                std::thread::sleep(std::time::Duration::from_millis(
                    timeout_ms.clamp(0, 50) as u64
                ));
                return Ok(None);
            }
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => return Ok(None),
            Err(e) => return Err(anyhow!("waiting for the job: {e}")),
        };
        let wall_s = self.start.elapsed().as_secs_f64();
        self.done = true;
        let how = crate::sys::proc::exit_kind(status);
        if how != crate::sys::proc::ExitKind::Code(0) {
            return Err(anyhow!(
                "job `{}` failed ({how}){}",
                self.what,
                tail(&self.stderr)
            ));
        }
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        Ok(Some(JobTimes {
            wall_s,
            user_s: tv(ru.ru_utime),
            sys_s: tv(ru.ru_stime),
        }))
    }

    /// Stop the job and everything it started, and reap it.
    pub fn kill(&mut self) {
        if self.done {
            return;
        }
        crate::sys::proc::kill(-self.pid, libc::SIGKILL);
        crate::sys::proc::kill(self.pid, libc::SIGKILL);
        crate::sys::proc::reap(self.pid);
        self.done = true;
    }
}

impl Drop for TimedChild {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The last lines of a job's stderr, for error messages.
pub fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let start = lines.len().saturating_sub(5);
    format!(":\n  {}", lines[start..].join("\n  "))
}

/// Run an untimed step (prepare, clean) to completion.
pub fn run_step(argv: &[String], dir: &Path, scratch: &Path, what: &str) -> Result<()> {
    let mut c = start(argv, dir, &scratch.join("step.err"))?;
    loop {
        if crate::sys::signals::stop_requested() {
            c.kill();
            return Err(crate::error::Interrupted.into());
        }
        match c.wait(200) {
            Ok(Some(_)) => return Ok(()),
            Ok(None) => {}
            Err(e) => return Err(e.context(format!("job {what} step failed"))),
        }
    }
}
