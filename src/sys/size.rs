//! Byte sizes as users write them (`64M`, `1.5G`, `512KiB`, `4096`) and
//! as kbench prints them.

/// Parse a size in bytes; suffixes K, M, G, T are powers of 1024 (with or
/// without `iB`/`B`).
pub fn parse(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let bad = || format!("'{s}' is not a size (try 64M, 1.5G or 4096)");
    let lower = t.to_ascii_lowercase();
    let stripped = lower.trim_end_matches("ib").trim_end_matches('b');
    let (num, mult) = match stripped.chars().last() {
        Some('k') => (&stripped[..stripped.len() - 1], 1u64 << 10),
        Some('m') => (&stripped[..stripped.len() - 1], 1 << 20),
        Some('g') => (&stripped[..stripped.len() - 1], 1 << 30),
        Some('t') => (&stripped[..stripped.len() - 1], 1 << 40),
        _ => (stripped, 1),
    };
    let v: f64 = num.trim().parse().map_err(|_| bad())?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("size '{s}' must be greater than zero"));
    }
    Ok((v * mult as f64) as u64)
}

/// Human-readable, binary units.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.0} MiB", b / (1u64 << 20) as f64)
    } else if b >= 1024.0 {
        format!("{:.0} KiB", b / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_user_sizes() {
        assert_eq!(parse("4096").unwrap(), 4096);
        assert_eq!(parse("64M").unwrap(), 64 << 20);
        assert_eq!(parse("64MiB").unwrap(), 64 << 20);
        assert_eq!(parse("1.5G").unwrap(), 3 << 29);
        assert_eq!(parse("2k").unwrap(), 2048);
        assert!(parse("0").is_err());
        assert!(parse("lots").is_err());
        assert!(parse("-1G").is_err());
    }

    #[test]
    fn prints_binary_units() {
        assert_eq!(human(64 << 20), "64 MiB");
        assert_eq!(human(3 << 29), "1.5 GiB");
        assert_eq!(human(100), "100 B");
    }
}
