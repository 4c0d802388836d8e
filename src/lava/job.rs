//! `kbench lava job`: LAVA job definitions that boot each kernel in
//! kbench's interleaved order, one job a boot, each ending in `kbench lava
//! test`.
//!
//! One job a boot (not one job with many deploy and boot actions): a lab
//! runs it as it runs any job, a boot that hangs fails that job alone, and
//! the jobs' order is the plan's (mirrored seeded blocks, as `vm` and
//! `campaign`), which the plan document beside them records.  The jobs
//! follow LAVA's QEMU device type (deploy to tmpfs with `-kernel`,
//! `-initrd` and the root filesystem as a virtio disk, boot method
//! `qemu`, login on the serial console); for a board, the test definition
//! in the repository (`lava/kbench.yaml`) goes into the lab's own jobs.

use crate::error::input;
use crate::text::shell;
use crate::vm::KernelSpec;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// What `lava job` is asked.
pub struct Options {
    pub device_type: String,
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

/// A YAML double-quoted scalar (JSON's string syntax is YAML's).
fn q(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

/// Write the jobs and the plan into `o.out`; what was written, said.
pub fn write(o: &Options) -> Result<()> {
    if o.device_type != "qemu" {
        return Err(input(format!(
            "--device-type {}: kbench writes jobs for LAVA's qemu device type; for a board, put the test definition lava/kbench.yaml into your own jobs (docs/lava.md)",
            o.device_type
        )));
    }
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
        let text = job(o, &id, n + 1, order.len(), label, k, &rootfs)?;
        let file = o
            .out
            .join(format!("{:02}-{}.yaml", n + 1, label.replace('/', "_")));
        crate::sys::private::replace(&file, text.as_bytes(), 0o644)?;
        files.push(file);
    }
    let plan = serde_json::json!({
        "id": id, "seed": seed, "device_type": o.device_type,
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

/// One boot's job.
fn job(
    o: &Options,
    id: &str,
    n: usize,
    of: usize,
    label: &str,
    k: &KernelSpec,
    rootfs: &str,
) -> Result<String> {
    let kernel = url(&k.path.display().to_string())?;
    let mut append = String::from("root=/dev/vda rw console=ttyS0,115200 no_timer_check panic=5");
    for extra in [o.append.as_deref(), k.append.as_deref()]
        .into_iter()
        .flatten()
    {
        append.push(' ');
        append.push_str(extra);
    }
    let mut images = format!(
        "      kernel:\n        image_arg: {}\n        url: {}\n",
        q(&format!("-kernel {{kernel}} -append \"{append}\"")),
        q(&kernel)
    );
    if let Some(i) = initrd_beside(&k.path) {
        images.push_str(&format!(
            "      initrd:\n        image_arg: \"-initrd {{initrd}}\"\n        url: {}\n",
            q(&url(&i.display().to_string())?)
        ));
    }
    images.push_str(&format!(
        "      rootfs:\n        image_arg: \"-drive format=raw,if=virtio,file={{rootfs}}\"\n        url: {}\n",
        q(rootfs)
    ));
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
device_type: qemu\n\
job_name: {}\n\
timeouts:\n  job: {{minutes: {}}}\n  action: {{minutes: {m}}}\n  connection: {{minutes: 2}}\n\
priority: medium\n\
visibility: public\n\
context:\n  arch: amd64\n\
metadata:\n  kbench.plan: {}\n  kbench.boot: {n}\n  kbench.label: {}\n\
actions:\n\
- deploy:\n    timeout: {{minutes: {m}}}\n    to: tmpfs\n    images:\n{images}\
- boot:\n    timeout: {{minutes: {m}}}\n    method: qemu\n    media: tmpfs\n    prompts: [{}]\n    auto_login: {{login_prompt: \"login:\", username: root}}\n\
- test:\n    timeout: {{minutes: {m}}}\n    definitions:\n    - from: inline\n      name: kbench\n      path: inline/kbench.yaml\n      repository:\n        metadata:\n          format: Lava-Test Test Definition 1.0\n          name: kbench\n          description: {}\n        run:\n          steps:\n          - {}\n",
        q(&format!("kbench {id} boot {n}/{of}: {label}")),
        m * 3 + 5,
        q(id),
        q(label),
        q(&o.prompt),
        q(&format!("kbench {}", o.command.join(" "))),
        q(&shell::join(&step)),
    ))
}
