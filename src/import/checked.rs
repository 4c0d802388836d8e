//! What an imported number may be.  Another tool's log is input like any
//! other: a figure no run can have produced (a latency beyond an hour, a
//! count beyond 2^53, a negative time, NaN, infinity, `1e400`) is refused
//! with the line it stands on, never wrapped, clamped or coerced to 0.
//! Every importer (CSV, hackbench, cyclictest text and JSON) reads its
//! numbers through these functions, so the rule is one rule.

use anyhow::Result;

/// The longest latency an importer accepts, in microseconds (an hour).
pub const MAX_LATENCY_US: u64 = 3_600 * 1_000_000;

/// The largest count an importer accepts: 2^53, the largest integer an
/// `f64` metric holds exactly.
pub const MAX_COUNT: u64 = 1 << 53;

/// The longest time in seconds an importer accepts (30 days: a timed job
/// runs for hours, never for months).
pub const MAX_SECONDS: f64 = 30.0 * 86_400.0;

/// Where a number was read, for the refusal: `line 12` or `thread 3`.
pub type Place<'a> = &'a dyn std::fmt::Display;

fn refuse(place: Place, msg: String) -> anyhow::Error {
    crate::error::input(format!("{place}: {msg}"))
}

/// A latency in microseconds as written (`Min: 20`, a histogram key):
/// a whole, non-negative number up to an hour.
pub fn latency_us(place: Place, what: &str, v: f64) -> Result<u64> {
    if !v.is_finite() || !(0.0..=MAX_LATENCY_US as f64).contains(&v) {
        return Err(refuse(
            place,
            format!("{what} {v} is not a latency (0 to {MAX_LATENCY_US} us)"),
        ));
    }
    Ok(v.round() as u64)
}

/// A mean latency in microseconds: finite, non-negative, up to an hour.
pub fn mean_us(place: Place, what: &str, v: f64) -> Result<f64> {
    latency_us(place, what, v)?;
    Ok(v)
}

/// A latency in microseconds as nanoseconds at the middle of its
/// microsecond (where a histogram row's samples are recorded).
pub fn bucket_ns(place: Place, what: &str, us: u64) -> Result<u64> {
    if us > MAX_LATENCY_US {
        return Err(refuse(
            place,
            format!("{what} {us} is not a latency (0 to {MAX_LATENCY_US} us)"),
        ));
    }
    // Cannot overflow: us is at most 3.6e9, so us * 1000 + 500 < 2^42.
    Ok(us * 1000 + 500)
}

/// A count: a whole, non-negative number up to 2^53.
pub fn count(place: Place, what: &str, v: f64) -> Result<u64> {
    if !v.is_finite() || v < 0.0 || v.fract() != 0.0 || v > MAX_COUNT as f64 {
        return Err(refuse(
            place,
            format!("{what} {v} is not a count (a whole number from 0 to 2^53)"),
        ));
    }
    Ok(v as u64)
}

/// A sum of counts that stays a count.
pub fn add_count(place: Place, what: &str, total: u64, n: u64) -> Result<u64> {
    match total.checked_add(n) {
        Some(t) if t <= MAX_COUNT => Ok(t),
        _ => Err(refuse(
            place,
            format!("{what} adds up to more than 2^53 samples"),
        )),
    }
}

/// A time in seconds: finite, non-negative, up to 30 days.
pub fn seconds(place: Place, what: &str, v: f64) -> Result<f64> {
    if !v.is_finite() || !(0.0..=MAX_SECONDS).contains(&v) {
        return Err(refuse(
            place,
            format!("{what} {v} is not a time (0 to {MAX_SECONDS} s)"),
        ));
    }
    Ok(v)
}

/// A metric value of a given unit (the CSV importer): finite; and for a
/// unit of time, non-negative and within the bounds above; for a count,
/// within 2^53.
pub fn metric(place: Place, unit: &str, v: f64) -> Result<f64> {
    if !v.is_finite() {
        return Err(refuse(place, format!("{v} is not a finite number")));
    }
    let per_s = match unit {
        "ns" => Some(1e9),
        "us" | "µs" => Some(1e6),
        "ms" => Some(1e3),
        "s" => None,
        "count" => {
            count(place, "the count", v)?;
            return Ok(v);
        }
        _ => return Ok(v),
    };
    match per_s {
        Some(per_s) => {
            if v < 0.0 || v / per_s > (MAX_LATENCY_US / 1_000_000) as f64 {
                return Err(refuse(
                    place,
                    format!("{v} {unit} is not a latency (0 to an hour)"),
                ));
            }
            Ok(v)
        }
        None => seconds(place, "the time", v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_refuse_what_no_run_produces() {
        let p: Place = &"line 3";
        assert_eq!(latency_us(p, "Max:", 59.0).unwrap(), 59);
        for bad in [-1.0, f64::NAN, f64::INFINITY, f64::MAX, 3.7e9] {
            let e = latency_us(p, "Max:", bad).unwrap_err().to_string();
            assert!(e.starts_with("line 3: Max:"), "{bad}: {e}");
        }
        assert_eq!(count(p, "C:", 300.0).unwrap(), 300);
        for bad in [-1.0, 0.5, f64::NAN, 1.8446744073709552e19, 9.1e15] {
            assert!(count(p, "C:", bad).is_err(), "{bad}");
        }
        assert!(add_count(p, "C:", MAX_COUNT, 1).is_err());
        assert!(add_count(p, "C:", u64::MAX, 1).is_err());
        assert_eq!(add_count(p, "C:", 2, 3).unwrap(), 5);
        assert!(bucket_ns(p, "row", 18_446_744_073_709_552).is_err());
        assert_eq!(bucket_ns(p, "row", 7).unwrap(), 7_500);
        for bad in [-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e30] {
            assert!(seconds(p, "Time:", bad).is_err(), "{bad}");
        }
        assert_eq!(seconds(p, "Time:", 1.5).unwrap(), 1.5);
        assert!(metric(p, "us", -3.0).is_err());
        assert!(metric(p, "ns", 4e12).is_err());
        assert!(metric(p, "count", 1e17).is_err());
        assert_eq!(metric(p, "%", -3.0).unwrap(), -3.0);
        assert!(metric(p, "%", f64::NAN).is_err());
    }
}
