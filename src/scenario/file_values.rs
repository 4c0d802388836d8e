//! What a scenario file's top-level values resolve to: its variables
//! (the machine's, the file's, `--var`), its `runs`, and its `[sweep]`.

use super::expr::{Value, Vars};
use super::spec::{machine_vars, Ctx, FileSpec};
use crate::error::input;
use anyhow::Result;

/// The variables a scenario's expressions see: the machine's (`ncpu`,
/// `scale`, `root`), the file's `vars`, and `--var` overrides of those.
pub(super) fn vars_of(
    file: &str,
    spec: &FileSpec,
    scale: f64,
    user_vars: &[(String, String)],
) -> Result<Vars> {
    let mut vars = machine_vars(scale);
    for (k, v) in &spec.vars {
        let val = match v {
            toml::Value::String(s) => Value::Str(s.clone()),
            toml::Value::Integer(i) => Value::Num(*i as f64),
            toml::Value::Float(f) => Value::Num(*f),
            toml::Value::Boolean(b) => Value::Num(if *b { 1.0 } else { 0.0 }),
            _ => {
                return Err(input(format!(
                    "{file}: vars.{k} must be a string, number or boolean"
                )))
            }
        };
        vars.insert(k.clone(), val);
    }
    for (k, v) in user_vars {
        if !vars.contains_key(k) || ["ncpu", "scale", "root"].contains(&k.as_str()) {
            return Err(input(format!(
                "--var {k}: {file} has no variable '{k}' (it has: {})",
                spec.vars.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        let val = v
            .parse::<f64>()
            .map(Value::Num)
            .unwrap_or_else(|_| Value::Str(v.clone()));
        vars.insert(k.clone(), val);
    }
    Ok(vars)
}

/// `runs`: a number, or `"auto"` / `"auto:MAX"` with its precision.
pub(super) fn runs_of(cx: &Ctx, spec: &FileSpec) -> Result<(u32, Option<f64>)> {
    let file = cx.file;
    Ok(match &spec.runs {
        None => (1, None),
        Some(v) => {
            let bad = |why: &str| cx.err(v.span(), why);
            match v.get_ref() {
                toml::Value::Integer(n) if (1..=crate::values::MAX_RUNS as i64).contains(n) => {
                    (*n as u32, None)
                }
                toml::Value::Integer(_) => {
                    return Err(bad(&format!(
                        "runs must be from 1 to {}, or \"auto\" / \"auto:MAX\"",
                        crate::values::MAX_RUNS
                    )))
                }
                toml::Value::String(s) => match crate::values::runs(s) {
                    Ok(crate::values::Runs::Fixed(n)) => (n, None),
                    Ok(crate::values::Runs::Auto { max }) => {
                        let p = spec.precision.unwrap_or(2.0);
                        if !(p.is_finite() && p > 0.0) {
                            return Err(input(format!(
                                "{file}: precision {p} must be a percentage above 0"
                            )));
                        }
                        (max, Some(p))
                    }
                    Err(e) => return Err(bad(&e)),
                },
                _ => return Err(bad("runs is a number or \"auto\" / \"auto:MAX\"")),
            }
        }
    })
}

/// The file's `[sweep]` variables not set with `--var` (a sweep's own
/// point is not swept again); each must be a variable of the file.
pub(super) fn sweep_of(
    file: &str,
    spec: &FileSpec,
    user_vars: &[(String, String)],
) -> Result<Vec<(String, String)>> {
    let mut sweep = Vec::new();
    for (k, v) in &spec.sweep {
        if !spec.vars.contains_key(k) {
            return Err(input(format!(
                "{file}: sweep.{k}: not a variable of the file (give it a default in [vars])"
            )));
        }
        // A variable set from the command line (a sweep's own point) is
        // not swept again.
        if !user_vars.iter().any(|(u, _)| u == k) {
            sweep.push((k.clone(), v.clone()));
        }
    }
    Ok(sweep)
}
