//! `kbench vm`: flags to options; and the guest's first process.

use crate::cli::{AccelArg, MachineArgs, VmArgs};
use crate::session::Ctx;
use anyhow::Result;

pub fn vm(ctx: &Ctx, a: &VmArgs) -> Result<()> {
    if !ctx.global.label.is_empty() {
        return Err(crate::error::input(
            "kbench vm labels each kernel itself: give --kernel IMAGE=LABEL instead of --label",
        ));
    }
    if ctx.global.no_store {
        return Err(crate::error::input(
            "kbench vm compares its stored runs: --no-store does not fit",
        ));
    }
    crate::experiment::kinds::vm::run(&crate::vm::Options {
        kernels: a.kernel.clone(),
        append: a.append.clone(),
        boots: a.boots,
        machine: machine(&a.machine),
        aa: a.aa,
        seed: a.seed.seed,
        dry_run: a.dry_run.dry_run,
        allow_emulated: a.allow_emulated,
        isolate: ctx.global.isolate,
        command: a.command.clone(),
        parse: crate::cli::check,
        threshold_pct: ctx.global.threshold,
        front: ctx.front(),
        wide: a.wide,
    })
}

/// The machine's flags as options (shared with `bisect --vm`).
pub fn machine(a: &MachineArgs) -> crate::vm::MachineOptions {
    crate::vm::MachineOptions {
        qemu: a.qemu.clone(),
        accel: match a.accel {
            AccelArg::Auto => crate::vm::Accel::Auto,
            AccelArg::Kvm => crate::vm::Accel::Kvm,
            AccelArg::Tcg => crate::vm::Accel::Tcg,
        },
        cpus: a.cpus,
        memory_mib: a.memory,
        timeout: a.timeout,
        rt_priority: a.rt_priority,
        share_root: a.share_root,
        console: a.console,
    }
}

/// The guest's first process (`/init` of a `kbench vm` guest).
pub fn guest() -> Result<()> {
    crate::vm::guest::run()
}
