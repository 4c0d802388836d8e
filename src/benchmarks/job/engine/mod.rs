//! Timed jobs: the foreground task whose wall time is contest's figure.
//!
//! A job is prepared once (untimed), cleaned before every timed run
//! (untimed) so every run does the same work, and timed with the CPU use
//! of all its processes.  Three kinds: the generated C project (default),
//! a real kernel build, or any command.

pub mod command;
pub mod generated;
mod kernel;
pub mod timed;

use crate::error::input;
use crate::sys::janitor::Scratch;
use anyhow::Result;
use std::path::PathBuf;
pub use timed::{JobTimes, TimedChild};

/// Which job, as the user described it.
#[derive(Clone, Debug)]
pub enum Spec {
    Generated(generated::Size),
    Kernel(kernel::Kernel),
    Command {
        argv: Vec<String>,
        dir: Option<PathBuf>,
        prep: Option<Vec<String>>,
        clean: Option<Vec<String>>,
    },
}

/// The user's job flags, typed.
#[derive(Clone, Debug, Default)]
pub struct JobOptions {
    pub kernel_tree: Option<PathBuf>,
    pub kconfig: Option<String>,
    pub target: Option<String>,
    pub jobs: Option<usize>,
    pub cmd: Option<String>,
    pub dir: Option<PathBuf>,
    pub prep: Option<String>,
    pub clean: Option<String>,
    pub size: Option<String>,
}

impl Spec {
    /// Kernel tree if given, else a command if given, else the generated project.
    pub fn from_options(o: &JobOptions) -> Result<Spec> {
        let ncpu = crate::sys::cpus::online_here().len().max(1);
        if let Some(tree) = &o.kernel_tree {
            if o.cmd.is_some() {
                return Err(input("give either --kernel-tree or --job-cmd, not both"));
            }
            return Ok(Spec::Kernel(kernel::Kernel::new(
                tree,
                o.kconfig.as_deref().unwrap_or("defconfig"),
                o.target.as_deref().unwrap_or("vmlinux"),
                o.jobs.unwrap_or(ncpu),
            )?));
        }
        if let Some(cmd) = &o.cmd {
            return Ok(Spec::Command {
                argv: command::split(cmd)?,
                dir: o.dir.clone(),
                prep: o.prep.as_deref().map(command::split).transpose()?,
                clean: o.clean.as_deref().map(command::split).transpose()?,
            });
        }
        if o.kconfig.is_some() || o.target.is_some() {
            return Err(input("--kconfig and --target need --kernel-tree"));
        }
        Ok(Spec::Generated(generated::Size::parse(
            o.size.as_deref().unwrap_or("small"),
        )?))
    }
}

/// A job ready to run.
pub struct Job {
    spec: Spec,
    dir: PathBuf,
    jobs: usize,
    scratch: Scratch,
}

/// Is `tool` on PATH?
fn need(tool: &str, package: &str) -> Result<()> {
    if crate::load::which(tool).is_none() {
        return Err(input(format!(
            "{tool} not found: apt-get install {package}"
        )));
    }
    Ok(())
}

/// Can `program` be started (from `dir`, as the job will be)?  Checked
/// before anything runs, so a typo is refused up front, not after the
/// preparation step has printed its banner.
fn runnable(flag: &str, program: &str, dir: &std::path::Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let found = if program.contains('/') {
        let p = dir.join(program);
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    } else {
        crate::load::which(program).is_some()
    };
    if !found {
        return Err(input(format!(
            "{flag}: cannot run '{program}': no such program{}",
            if program.contains('/') {
                format!(" (or not executable) relative to {}", dir.display())
            } else {
                " on PATH".to_string()
            }
        )));
    }
    Ok(())
}

impl Job {
    /// Check the tools the job needs; nothing is written yet.
    pub fn new(spec: Spec, jobs: Option<usize>) -> Result<Job> {
        let scratch = Scratch::in_tmp("job")?;
        crate::sys::hooks::injected_panic("job-scratch");
        let dir = match &spec {
            Spec::Generated(_) => {
                need("make", "make")?;
                need("cc", "gcc")?;
                scratch.path().join("project")
            }
            Spec::Kernel(k) => {
                need("make", "make")?;
                need("cc", "gcc")?;
                k.tree.clone()
            }
            Spec::Command { dir, .. } => match dir {
                Some(d) if d.is_dir() => d.clone(),
                Some(d) => {
                    return Err(input(format!(
                        "--job-dir {} is not a directory",
                        d.display()
                    )))
                }
                None => std::env::current_dir()?,
            },
        };
        if let Spec::Command {
            argv, prep, clean, ..
        } = &spec
        {
            for (flag, cmd) in [
                ("--job-cmd", Some(argv)),
                ("--job-prep", prep.as_ref()),
                ("--job-clean", clean.as_ref()),
            ] {
                if let Some(program) = cmd.and_then(|a| a.first()) {
                    runnable(flag, program, &dir)?;
                }
            }
        }
        Ok(Job {
            jobs: jobs.unwrap_or_else(|| crate::sys::cpus::online_here().len().max(1)),
            spec,
            dir,
            scratch,
        })
    }

    /// What the job is, for storage and tables (runs of different jobs
    /// are never compared).
    pub fn identity(&self) -> String {
        match &self.spec {
            Spec::Generated(s) => format!("generated-{} -j{}", s.name(), self.jobs),
            Spec::Kernel(k) => k.identity(),
            Spec::Command { argv, .. } => format!("cmd: {}", argv.join(" ")),
        }
    }

    /// Once, untimed.
    pub fn prepare(&mut self) -> Result<()> {
        match &self.spec {
            Spec::Generated(size) => {
                std::fs::create_dir_all(&self.dir)?;
                generated::write(&self.dir, *size)
            }
            Spec::Kernel(k) => k.prepare(self.scratch.path()),
            Spec::Command { prep: Some(p), .. } => {
                timed::run_step(p, &self.dir, self.scratch.path(), "prep")
            }
            Spec::Command { .. } => Ok(()),
        }
    }

    /// Before every timed run, untimed.
    pub fn clean(&self) -> Result<()> {
        match &self.spec {
            Spec::Generated(_) => timed::run_step(
                &argv(&["make", "clean"]),
                &self.dir,
                self.scratch.path(),
                "clean",
            ),
            Spec::Kernel(k) => k.clean(self.scratch.path()),
            Spec::Command { clean: Some(c), .. } => {
                timed::run_step(c, &self.dir, self.scratch.path(), "clean")
            }
            Spec::Command { .. } => Ok(()),
        }
    }

    /// Start the timed run.
    pub fn start(&self) -> Result<TimedChild> {
        let cmd = match &self.spec {
            Spec::Generated(_) => argv(&["make", &format!("-j{}", self.jobs), "kbench-project"]),
            Spec::Kernel(k) => k.build_argv(&kernel::Kernel::out_dir(self.scratch.path())),
            Spec::Command { argv, .. } => argv.clone(),
        };
        timed::start(&cmd, &self.dir, &self.scratch.path().join("job.err"))
    }
}

/// `&[&str]` → argv.
pub fn argv(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}
