//! The GRUB path: a campaign whose reboots go through GRUB's one-shot
//! entry (`--reboot grub`: `grub-reboot`, `recordfail` cleared,
//! `systemctl --no-block reboot`), the machine really reset and GRUB
//! choosing the next kernel from its environment block.
//!
//! The guest's disk is a bare ext4 filesystem with no boot sector, so the
//! host hands QEMU a GRUB to boot as it would a kernel: GRUB's i386-pc
//! core behind its Linux-loader header (`lnxboot.img`), from Debian's
//! `grub-pc-bin` (its modules only; nothing is installed anywhere).  That
//! GRUB reads the guest's own menu and environment block from the disk
//! and writes the one-shot entry back as used, as on a real machine.

use super::common::guest::guest;
use super::{limit, lock, tail, two_blocks_on_their_kernels, Disk, Ended, Machine};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The GRUB QEMU boots, made in `dir`; `None` (said) without
/// `grub-pc-bin`, which CI installs.
fn grub_image(dir: &Path) -> Option<PathBuf> {
    let lib = Path::new("/usr/lib/grub/i386-pc");
    if !lib.join("lnxboot.img").exists() || !super::common::which("grub-mkimage") {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have grub-pc-bin (GRUB's i386-pc modules)"
        );
        eprintln!("skipped: no grub-pc-bin here (apt-get install grub-pc-bin)");
        return None;
    }
    let core = dir.join("core.img");
    let out = Command::new("grub-mkimage")
        .args(["-O", "i386-pc", "-p", "(hd0)/boot/grub", "-o"])
        .arg(&core)
        .args([
            "biosdisk",
            "ext2",
            "normal",
            "linux",
            "configfile",
            "loadenv",
            "echo",
            "test",
            "serial",
            "terminal",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "grub-mkimage: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut image = std::fs::read(lib.join("lnxboot.img")).unwrap();
    image.extend(std::fs::read(&core).unwrap());
    let grub = dir.join("grub.bin");
    std::fs::write(&grub, image).unwrap();
    Some(grub)
}

/// One round of two kernels through GRUB: each block on its own boot of
/// its own kernel, GRUB took the one-shot entry, no pause; at the end the
/// one-shot entry is used up, the saved default untouched and
/// `recordfail` unset.
#[test]
fn a_grub_campaign_boots_each_kernel_through_its_one_shot_entry() {
    let _one = lock();
    let Some(g) = guest() else { return };
    let script = format!(
        r#"set -u
K=/usr/local/bin/kbench
$K campaign init g --rounds 1 --reboot grub \
  --boot 'std=release={std},entry=std' \
  --boot 'rt=release={rt},entry=rt' \
  -- cyclictest -t 1 -D 1s || exit 1
$K campaign install-service g || exit 1
$K campaign step g
"#,
        std = g.std,
        rt = g.rt,
    );
    let disk = Disk::new(g, &script);
    let Some(grub) = grub_image(disk.dir.path()) else {
        return;
    };
    // No -no-reboot: a reboot resets the machine, and GRUB runs again.
    let boot = ["-kernel".into(), grub.into_os_string()];
    let Ended {
        done,
        took,
        console,
        ..
    } = Machine::start(&disk, &boot).end("campaign g complete", limit(2));
    let tail = tail(&console, 60);
    assert!(done, "the campaign did not complete; console:\n{tail}");
    eprintln!(
        "GRUB campaign of 2 blocks: {:.0} s under TCG",
        took.as_secs_f64()
    );
    // GRUB chose rt once, from the one-shot entry; std was the default.
    assert!(console.contains("grub: booting std"), "{tail}");
    assert!(console.contains("grub: booting rt"), "{tail}");
    assert!(!console.contains("paused"), "a pause on the way:\n{tail}");
    let env = String::from_utf8(disk.read("/boot/grub/grubenv").expect("grubenv")).unwrap();
    let set: Vec<&str> = env
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains('='))
        .collect();
    assert!(
        set.iter()
            .all(|l| l.starts_with("next_entry=") && l.trim_end() == "next_entry="),
        "the environment block keeps more than a used one-shot entry: {set:?}"
    );
    two_blocks_on_their_kernels(g, &disk, "g");
}
