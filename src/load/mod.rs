//! Background loads: contest's catalogue as real processes the kernel
//! schedules.
//!
//! A load prepares what it needs (files, archives; untimed), then runs as
//! worker processes forked into a group of their own that keep going until
//! stopped.  Each worker adds the work it finishes (ring laps, MiB written,
//! entries listed, …) to its own counter in shared memory, so the parent
//! can read progress at any moment without disturbing the load.  The
//! runner ([`Running`]) places the workers (CPUs, nice, policy), watches
//! them, reads their CPU time for contest's LCPU%, stops them and removes
//! their files, also when kbench itself is killed.

mod claims;
mod cpu;
mod dbench;
mod io;
mod list;
mod mem;
mod process;
mod read;
mod runner;
pub mod size;
mod tar;
pub mod walk;

pub use dbench::which;
pub use runner::{Report, Running};
pub(crate) use tar::tree_bytes;

use crate::sys::sched::Policy;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

/// A load kbench knows, declared once: everything that lists loads (the
/// `load` command's help and its name check, contest's table order and
/// its default set, the tests) reads this table.
pub struct Kind {
    pub name: &'static str,
    /// One line for help: what the load does.
    pub help: &'static str,
    /// Whether `contest` runs it when no `--loads` is given (contest's own
    /// catalogue); the others run in contest only when named, and still
    /// get their block in its table.
    pub contest_default: bool,
    build: fn(&LoadOptions, usize) -> Result<Box<dyn Load>>,
}

/// Every load, in contest's table order (contest's result mails), and
/// `cpu`, which contest did not have, last.
pub const KINDS: &[Kind] = &[
    Kind {
        name: "process",
        help: "a ring of processes joined by pipes passing chunks of data around (4 a CPU)",
        contest_default: true,
        build: |_, ncpu| Ok(Box::new(process::Ring::new(4 * ncpu))),
    },
    Kind {
        name: "ctar",
        help: "tar creating an archive of a source tree, again and again",
        contest_default: true,
        build: |o, _| Ok(Box::new(tar::Tar::new(tar::Mode::Create, tree_for_tar(o)?))),
    },
    Kind {
        name: "xtar",
        help: "tar extracting an archive of a source tree, again and again",
        contest_default: true,
        build: |o, _| {
            Ok(Box::new(tar::Tar::new(
                tar::Mode::Extract,
                tree_for_tar(o)?,
            )))
        },
    },
    Kind {
        name: "io",
        help: "streaming zeros into a file the size of RAM (as the disk allows), again and again",
        contest_default: true,
        build: |o, _| Ok(Box::new(io::Io::new("io", &o.base_dir(), o)?)),
    },
    Kind {
        name: "io_other",
        help: "the io load on a second location (--io-other-dir, another disk)",
        contest_default: true,
        build: |o, _| {
            let dir = o
                .io_other_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from("/var/tmp"));
            Ok(Box::new(io::Io::new("io_other", &dir, o)?))
        },
    },
    Kind {
        name: "read",
        help: "reading a file from the disk (its pages dropped after every pass), again and again",
        contest_default: true,
        build: |o, _| Ok(Box::new(read::Read::new(o)?)),
    },
    Kind {
        name: "list",
        help: "ls -lRa of a tree, an lstat of every entry, again and again",
        contest_default: true,
        build: |o, _| {
            Ok(Box::new(list::List::new(
                o.tree.clone().unwrap_or_else(|| PathBuf::from("/")),
            )))
        },
    },
    Kind {
        name: "mem",
        help:
            "touching a large region of memory in a cache-defeating pattern, sized from free memory",
        contest_default: true,
        build: |o, _| Ok(Box::new(mem::Mem::new(o)?)),
    },
    Kind {
        name: "dbench",
        help: "dbench clients on a file server's workload (needs dbench; 16 a CPU)",
        contest_default: true,
        build: |o, ncpu| Ok(Box::new(dbench::Dbench::new(o.procs.unwrap_or(16 * ncpu))?)),
    },
    Kind {
        name: "cpu",
        help: "CPU hogs, one a CPU (--procs); in contest only when named",
        contest_default: false,
        build: |o, ncpu| {
            let n = o.procs.unwrap_or(ncpu);
            let limit = max_hogs(ncpu);
            if n > limit {
                return Err(crate::error::input(format!(
                    "cpu load: --procs {n} is more than {limit}, 16 a CPU on {ncpu} CPUs (64 at least)"
                )));
            }
            Ok(Box::new(cpu::Cpu::new(n)))
        },
    },
];

/// Every load's name, in [`KINDS`]' order.
pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name).collect()
}

