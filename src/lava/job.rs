//! `kbench lava job`: LAVA job definitions that boot each kernel in
//! kbench's interleaved order, one job a boot, each ending in `kbench lava
//! test`.
//!
//! One job a boot (not one job with many deploy and boot actions): a lab
//! runs it as it runs any job, a boot that hangs fails that job alone, and
//! the jobs' order is the plan's (mirrored seeded blocks, as `vm` and
//! `campaign`), which the plan document beside them records.  How each
//! job deploys and boots follows the device (`super::actions`: LAVA's
//! QEMU device, or a board's U-Boot, iPXE or GRUB over TFTP with an NFS
//! root); every job logs in on the serial console and runs `kbench lava
//! test`.

use super::actions::{q, Images, Method};
use crate::error::input;
use crate::text::shell;
use crate::vm::KernelSpec;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// What `lava job` is asked.
pub struct Options {
    pub device_type: String,
    /// How it boots (`None`: qemu for the qemu device type).
    pub method: Option<Method>,
    /// U-Boot's kernel type, and a device tree for every boot.
    pub kernel_type: Option<String>,
    pub dtb: Option<String>,
    pub kernels: Vec<KernelSpec>,
    pub rootfs: String,
    pub boots: usize,
    pub aa: bool,
    pub seed: Option<u64>,
    pub append: Option<String>,
    /// kbench's path in the root filesystem.
    pub kbench: String,
    /// The shell prompt the root filesystem shows root (a regex).
    pub prompt: String,
    pub minutes: u32,
    pub out: PathBuf,
    pub command: Vec<String>,
    /// How kbench parses a whole command line, to check `command`.
    pub parse: crate::experiment::ParseCommand,
    /// Where its words go.
    pub front: crate::session::Front,
}

/// A file or URL as LAVA fetches it.
fn url(s: &str) -> Result<String> {
    if s.starts_with("http://") || s.starts_with("https://") || s.starts_with("file://") {
        return Ok(s.to_string());
    }
    let p = std::path::absolute(s)?;
    if !p.is_file() {
        return Err(input(format!("{s}: no such file")));
    }
    Ok(format!("file://{}", p.display()))
}

/// Debian's `initrd.img-R` beside a local `vmlinuz-R`, if there is one.
fn initrd_beside(kernel: &Path) -> Option<PathBuf> {
    let name = kernel.file_name()?.to_str()?;
    let release = name.strip_prefix("vmlinuz-")?;
    let p = kernel.with_file_name(format!("initrd.img-{release}"));
    p.is_file().then_some(p)
}

/// How the device boots: as asked, else qemu for the qemu device type.
fn method(o: &Options) -> Result<Method> {
    match (o.method, o.device_type.as_str()) {
        (Some(Method::Qemu), t) if t != "qemu" => Err(input(format!(
            "--boot-method qemu is for LAVA's qemu device type, not {t}"
        ))),
        (Some(m), _) => Ok(m),
        (None, "qemu") => Ok(Method::Qemu),
        (None, t) => Err(input(format!(
            "--device-type {t}: say how it boots, --boot-method u-boot, ipxe or grub (its device type's template lists its methods); the test definition lava/kbench.yaml serves any other"
        ))),
    }
}

