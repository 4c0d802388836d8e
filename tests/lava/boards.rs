//! Jobs for boards (U-Boot, iPXE, GRUB over TFTP with an NFS root), checked
//! by LAVA's own dispatcher: `lava-run --validate` builds each job's
//! pipeline against a device dictionary rendered from LAVA's own template
//! for the device type (beaglebone-black, x86, a MinnowBoard), which
//! refuses a boot method the device lacks and a deploy it cannot do.  No
//! board is booted: there is none here.

use crate::common::Env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A device dictionary for `name`, extending LAVA's `template`, with the
/// commands a lab sets (connection and power) as placeholders.
fn device(templates: &Path, dir: &Path, name: &str, template: &str) -> PathBuf {
    std::fs::write(
        dir.join(format!("{name}.jinja2")),
        format!(
            "{{% extends '{template}' %}}\n\
             {{% set connection_command = 'telnet localhost 7000' %}}\n\
             {{% set hard_reset_command = 'true' %}}\n\
             {{% set power_off_command = 'true' %}}\n\
             {{% set power_on_command = 'true' %}}\n"
        ),
    )
    .unwrap();
    let out = dir.join(format!("{name}.yaml"));
    let render = Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(
            "import jinja2, sys\n\
             env = jinja2.Environment(loader=jinja2.FileSystemLoader(sys.argv[1:3]), trim_blocks=True, autoescape=False)\n\
             open(sys.argv[3], 'w').write(env.get_template(sys.argv[4]).render())\n",
        )
        .arg(dir)
        .arg(templates)
        .arg(&out)
        .arg(format!("{name}.jinja2"))
        .output()
        .unwrap();
    assert!(render.status.success(), "{render:?}");
    out
}

/// `lava-run --validate` of `job` on `dev`: whether it passed, and its log.
fn validate(dir: &Path, dev: &Path, job: &Path) -> (bool, String) {
    let out = Command::new("lava-run")
        .args(["--validate", "--job-id", "1", "--output-dir"])
        .arg(dir.join("validate"))
        .arg("--device")
        .arg(dev)
        .arg(job)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn board_jobs_pass_lavas_own_validation() {
    let templates = match super::templates() {
        Ok(t) => t,
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "CI must run LAVA: {why}");
            eprintln!("skipped: {why}");
            return;
        }
    };
    let env = Env::new();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // What a lab would serve: two kernels (one with its initrd beside
    // it), a device tree and an NFS root tarball.
    for f in [
        "vmlinuz-6.1.0-a",
        "initrd.img-6.1.0-a",
        "vmlinuz-6.1.0-b",
        "board.dtb",
    ] {
        std::fs::write(d.join(f), "x").unwrap();
    }
    std::fs::create_dir(d.join("root")).unwrap();
    let tar = Command::new("tar")
        .arg("-cJf")
        .arg(d.join("rootfs.tar.xz"))
        .arg("-C")
        .arg(d.join("root"))
        .arg(".")
        .status()
        .unwrap();
    assert!(tar.success());
    let path = |f: &str| d.join(f).display().to_string();
    let (ka, kb) = (
        format!("{}=a", path("vmlinuz-6.1.0-a")),
        format!("{}=b", path("vmlinuz-6.1.0-b")),
    );
    let dtb = path("board.dtb");
    let cases: [(&str, &str, &str, Vec<&str>); 3] = [
        (
            "beaglebone-black",
            "beaglebone-black.jinja2",
            "u-boot",
            vec!["--kernel-type", "zimage", "--dtb", &dtb],
        ),
        ("x86", "x86.jinja2", "ipxe", vec![]),
        (
            "minnowboard-turbot-E3826",
            "minnowboard-turbot-E3826.jinja2",
            "grub",
            vec![],
        ),
    ];
    let rootfs = path("rootfs.tar.xz");
    let mut devices = Vec::new();
    for (device_type, template, method, extra) in &cases {
        let dev = device(&templates, d, &format!("{device_type}-01"), template);
        let out = d.join(format!("jobs-{method}"));
        let out_s = out.display().to_string();
        let mut a = vec![
            "lava",
            "job",
            "--device-type",
            device_type,
            "--boot-method",
            method,
            "--kernel",
            &ka,
            "--kernel",
            &kb,
            "--rootfs",
            &rootfs,
            "--boots",
            "1",
            "--append",
            "preempt=full",
        ];
        a.extend(extra.iter().copied());
        a.extend(["-o", &out_s, "--", "cyclictest", "-t", "1", "-D", "5s"]);
        let said = env.ok(&a);
        assert!(said.contains("2 jobs, one a boot"), "{said}");
        let jobs = super::jobs_in(&out);
        assert_eq!(jobs.len(), 2, "{said}");
        for job in &jobs {
            let text = std::fs::read_to_string(job).unwrap();
            assert!(
                text.contains("to: tftp") && text.contains("nfsrootfs:"),
                "{text}"
            );
            assert!(
                text.contains("extra_kernel_args: \"preempt=full\""),
                "{text}"
            );
            let (ok, log) = validate(d, &dev, job);
            let tail: Vec<&str> = log.lines().rev().take(8).collect();
            assert!(ok, "{method} on {device_type}: {tail:?}");
            assert!(
                log.contains("\"case\": \"validate\"") && log.contains("\"result\": \"pass\""),
                "{tail:?}"
            );
        }
        // The kernel with an initrd beside it takes it as its ramdisk.
        let with_initrd: Vec<String> = jobs
            .iter()
            .map(|j| std::fs::read_to_string(j).unwrap())
            .filter(|t| t.contains("initrd.img-6.1.0-a"))
            .collect();
        assert_eq!(with_initrd.len(), 1);
        assert!(with_initrd[0].contains("ramdisk:"));
        devices.push((dev, jobs));
    }
    // The check can fail: a GRUB job on the BeagleBone (which has no
    // GRUB) is refused by LAVA.
    let (ok, log) = validate(d, &devices[0].0, &devices[2].1[0]);
    assert!(!ok && log.contains("None of the boot strategies"), "{log}");
    // kbench's own refusals: one line each.
    let out_s = d.join("bad").display().to_string();
    for (extra, says) in [
        (vec!["--device-type", "beaglebone-black"], "--boot-method"),
        (
            vec![
                "--device-type",
                "beaglebone-black",
                "--boot-method",
                "u-boot",
            ],
            "--kernel-type",
        ),
        (
            vec!["--device-type", "x86", "--boot-method", "qemu"],
            "qemu device type",
        ),
        (
            vec!["--device-type", "x86", "--boot-method", "fastboot"],
            "fastboot",
        ),
    ] {
        let mut a = vec![
            "lava", "job", "--kernel", &ka, "--kernel", &kb, "--rootfs", &rootfs,
        ];
        a.extend(extra);
        a.extend(["-o", &out_s, "--", "cyclictest", "-t", "1"]);
        let err = env.fails(&a, 2);
        assert!(err.contains(says), "{a:?}: {err}");
    }
    let disk = path("vmlinuz-6.1.0-b");
    let err = env.fails(
        &[
            "lava",
            "job",
            "--device-type",
            "x86",
            "--boot-method",
            "ipxe",
            "--kernel",
            &ka,
            "--kernel",
            &kb,
            "--rootfs",
            &disk,
            "-o",
            &out_s,
            "--",
            "cyclictest",
        ],
        2,
    );
    assert!(err.contains("tarball"), "{err}");
}
