//! `--vary FLAG=VALUES`: a benchmark's own flag as a dimension of a
//! matrix.  Values are a comma list of numbers or words, integer ranges
//! (`1..8`: every integer; `1..16:x2`: each twice the last; `0..100:+25`:
//! each 25 more) and `${…}` expressions over the machine's variables
//! (`${ncpu*2}`), in any mix: `1..${ncpu*2}:x2`.  Each point goes on the
//! command line as `--FLAG VALUE` (or, with `run SCENARIO`, as `--var
//! FLAG=VALUE`), so it is in the runs' parameters, not only their label:
//! stored runs of an earlier sweep and single runs with the same flags
//! meet in one comparison.

use crate::error::input;
use anyhow::Result;

/// At most this many points in one dimension.
pub const MAX_POINTS: usize = 64;

/// One varied flag and its points.
#[derive(Clone, Debug, PartialEq)]
pub struct Vary {
    pub flag: String,
    pub values: Vec<String>,
    /// Whether the points grow by a factor (drawn on a log scale).
    pub geometric: bool,
}

/// A range's step.
enum Step {
    Add(i64),
    Times(i64),
}

/// `FLAG=VALUES`, checked; `${…}` expanded with the machine's variables.
pub fn parse(spec: &str) -> Result<Vary> {
    let bad = |why: String| input(format!("--vary {spec}: {why}"));
    let (flag, values) = spec
        .split_once('=')
        .ok_or_else(|| bad("give FLAG=VALUES, e.g. groups=1,2,4 or groups=1..16:x2".into()))?;
    let flag = flag.trim().trim_start_matches("--");
    if flag.is_empty()
        || !flag
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(bad(format!(
            "'{flag}' is not a flag name (a long flag without its dashes, e.g. groups)"
        )));
    }
    let vars = crate::scenario::schema::machine_vars(1.0);
    let expanded = crate::scenario::expr::expand(values, &vars).map_err(&bad)?;
    let mut out: Vec<String> = Vec::new();
    let mut geometric = false;
    for item in expanded.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(bad("an empty value".into()));
        }
        match item.split_once("..") {
            Some((a, rest)) => {
                let (b, step) = match rest.split_once(':') {
                    Some((b, s)) => (b, Some(s)),
                    None => (rest, None),
                };
                let int = |t: &str| {
                    t.trim().parse::<i64>().map_err(|_| {
                        bad(format!("'{t}' in the range '{item}' is not a whole number"))
                    })
                };
                let (a, b) = (int(a)?, int(b)?);
                let step = match step.map(str::trim) {
                    None => Step::Add(1),
                    Some(s) if s.starts_with('x') => {
                        geometric = true;
                        Step::Times(int(&s[1..])?)
                    }
                    Some(s) => Step::Add(int(s.trim_start_matches('+'))?),
                };
                range(a, b, &step, item, &mut out).map_err(&bad)?;
            }
            None => out.push(item.to_string()),
        }
        if out.len() > MAX_POINTS {
            return Err(bad(format!("more than {MAX_POINTS} points")));
        }
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(d) = out.iter().find(|v| !seen.insert(v.as_str())) {
        return Err(bad(format!("{d} is given twice")));
    }
    if out.len() < 2 {
        return Err(bad("a sweep needs at least two points".into()));
    }
    Ok(Vary {
        flag: flag.to_string(),
        values: out,
        geometric,
    })
}

