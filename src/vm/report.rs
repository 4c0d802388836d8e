//! What `kbench vm` says: the plan before the first boot (all of it with
//! `--dry-run`), a progress bar and a line per boot, the session's record
//! in the store, and the closing comparisons: the A/A calibration (the
//! VM's own noise floor) first when asked, then the kernels.

use super::{Options, Session};
use crate::compare;
use crate::experiment::engine::Plan;
use crate::experiment::runner::Ran;
use crate::store::{RunRecord, Store};
use anyhow::Result;
use std::io::IsTerminal;
use std::time::Duration;

pub fn say(o: &Options, msg: &str) {
    o.front.progress(msg);
}

/// A letter per arm for the order line (A, B, …, then a2, b2 …).
fn letter(i: usize) -> String {
    let c = (b'A' + (i % 26) as u8) as char;
    if i < 26 {
        c.to_string()
    } else {
        format!("{c}{}", i / 26 + 1)
    }
}

/// The plan, to stdout with `--dry-run` (it is then the output), else
/// to stderr.
pub fn plan(o: &Options, s: &Session) {
    let total: usize = s.order.iter().map(Vec::len).sum();
    let m = &s.machine;
    let mut out = vec![format!(
        "kbench vm {} (seed {}): {} arm(s), {} boot(s) each, {total} boots; {} vCPU(s), {} MiB; {}",
        s.id,
        s.seed,
        s.arms.len(),
        o.boots,
        m.cpus,
        m.memory_mib,
        m.qemu.version
    )];
    out.extend(accel_lines(m, o.allow_emulated));
    for (i, a) in s.arms.iter().enumerate() {
        let what = if a.calibration {
            "the first kernel again, for the A/A calibration".to_string()
        } else {
            s.images[a.kernel].describe()
        };
        out.push(format!("  {} = {}: {what}", letter(i), a.label));
        out.push(format!(
            "      kernel command line: {}",
            s.cmdlines[a.kernel]
        ));
    }
    out.extend(machine_lines(m));
    out.push(format!("  each guest runs: kbench {}", o.command.join(" ")));
    let order: Vec<String> = s
        .order
        .iter()
        .map(|b| b.iter().map(|&a| letter(a)).collect::<String>())
        .collect();
    out.push(format!("  order (one boot each): {}", order.join(" ")));
    let text = out
        .iter()
        .map(|l| crate::text::wrap_indented(&crate::text::clean(l), crate::text::width()))
        .collect::<Vec<_>>()
        .join("\n");
    if o.dry_run {
        o.front.line(&text);
    } else {
        say(o, &text);
    }
}

/// The accelerator, and what it means for the figures.
pub fn accel_lines(m: &super::Machine, allowed: bool) -> Vec<String> {
    let mut v = vec![format!(
        "  accelerator: {} ({})",
        m.accel.accel, m.accel.why
    )];
    if let Some(why) = &m.accel.emulated {
        v.push(format!(
            "  emulated: {why}; every run is marked so, and no verdict is given on them unless --allow-emulated{}",
            if allowed { " (given)" } else { "" }
        ));
    }
    v
}

/// The machine's placement, memory and timeout, as the plan says them.
pub fn machine_lines(m: &super::Machine) -> Vec<String> {
    vec![
        match &m.placement.not_pinned {
            Some(why) => format!("  vCPUs not pinned: {why}"),
            None => format!(
                "  vCPUs on host CPUs {}, QEMU's own threads on {}{}",
                crate::sys::cpus::format_list(&m.placement.vcpu_cpus),
                crate::sys::cpus::format_list(&m.placement.house_cpus),
                m.placement
                    .rt_priority
                    .map_or(String::new(), |p| format!(", vCPUs at SCHED_FIFO {p}"))
            ),
        },
        match &m.hugepages {
            Ok(p) => format!("  guest memory on hugepages ({})", p.display()),
            Err(why) => format!("  guest memory on ordinary pages: {why}"),
        },
        format!("  timeout per boot: {} s", m.timeout.as_secs()),
    ]
}

/// Which boot is running, and for how long (a bar on a terminal, a line
/// at its start elsewhere).
pub struct Bar {
    bar: Option<indicatif::ProgressBar>,
    label: String,
    at: String,
}

impl Bar {
    /// `at` says which boot (`boot 3/8`); silent when `quiet`; a line,
    /// not a bar, off a terminal, with `--json` or when the console is
    /// shown.
    pub fn new(front: &crate::session::Front, console: bool, at: &str, label: &str) -> Bar {
        let at = at.to_string();
        if front.quiet {
            return Bar {
                bar: None,
                label: label.into(),
                at,
            };
        }
        if front.json || !std::io::stderr().is_terminal() || console {
            front.note(&format!("{at}: {} …", crate::text::clean(label)));
            return Bar {
                bar: None,
                label: label.into(),
                at,
            };
        }
        let b =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        Bar {
            bar: Some(b),
            label: label.into(),
            at,
        }
    }

