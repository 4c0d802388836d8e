//! The systemd-boot path: a campaign whose reboots go through a one-shot
//! entry (`--reboot systemd-boot`: `bootctl set-oneshot ENTRY`, then
//! `systemctl --no-block reboot`), on a UEFI machine (QEMU with Debian's
//! OVMF, its variables kept in a file of the test's, so the one-shot entry
//! survives the reset), systemd-boot choosing the next kernel from the
//! EFI variable and deleting it as it boots.
//!
//! The ESP is a FAT disk of its own (made with `mkfs.fat` and `mcopy`, no
//! loop device or mount): systemd-boot as the removable-media loader, the
//! guest's two kernels with their initrds, an entry for each and the
//! standard one as the default.  The guest's root stays the bare ext4 disk
//! the other tests boot.  systemd-boot and `bootctl` come from Debian's
//! packages of the guest's own systemd version (`apt-get download`,
//! unpacked, never installed), cached beside the guest.

use super::common::guest::{debugfs, guest, Guest};
use super::{limit, lock, tail, two_blocks_on_their_kernels, Disk, Ended, Machine};
use std::path::{Path, PathBuf};
use std::process::Command;

const OVMF_CODE: &str = "/usr/share/OVMF/OVMF_CODE_4M.fd";
const OVMF_VARS: &str = "/usr/share/OVMF/OVMF_VARS_4M.fd";

/// Something this machine lacks, said; CI must have it all.
fn lacking(why: &str) -> Option<PathBuf> {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must run the systemd-boot campaign: {why}"
    );
    eprintln!("skipped: {why}");
    None
}

/// The guest's systemd version, from its dpkg status.
fn systemd_version(g: &Guest) -> Option<String> {
    let status = std::fs::read_to_string(g.root.join("var/lib/dpkg/status")).ok()?;
    status
        .split("\n\n")
        .find(|p| p.starts_with("Package: systemd\n"))?
        .lines()
        .find_map(|l| l.strip_prefix("Version: "))
        .map(str::to_string)
}

/// systemd-boot and bootctl of the guest's systemd version, unpacked once
/// into a folder beside the guest's: that folder.
fn loader(g: &Guest) -> Option<PathBuf> {
    let Some(version) = systemd_version(g) else {
        return lacking("the guest's systemd version is not in its dpkg status");
    };
    let dir = g
        .root
        .parent()
        .unwrap()
        .join(format!("systemd-boot-{version}"));
    let efi = dir.join("usr/lib/systemd/boot/efi/systemd-bootx64.efi");
    if efi.is_file() && dir.join("usr/bin/bootctl").is_file() {
        return Some(dir);
    }
    let debs = tempfile::tempdir().unwrap();
    let got = Command::new("apt-get")
        .args(["download", "-q"])
        .arg(format!("systemd-boot={version}"))
        .arg(format!("systemd-boot-efi={version}"))
        .current_dir(debs.path())
        .output()
        .unwrap();
    if !got.status.success() {
        return lacking(&format!(
            "apt-get download systemd-boot={version}: {}",
            String::from_utf8_lossy(&got.stderr).trim()
        ));
    }
    let part = dir.with_extension("part");
    let _ = std::fs::remove_dir_all(&part);
    for deb in std::fs::read_dir(debs.path()).unwrap().flatten() {
        let x = Command::new("dpkg")
            .arg("-x")
            .arg(deb.path())
            .arg(&part)
            .status()
            .unwrap();
        assert!(x.success(), "dpkg -x {}", deb.path().display());
    }
    std::fs::rename(&part, &dir).unwrap();
    Some(dir)
}