/// The integers from `a` to `b` by `step`, appended to `out` (checked
/// arithmetic: a step that would overflow ends the range).
fn range(a: i64, b: i64, step: &Step, item: &str, out: &mut Vec<String>) -> Result<(), String> {
    if a > b {
        return Err(format!("the range '{item}' runs backwards"));
    }
    match step {
        Step::Add(s) if *s <= 0 => return Err(format!("the step of '{item}' must be above 0")),
        Step::Times(f) if *f < 2 => {
            return Err(format!("the factor of '{item}' must be 2 or more"))
        }
        Step::Times(_) if a <= 0 => {
            return Err(format!("a range by a factor ('{item}') must start above 0"))
        }
        _ => {}
    }
    let mut v = a;
    while v <= b {
        out.push(v.to_string());
        if out.len() > MAX_POINTS {
            return Err(format!("more than {MAX_POINTS} points"));
        }
        let next = match step {
            Step::Add(s) => v.checked_add(*s),
            Step::Times(f) => v.checked_mul(*f),
        };
        match next {
            Some(n) => v = n,
            None => break,
        }
    }
    Ok(())
}

/// The words that put `value` of `v` on a command line: `--FLAG VALUE`,
/// or with a scenario `--var FLAG=VALUE`.
pub fn words(v: &Vary, value: &str, scenario: bool) -> Vec<String> {
    if scenario {
        vec!["--var".into(), format!("{}={value}", v.flag)]
    } else {
        vec![format!("--{}", v.flag), value.to_string()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(s: &str) -> Vec<String> {
        parse(s).unwrap().values
    }

    #[test]
    fn lists_ranges_steps_factors_and_expressions() {
        assert_eq!(vals("groups=1,2,4"), ["1", "2", "4"]);
        assert_eq!(vals("--groups=1..4"), ["1", "2", "3", "4"]);
        assert_eq!(vals("groups=1..16:x2"), ["1", "2", "4", "8", "16"]);
        assert_eq!(vals("groups=1..20:x2"), ["1", "2", "4", "8", "16"]);
        assert_eq!(vals("loops=0..100:+25"), ["0", "25", "50", "75", "100"]);
        assert_eq!(vals("pipe=false,true"), ["false", "true"]);
        assert_eq!(vals("x=1,3..4"), ["1", "3", "4"]);
        assert!(parse("groups=1..16:x2").unwrap().geometric);
        assert!(!parse("groups=1..16").unwrap().geometric);
        let n = crate::sys::cpus::online_here().len();
        assert_eq!(
            vals("t=${ncpu},${ncpu*2}"),
            [n.to_string(), (2 * n).to_string()]
        );
        let top = parse("t=1..${ncpu*2}:x2").unwrap().values;
        assert_eq!(top.first().map(String::as_str), Some("1"));
        assert_eq!(
            words(&parse("groups=1,2").unwrap(), "2", false),
            ["--groups", "2"]
        );
        assert_eq!(
            words(&parse("load=1,2").unwrap(), "2", true),
            ["--var", "load=2"]
        );
    }

    #[test]
    fn bad_ranges_are_refused_with_the_reason() {
        for (spec, why) in [
            ("groups", "give FLAG=VALUES"),
            ("=1,2", "is not a flag name"),
            ("g r=1,2", "is not a flag name"),
            ("groups=4..1", "runs backwards"),
            (
                "groups=1..a",
                "'a' in the range '1..a' is not a whole number",
            ),
            (
                "groups=1..8:x1",
                "the factor of '1..8:x1' must be 2 or more",
            ),
            ("groups=0..8:x2", "must start above 0"),
            ("groups=1..8:+0", "the step of '1..8:+0' must be above 0"),
            ("groups=1..1000", "more than 64 points"),
            ("groups=1,,2", "an empty value"),
            ("groups=1,1", "1 is given twice"),
            ("groups=4", "at least two points"),
            ("groups=${nope}", "unknown variable 'nope'"),
            (
                "groups=-9223372036854775808..9223372036854775807:x2",
                "must start above 0",
            ),
        ] {
            let e = parse(spec).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("--vary {spec}: ")) && e.contains(why),
                "{spec}: {e}"
            );
        }
        // A factor that would overflow ends the range instead.
        assert_eq!(
            parse("g=4611686018427387904..9223372036854775807:x2").unwrap_err().to_string(),
            "--vary g=4611686018427387904..9223372036854775807:x2: a sweep needs at least two points"
        );
    }
}
