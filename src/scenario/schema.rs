//! Reading a scenario file: TOML into typed phases and tasks, with every
//! error naming the file, line and column and what was expected.

use super::expr::{self, Vars};
use super::file_values::{runs_of, sweep_of, vars_of};
#[cfg(test)]
use super::spec::line_col;
pub use super::spec::machine_vars;
use super::spec::{Ctx, FileSpec, TaskSpec};
use super::{Phase, Role, Scenario, Task};
use crate::error::input;
use crate::sys::sched::{self, Policy};
use anyhow::Result;
use std::collections::BTreeMap;
use toml::Spanned;

/// Parse and resolve a scenario.  `scale` and `vars` override the file's.
pub fn parse(
    file: &str,
    src: &str,
    scale: Option<f64>,
    user_vars: &[(String, String)],
) -> Result<Scenario> {
    let cx = Ctx { file, src };
    // Reading a file of thousands of phases takes seconds: on its own
    // thread, so Ctrl-C is heard meanwhile (the thread ends with the
    // process; nothing has started yet).
    let text = src.to_string();
    let spec: FileSpec =
        crate::sys::signals::interruptible(move || toml::from_str::<FileSpec>(&text))?.map_err(
            |e| {
                let span = e.span().unwrap_or(0..0);
                cx.err(span, e.message().trim())
            },
        )?;
    let scale = scale.unwrap_or(spec.scale);
    if !(scale.is_finite() && scale > 0.0) {
        return Err(input(format!(
            "{file}: scale {scale} must be greater than zero"
        )));
    }
    let (runs, auto_precision) = runs_of(&cx, &spec)?;
    if spec.precision.is_some() && auto_precision.is_none() {
        return Err(input(format!(
            "{file}: precision applies only with runs = \"auto\" or \"auto:MAX\""
        )));
    }
    let vars = vars_of(file, &spec, scale, user_vars)?;
    let sweep = sweep_of(file, &spec, user_vars)?;
    if spec.phases.is_empty() {
        return Err(input(format!(
            "{file}: a scenario needs at least one [[phase]]"
        )));
    }
    let mut phases = Vec::new();
    for sp in &spec.phases {
        // A file of thousands of phases takes seconds to check: Ctrl-C is
        // heard between them.
        crate::sys::signals::stop_point()?;
        let p = sp.get_ref();
        if !p.tasks.iter().any(|t| t.get_ref().role == Role::Probe) {
            return Err(cx.err(
                sp.span(),
                format!(
                    "phase '{}' has no probe: a phase lasts until its probes finish",
                    p.name
                ),
            ));
        }
        let settle = match &p.settle {
            Some(s) => crate::sys::time::parse_duration(
                &expr::expand(s, &vars).map_err(|e| cx.err(sp.span(), e))?,
            )
            .map_err(|e| cx.err(sp.span(), format!("settle: {e}")))?,
            None => std::time::Duration::ZERO,
        };
        let mut tasks = Vec::new();
        for (i, st) in p.tasks.iter().enumerate() {
            tasks.push(task(&cx, st, i, &vars, spec.trace)?);
        }
        let mut names: Vec<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(cx.err(
                sp.span(),
                format!("two tasks named '{}' in phase '{}'", w[0], p.name),
            ));
        }
        phases.push(Phase {
            name: p.name.clone(),
            drop_caches: p.drop_caches,
            settle,
            tasks,
        });
    }
    Ok(Scenario {
        name: spec.name,
        description: spec.description,
        runs,
        auto_precision,
        scale,
        isolate: spec.isolate,
        phases,
        sweep,
    })
}

/// The long flags (and positional names) a subcommand accepts.
fn known_flags(kind: &str) -> (Vec<String>, Vec<String>) {
    let Some(sub) = crate::registry::find(kind).map(|e| (e.command)()) else {
        return (vec![], vec![]);
    };
    let mut flags = Vec::new();
    let mut positional = Vec::new();
    for a in sub.get_arguments() {
        if a.is_global_set() || a.get_id() == "help" {
            continue;
        }
        if a.is_positional() {
            positional.push(a.get_id().to_string());
        } else if let Some(l) = a.get_long() {
            flags.push(l.to_string());
        }
    }
    (flags, positional)
}

/// Add `--trace` to a task's command line where its own `trace` or the
/// file's asks for it: the file's applies to the probes that can be
/// traced; a task's own to a kind that cannot is an error.
fn traced(
    cx: &Ctx,
    st: &Spanned<TaskSpec>,
    file_trace: bool,
    argv: &mut Vec<String>,
) -> Result<()> {
    let t = st.get_ref();
    let kind = t.kind.get_ref();
    let can = known_flags(kind).0.iter().any(|f| f == "trace");
    let want = match &t.trace {
        Some(v) if *v.get_ref() && !can => {
            let probes: Vec<&str> = crate::registry::names()
                .filter(|k| known_flags(k).0.iter().any(|f| f == "trace"))
                .collect();
            return Err(cx.err(
                v.span(),
                format!(
                    "{kind} cannot be traced (trace = true is for {})",
                    probes.join(", ")
                ),
            ));
        }
        Some(v) => *v.get_ref(),
        None => file_trace && can && t.role == Role::Probe,
    };
    if want && !argv.iter().any(|a| a == "--trace") {
        argv.push("--trace".into());
    }
    Ok(())
}

