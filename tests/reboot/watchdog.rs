//! A kernel that hangs rather than panics, reset by the machine's
//! watchdog: systemd arms it while running and through the kexec
//! (`RuntimeWatchdogSec`, `KExecWatchdogSec`), the running kernel keeps
//! it counting into the next one (`watchdog.stop_on_reboot=0`; QEMU's
//! i6300esb driver would stop it otherwise), and the next kernel panics
//! with no `panic=` and halts, as a kernel stuck in its initramfs would.
//! Nothing but the watchdog can bring the machine back; when it does, the
//! campaign counts the boot lost and stops at its bound.  `campaign init`
//! said all of this beforehand.

use super::common::guest::{debugfs, guest};
use super::{kbench, lock, tail, until_stopped, Disk};

#[test]
fn a_kernel_that_hangs_is_reset_by_the_watchdog_and_counted_lost() {
    let _one = lock();
    let Some(g) = guest() else { return };
    let script = format!(
        r#"set -u
K=/usr/local/bin/kbench
$K campaign init w --rounds 1 --retries 0 \
  --reboot 'kexec -l {{entry}} --initrd=/boot/initrd.img-{{release}} --append="root=/dev/vda rw console=ttyS0 no_timer_check init=/bin/false" && systemctl --no-block kexec' \
  --boot 'std=release={std},entry=/boot/vmlinuz-{std}' \
  --boot 'rt=release={rt},entry=/boot/vmlinuz-{rt}' \
  -- cyclictest -t 1 -D 1s || exit 1
$K campaign install-service w || exit 1
$K campaign step w
"#,
        std = g.std,
        rt = g.rt,
    );
    let disk = Disk::new(g, &script);
    // systemd arms the watchdog once its driver is loaded, and through a
    // kexec for 90 s.
    let conf = disk.dir.path().join("watchdog.conf");
    std::fs::write(
        &conf,
        "[Manager]\nRuntimeWatchdogSec=30s\nKExecWatchdogSec=90s\n",
    )
    .unwrap();
    debugfs(
        &disk.image,
        true,
        &format!(
            "cd /etc/systemd\nmkdir system.conf.d\ncd system.conf.d\nwrite {} watchdog.conf\nsif watchdog.conf mode 0100644\n",
            conf.display()
        ),
    );
    let keep = "watchdog.stop_on_reboot=0";
    // The watchdog resets the machine (QEMU ends at a reset here): it
    // comes back on its default kernel, as firmware would.
    let (stopped, resets, consoles) = until_stopped(g, &disk, keep, 2);
    let tail = tail(&consoles, 80);
    assert!(stopped, "the campaign did not stop at its bound:\n{tail}");
    assert_eq!(resets, 1, "one hang, one reset:\n{tail}");
    // The kernel panicked and, with no panic=, would have waited for good.
    assert!(consoles.contains("Attempted to kill init"), "{tail}");
    assert!(!consoles.contains("Rebooting in"), "{tail}");
    let said = consoles
        .lines()
        .find(|l| l.contains("kbench: watchdog:"))
        .unwrap_or_default();
    assert!(
        said.contains("keeps it armed while running and through the kexec")
            && said.contains("keeps it running into the next one"),
        "{said}"
    );
    assert!(
        consoles.contains("Boot 'rt' was lost 1 time in a row"),
        "{tail}"
    );
    let db = disk.store("/root/.local/share/kbench/results.db");
    let (code, out, err) = kbench(&db, &["campaign", "status", "w", "--json"]);
    assert_eq!(code, 0, "{err}");
    let plan = &serde_json::from_str::<serde_json::Value>(&out).unwrap()["campaigns"][0];
    assert_eq!(plan["lost"].as_array().unwrap().len(), 1, "{plan}");
    assert!(
        plan["paused"]
            .as_str()
            .unwrap()
            .contains("lost 1 time in a row"),
        "{plan}"
    );
}
