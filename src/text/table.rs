//! Plain-text tables: columns separated by two spaces, numbers right
//! aligned, no borders and no trailing spaces, so output pastes cleanly
//! into a mail and snapshot tests stay stable.

use std::fmt;

/// A table with an optional header row.
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Option<Vec<String>>,
    rows: Vec<Vec<String>>,
    right_from: usize,
}

/// A table with a header row; columns from 1 on are right-aligned.
pub fn new(header: &[&str]) -> Table {
    Table {
        header: Some(header.iter().map(|h| h.to_string()).collect()),
        rows: Vec::new(),
        right_from: usize::MAX,
    }
}

/// Right-align every column from `from` on (numbers).
pub fn right_align_from(t: &mut Table, from: usize) {
    t.right_from = from;
}

/// Two-column key/value table.
pub fn kv(rows: &[(String, String)]) -> Table {
    Table {
        header: None,
        rows: rows
            .iter()
            .map(|(k, v)| vec![k.clone(), v.clone()])
            .collect(),
        right_from: usize::MAX,
    }
}

impl Table {
    pub fn add_row(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cleaned: Vec<Vec<String>> = self
            .header
            .iter()
            .chain(self.rows.iter())
            .map(|r| r.iter().map(|c| super::clean(c).into_owned()).collect())
            .collect();
        let all: Vec<&Vec<String>> = cleaned.iter().collect();
        let ncol = all.iter().map(|r| r.len()).max().unwrap_or(0);
        let mut width = vec![0usize; ncol];
        for r in &all {
            for (i, c) in r.iter().enumerate() {
                width[i] = width[i].max(c.chars().count());
            }
        }
        for (n, r) in all.iter().enumerate() {
            let mut line = String::new();
            for (i, c) in r.iter().enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                let pad = width[i] - c.chars().count();
                if i >= self.right_from {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(c);
                } else {
                    line.push_str(c);
                    line.push_str(&" ".repeat(pad));
                }
            }
            if n > 0 {
                writeln!(f)?;
            }
            f.write_str(line.trim_end())?;
        }
        Ok(())
    }
}

/// Format a value with about four significant figures.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-6..1e9).contains(&a) {
        // Scientific past a billion or under a millionth: never a
        // 301-digit number.
        format!("{v:.3e}")
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_about_four_figures() {
        assert_eq!(num(15.758), "15.76");
        assert_eq!(num(0.100391), "0.1004");
        assert_eq!(num(7900.0), "7900");
        assert_eq!(num(f64::NAN), "-");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(1.5e300), "1.500e300");
        assert_eq!(num(-2.25e-300), "-2.250e-300");
        assert_eq!(num(999_999_999.0), "999999999");
    }

    #[test]
    fn renders_aligned_without_trailing_space() {
        let mut t = new(&["Kernel", "Time", "CPU%"]);
        right_align_from(&mut t, 1);
        t.add_row(vec!["2.5.39".into(), "73.17".into(), "93".into()]);
        t.add_row(vec!["2.5.39-pe".into(), "103.95".into(), "100".into()]);
        assert_eq!(
            t.to_string(),
            "Kernel       Time  CPU%\n2.5.39      73.17    93\n2.5.39-pe  103.95   100"
        );
        let k = kv(&[("a".into(), "1".into()), ("long key".into(), "".into())]);
        assert_eq!(k.to_string(), "a         1\nlong key");
    }
}
