//! A real kernel build: configure and `make prepare` once (untimed),
//! `make clean` before every timed run (untimed, the config is kept), then
//! time `make -jN TARGET`.

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

    /// The config steps: a named config target, or a file copied in and
    /// completed with olddefconfig.
    pub fn config_argv(&self) -> Vec<Vec<String>> {
        match self.kconfig.as_str() {
            k @ ("defconfig" | "tinyconfig" | "allnoconfig") => vec![argv(&["make", k])],
            _ => vec![argv(&["make", "olddefconfig"])],
        }
    }

    pub fn build_argv(&self) -> Vec<String> {
        argv(&["make", &format!("-j{}", self.jobs), &self.target])
    }

    pub fn prepare(&self, scratch: &Path) -> Result<()> {
        if !matches!(
            self.kconfig.as_str(),
            "defconfig" | "tinyconfig" | "allnoconfig"
        ) {
            std::fs::copy(&self.kconfig, self.tree.join(".config"))?;
        }
        for step in self.config_argv() {
            timed::run_step(&step, &self.tree, scratch, "kernel config")?;
        }
        timed::run_step(
            &argv(&["make", &format!("-j{}", self.jobs), "prepare"]),
            &self.tree,
            scratch,
            "kernel prepare",
        )
    }

    pub fn clean(&self, scratch: &Path) -> Result<()> {
        timed::run_step(
            &argv(&["make", "clean"]),
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
        assert_eq!(k.config_argv(), vec![argv(&["make", "tinyconfig"])]);
        assert_eq!(k.build_argv(), argv(&["make", "-j4", "bzImage"]));
        let cfg = d.path().join("my.config");
        std::fs::write(&cfg, "CONFIG_X=y\n").unwrap();
        let k = Kernel::new(d.path(), cfg.to_str().unwrap(), "kernel/", 2).unwrap();
        assert_eq!(k.config_argv(), vec![argv(&["make", "olddefconfig"])]);
        assert!(Kernel::new(d.path(), "nosuchconfig", "vmlinux", 1).is_err());
        assert!(Kernel::new(Path::new("/"), "defconfig", "vmlinux", 1).is_err());
    }
}
