//! `kbench lava`: flags to options.

use crate::cli::LavaCommand;
use crate::error::input;
use crate::session::Ctx;
use anyhow::Result;

pub fn lava(ctx: &Ctx, c: &LavaCommand) -> Result<()> {
    match c {
        LavaCommand::Job(a) => crate::lava::job::write(&crate::lava::job::Options {
            device_type: a.device_type.clone(),
            method: a.boot_method,
            kernel_type: a.kernel_type.clone(),
            dtb: a.dtb.clone(),
            kernels: a.kernel.clone(),
            rootfs: a.rootfs.clone(),
            boots: a.boots,
            aa: a.aa,
            seed: a.seed.seed,
            append: a.append.clone(),
            kbench: a.kbench.clone(),
            prompt: a.prompt.clone(),
            minutes: a.minutes,
            out: a.output.clone(),
            command: a.command.clone(),
            parse: crate::cli::check,
            front: ctx.front(),
        }),
        LavaCommand::Test(a) => {
            let [label] = ctx.global.label.as_slice() else {
                return Err(input("kbench lava test needs the boot's --label"));
            };
            crate::experiment::command::check_command(&a.command, crate::cli::check)?;
            let code = crate::lava::guest::run(&crate::lava::guest::Options {
                plan: a.plan.clone(),
                boot: a.boot,
                label: label.clone(),
                command: a.command.clone(),
                front: ctx.front(),
            })?;
            if code != 0 {
                return Err(crate::error::Exit {
                    code,
                    message: None,
                }
                .into());
            }
            Ok(())
        }
        LavaCommand::Import(a) => crate::lava::import::run(&crate::lava::import::Options {
            logs: a.logs.clone(),
            server: a.server.clone().zip(a.job),
            device: a.device.clone(),
            front: ctx.front(),
        }),
    }
}
