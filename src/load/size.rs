//! How big a load may be: contest's sizes (RAM-sized files, 110 % of RAM
//! for mem) only where the machine can take them, so a load never meets
//! the OOM killer or fills a disk.

use crate::error::resource;
use crate::sys::size::human;
use anyhow::Result;
use std::path::Path;

/// The memory figures that decide the mem load's size, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    pub total: u64,
    pub available: u64,
    pub swap_free: u64,
}

impl Memory {
    /// From `/proc/meminfo`.
    pub fn read() -> Memory {
        let m = crate::sys::procfs::meminfo::Meminfo::read();
        Memory {
            total: m.total,
            available: m.available,
            swap_free: m.swap_free,
        }
    }

    /// Kept free for everything else: the larger of 512 MiB and 10 % of RAM.
    pub fn margin(&self) -> u64 {
        (512u64 << 20).max(self.total / 10)
    }

    /// The most a load may take now.
    pub fn usable(&self) -> u64 {
        (self.available + self.swap_free).saturating_sub(self.margin())
    }
}

/// Smallest size worth running.
pub const MIN_SIZE: u64 = 16 << 20;

/// The mem load's size: `requested`, else 110 % of RAM, but never more
/// than [`Memory::usable`].  Returns the size and why.
pub fn mem_size(m: &Memory, requested: Option<u64>) -> Result<(u64, String)> {
    let usable = m.usable();
    if usable < MIN_SIZE {
        return Err(resource(format!(
            "mem load cannot run: only {} available (MemAvailable + free swap) after keeping {} free",
            human(m.available + m.swap_free),
            human(m.margin())
        )));
    }
    match requested {
        Some(r) if r > usable => Err(resource(format!(
            "mem load of {} does not fit: at most {} can be used without risking the OOM killer",
            human(r),
            human(usable)
        ))),
        Some(r) => Ok((r, format!("{} as asked", human(r)))),
        None => {
            let want = m.total / 10 * 11;
            if want <= usable {
                Ok((want, format!("{}: 110 % of RAM, as contest", human(want))))
            } else {
                Ok((
                    usable,
                    format!(
                        "{}: 110 % of RAM ({}) would not fit; this is MemAvailable + free swap less {} kept free",
                        human(usable),
                        human(want),
                        human(m.margin())
                    ),
                ))
            }
        }
    }
}

/// Free space for a file load: `free` bytes available on the filesystem of
/// `size` total.  Keeps the larger of 1 GiB and 5 % of the filesystem.
pub fn file_size(
    ram: u64,
    free: u64,
    fs_size: u64,
    requested: Option<u64>,
    what: &str,
) -> Result<(u64, String)> {
    let margin = super::claims::margin(fs_size);
    let usable = free.saturating_sub(margin);
    if usable < MIN_SIZE {
        return Err(resource(format!(
            "{what} load cannot run: {} free on its filesystem, and {} must stay free",
            human(free),
            human(margin)
        )));
    }
    match requested {
        Some(r) if r > usable => Err(resource(format!(
            "{what} file of {} does not fit: {} free, {} must stay free",
            human(r),
            human(free),
            human(margin)
        ))),
        Some(r) => Ok((r, format!("{} as asked", human(r)))),
        None if ram <= usable => Ok((ram, format!("{}: the size of RAM, as contest", human(ram)))),
        None => Ok((
            usable,
            format!(
                "{}: RAM would not fit on the disk; free space less {}",
                human(usable),
                human(margin)
            ),
        )),
    }
}

/// [`file_size`] for a load's file in `dir`: from the space free there
/// after what other running loads have claimed (a memory filesystem is
/// refused; see [`super::claims`]), saying so when claims made it too small.
pub fn file_size_in(
    dir: &Path,
    ram: u64,
    requested: Option<u64>,
    what: &str,
) -> Result<(u64, String)> {
    let s = super::claims::space(dir, what)?;
    file_size(ram, s.free, s.size, requested, what).map_err(|e| {
        if s.claimed > 0 {
            resource(format!(
                "{e} ({} there is claimed by other running loads)",
                human(s.claimed)
            ))
        } else {
            e
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    const G: u64 = 1 << 30;

    #[test]
    fn mem_defaults_to_110_percent_when_it_fits() {
        let m = Memory {
            total: 8 * G,
            available: 7 * G,
            swap_free: 4 * G,
        };
        let (s, why) = mem_size(&m, None).unwrap();
        assert_eq!(s, 8 * G / 10 * 11);
        assert!(why.contains("110 %"));
    }

    #[test]
    fn mem_is_clamped_without_swap() {
        let m = Memory {
            total: 24 * G,
            available: 23 * G,
            swap_free: 0,
        };
        let (s, why) = mem_size(&m, None).unwrap();
        assert_eq!(s, 23 * G - (24 * G / 10));
        assert!(why.contains("would not fit"), "{why}");
    }

    #[test]
    fn mem_refuses_what_cannot_fit() {
        let m = Memory {
            total: 4 * G,
            available: 520 << 20,
            swap_free: 0,
        };
        assert!(
            mem_size(&m, None).is_err(),
            "520 MiB less a 512 MiB margin is below the minimum"
        );
        let m = Memory {
            total: 4 * G,
            available: 600 << 20,
            swap_free: 0,
        };
        assert_eq!(
            mem_size(&m, None).unwrap().0,
            88 << 20,
            "600 MiB less the margin"
        );
        let m = Memory {
            total: 4 * G,
            available: 3 * G,
            swap_free: 0,
        };
        let err = mem_size(&m, Some(3 * G)).unwrap_err().to_string();
        assert!(err.contains("does not fit"), "{err}");
        assert_eq!(mem_size(&m, Some(64 << 20)).unwrap().0, 64 << 20);
    }

    #[test]
    fn files_keep_a_disk_margin() {
        let (s, _) = file_size(8 * G, 100 * G, 250 * G, None, "io").unwrap();
        assert_eq!(s, 8 * G);
        let (s, why) = file_size(24 * G, 10 * G, 100 * G, None, "io").unwrap();
        assert_eq!(s, 10 * G - 5 * G);
        assert!(why.contains("would not fit"));
        assert!(file_size(8 * G, G, 10 * G, None, "io").is_err());
        assert!(
            file_size(8 * G, 10 * G, 20 * G, Some(9 * G + 1), "io").is_err(),
            "1 GiB must stay free"
        );
        assert!(file_size(8 * G, 10 * G, 20 * G, Some(9 * G), "io").is_ok());
    }
}
