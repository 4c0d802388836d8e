//! Plain-text tables: columns separated by two spaces, numbers right
//! aligned, no borders and no trailing spaces, so output pastes cleanly
//! into a mail and snapshot tests stay stable.  A cell may carry a
//! [`Paint`]: widths are measured on the cleaned text and the colour is
//! written around it last, only when the table is told colour is on.

use super::colour::Paint;
use std::fmt;

/// A table with an optional header row.
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Option<Vec<String>>,
    rows: Vec<Vec<String>>,
    /// A paint per row (by column), beside `rows`.
    paints: Vec<Vec<Option<Paint>>>,
    right_from: usize,
    colour: bool,
}

/// A table with a header row; columns from 1 on are right-aligned.
pub fn new(header: &[&str]) -> Table {
    Table {
        header: Some(header.iter().map(|h| h.to_string()).collect()),
        rows: Vec::new(),
        paints: Vec::new(),
        right_from: usize::MAX,
        colour: false,
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
        paints: Vec::new(),
        right_from: usize::MAX,
        colour: false,
    }
}

impl Table {
    pub fn add_row(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Paint the cell at (`row`, `col`) of the rows added so far.
    pub fn paint(&mut self, row: usize, col: usize, p: Paint) {
        if row >= self.rows.len() {
            return;
        }
        if self.paints.len() < self.rows.len() {
            self.paints.resize(self.rows.len(), Vec::new());
        }
        let r = &mut self.paints[row];
        if r.len() <= col {
            r.resize(col + 1, None);
        }
        r[col] = Some(p);
    }

    /// Paint every verdict word in column `col` ([`super::colour::of_verdict`]).
    pub fn paint_verdicts(&mut self, col: usize) {
        for i in 0..self.rows.len() {
            if let Some(p) = self.rows[i]
                .get(col)
                .and_then(|v| super::colour::of_verdict(v))
            {
                self.paint(i, col, p);
            }
        }
    }

    /// Write the paints (`true`) or plain text (`false`, the default).
    pub fn set_colour(&mut self, on: bool) {
        self.colour = on;
    }

    fn paint_of(&self, line: usize, col: usize) -> Option<Paint> {
        let row = line.checked_sub(usize::from(self.header.is_some()))?;
        let p = self.paints.get(row)?.get(col).copied().flatten();
        p.filter(|_| self.colour)
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
                let shown = match self.paint_of(n, i) {
                    Some(p) => std::borrow::Cow::Owned(p.wrap(c)),
                    None => std::borrow::Cow::Borrowed(c.as_str()),
                };
                if i >= self.right_from {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(&shown);
                } else {
                    line.push_str(&shown);
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
    fn paint_goes_on_after_the_widths() {
        let mut t = new(&["metric", "verdict", "change"]);
        right_align_from(&mut t, 2);
        t.add_row(vec!["a".into(), "better".into(), "1.0".into()]);
        t.add_row(vec![
            "long name".into(),
            "inconclusive".into(),
            "12.0".into(),
        ]);
        t.paint_verdicts(1);
        let plain = t.to_string();
        assert!(!plain.contains('\x1b'), "{plain}");
        t.set_colour(true);
        let painted = t.to_string();
        assert!(
            !painted.contains("\\x1b"),
            "no escape shown as text: {painted}"
        );
        assert!(painted.contains("\x1b[32mbetter\x1b[0m"), "{painted:?}");
        // Without its escapes, the painted table is the plain one.
        let stripped = painted
            .replace("\x1b[32m", "")
            .replace("\x1b[33m", "")
            .replace("\x1b[0m", "");
        assert_eq!(stripped, plain);
        // A hostile cell is still cleaned, painted or not.
        t.add_row(vec!["x\x1b[2J".into(), "worse".into(), "1".into()]);
        t.paint_verdicts(1);
        assert!(t.to_string().contains("x\\x1b[2J"));
    }

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
