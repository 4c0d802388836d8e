//! Before the first boot: which kernels under which labels (the arms),
//! in what order they boot, where the vCPUs go, and whether the machine
//! has the memory and disk for it; all of it checked and said before
//! anything starts, and all of it printed by `--dry-run`.
//!
//! The order interleaves the arms in mirrored blocks: a seeded random
//! permutation, then the same reversed (A B, B A: for two arms, the
//! A B B A order that cancels a linear drift; for k arms, each arm's
//! mean position is the same in every pair of blocks), repeated for
//! `--boots` rounds.  Each boot is a block of its own: the boot is the
//! unit every comparison of the runs takes.

use super::image::Image;
use crate::error::{input, resource};
use anyhow::Result;
use std::path::PathBuf;

/// One kernel as given: `IMAGE[=LABEL][;ARGS]`.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSpec {
    pub path: PathBuf,
    pub label: Option<String>,
    /// More command line for this kernel's boots alone.
    pub append: Option<String>,
}

/// Parse `IMAGE[=LABEL][;ARGS]`: ARGS (after the first `;`) is this
/// kernel's own command line; the last `=` before it splits the label
/// off, so a path may hold one.
pub fn parse_kernel(s: &str) -> Result<KernelSpec, String> {
    let (head, append) = match s.split_once(';') {
        Some((h, a)) => (h, Some(a.trim().to_string()).filter(|a| !a.is_empty())),
        None => (s, None),
    };
    let (path, label) = match head.rsplit_once('=') {
        Some((p, l)) => (p, Some(l.trim().to_string())),
        None => (head, None),
    };
    if path.trim().is_empty() {
        return Err(format!(
            "'{s}' names no kernel image (IMAGE, IMAGE=LABEL or IMAGE=LABEL;ARGS)"
        ));
    }
    if let Some(l) = &label {
        if l.is_empty() || l.chars().any(char::is_control) || l.len() > 200 {
            return Err(format!(
                "'{s}': a label is 1 to 200 printable characters after the ="
            ));
        }
    }
    if append
        .as_deref()
        .is_some_and(|a| a.chars().any(char::is_control) || a.len() > 2000)
    {
        return Err(format!(
            "'{s}': the command line after ; is at most 2000 printable characters"
        ));
    }
    Ok(KernelSpec {
        path: PathBuf::from(path),
        label,
        append,
    })
}

/// What is booted under one label.
#[derive(Clone, Debug)]
pub struct Arm {
    pub label: String,
    /// Index into the kernels.
    pub kernel: usize,
    /// The A/A arm: the first kernel again, under a label of its own.
    pub calibration: bool,
}

pub use crate::experiment::plan::aa_label;

/// The arms: a label per kernel (given, or `<release>/<preempt mode>`
/// as the guest will see it), and with `aa` the first kernel's twin
/// second, so the first two boots already calibrate.
pub fn arms(
    images: &[Image],
    specs: &[KernelSpec],
    cmdlines: &[String],
    aa: bool,
) -> Result<Vec<Arm>> {
    let mut arms: Vec<Arm> = Vec::new();
    for (i, (img, spec)) in images.iter().zip(specs).enumerate() {
        let label = match (&spec.label, img.default_label(&cmdlines[i])) {
            (Some(l), _) => l.clone(),
            (None, Some(l)) => l,
            (None, None) => {
                return Err(input(format!(
                    "--kernel {}: its release cannot be read from the file, so it has no default label: name it, --kernel {}=LABEL",
                    spec.path.display(),
                    spec.path.display()
                )))
            }
        };
        if let Some(other) = arms.iter().find(|a| a.label == label) {
            return Err(input(format!(
                "--kernel {} and --kernel {} would both be labelled '{label}': name them apart with IMAGE=LABEL",
                specs[other.kernel].path.display(),
                spec.path.display()
            )));
        }
        arms.push(Arm {
            label,
            kernel: i,
            calibration: false,
        });
    }
    if aa {
        let first = &arms[0];
        let twin = Arm {
            label: aa_label(&first.label),
            kernel: first.kernel,
            calibration: true,
        };
        if arms.iter().any(|a| a.label == twin.label) {
            return Err(input(format!(
                "--aa needs the label '{}' for itself",
                twin.label
            )));
        }
        arms.insert(1, twin);
    }
    Ok(arms)
}

/// `boots` rounds over `n` arms: mirrored pairs of seeded permutations.
pub fn order(n: usize, boots: usize, seed: u64) -> Vec<Vec<usize>> {
    crate::experiment::order::mirrored(n, boots, seed)
}