    pub fn tick(&self, t: Duration) {
        if let Some(b) = &self.bar {
            b.set_message(format!(
                "{}: {} · {}:{:02}",
                self.at,
                crate::text::clean(&self.label),
                t.as_secs() / 60,
                t.as_secs() % 60
            ));
            b.tick();
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// `head: 15.1 s to its result; runs 4-5`, or why it failed.
pub fn done_line(head: &str, b: &Ran) -> String {
    let ids = crate::text::id_list(&b.ids);
    let line = match &b.failed {
        None => format!("{head}: {:.1} s to its result; runs {ids}", b.wall_s),
        Some(why) => format!(
            "{head}: failed after {:.1} s: {why} (stored as run {ids})",
            b.wall_s
        ),
    };
    crate::text::wrap(&crate::text::clean(&line), crate::text::width())
}

/// A session's own part of its plan (`vm/<id>` in the store): its arms,
/// the accelerator and each boot as it ended.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct State {
    pub arms: Vec<serde_json::Value>,
    pub accel: serde_json::Value,
    pub started: f64,
    pub boots: Vec<serde_json::Value>,
}

impl State {
    pub fn new(s: &Session) -> State {
        State {
            arms: s
                .arms
                .iter()
                .map(|a| {
                    serde_json::json!({
                        "label": a.label, "kernel": a.kernel, "calibration": a.calibration,
                        "image": s.images[a.kernel].path.display().to_string(),
                        "release": s.images[a.kernel].release,
                        "cmdline": s.cmdlines[a.kernel],
                    })
                })
                .collect(),
            accel: serde_json::to_value(&s.machine.accel).unwrap_or_default(),
            started: crate::sys::time::unix_now(),
            boots: Vec::new(),
        }
    }

    pub fn boot(&mut self, n: usize, arm: usize, b: &Ran) {
        self.boots.push(serde_json::json!({
            "boot": n, "arm": arm,
            "status": match (&b.failed, b.interrupted) { (None, _) => "ok", (_, true) => "interrupted", _ => "failed" },
            "reason": b.failed, "wall_s": b.wall_s, "runs": b.ids,
            "uuids": b.runs.iter().map(|r| r.uuid.clone()).collect::<Vec<_>>(),
        }));
    }

    /// How many boots ended well.
    pub fn ok_boots(&self) -> usize {
        self.boots.iter().filter(|b| b["status"] == "ok").count()
    }
}

/// The session's complete runs: those its guests stored, whatever
/// experiment a guest's own command tagged them with (a matrix in the
/// guest tags its runs as its own).
fn session_runs(store: &dyn Store, plan: &Plan<State>) -> Result<Vec<RunRecord>> {
    crate::experiment::engine::runs_where(store, &[], Some(plan.state.started), |r| {
        r.settings["vm"]["session"] == plan.id.as_str()
    })
}

fn options(o: &Options, labels: Vec<String>) -> compare::Options {
    compare::Options {
        labels,
        allow_emulated: o.allow_emulated,
        threshold_pct: o.threshold_pct,
        ..compare::Options::default()
    }
}

/// The closing report: the A/A calibration when asked, then the kernels.
pub fn closing(o: &Options, s: &Session, store: &dyn Store, plan: &Plan<State>) -> Result<()> {
    let runs = session_runs(store, plan)?;
    let has_runs = |l: &String| runs.iter().any(|r| &r.label == l);
    let ab_labels: Vec<String> = s
        .arms
        .iter()
        .filter(|a| !a.calibration)
        .map(|a| a.label.clone())
        .filter(has_runs)
        .collect();
    let aa_labels: Vec<String> = match s.arms.iter().find(|a| a.calibration) {
        Some(twin) => [s.arms[0].label.clone(), twin.label.clone()]
            .into_iter()
            .filter(has_runs)
            .collect(),
        None => Vec::new(),
    };
    let aa = (aa_labels.len() == 2)
        .then(|| compare::build(&runs, &options(o, aa_labels)))
        .transpose()?;
    let ab = (ab_labels.len() >= 2)
        .then(|| compare::build(&runs, &options(o, ab_labels)))
        .transpose()?;
    let f = &o.front;
    if f.json {
        let doc = serde_json::json!({ "session": plan, "calibration": aa, "comparison": ab });
        f.line(&crate::session::json_doc("vm", doc)?);
        return Ok(());
    }
    let colour = crate::text::colour::stdout();
    if o.aa && aa.is_none() {
        f.line("A/A calibration: not enough boots of the first kernel gave runs under both of its labels");
    }
    if let Some(mut c) = aa {
        c.wide = o.wide;
        f.line("A/A calibration: the first kernel against itself, the VM's own noise floor");
        f.out(&crate::report::terminal::render(&c, colour, false));
        for l in compare::noise::noise_floor(&c) {
            f.line(&crate::text::wrap(&l, crate::text::width()));
        }
        f.line("");
    }
    match ab {
        Some(mut c) => {
            c.wide = o.wide;
            f.line(&format!(
                "The kernels, boots interleaved ({}):",
                plan_line(s)
            ));
            f.out(&crate::report::terminal::render(&c, colour, false));
        }
        None if s.arms.iter().filter(|a| !a.calibration).count() >= 2 => {
            f.line("no comparison: fewer than two kernels gave complete runs (see the boots above)")
        }
        None => {}
    }
    Ok(())
}

fn plan_line(s: &Session) -> String {
    format!("session {}, seed {}", s.id, s.seed)
}