/// The ESP, a FAT disk in `dir`: systemd-boot as `\EFI\BOOT\BOOTX64.EFI`,
/// both kernels, an entry each (`std.conf`, `rt.conf`), `std.conf` the
/// default and no menu timeout.
fn esp(g: &Guest, loader: &Path, dir: &Path) -> Option<PathBuf> {
    for tool in ["mkfs.fat", "mcopy", "mmd"] {
        if !super::common::which(tool) {
            return lacking(&format!("no {tool} (apt-get install dosfstools mtools)"));
        }
    }
    let image = dir.join("esp.img");
    let mk = Command::new("mkfs.fat")
        .args(["-F", "32", "-n", "ESP", "-C"])
        .arg(&image)
        .arg("262144")
        .output()
        .unwrap();
    assert!(mk.status.success(), "mkfs.fat: {mk:?}");
    let files = dir.join("esp");
    let put = |rel: &str, body: &[u8]| {
        let p = files.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    put(
        "EFI/BOOT/BOOTX64.EFI",
        &std::fs::read(loader.join("usr/lib/systemd/boot/efi/systemd-bootx64.efi")).unwrap(),
    );
    put("loader/loader.conf", b"default std.conf\ntimeout 0\n");
    for (label, release) in [("std", &g.std), ("rt", &g.rt)] {
        let boot = g.root.join("boot");
        put(
            &format!("{label}/vmlinuz"),
            &std::fs::read(boot.join(format!("vmlinuz-{release}"))).unwrap(),
        );
        put(
            &format!("{label}/initrd.img"),
            &std::fs::read(boot.join(format!("initrd.img-{release}"))).unwrap(),
        );
        put(
            &format!("loader/entries/{label}.conf"),
            format!(
                "title {label}\nlinux /{label}/vmlinuz\ninitrd /{label}/initrd.img\noptions root=/dev/vda rw console=ttyS0 panic=10 no_timer_check\n"
            )
            .as_bytes(),
        );
    }
    let copy = Command::new("mcopy")
        .args(["-s", "-i"])
        .arg(&image)
        .args(
            std::fs::read_dir(&files)
                .unwrap()
                .flatten()
                .map(|e| e.path()),
        )
        .arg("::/")
        .output()
        .unwrap();
    assert!(copy.status.success(), "mcopy: {copy:?}");
    Some(image)
}

/// One round of two kernels through systemd-boot: each block on its own
/// boot of its own kernel, no pause, the one-shot entry taking the machine
/// to the second kernel and the default bringing it back.
#[test]
fn a_systemd_boot_campaign_boots_each_kernel_through_its_one_shot_entry() {
    let _one = lock();
    let Some(g) = guest() else { return };
    if !Path::new(OVMF_CODE).is_file() {
        lacking("no OVMF (apt-get install ovmf)");
        return;
    }
    let Some(loader) = loader(g) else { return };
    let script = format!(
        r#"set -u
K=/usr/local/bin/kbench
$K campaign init s --rounds 1 --reboot systemd-boot \
  --boot 'std=release={std},entry=std.conf' \
  --boot 'rt=release={rt},entry=rt.conf' \
  -- cyclictest -t 1 -D 1s || exit 1
$K campaign install-service s || exit 1
$K campaign step s
"#,
        std = g.std,
        rt = g.rt,
    );
    let disk = Disk::new(g, &script);
    debugfs(
        &disk.image,
        true,
        &format!(
            "cd /usr/local/bin\nwrite {} bootctl\nsif bootctl mode 0100755\n",
            loader.join("usr/bin/bootctl").display()
        ),
    );
    let Some(esp) = esp(g, &loader, disk.dir.path()) else {
        return;
    };
    let vars = disk.dir.path().join("vars.fd");
    std::fs::copy(OVMF_VARS, &vars).unwrap();
    // No -no-reboot: a reboot resets the machine, the firmware runs
    // systemd-boot again, and it reads the one-shot entry.
    let boot: Vec<std::ffi::OsString> = vec![
        "-drive".into(),
        format!("if=pflash,format=raw,readonly=on,file={OVMF_CODE}").into(),
        "-drive".into(),
        format!("if=pflash,format=raw,file={}", vars.display()).into(),
        "-drive".into(),
        format!("file={},format=raw,if=ide", esp.display()).into(),
    ];
    let Ended {
        done,
        took,
        console,
        ..
    } = Machine::start(&disk, &boot).end("campaign s complete", limit(2));
    let tail = tail(&console, 60);
    assert!(done, "the campaign did not complete; console:\n{tail}");
    eprintln!(
        "systemd-boot campaign of 2 blocks: {:.0} s under TCG",
        took.as_secs_f64()
    );
    assert!(!console.contains("paused"), "a pause on the way:\n{tail}");
    two_blocks_on_their_kernels(g, &disk, "s");
}