/// vCPU placement: with more host CPUs than vCPUs, each vCPU on a CPU of
/// its own and QEMU's other threads on what is left (the first CPUs);
/// else none, and why.
pub fn placement(
    online: &[usize],
    cpus: usize,
    rt_priority: Option<i32>,
) -> super::boot::Placement {
    if online.len() <= cpus {
        return super::boot::Placement {
            not_pinned: Some(format!(
                "the host has {} CPU(s) and the guest {cpus}: none would be left apart for QEMU's own threads (--cpus {} leaves one)",
                online.len(),
                online.len().saturating_sub(1).max(1)
            )),
            rt_priority,
            ..Default::default()
        };
    }
    let split = online.len() - cpus;
    super::boot::Placement {
        vcpu_cpus: online[split..].to_vec(),
        house_cpus: online[..split].to_vec(),
        rt_priority,
        not_pinned: None,
    }
}

/// Hugepages for guest memory: a mounted hugetlbfs with enough free
/// 2 MiB pages, or why not (kbench never reserves them itself).
pub fn hugepages(memory_mib: u64) -> Result<PathBuf, String> {
    let at = crate::sys::procfs::mounts::read()
        .into_iter()
        .find(|m| m.fstype == "hugetlbfs")
        .map(|m| PathBuf::from(m.target));
    let free: u64 =
        std::fs::read_to_string("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
    let need = memory_mib.div_ceil(2);
    match at {
        Some(p) if free >= need => Ok(p),
        Some(_) => Err(format!(
            "{free} free 2 MiB hugepages, {need} needed (echo {need} > /proc/sys/vm/nr_hugepages as root)"
        )),
        None => Err("no hugetlbfs is mounted".into()),
    }
}

/// Refuse a session the machine cannot hold: guest memory (with room to
/// spare) and the scratch space for one initramfs per arm.
pub fn check_room(
    memory_mib: u64,
    initramfs_bytes: u64,
    arms: usize,
    scratch: &std::path::Path,
) -> Result<()> {
    let m = crate::load::size::Memory::read();
    let need = (memory_mib << 20) + initramfs_bytes;
    if m.available > 0 && need > m.usable() {
        return Err(resource(format!(
            "a guest of --memory {memory_mib}M needs {} and {} is free to take (after keeping {} for the host): give less --memory",
            crate::sys::size::human(need),
            crate::sys::size::human(m.usable()),
            crate::sys::size::human(m.margin())
        )));
    }
    if let Ok((free, _)) = crate::sys::fd::statvfs(scratch) {
        let disk = initramfs_bytes.saturating_mul(arms as u64) + (64 << 20);
        if disk > free {
            return Err(resource(format!(
                "the guests' initramfs need {} in {} and {} is free: set TMPDIR to a roomier place",
                crate::sys::size::human(disk),
                scratch.display(),
                crate::sys::size::human(free)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_parse_with_and_without_a_label() {
        assert_eq!(
            parse_kernel("/boot/vmlinuz-6.1=stock").unwrap(),
            KernelSpec {
                path: "/boot/vmlinuz-6.1".into(),
                label: Some("stock".into()),
                append: None
            }
        );
        assert_eq!(parse_kernel("bzImage").unwrap().label, None);
        let k = parse_kernel("/b/vmlinuz=full;preempt=full threadirqs").unwrap();
        assert_eq!(k.label.as_deref(), Some("full"));
        assert_eq!(k.append.as_deref(), Some("preempt=full threadirqs"));
        assert_eq!(parse_kernel("/b/vmlinuz;quiet").unwrap().label, None);
        assert!(parse_kernel("=x").is_err());
        assert!(parse_kernel("img=").is_err());
        assert!(parse_kernel("img=a\u{1b}b").is_err());
        assert!(parse_kernel("").is_err());
    }

    #[test]
    fn the_order_is_balanced_seeded_and_mirrored() {
        let o = order(2, 4, 7);
        assert_eq!(o.len(), 4);
        assert_eq!(o[1], o[0].iter().rev().copied().collect::<Vec<_>>());
        // Every arm once a round, and as often first as last over pairs.
        for b in &o {
            let mut s = b.clone();
            s.sort();
            assert_eq!(s, vec![0, 1]);
        }
        assert_eq!(o, order(2, 4, 7));
        let three = order(3, 6, 11);
        for pair in three.chunks(2) {
            for arm in 0..3 {
                let pos: usize = pair
                    .iter()
                    .map(|b| b.iter().position(|&a| a == arm).unwrap())
                    .sum();
                assert_eq!(pos, 2, "arm {arm} in {pair:?}");
            }
        }
        // Different seeds, different orders somewhere.
        assert!((0..20).any(|s| order(3, 2, s) != order(3, 2, s + 100)));
    }

    #[test]
    fn vcpus_get_cpus_of_their_own_when_there_are_enough() {
        let p = placement(&[0, 1, 2, 3], 2, None);
        assert_eq!((p.vcpu_cpus, p.house_cpus), (vec![2, 3], vec![0, 1]));
        let p = placement(&[0, 1], 2, Some(10));
        assert!(p.not_pinned.unwrap().contains("--cpus 1 leaves one"));
        assert_eq!(p.rt_priority, Some(10));
    }
}