/// The load called `name`.
pub fn find(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

/// The loads for help: `name: what it does`, one a line.
pub fn help() -> String {
    let lines: Vec<String> = KINDS
        .iter()
        .map(|k| format!("  {:<9} {}", k.name, k.help))
        .collect();
    format!("Loads:\n{}", lines.join("\n"))
}

/// One kind of background load.
pub trait Load: Send {
    fn name(&self) -> &'static str;
    /// Unit of the work counter as reported (contest's "Loads").
    fn unit(&self) -> &'static str;
    /// The counter's raw value is multiplied by this to give `unit`s.
    fn scale(&self) -> f64 {
        1.0
    }
    /// Sizes chosen and why, for the user.
    fn describe(&self) -> String;
    /// Where its files go when not the common `--dir` (io_other).
    fn location(&self) -> Option<PathBuf> {
        None
    }
    /// Check prerequisites and create what the workers need in `dir`
    /// (untimed).  Fails with a clear message when the load cannot run.
    /// Long set-up reports `progress(done, total)` (in bytes or steps).
    fn prepare(&mut self, dir: &Path, progress: &mut dyn FnMut(u64, u64)) -> Result<()>;
    /// The most disk space its files take at any moment, in bytes, for a
    /// load that writes files (claimed before it starts; see `claims`).
    fn disk_claim(&self) -> Option<u64> {
        None
    }
    /// How many worker processes.
    fn workers(&self) -> usize;
    /// Worker `i`'s body, in the forked child: run until killed, adding
    /// finished work to `work`.  Returns an exit status only on failure.
    fn run_worker(&self, i: usize, dir: &Path, work: &AtomicU64) -> i32;
}

/// What the user asked of a load.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Bytes, for loads with a size (mem, io, io_other, read).
    pub size: Option<u64>,
    /// Where files go (a private directory is made inside).
    pub dir: Option<PathBuf>,
    /// Second location for `io_other`.
    pub io_other_dir: Option<PathBuf>,
    /// Tree for `list`, `ctar` and `xtar`.
    pub tree: Option<PathBuf>,
    /// Worker count for `cpu` and dbench clients.
    pub procs: Option<usize>,
    pub cpus: Option<Vec<usize>>,
    pub nice: Option<i32>,
    pub policy: Option<(Policy, i32)>,
}

impl LoadOptions {
    /// The directory files go in: `--dir`, else the system temp dir when
    /// it is on a disk, else `/var/tmp` (where `/tmp` is tmpfs, as on
    /// Fedora, Arch and Debian 13, a file there would be RAM).
    pub fn base_dir(&self) -> PathBuf {
        if let Some(d) = &self.dir {
            return d.clone();
        }
        let tmp = std::env::temp_dir();
        let var_tmp = PathBuf::from("/var/tmp");
        if crate::sys::fd::is_memory_fs(&tmp)
            && var_tmp.is_dir()
            && !crate::sys::fd::is_memory_fs(&var_tmp)
        {
            return var_tmp;
        }
        tmp
    }
}

/// A process ring of `n` processes (interbench's Ring, `-L` of them).
pub fn ring(n: usize) -> Box<dyn Load> {
    Box::new(process::Ring::new(n))
}

/// Most CPU-hog processes one run may start on `ncpu` CPUs: 16 a CPU, 64 at
/// least.  Hogs past a few a CPU only divide the same time, and each fork
/// waits behind those already spinning: 1024 on 2 CPUs did not answer
/// Ctrl-C for 7 s (the cpu load; the responsiveness probe's prime workers
/// alike).
pub fn max_hogs(ncpu: usize) -> usize {
    (16 * ncpu).max(64)
}

/// Build the load called `name`.
pub fn build(name: &str, o: &LoadOptions) -> Result<Box<dyn Load>> {
    let ncpu = crate::sys::cpus::online_here().len().max(1);
    match find(name) {
        Some(k) => (k.build)(o, ncpu),
        None => Err(crate::error::input(format!(
            "unknown load '{name}' (known: {})",
            names().join(", ")
        ))),
    }
}

/// The source tree ctar/xtar archive: `--tree`, else `/usr/include` (a
/// tree of many small source files that Debian's compilers install).
fn tree_for_tar(o: &LoadOptions) -> Result<PathBuf> {
    let tree = o
        .tree
        .clone()
        .unwrap_or_else(|| PathBuf::from("/usr/include"));
    if !tree.is_dir() {
        return Err(crate::error::input(format!(
            "ctar/xtar need a source tree to archive: {} is not a directory (give --tree DIR, e.g. a kernel tree)",
            tree.display()
        )));
    }
    Ok(tree)
}
