//! Typed values at the edge: durations, sizes, CPU lists, policies, load
//! names and sleep patterns are parsed once, by clap, on the command line
//! and in scenario files alike (a scenario's task arguments go through the
//! same parser when the file is read), so a bad value is refused before
//! anything starts.

use std::time::Duration;

/// A duration: `30`, `30s`, `500ms`, `5m`, `1h` (at most a year).
pub fn duration(s: &str) -> Result<Duration, String> {
    crate::sys::time::parse_duration(s)
}

/// A size: `64M`, `2G`, `4096`.
/// A date, `YYYY-MM-DD` (midnight UTC) or RFC 3339, as Unix seconds: the
/// `--since` of compare, track, push and pull, read once here.
pub fn date(s: &str) -> Result<f64, String> {
    crate::sys::time::parse_date(s)
        .ok_or_else(|| format!("'{s}' is not a date (YYYY-MM-DD or RFC 3339)"))
}

pub fn size(s: &str) -> Result<u64, String> {
    crate::sys::size::parse(s)
}

/// A list of online CPUs in numactl syntax (`0-3,8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuList(pub Vec<usize>);

pub fn cpu_list(s: &str) -> Result<CpuList, String> {
    crate::sys::cpus::parse_online(s).map(CpuList)
}

/// A CPU list, or `auto` (schbench's pinning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pinning {
    Auto,
    Cpus(Vec<usize>),
}

pub fn pinning(s: &str) -> Result<Pinning, String> {
    if s == "auto" {
        return Ok(Pinning::Auto);
    }
    crate::sys::cpus::parse_online(s).map(Pinning::Cpus)
}

/// A scheduling policy: fifo, rr, other (normal), batch, idle.
pub fn policy(s: &str) -> Result<crate::sys::sched::Policy, String> {
    crate::sys::sched::Policy::parse(s).map_err(|e| e.to_string())
}

/// Positive seconds separated by commas: `1,2,3`.
#[derive(Clone, Debug, PartialEq)]
pub struct SleepPattern(pub Vec<f64>);

pub fn sleep_pattern(s: &str) -> Result<SleepPattern, String> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0 && *v <= 86_400.0)
        })
        .collect::<Option<Vec<_>>>()
        .map(SleepPattern)
        .ok_or_else(|| {
            "must be positive seconds (at most a day each) separated by commas, like 1,2,3"
                .to_string()
        })
}

/// One of the loads kbench knows.
pub fn load_name(s: &str) -> Result<String, String> {
    if crate::load::find(s).is_some() {
        Ok(s.to_string())
    } else {
        Err(format!(
            "unknown load '{s}' (known: {})",
            crate::load::names().join(", ")
        ))
    }
}

/// contest's loads separated by commas (its `noload` and `cacherun`
/// included), or `all` (every load that can run here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadList(pub Option<Vec<String>>);

pub fn load_list(s: &str) -> Result<LoadList, String> {
    if s.trim() == "all" || s.trim().is_empty() {
        return Ok(LoadList(None));
    }
    s.split(',')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| match l {
            "noload" | "cacherun" => Ok(l.to_string()),
            _ => load_name(l),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(|v| LoadList(Some(v)))
}

/// The generated C project's size.
pub fn job_size(s: &str) -> Result<String, String> {
    match s {
        "tiny" | "small" | "medium" | "large" => Ok(s.to_string()),
        _ => Err("use tiny, small, medium or large".into()),
    }
}

/// `--runs`: a count, or `auto[:MAX]` (repeat until the answer is clear,
/// at most MAX runs; 20 by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    Fixed(u32),
    Auto { max: u32 },
}

/// Most runs one command may be asked for.
pub const MAX_RUNS: u32 = 100_000;
/// `--runs auto`'s cap when none is given.
pub const AUTO_MAX: u32 = 20;

pub fn runs(s: &str) -> Result<Runs, String> {
    let count = |v: &str| match v.parse::<u32>() {
        Ok(n) if (1..=MAX_RUNS).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{v}' is not a number of runs from 1 to {MAX_RUNS}"
        )),
    };
    match s.strip_prefix("auto") {
        Some("") => Ok(Runs::Auto { max: AUTO_MAX }),
        Some(rest) => match rest.strip_prefix(':') {
            Some(m) => count(m).and_then(|max| {
                if max < 3 {
                    Err("auto needs a MAX of at least 3 runs".into())
                } else {
                    Ok(Runs::Auto { max })
                }
            }),
            None => Err(format!("'{s}': use a number, auto or auto:MAX")),
        },
        None => count(s).map(Runs::Fixed),
    }
}

/// A percentage: a finite number from 0 to 1000.
/// A label (`--label`): 1-200 characters, none that a terminal obeys or
/// that reorders the text around it (a label is printed in every report).
pub fn label(s: &str) -> Result<String, String> {
    let n = s.chars().count();
    if n == 0 || n > 200 {
        return Err(format!("a label is 1-200 characters ({n} given)"));
    }
    if crate::text::clean(s) != s {
        return Err(format!(
            "label '{}' has a control or text-direction character",
            crate::text::clean(s)
        ));
    }
    Ok(s.to_string())
}

/// An error rate (`--alpha` of every command that states one: compare's
/// verdicts, matrix, bisect, decide, track's false discovery rate):
/// above 0 and below 0.5 (a rate of one half or more decides nothing).
pub fn alpha(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(a) if a > 0.0 && a < 0.5 => Ok(a),
        _ => Err(format!(
            "'{s}' is not an error rate (a significance level, or a false discovery rate) above 0 and below 0.5, such as 0.05"
        )),
    }
}

pub fn percent(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("'{s}' is not a percentage"))?;
    if v.is_finite() && (0.0..=1000.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{s} is outside 0-1000 %"))
    }
}

/// A positive percentage.
pub fn positive_percent(s: &str) -> Result<f64, String> {
    match percent(s)? {
        v if v > 0.0 => Ok(v),
        _ => Err(format!("{s} is not above 0 %")),
    }
}

/// A non-negative number of seconds, at most a year.
#[cfg(debug_assertions)]
pub fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=31_622_400.0).contains(&v) => Ok(v),
        _ => Err(format!("'{s}' is not a number of seconds from 0 to a year")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_or_say_why() {
        assert_eq!(duration("1500ms"), Ok(Duration::from_millis(1500)));
        assert!(duration("5x").is_err());
        assert_eq!(sleep_pattern("1, 2.5").unwrap().0, vec![1.0, 2.5]);
        assert!(sleep_pattern("1,,2").is_err());
        assert!(sleep_pattern("-1").is_err());
        assert_eq!(pinning("auto"), Ok(Pinning::Auto));
        assert_eq!(load_list("all"), Ok(LoadList(None)));
        assert!(load_list("io,fio")
            .unwrap_err()
            .contains("unknown load 'fio'"));
        assert!(job_size("huge").is_err());
        assert!(policy("deadline").is_err());
        assert_eq!(runs("3"), Ok(Runs::Fixed(3)));
        assert_eq!(runs("auto"), Ok(Runs::Auto { max: AUTO_MAX }));
        assert_eq!(runs("auto:50"), Ok(Runs::Auto { max: 50 }));
        assert!(runs("0").is_err() && runs("auto:2").is_err() && runs("autox").is_err());
    }
}
