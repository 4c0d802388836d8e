//! Monotonic clock reads and absolute-deadline sleeps.
//!
//! Latency is measured against absolute deadlines
//! (`clock_nanosleep(TIMER_ABSTIME)`): a relative sleep timed with `Instant`
//! lets drift accumulate and hides exactly the lateness we want to see.

/// Nanoseconds on `clock`.
#[inline]
fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid out-pointer; callers pass clocks every Linux has.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Nanoseconds on `CLOCK_MONOTONIC`.
#[inline]
pub fn mono_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// CPU time the calling thread has used, ns (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu_ns() -> u64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// Sleep until `deadline_ns` on `CLOCK_MONOTONIC`; returns early only on a
/// signal (EINTR), which the caller sees as an earlier wake-up.
#[inline]
pub fn sleep_until_ns(deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: ts is valid; a null remainder is allowed with TIMER_ABSTIME.
    unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            libc::TIMER_ABSTIME,
            &ts,
            std::ptr::null_mut(),
        )
    };
}

/// Seconds since the Unix epoch, as stored in run records.
pub fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Format Unix seconds as RFC 3339 UTC (`2026-11-30T18:26:59Z`).
///
/// Days-to-civil conversion after Howard Hinnant, "chrono-Compatible
/// Low-Level Date Algorithms" (`civil_from_days`).
pub fn rfc3339(unix_s: f64) -> String {
    let secs = unix_s.floor() as i64;
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

/// Parse a date `YYYY-MM-DD` (UTC midnight) or RFC 3339 prefix into Unix seconds.
pub fn parse_date(s: &str) -> Option<f64> {
    let b = s.get(0..10)?;
    let mut it = b.split('-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // days_from_civil, same source as above.
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let mut t = days as f64 * 86_400.0;
    if s.len() >= 19 {
        let hms = s.get(11..19)?;
        let mut p = hms.split(':');
        let h: f64 = p.next()?.parse().ok()?;
        let mi: f64 = p.next()?.parse().ok()?;
        let se: f64 = p.next()?.parse().ok()?;
        t += h * 3600.0 + mi * 60.0 + se;
    }
    Some(t)
}

/// The longest duration accepted anywhere: 366 days.
pub const MAX_DURATION_S: f64 = 366.0 * 86_400.0;

/// Parse a duration: `20` (seconds), `20s`, `500ms`, `250us`, `5m`, `1h`, `1.5s`.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    let (num, mult) = if let Some(n) = s.strip_suffix("us") {
        (n, 1e-6)
    } else if let Some(n) = s.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = s.strip_suffix('h') {
        (n, 3600.0)
    } else if let Some(n) = s.strip_suffix('d') {
        (n, 86_400.0)
    } else {
        (s, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a duration (try 20, 20s, 500ms, 5m or 1h)"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("duration '{s}' must be greater than zero"));
    }
    let secs = v * mult;
    if secs > MAX_DURATION_S {
        return Err(format!(
            "duration '{s}' is longer than a year (at most 366d)"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_bounded() {
        assert!(parse_duration("1e20")
            .unwrap_err()
            .contains("longer than a year"));
        assert!(parse_duration("367d").is_err());
        assert_eq!(parse_duration("1000h").unwrap().as_secs(), 3_600_000);
        assert!(parse_duration("inf").is_err() && parse_duration("-1s").is_err());
        assert_eq!(parse_duration("250us").unwrap().as_micros(), 250);
    }

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(rfc3339(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400.0), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_063_219.0), "2026-11-30T18:26:59Z");
    }

    #[test]
    fn dates_round_trip() {
        for t in [0.0, 951_782_400.0, 1_796_063_219.0, 4_102_444_800.0] {
            assert_eq!(parse_date(&rfc3339(t)), Some(t));
        }
        assert_eq!(parse_date("2026-13-01"), None);
        assert_eq!(parse_date("yesterday"), None);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("20").unwrap().as_secs(), 20);
        assert_eq!(parse_duration("20s").unwrap().as_secs(), 20);
        assert_eq!(parse_duration("5m").unwrap().as_secs(), 300);
        assert_eq!(parse_duration("1h").unwrap().as_secs(), 3600);
        assert_eq!(parse_duration("250ms").unwrap().as_millis(), 250);
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("-3s").is_err());
        assert!(parse_duration("soon").is_err());
    }
}