/// Write the jobs and the plan into `o.out`; what was written, said.
pub fn write(o: &Options) -> Result<()> {
    let method = method(o)?;
    crate::values::label(&o.device_type).map_err(|e| input(format!("--device-type: {e}")))?;
    if o.kernels.len() < 2 && !o.aa {
        return Err(input(
            "give two --kernel IMAGE=LABEL, or one with --aa (the kernel against itself)",
        ));
    }
    let mut labels: Vec<(String, usize)> = Vec::new();
    for (i, k) in o.kernels.iter().enumerate() {
        let Some(l) = &k.label else {
            return Err(input(format!(
                "--kernel {}: name it, --kernel {}=LABEL (a lab's kernel may be a URL, which kbench cannot read a release from)",
                k.path.display(),
                k.path.display()
            )));
        };
        crate::values::label(l).map_err(input)?;
        if labels.iter().any(|(x, _)| x == l) {
            return Err(input(format!("two kernels are labelled '{l}'")));
        }
        labels.push((l.clone(), i));
    }
    if o.aa {
        labels.insert(1, (crate::vm::plan::aa_label(&labels[0].0), 0));
    }
    crate::experiment::command::check_command(&o.command, o.parse)?;
    let rootfs = url(&o.rootfs)?;
    let seed = o.seed.unwrap_or_else(crate::experiment::order::fresh_seed);
    let order: Vec<usize> = crate::experiment::order::mirrored(labels.len(), o.boots, seed)
        .into_iter()
        .flatten()
        .collect();
    let id = crate::experiment::plan::new_id(crate::store::Kind::Lava);
    std::fs::create_dir_all(&o.out)
        .map_err(|e| input(format!("--output {}: {e}", o.out.display())))?;
    let mut files = Vec::new();
    for (n, &arm) in order.iter().enumerate() {
        let (label, k) = (&labels[arm].0, &o.kernels[labels[arm].1]);
        let text = job(o, method, (&id, n + 1, order.len()), label, k, &rootfs)?;
        let file = o
            .out
            .join(format!("{:02}-{}.yaml", n + 1, label.replace('/', "_")));
        crate::sys::private::replace(&file, text.as_bytes(), 0o644)?;
        files.push(file);
    }
    let plan = serde_json::json!({
        "id": id, "seed": seed, "device_type": o.device_type, "boot_method": method.as_str(),
        "labels": labels.iter().map(|(l, _)| l).collect::<Vec<_>>(),
        "order": order.iter().map(|&a| &labels[a].0).collect::<Vec<_>>(),
        "command": o.command,
        "jobs": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
    });
    crate::sys::private::replace(
        &o.out.join("plan.json"),
        serde_json::to_string_pretty(&plan)?.as_bytes(),
        0o644,
    )?;
    o.front.line(&format!(
        "lava plan {id} (seed {seed}): {} jobs, one a boot, in this order: {}",
        files.len(),
        order
            .iter()
            .map(|&a| labels[a].0.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    ));
    for f in &files {
        o.front.line(&format!("  {}", f.display()));
    }
    o.front.line(
        "submit them in this order (lavacli jobs submit FILE), then: kbench lava import LOG…",
    );
    Ok(())
}

/// One boot's job: boot `n` of `of` of plan `id`.
fn job(
    o: &Options,
    method: Method,
    (id, n, of): (&str, usize, usize),
    label: &str,
    k: &KernelSpec,
    rootfs: &str,
) -> Result<String> {
    let kernel = url(&k.path.display().to_string())?;
    let mut append = String::from(if method == Method::Qemu {
        "root=/dev/vda rw console=ttyS0,115200 no_timer_check panic=5"
    } else {
        ""
    });
    for extra in [o.append.as_deref(), k.append.as_deref()]
        .into_iter()
        .flatten()
    {
        append.push(' ');
        append.push_str(extra);
    }
    let initrd = match initrd_beside(&k.path) {
        Some(i) => Some(url(&i.display().to_string())?),
        None => None,
    };
    let dtb = o.dtb.as_deref().map(url).transpose()?;
    let images = Images {
        kernel: &kernel,
        kernel_type: o.kernel_type.as_deref(),
        initrd: initrd.as_deref(),
        dtb: dtb.as_deref(),
        rootfs,
        append: &append,
    };
    let (actions, context) =
        super::actions::deploy_and_boot(method, &images, o.minutes, &o.prompt)?;
    let context = if method == Method::Qemu {
        "context:\n  arch: amd64\n".to_string()
    } else if context.is_empty() {
        String::new()
    } else {
        format!("context:\n{context}")
    };
    let step: Vec<String> = [
        o.kbench.clone(),
        "lava".into(),
        "test".into(),
        "--plan".into(),
        id.into(),
        "--boot".into(),
        n.to_string(),
        "--label".into(),
        label.into(),
        "--".into(),
    ]
    .into_iter()
    .chain(o.command.iter().cloned())
    .collect();
    let m = o.minutes;
    Ok(format!(
        "# kbench lava plan {id}, boot {n} of {of}: {label}\n\
device_type: {}\n\
job_name: {}\n\
timeouts:\n  job: {{minutes: {}}}\n  action: {{minutes: {m}}}\n  connection: {{minutes: 2}}\n\
priority: medium\n\
visibility: public\n\
{context}\
metadata:\n  kbench.plan: {}\n  kbench.boot: {n}\n  kbench.label: {}\n\
actions:\n\
{actions}\
- test:\n    timeout: {{minutes: {m}}}\n    definitions:\n    - from: inline\n      name: kbench\n      path: inline/kbench.yaml\n      repository:\n        metadata:\n          format: Lava-Test Test Definition 1.0\n          name: kbench\n          description: {}\n        run:\n          steps:\n          - {}\n",
        q(&o.device_type),
        q(&format!("kbench {id} boot {n}/{of}: {label}")),
        m * 3 + 5,
        q(id),
        q(label),
        q(&format!("kbench {}", o.command.join(" "))),
        q(&shell::join(&step)),
    ))
}
