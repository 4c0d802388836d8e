//! `campaign step`: check that the running system is the boot the plan
//! expects, run its block (runs tagged with the campaign, block, round
//! and boot id), mark it done, and boot the next.

use super::reboot::shell_quote;
use super::service::remove_service;
use super::*;
use crate::error::resource;
use crate::experiment::runner::{Here, Ran, Runner, Unit};
use crate::store::{RunFilter, Tag};

/// Options of `step`.
#[derive(Clone, Debug, Default)]
pub struct StepOptions {
    pub name: String,
    /// Run the block but do not reboot afterwards.
    pub no_reboot: bool,
    /// Wait for a step of this campaign that is running (else refuse).
    pub wait: bool,
}

/// `campaign step`: the boot checked, the block started (a block cut
/// short before is run again), run, its end recorded, and the next boot.
pub fn step(f: &Front, o: &StepOptions) -> Result<()> {
    let db = f.db();
    // One step at a time: held through the block and the reboot.
    let _driving = crate::experiment::lock::hold(
        f,
        "campaign",
        &o.name,
        &format!("campaign {}", o.name),
        o.wait,
    )?;
    // The plan's reboot and block commands run as whoever steps (root, at
    // boot): only from a store no one else could have planted them in.
    if let Err(why) = crate::store::trusted_for_commands(db) {
        return Err(input(format!(
            "campaign {}: kbench runs no command from this store: {why}; keep the store where only you (and root) can write",
            o.name
        )));
    }
    let mut store = f.write_store()?;
    let mut plan = load(store.as_ref(), &o.name)?;
    if plan.abandoned.is_some() {
        f.line(&format!(
            "campaign {} was abandoned (`kbench campaign abort`): nothing to run",
            plan.name
        ));
        remove_service(f, &mut plan, store.as_mut())?;
        return Ok(());
    }
    if plan.next >= plan.order.len() {
        f.line(&format!(
            "campaign {} is complete ({} blocks)",
            plan.name,
            plan.order.len()
        ));
        remove_service(f, &mut plan, store.as_mut())?;
        return Ok(());
    }
    let id = crate::experiment::identity();
    let boot = plan.boots[plan.order[plan.next]].clone();
    let position = plan.next;
    if !check_boot(f, store.as_mut(), &mut plan, &boot, &id)? {
        return Ok(());
    }
    let settled = settle_first(f, &plan, &id.boot_id);
    start_block(f, store.as_mut(), &mut plan, &boot, &id, settled)?;
    let round = position / plan.boots.len() + 1;
    if !f.quiet {
        f.note(&format!(
            "campaign {}: block {} of {} (round {round}), boot '{}' ({}), running `kbench {}`",
            plan.name,
            position + 1,
            plan.order.len(),
            boot.label,
            id.boot_id,
            plan.command.join(" ")
        ));
    }
    let tag = Tag::Campaign {
        id: plan.name.clone(),
        round,
        position: position + 1,
        boot: boot.label.clone(),
        boot_id: id.boot_id.clone(),
    };
    let ran = run_block(f, store.as_mut(), &plan, &boot.label, &tag)?;
    let mut plan = load(store.as_ref(), &o.name)?;
    end_block(store.as_mut(), &mut plan, position, &ran)?;
    plan.next += 1;
    save(store.as_mut(), &plan)?;
    match super::rounds::look(store.as_ref(), &mut plan) {
        Ok(Some(why)) => {
            f.line(&format!("campaign {}: {why}", plan.name));
            save(store.as_mut(), &plan)?;
        }
        Ok(None) => {}
        // The campaign goes on to its cap; the reason is said.
        Err(e) => f.note(&format!("kbench: warning: campaign {}: {e:#}", plan.name)),
    }
    if plan.next >= plan.order.len() {
        f.line(&format!(
            "campaign {} complete: {} blocks. Compare with boots as units: kbench compare {}",
            plan.name,
            plan.order.len(),
            plan.boots
                .iter()
                .map(|b| format!("--label {}", shell_quote(&b.label)))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        remove_service(f, &mut plan, store.as_mut())?;
        for line in aa_floor(store.as_ref(), &plan)? {
            f.line(&crate::text::wrap(&line, crate::text::width()));
        }
        return Ok(());
    }
    boot_next(f, store.as_mut(), &mut plan, position, o.no_reboot)
}

/// Pause the campaign with `msg` (kept in the plan, shown by `status`)
/// and fail with it.
fn pause(store: &mut dyn Store, plan: &mut Plan, msg: String) -> Result<()> {
    plan.paused = Some(msg.clone());
    save(store, plan)?;
    Err(resource(msg))
}

/// Is this the boot the next block expects, and has it not run a block
/// yet?  `Ok(false)`: no block runs on this boot (a lost boot booted
/// again).  A wrong system pauses the campaign (nothing is run or
/// stored); when it came up after a reboot into the expected one, that
/// boot is counted lost, and booted again while the plan's retries last.
fn check_boot(
    f: &Front,
    store: &mut dyn Store,
    plan: &mut Plan,
    boot: &Boot,
    id: &crate::experiment::Identity,
) -> Result<bool> {
    let position = plan.next;
    if let Err(why) = matches(boot, id) {
        let lost = plan
            .awaiting
            .take()
            .filter(|a| a.position == position && a.from_boot != id.boot_id);
        if let Some(a) = &lost {
            plan.lost_in_row += 1;
            plan.lost.push(Block {
                position,
                label: boot.label.clone(),
                boot_id: id.boot_id.clone(),
                started: a.sent,
                ended: Some(crate::sys::time::unix_now()),
                status: "lost".into(),
                ..Default::default()
            });
            let n = plan.lost_in_row;
            if n <= plan.retries {
                f.note(&format!(
                    "campaign {}: boot '{}' was lost: the machine came back with {why}; booting it again (retry {n} of {})",
                    plan.name, boot.label, plan.retries
                ));
                return reboot_into(f, store, plan, boot, id).map(|_| false);
            }
        }
        let in_row = std::mem::take(&mut plan.lost_in_row);
        let lost_line = match in_row {
            0 => String::new(),
            n if lost.is_some() => format!(
                " Boot '{}' was lost {n} time{} in a row (the kernel may not come up: a panic, no root; see its console), so the campaign stopped instead of rebooting again.",
                boot.label,
                if n == 1 { "" } else { "s" }
            ),
            _ => String::new(),
        };
        let msg = format!(
            "campaign {} paused at block {} of {}: it expects boot '{}', but this system has {why}; nothing was run or stored.{lost_line} Boot '{}' (`{}`) and run `kbench campaign step {}`, or give the campaign up with `kbench campaign abort {}`",
            plan.name,
            position + 1,
            plan.order.len(),
            boot.label,
            boot.label,
            reboot_command(&plan.reboot, boot),
            plan.name,
            plan.name
        );
        return pause(store, plan, msg).map(|_| false);
    }
    if let Some(b) = plan
        .history
        .iter()
        .find(|b| b.status == "done" && b.boot_id == id.boot_id)
    {
        return Err(resource(format!(
            "campaign {}: block {} needs a boot of its own, and this boot ({}) already ran block {}: reboot first (the plan reboots with `{}`)",
            plan.name,
            position + 1,
            id.boot_id,
            b.position + 1,
            plan.reboot
        )));
    }
    Ok(true)
}

/// Mark the next block running (a block cut short before runs again, its
/// partial runs removed first).
fn start_block(
    f: &Front,
    store: &mut dyn Store,
    plan: &mut Plan,
    boot: &Boot,
    id: &crate::experiment::Identity,
    settle: Option<super::settle::Settle>,
) -> Result<()> {
    let position = plan.next;
    let cut: Vec<Block> = plan
        .history
        .iter()
        .filter(|b| b.position == position && b.status != "done")
        .cloned()
        .collect();
    if !cut.is_empty() {
        let ids = block_runs(store, plan, &boot.label, position)?;
        if !ids.is_empty() {
            store.delete_runs(&ids)?;
        }
        f.note(&format!(
            "campaign {}: block {} was cut short before (boot {}); it runs again ({} partial run(s) removed)",
            plan.name,
            position + 1,
            cut.last().map(|b| b.boot_id.as_str()).unwrap_or("?"),
            ids.len()
        ));
        plan.history.retain(|b| b.position != position);
    }
    plan.paused = None;
    plan.awaiting = None;
    plan.lost_in_row = 0;
    plan.history.push(Block {
        position,
        label: boot.label.clone(),
        boot_id: id.boot_id.clone(),
        started: crate::sys::time::unix_now(),
        ended: None,
        status: "running".into(),
        settle,
        ..Default::default()
    });
    save(store, plan)
}

/// Before a block that follows a reboot: wait for the machine to settle
/// ([`super::settle`]); `None` in the same boot as the block before, or
/// with `--settle-max 0`.
fn settle_first(f: &Front, plan: &Plan, boot_id: &str) -> Option<super::settle::Settle> {
    if plan.settle_max_s == 0 || plan.history.last().is_some_and(|b| b.boot_id == boot_id) {
        return None;
    }
    let reference = plan.history.iter().find_map(|b| b.settle.as_ref());
    let max = std::time::Duration::from_secs(plan.settle_max_s);
    let s = super::settle::wait(reference, max);
    if reference.is_some() {
        f.progress(&format!(
            "campaign {}: {}",
            plan.name,
            super::settle::line(&s)
        ));
    }
    Some(s)
}

/// Record how block `position` ended; an interrupted or failed block
/// pauses the campaign.
fn end_block(store: &mut dyn Store, plan: &mut Plan, position: usize, ran: &Ran) -> Result<()> {
    let interrupted = ran.interrupted;
    if let Some(b) = plan
        .history
        .iter_mut()
        .rev()
        .find(|b| b.position == position)
    {
        b.ended = Some(crate::sys::time::unix_now());
        b.status = if ran.failed.is_none() && !interrupted {
            "done"
        } else {
            "failed"
        }
        .into();
    }
    if interrupted {
        save(store, plan)?;
        return Err(crate::error::Interrupted.into());
    }
    if ran.failed.is_none() {
        let differs = super::audit::block(store, plan, position)?;
        if !differs.is_empty() && plan.strict {
            plan.next = position + 1;
            let then = match plan.order.get(plan.next) {
                Some(&i) => format!(
                    "boot '{}' (`{}`) and run `kbench campaign step {}`",
                    plan.boots[i].label,
                    reboot_command(&plan.reboot, &plan.boots[i]),
                    plan.name
                ),
                None => format!("run `kbench campaign step {}`", plan.name),
            };
            let msg = format!(
                "campaign {} paused (--strict): block {} ran on a system that differs from its label's first block: {}. Its runs are kept (`kbench runs delete` drops them); put the machine back as it was, then {then}",
                plan.name,
                position + 1,
                crate::text::clip(&differs.join("; "), 1000),
            );
            return pause(store, plan, msg);
        }
    }
    if let Some(why) = &ran.failed {
        let msg = format!(
            "campaign {} paused: block {} (`kbench {}`) failed ({}); fix the cause and run `kbench campaign step {}` to run it again",
            plan.name,
            position + 1,
            plan.command.join(" "),
            why,
            plan.name
        );
        return pause(store, plan, msg);
    }
    Ok(())
}

/// Boot the next block's system with the plan's reboot command (or say
/// how, with `--no-reboot`); a failing command pauses the campaign.
fn boot_next(
    f: &Front,
    store: &mut dyn Store,
    plan: &mut Plan,
    position: usize,
    no_reboot: bool,
) -> Result<()> {
    let next = plan.boots[plan.order[plan.next]].clone();
    let cmd = reboot_command(&plan.reboot, &next);
    if no_reboot {
        f.line(&format!(
            "block {} done; next: boot '{}' ({cmd}) and run `kbench campaign step {}`",
            position + 1,
            next.label,
            plan.name
        ));
        return Ok(());
    }
    f.line(&format!(
        "block {} done; booting '{}': {cmd}",
        position + 1,
        next.label
    ));
    let id = crate::experiment::identity();
    reboot_into(f, store, plan, &next, &id)
}

/// Run the reboot command into `next`, the boot the next block expects,
/// from this boot (`id`); the reboot is recorded first, so the boot that
/// comes up can tell whether it is the one sent for.  A failing command
/// pauses the campaign.
fn reboot_into(
    f: &Front,
    store: &mut dyn Store,
    plan: &mut Plan,
    next: &Boot,
    id: &crate::experiment::Identity,
) -> Result<()> {
    let cmd = reboot_command(&plan.reboot, next);
    plan.awaiting = Some(Awaiting {
        position: plan.next,
        from_boot: id.boot_id.clone(),
        sent: crate::sys::time::unix_now(),
    });
    save(store, plan)?;
    let st = std::process::Command::new("sh")
        .arg("-c")
        .arg(&cmd)
        .status()
        .map_err(|e| anyhow!("running the reboot command: {e}"))?;
    if !st.success() && system_stopping(&st) {
        // The reboot under way stopped the command (systemd ends a
        // stopping unit's processes): that is the reboot, not a failure.
        f.line(&format!(
            "the system is going down for the next boot ({st})"
        ));
        return Ok(());
    }
    if !st.success() {
        plan.awaiting = None;
        let msg = format!(
            "campaign {} paused: the reboot command failed ({st}): {cmd}; boot '{}' by hand and run `kbench campaign step {}`",
            plan.name, next.label, plan.name
        );
        return pause(store, plan, msg);
    }
    Ok(())
}

/// Whether the reboot command was stopped by the shutdown it started:
/// systemd says it is stopping, or the command and this kbench were both
/// sent SIGTERM (as a stopping unit's processes are).
fn system_stopping(st: &std::process::ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    let said = std::process::Command::new("systemctl")
        .arg("is-system-running")
        .stderr(std::process::Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    said == "stopping"
        || (st.signal() == Some(libc::SIGTERM) && crate::sys::signals::stop_requested())
}

/// Run the block's command as a child kbench in this boot.
fn run_block(f: &Front, store: &mut dyn Store, plan: &Plan, label: &str, tag: &Tag) -> Result<Ran> {
    let unit = Unit {
        label,
        command: &plan.command,
        tag: Some(tag),
        number: plan.next + 1,
        of: plan.order.len(),
        env: &[],
    };
    Here::on(f.db()).quiet(f.quiet).run(store, &unit)
}

/// With `--aa` (the first boot again as `LABEL/aa`): the first label
/// against its twin, read as the boot-to-boot noise floor.
fn aa_floor(store: &dyn Store, plan: &Plan) -> Result<Vec<String>> {
    let [first, twin, ..] = plan.boots.as_slice() else {
        return Ok(Vec::new());
    };
    if twin.label != format!("{}/aa", first.label) {
        return Ok(Vec::new());
    }
    let labels = vec![first.label.clone(), twin.label.clone()];
    let runs = store.load_runs(
        &RunFilter {
            labels: labels.clone(),
            only_complete: true,
            ..Default::default()
        },
        false,
    )?;
    if !labels.iter().all(|l| runs.iter().any(|r| &r.label == l)) {
        return Ok(vec![format!(
            "A/A calibration: not enough runs under both {} and {}",
            first.label, twin.label
        )]);
    }
    let c = crate::compare::build(
        &runs,
        &crate::compare::Options {
            labels,
            ..Default::default()
        },
    )?;
    let mut out = vec![format!(
        "A/A calibration: boot '{}' against itself ({}), each boot a unit: kbench compare --label {} --label {}",
        first.label,
        twin.label,
        shell_quote(&first.label),
        shell_quote(&twin.label)
    )];
    out.extend(crate::compare::noise::noise_floor(&c));
    Ok(out)
}
