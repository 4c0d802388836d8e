//! coldwalk: a recursive directory walk, timed, after dropping the page,
//! dentry and inode caches: the seed's `sync; echo 3 > drop_caches;
//! time ls -R /usr`.
//!
//! Like `ls -R`, every directory is read and entry types come from the
//! directory itself (`d_type`), with an `lstat` only where the filesystem
//! does not give a type; `--stat` also `lstat`s every entry, as `ls -lR`
//! does.  Symlinks are never followed; `-x` stays on the starting
//! filesystem.  Errors inside the tree are counted, not fatal.

use crate::bench::{Better, Measurement};
pub use crate::load::walk::{check_root, walk, Options, Outcome};

impl Outcome {
    pub fn measurement(&self) -> Measurement {
        let mut m = Measurement::default();
        m.push("wall", "s", self.wall_s, Better::Lower);
        m.push(
            "entries_per_s",
            "entries/s",
            self.entries_per_s(),
            Better::Higher,
        );
        m.push("entries", "count", self.entries as f64, Better::Neither);
        m.push("dirs", "count", self.dirs as f64, Better::Neither);
        m.push("errors", "count", self.errors as f64, Better::Neither);
        if !self.caches_dropped {
            m.notes
                .push("caches were not dropped: this was a warm walk".into());
        }
        m
    }
}