fn task(
    cx: &Ctx,
    st: &Spanned<TaskSpec>,
    index: usize,
    vars: &Vars,
    file_trace: bool,
) -> Result<Task> {
    let t = st.get_ref();
    let kind = t.kind.get_ref().clone();
    let Some(entry) = crate::registry::find(&kind) else {
        return Err(cx.err(
            t.kind.span(),
            format!(
                "unknown task kind '{kind}' (expected one of: {})",
                crate::registry::names().collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    check_show(cx, st, entry)?;
    let mut argv = task_argv(cx, st, vars)?;
    traced(cx, st, file_trace, &mut argv)?;
    let p = placement(cx, st, vars)?;
    let name = t
        .name
        .clone()
        .unwrap_or_else(|| format!("{kind}{}", index + 1));
    Ok(Task {
        own_session: p.own_session,
        row: t.row.clone().unwrap_or_else(|| name.clone()),
        show: t
            .show
            .clone()
            .unwrap_or_else(|| vec![entry.headline.to_string()]),
        estimate_s: (entry.estimate)(&argv),
        name,
        kind,
        role: t.role,
        argv,
        cpus: p.cpus,
        policy: p.policy,
        nice: p.nice,
    })
}

/// The metrics a task's `show` names are metrics of its kind.
fn check_show(cx: &Ctx, st: &Spanned<TaskSpec>, entry: &crate::registry::Entry) -> Result<()> {
    let t = st.get_ref();
    let kind = entry.name;
    if let Some(show) = &t.show {
        if let Some(bad) = show
            .iter()
            .find(|m| !m.contains('.') && !entry.metrics.iter().any(|d| d.name == m.as_str()))
        {
            return Err(cx.err(
                st.span(),
                format!(
                    "show: {kind} has no metric '{bad}' (it has: {})",
                    entry
                        .metrics
                        .iter()
                        .map(|d| format!(
                            "{} ({}, {} is better)",
                            d.name,
                            d.unit,
                            d.better.as_str()
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The task's `args` as the command line its child kbench gets, checked
/// exactly as the command line would be.
fn task_argv(cx: &Ctx, st: &Spanned<TaskSpec>, vars: &Vars) -> Result<Vec<String>> {
    let t = st.get_ref();
    let kind = t.kind.get_ref().clone();
    let (flags, positional) = known_flags(&kind);
    let mut argv = Vec::new();
    let mut pos_vals: BTreeMap<String, String> = BTreeMap::new();
    if let Some(args) = &t.args {
        for (k, v) in args.get_ref() {
            let words = ArgCx {
                cx,
                args,
                vars,
                kind: &kind,
            };
            if positional.contains(&k.to_string()) {
                if let Some(s) = words.text(k, v)? {
                    pos_vals.insert(k.clone(), s);
                }
                continue;
            }
            words.flag(k, v, &flags, &mut argv)?;
        }
    }
    for p in &positional {
        match pos_vals.remove(p) {
            Some(v) => argv.push(v),
            None => {
                return Err(cx.err(st.span(), format!("{kind} needs args.{p}")));
            }
        }
    }
    // Check the flags exactly as the command line would.
    if let Err(e) = crate::registry::check(&kind, &argv) {
        let msg = e.to_string();
        let first = msg
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("error: ")
            .to_string();
        return Err(cx.err(
            t.args.as_ref().map_or(st.span(), |a| a.span()),
            format!("{kind}: {first}"),
        ));
    }
    Ok(argv)
}

/// What turning one task's `args` into words needs.
struct ArgCx<'a> {
    cx: &'a Ctx<'a>,
    args: &'a Spanned<toml::map::Map<String, toml::Value>>,
    vars: &'a Vars,
    kind: &'a str,
}

impl ArgCx<'_> {
    /// A value as one word (`None` for an empty string).
    fn text(&self, k: &str, v: &toml::Value) -> Result<Option<String>> {
        let (cx, args) = (self.cx, self.args);
        Ok(match v {
            toml::Value::String(s) => {
                let e = expr::expand(s, self.vars)
                    .map_err(|e| cx.err(args.span(), format!("args.{k}: {e}")))?;
                (!e.is_empty()).then_some(e)
            }
            toml::Value::Integer(i) => Some(i.to_string()),
            toml::Value::Float(f) => Some(expr::format_num(*f)),
            toml::Value::Boolean(b) => Some(if *b { "1" } else { "0" }.to_string()),
            _ => {
                return Err(cx.err(
                    args.span(),
                    format!("args.{k}: expected a string, number or boolean"),
                ))
            }
        })
    }

    /// `args.k = v` as `--k v` (a switch as `--k` or nothing, a list as
    /// the flag repeated), pushed onto `argv`.
    fn flag(
        &self,
        k: &str,
        v: &toml::Value,
        flags: &[String],
        argv: &mut Vec<String>,
    ) -> Result<()> {
        let (cx, args, kind) = (self.cx, self.args, self.kind);
        let text = |v: &toml::Value| self.text(k, v);
        let flag = k.replace('_', "-");
        if !flags.contains(&flag) {
            return Err(cx.err(
                args.span(),
                format!(
                    "unknown flag '{k}' for {kind} (known: {})",
                    flags
                        .iter()
                        .map(|f| f.replace('-', "_"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        let is_switch = crate::registry::find(kind)
            .map(|e| (e.command)())
            .and_then(|s| {
                s.get_arguments()
                    .find(|a| a.get_long() == Some(flag.as_str()))
                    .map(|a| !a.get_action().takes_values())
            })
            .unwrap_or(false);
        match (is_switch, v) {
            (true, toml::Value::Boolean(b)) => {
                if *b {
                    argv.push(format!("--{flag}"));
                }
            }
            (true, toml::Value::String(_)) => {
                // An expression deciding a switch: "${root}".
                let s = text(v)?.unwrap_or_default();
                match s.as_str() {
                    "1" | "true" => argv.push(format!("--{flag}")),
                    "0" | "false" | "" => {}
                    other => {
                        return Err(cx.err(
                            args.span(),
                            format!("args.{k}: switch wants true/false or 0/1, got '{other}'"),
                        ))
                    }
                }
            }
            (true, _) => {
                return Err(cx.err(
                    args.span(),
                    format!("args.{k}: {flag} is a switch: use true or false"),
                ))
            }
            (false, toml::Value::Array(items)) => {
                for item in items {
                    if let Some(s) = text(item)? {
                        argv.push(format!("--{flag}"));
                        argv.push(s);
                    }
                }
            }
            (false, v) => {
                if let Some(s) = text(v)? {
                    argv.push(format!("--{flag}"));
                    argv.push(s);
                }
            }
        }
        Ok(())
    }
}

/// Where and how a task runs.
struct Placement {
    cpus: Option<Vec<usize>>,
    policy: Option<(Policy, i32)>,
    nice: Option<i32>,
    own_session: bool,
}

/// A task's CPUs, scheduling policy and priority, nice level and session.
fn placement(cx: &Ctx, st: &Spanned<TaskSpec>, vars: &Vars) -> Result<Placement> {
    let t = st.get_ref();
    let cpus = match &t.cpus {
        Some(c) => {
            let s = expr::expand(c.get_ref(), vars).map_err(|e| cx.err(c.span(), e))?;
            Some(crate::sys::cpus::parse_online(&s).map_err(|e| cx.err(c.span(), e))?)
        }
        None => None,
    };
    let num = |v: &Option<toml::Value>, what: &str| -> Result<Option<i32>> {
        Ok(match v {
            None => None,
            Some(toml::Value::Integer(i)) => Some(
                i32::try_from(*i)
                    .map_err(|_| cx.err(st.span(), format!("{what} {i} is out of range")))?,
            ),
            Some(toml::Value::String(s)) => {
                let e = expr::expand(s, vars).map_err(|e| cx.err(st.span(), e))?;
                Some(e.parse::<i32>().map_err(|_| {
                    cx.err(st.span(), format!("{what} '{e}' is not a whole number"))
                })?)
            }
            Some(_) => return Err(cx.err(st.span(), format!("{what} must be a number"))),
        })
    };
    let priority = num(&t.priority, "priority")?;
    let policy = match (&t.policy, priority) {
        (None, None) => None,
        (p, prio) => {
            let pol = match p {
                Some(p) => Policy::parse(p).map_err(|e| cx.err(st.span(), e))?,
                None => Policy::Fifo,
            };
            let prio = prio.unwrap_or(0);
            if pol.is_realtime() {
                sched::check_priority(prio).map_err(|e| cx.err(st.span(), e))?;
            }
            Some((pol, prio))
        }
    };
    let nice = num(&t.nice, "nice")?;
    if let Some(n) = nice {
        if !(-20..=19).contains(&n) {
            return Err(cx.err(st.span(), format!("nice {n} is out of range -20..19")));
        }
    }
    let own_session = match &t.session {
        None => true,
        Some(v) => match v.get_ref().as_str() {
            "own" => true,
            "shared" => false,
            other => {
                return Err(cx.err(
                    v.span(),
                    format!("session '{other}' must be \"own\" or \"shared\""),
                ))
            }
        },
    };
    Ok(Placement {
        cpus,
        policy,
        nice,
        own_session,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let s = "a = 1\nbb = 2\n";
        assert_eq!(line_col(s, 0), (1, 1));
        assert_eq!(line_col(s, 6), (2, 1));
        assert_eq!(line_col(s, 9), (2, 4));
    }
}
