//! A job's deploy and boot actions, by how the device boots: LAVA's QEMU
//! device (`qemu`: the images to tmpfs, `-kernel`, `-initrd`, the root
//! filesystem a virtio disk), or a board's bootloader (`u-boot`, `ipxe`,
//! `grub`: the kernel, device tree and ramdisk over TFTP, the root
//! filesystem a tarball LAVA serves over NFS, the bootloader's `nfs`
//! commands from the device type).  Which methods a device type has is
//! in its template: `lava-run --validate` says when a job asks for one
//! it lacks.

use crate::error::input;
use anyhow::Result;

/// How the device boots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Qemu,
    UBoot,
    Ipxe,
    Grub,
}

impl Method {
    /// As LAVA names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Qemu => "qemu",
            Method::UBoot => "u-boot",
            Method::Ipxe => "ipxe",
            Method::Grub => "grub",
        }
    }

    /// From LAVA's name.
    pub fn named(s: &str) -> std::result::Result<Method, String> {
        [Method::Qemu, Method::UBoot, Method::Ipxe, Method::Grub]
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| format!("{s}: kbench writes qemu, u-boot, ipxe and grub boots"))
    }
}

/// What one boot deploys: URLs, as LAVA fetches them.
pub struct Images<'a> {
    pub kernel: &'a str,
    /// U-Boot's kernel type (`zimage`, `uimage`, `image`).
    pub kernel_type: Option<&'a str>,
    pub initrd: Option<&'a str>,
    pub dtb: Option<&'a str>,
    pub rootfs: &'a str,
    /// The kernel command line kbench adds.
    pub append: &'a str,
}

/// A YAML double-quoted scalar (JSON's string syntax is YAML's): every
/// value a job takes from the user or a path is written as one.
pub(super) fn q(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

/// An NFS root tarball's compression, from its name.
fn compression(rootfs: &str) -> Result<&'static str> {
    let name = rootfs.rsplit('/').next().unwrap_or(rootfs);
    [
        (".tar.xz", "xz"),
        (".txz", "xz"),
        (".tar.gz", "gz"),
        (".tgz", "gz"),
        (".tar.bz2", "bz2"),
        (".tar.zst", "zstd"),
    ]
    .into_iter()
    .find(|(ext, _)| name.ends_with(ext))
    .map(|(_, c)| c)
    .ok_or_else(|| {
        input(format!(
            "--rootfs {rootfs}: a board boots an NFS root from a tarball (.tar.xz, .tar.gz, .tar.bz2, .tar.zst)"
        ))
    })
}

/// The deploy and boot actions (`- deploy:` … `- boot:` …), and the job's
/// context, if it needs one.
pub fn deploy_and_boot(
    method: Method,
    i: &Images,
    minutes: u32,
    prompt: &str,
) -> Result<(String, String)> {
    let login = format!(
        "    prompts: [{}]\n    auto_login: {{login_prompt: \"login:\", username: root}}\n",
        q(prompt)
    );
    if method == Method::Qemu {
        let mut images = format!(
            "      kernel:\n        image_arg: {}\n        url: {}\n",
            q(&format!("-kernel {{kernel}} -append \"{}\"", i.append)),
            q(i.kernel)
        );
        if let Some(initrd) = i.initrd {
            images.push_str(&format!(
                "      initrd:\n        image_arg: \"-initrd {{initrd}}\"\n        url: {}\n",
                q(initrd)
            ));
        }
        images.push_str(&format!(
            "      rootfs:\n        image_arg: \"-drive format=raw,if=virtio,file={{rootfs}}\"\n        url: {}\n",
            q(i.rootfs)
        ));
        let actions = format!(
            "- deploy:\n    timeout: {{minutes: {minutes}}}\n    to: tmpfs\n    images:\n{images}\
- boot:\n    timeout: {{minutes: {minutes}}}\n    method: qemu\n    media: tmpfs\n{login}"
        );
        return Ok((actions, String::new()));
    }
    let mut deploy = format!(
        "- deploy:\n    timeout: {{minutes: {minutes}}}\n    to: tftp\n    kernel:\n      url: {}\n",
        q(i.kernel)
    );
    match (method, i.kernel_type) {
        (Method::UBoot, None) => {
            return Err(input(
                "--boot-method u-boot needs --kernel-type: zimage (32-bit ARM), image (arm64) or uimage (a U-Boot legacy image)",
            ))
        }
        (_, Some(t)) => deploy.push_str(&format!("      type: {t}\n")),
        _ => {}
    }
    if let Some(dtb) = i.dtb {
        deploy.push_str(&format!("    dtb:\n      url: {}\n", q(dtb)));
    }
    if let Some(initrd) = i.initrd {
        deploy.push_str(&format!("    ramdisk:\n      url: {}\n", q(initrd)));
    }
    deploy.push_str(&format!(
        "    nfsrootfs:\n      url: {}\n      compression: {}\n",
        q(i.rootfs),
        compression(i.rootfs)?
    ));
    let boot = format!(
        "- boot:\n    timeout: {{minutes: {minutes}}}\n    method: {}\n    commands: nfs\n{login}",
        method.as_str()
    );
    // LAVA puts a job's extra_kernel_args in place of the device type's
    // own kernel arguments when it renders the device for the job.
    let context = if i.append.trim().is_empty() {
        String::new()
    } else {
        format!("  extra_kernel_args: {}\n", q(i.append.trim()))
    };
    Ok((deploy + &boot, context))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_are_lavas_and_an_nfs_root_is_a_tarball() {
        for m in ["qemu", "u-boot", "ipxe", "grub"] {
            assert_eq!(Method::named(m).unwrap().as_str(), m);
        }
        assert!(Method::named("fastboot").is_err());
        assert_eq!(compression("https://x/rootfs.tar.xz").unwrap(), "xz");
        assert_eq!(compression("/srv/r.tgz").unwrap(), "gz");
        assert!(compression("/srv/disk.img").is_err());
    }

    #[test]
    fn u_boot_needs_a_kernel_type() {
        let i = Images {
            kernel: "file:///k",
            kernel_type: None,
            initrd: None,
            dtb: Some("file:///d.dtb"),
            rootfs: "file:///r.tar.xz",
            append: "",
        };
        let err = deploy_and_boot(Method::UBoot, &i, 10, "#").unwrap_err();
        assert!(format!("{err}").contains("--kernel-type"), "{err}");
        let (a, ctx) = deploy_and_boot(Method::Ipxe, &i, 10, "#").unwrap();
        assert!(
            a.contains("to: tftp") && a.contains("method: ipxe") && a.contains("compression: xz")
        );
        assert!(ctx.is_empty());
    }
}
