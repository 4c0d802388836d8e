//! The kernel modules a guest must load, in the order it must load them.
//!
//! A Debian package ships `lib/modules/<release>/` without `modules.dep`
//! (`depmod` writes it when the package is installed), so kbench reads
//! each module's own dependency list: the `depends=` entry of its
//! `.modinfo` section, a NUL-separated list of `key=value` strings
//! (`include/linux/moduleparam.h`, `MODULE_INFO`; `scripts/mod/modpost.c`
//! writes `depends`).  Modules named in `modules.builtin` are part of the
//! image and are not loaded.  Names compare with `-` and `_` alike, as
//! the kernel's own module loader does.

use anyhow::{anyhow, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module tree, indexed by module name.
pub struct Tree {
    dir: PathBuf,
    files: BTreeMap<String, PathBuf>,
    builtin: BTreeSet<String>,
}

/// `9p-fs` and `9p_fs` are one module.
fn norm(name: &str) -> String {
    name.replace('-', "_")
}

/// The module name of a file (`kernel/fs/9p/9p.ko` → `9p`).
fn name_of(path: &Path) -> Option<String> {
    let f = path.file_name()?.to_str()?;
    let stem = f
        .strip_suffix(".ko")
        .or_else(|| f.strip_suffix(".ko.xz"))
        .or_else(|| f.strip_suffix(".ko.zst"))
        .or_else(|| f.strip_suffix(".ko.gz"))?;
    Some(norm(stem))
}

impl Tree {
    /// Index `dir` (`lib/modules/<release>`).
    pub fn open(dir: &Path) -> Result<Tree> {
        let mut files = BTreeMap::new();
        let mut stack = vec![dir.join("kernel")];
        let mut seen = 0usize;
        while let Some(d) = stack.pop() {
            let entries =
                std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))?;
            for e in entries.flatten() {
                seen += 1;
                if seen > 200_000 {
                    return Err(anyhow!(
                        "{} holds over 200,000 entries: not a module tree",
                        dir.display()
                    ));
                }
                let p = e.path();
                match e.file_type() {
                    Ok(t) if t.is_dir() => stack.push(p),
                    Ok(t) if t.is_file() => {
                        if let Some(n) = name_of(&p) {
                            files.entry(n).or_insert(p);
                        }
                    }
                    _ => {}
                }
            }
        }
        let builtin = std::fs::read_to_string(dir.join("modules.builtin"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| name_of(Path::new(l.trim())))
            .collect();
        Ok(Tree {
            dir: dir.to_path_buf(),
            files,
            builtin,
        })
    }

    /// The files to load for `wanted`, each after what it depends on;
    /// built-in modules are left out.  A module the tree lacks (and the
    /// image does not build in) is an error naming it.
    pub fn resolve(&self, wanted: &[&str]) -> Result<Vec<PathBuf>> {
        let mut order = Vec::new();
        let mut done = BTreeSet::new();
        for w in wanted {
            self.visit(&norm(w), &mut done, &mut order, 0)?;
        }
        Ok(order)
    }

    fn visit(
        &self,
        name: &str,
        done: &mut BTreeSet<String>,
        order: &mut Vec<PathBuf>,
        depth: usize,
    ) -> Result<()> {
        if done.contains(name) || self.builtin.contains(name) {
            return Ok(());
        }
        if depth > 64 {
            return Err(anyhow!("module dependencies nest deeper than 64 at {name}"));
        }
        let file = self.files.get(name).ok_or_else(|| {
            anyhow!(
                "the module {name} is neither in {} nor built into the image",
                self.dir.display()
            )
        })?;
        // Marked before its dependencies, so a circle ends.
        done.insert(name.to_string());
        for dep in depends(file)? {
            self.visit(&norm(&dep), done, order, depth + 1)?;
        }
        order.push(file.clone());
        Ok(())
    }
}

/// The `depends=` list of a module file's `.modinfo` section.
fn depends(file: &Path) -> Result<Vec<String>> {
    use object::{Object, ObjectSection};
    let data = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let obj = object::File::parse(&*data)
        .map_err(|e| anyhow!("{} is not an ELF module: {e}", file.display()))?;
    let Some(sec) = obj.section_by_name(".modinfo") else {
        return Ok(Vec::new());
    };
    let info = sec
        .data()
        .map_err(|e| anyhow!("{}: its .modinfo cannot be read: {e}", file.display()))?;
    Ok(modinfo_depends(info))
}

/// `depends=a,b` from NUL-separated `key=value` strings.
pub fn modinfo_depends(info: &[u8]) -> Vec<String> {
    info.split(|b| *b == 0)
        .filter_map(|kv| kv.strip_prefix(b"depends="))
        .flat_map(|list| {
            String::from_utf8_lossy(list)
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modinfo_lists_dependencies() {
        let info = b"license=GPL\0depends=netfs,9pnet,fscache\0intree=Y\0name=9p\0";
        assert_eq!(modinfo_depends(info), vec!["netfs", "9pnet", "fscache"]);
        assert!(modinfo_depends(b"depends=\0name=virtio\0").is_empty());
        assert!(modinfo_depends(b"").is_empty());
        assert_eq!(norm("virtio-pci"), "virtio_pci");
        assert_eq!(
            name_of(Path::new("kernel/fs/9p/9p.ko")).as_deref(),
            Some("9p")
        );
        assert_eq!(name_of(Path::new("a/b.txt")), None);
    }

    #[test]
    fn a_missing_module_is_named() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("kernel")).unwrap();
        std::fs::write(
            d.path().join("modules.builtin"),
            "kernel/drivers/virtio/virtio.ko\n",
        )
        .unwrap();
        let t = Tree::open(d.path()).unwrap();
        assert!(t.resolve(&["virtio"]).unwrap().is_empty());
        let e = t.resolve(&["9p"]).unwrap_err().to_string();
        assert!(e.contains("the module 9p is neither"), "{e}");
    }
}
