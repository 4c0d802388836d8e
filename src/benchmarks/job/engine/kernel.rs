//! A real kernel build: configure and `make prepare` once (untimed),
//! `make clean` before every timed run (untimed, the config is kept), then
//! time `make -jN TARGET`.
//!
//! Everything is built out of tree (`make O=<kbench's private dir>`): the
//! user's tree is only read, never configured, cleaned or written, so a
//! `.config` of theirs survives.  kbuild refuses `O=` for a tree that was
//! configured in place; the error then says how to get a clean one.

use super::{argv, timed};
use crate::error::input;
use anyhow::Result;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct Kernel {
    pub tree: PathBuf,
    /// defconfig, tinyconfig, allnoconfig, or a config file.
    pub kconfig: String,
    /// vmlinux, bzImage, or a directory target such as `kernel/`.
    pub target: String,
    pub jobs: usize,
}

impl Kernel {
    pub fn new(tree: &Path, kconfig: &str, target: &str, jobs: usize) -> Result<Kernel> {
        if !tree.join("Makefile").is_file() || !tree.join("Kconfig").is_file() {
            return Err(input(format!(
                "--kernel-tree {} does not look like a kernel source tree (no Makefile and Kconfig)",
                tree.display()
            )));
        }
        let named = matches!(kconfig, "defconfig" | "tinyconfig" | "allnoconfig");
        if !named && !Path::new(kconfig).is_file() {
            return Err(input(format!(
                "--kconfig {kconfig}: give defconfig, tinyconfig, allnoconfig or a config file"
            )));
        }
        Ok(Kernel {
            tree: tree.to_path_buf(),
            kconfig: kconfig.to_string(),
            target: target.to_string(),
            jobs: jobs.max(1),
        })
    }

    pub fn identity(&self) -> String {
        format!(
            "kernel {} {} {} -j{}",
            self.tree.display(),
            self.kconfig,
            self.target,
            self.jobs
        )
    }

    /// Where the build goes: inside kbench's private scratch dir.
    pub fn out_dir(scratch: &Path) -> PathBuf {
        scratch.join("kbuild")
    }

    fn make(out: &Path, args: &[&str]) -> Vec<String> {
        let o = format!("O={}", out.display());
        let mut v = argv(&["make", &o]);
        v.extend(args.iter().map(|a| a.to_string()));
        v
    }

    /// The config step: a named config target, or (with the file copied
    /// into the build dir) olddefconfig.
    pub fn config_argv(&self, out: &Path) -> Vec<String> {
        match self.kconfig.as_str() {
            k @ ("defconfig" | "tinyconfig" | "allnoconfig") => Self::make(out, &[k]),
            _ => Self::make(out, &["olddefconfig"]),
        }
    }

    pub fn build_argv(&self, out: &Path) -> Vec<String> {
        Self::make(out, &[&format!("-j{}", self.jobs), &self.target])
    }

    pub fn prepare(&self, scratch: &Path) -> Result<()> {
        let out = Self::out_dir(scratch);
        std::fs::create_dir_all(&out)?;
        if !matches!(
            self.kconfig.as_str(),
            "defconfig" | "tinyconfig" | "allnoconfig"
        ) {
            std::fs::copy(&self.kconfig, out.join(".config"))?;
        }
        let configured_in_place =
            self.tree.join(".config").exists() || self.tree.join("include/config").exists();
        timed::run_step(&self.config_argv(&out), &self.tree, scratch, "kernel config").map_err(
            |e| {
                if configured_in_place {
                    e.context(format!(
                        "{} was configured in place (it has a .config), and kbuild builds out of tree only from a clean tree; kbench never writes into yours: give it a clean one (e.g. `git worktree add`)",
                        self.tree.display()
                    ))
                } else {
                    e
                }
            },
        )?;
        timed::run_step(
            &Self::make(&out, &[&format!("-j{}", self.jobs), "prepare"]),
            &self.tree,
            scratch,
            "kernel prepare",
        )
    }

    pub fn clean(&self, scratch: &Path) -> Result<()> {
        timed::run_step(
            &Self::make(&Self::out_dir(scratch), &["clean"]),
            &self.tree,
            scratch,
            "kernel clean",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_for_a_tree() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("Makefile"), "").unwrap();
        std::fs::write(d.path().join("Kconfig"), "").unwrap();
        let k = Kernel::new(d.path(), "tinyconfig", "bzImage", 4).unwrap();
        let out = Path::new("/s/kbuild");
        assert_eq!(
            k.config_argv(out),
            argv(&["make", "O=/s/kbuild", "tinyconfig"])
        );
        assert_eq!(
            k.build_argv(out),
            argv(&["make", "O=/s/kbuild", "-j4", "bzImage"])
        );
        let cfg = d.path().join("my.config");
        std::fs::write(&cfg, "CONFIG_X=y\n").unwrap();
        let k = Kernel::new(d.path(), cfg.to_str().unwrap(), "kernel/", 2).unwrap();
        assert_eq!(
            k.config_argv(out),
            argv(&["make", "O=/s/kbuild", "olddefconfig"])
        );
        assert!(Kernel::new(d.path(), "nosuchconfig", "vmlinux", 1).is_err());
        assert!(Kernel::new(Path::new("/"), "defconfig", "vmlinux", 1).is_err());
    }
}
