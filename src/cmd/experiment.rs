//! `kbench matrix` and `kbench campaign`: flags to options.

use crate::cli::{CampaignCommand, MatrixArgs};
use crate::experiment::kinds::matrix;
use crate::experiment::{campaign, knob};
use crate::session::Ctx;
use crate::values::Runs;
use anyhow::Result;

pub fn matrix(ctx: &Ctx, a: &MatrixArgs) -> Result<()> {
    if ctx.global.no_store {
        return Err(crate::error::input(
            "a matrix compares its stored runs: --no-store does not fit",
        ));
    }
    let knobs = a
        .knob
        .iter()
        .map(|k| knob::parse(k))
        .collect::<Result<Vec<_>>>()?;
    let vary = a
        .vary
        .iter()
        .map(|v| crate::experiment::vary::parse(v))
        .collect::<Result<Vec<_>>>()?;
    let scheds = a
        .sched
        .iter()
        .map(|s| crate::experiment::sched::parse(s).map_err(crate::error::input))
        .collect::<Result<Vec<_>>>()?;
    matrix::run(&matrix::Options {
        knobs,
        vary,
        scheds,
        rounds: a.rounds.rounds,
        seed: a.seed.seed,
        command: a.command.clone(),
        parse: crate::cli::check,
        metric: a.metric.clone(),
        alpha: a.alpha.alpha,
        threshold_pct: ctx.global.threshold,
        dry_run: a.dry_run.dry_run,
        wide: a.wide,
        base_label: ctx.label(),
        front: ctx.front(),
    })
}

/// The metric a campaign's `--rounds auto` decides on: `--metric`, else
/// the benchmark's headline; a scenario must name one.
fn auto_metric(given: Option<&str>, command: &[String]) -> Result<String> {
    if let Some(m) = given {
        return Ok(m.to_string());
    }
    match command.first().and_then(|c| crate::registry::find(c)) {
        Some(e) => Ok(e.headline.to_string()),
        None => Err(crate::error::input(
            "--rounds auto with a scenario needs --metric NAME to decide on",
        )),
    }
}

pub fn campaign(ctx: &Ctx, c: &CampaignCommand) -> Result<()> {
    let f = &ctx.front();
    match c {
        CampaignCommand::Init(a) => {
            let command = match (&a.scenario, a.command.is_empty()) {
                (Some(s), true) => vec!["run".to_string(), s.clone()],
                (None, false) => a.command.clone(),
                _ => {
                    return Err(crate::error::input(
                        "say what each block runs: --scenario FILE|PRESET, or a kbench command after --",
                    ))
                }
            };
            let mut boots = a
                .boot
                .iter()
                .map(|b| campaign::parse_boot(b))
                .collect::<Result<Vec<_>>>()?;
            if a.aa {
                // The first boot again, under a label of its own.
                let first = boots[0].clone();
                boots.insert(
                    1,
                    campaign::Boot {
                        label: crate::vm::plan::aa_label(&first.label),
                        ..first
                    },
                );
            }
            let auto = match a.rounds.rounds {
                Runs::Fixed(_) => None,
                Runs::Auto { .. } => Some(campaign::Auto {
                    metric: auto_metric(a.metric.as_deref(), &command)?,
                    alpha: a.alpha.alpha,
                    threshold_pct: ctx.global.threshold,
                }),
            };
            campaign::init(
                f,
                &campaign::InitOptions {
                    name: a.name.clone(),
                    boots,
                    command,
                    parse: crate::cli::check,
                    rounds: match a.rounds.rounds {
                        Runs::Fixed(n) | Runs::Auto { max: n } => n as usize,
                    },
                    auto,
                    random: a.order == "random",
                    seed: a.seed.seed,
                    reboot: a.reboot.clone(),
                    retries: a.retries as usize,
                    strict: a.strict,
                    settle_max_s: a.settle_max,
                },
            )
        }
        CampaignCommand::Step {
            name,
            no_reboot,
            wait,
        } => campaign::step(
            f,
            &campaign::StepOptions {
                name: name.clone(),
                no_reboot: *no_reboot,
                wait: *wait,
            },
        ),
        CampaignCommand::Abort { name } => campaign::abort(f, name),
        CampaignCommand::Status { name } => campaign::status(f, name.as_deref()),
        CampaignCommand::InstallService { name, unit_dir } => {
            campaign::install_service(f, name, unit_dir.as_deref())
        }
    }
}
