//! The order of a series: by time (a label's first run), by kernel
//! version (the fingerprint's release, else the label read as a version,
//! as for imported runs), or as given.
//!
//! Versions compare piece by piece, numbers as numbers (so 6.1.0-9
//! comes before 6.1.0-10, and 6.9 before 6.10), other text as text, and a
//! release candidate before its release (6.10-rc7 before 6.10, as in the
//! kernel's own order and as Debian's `~` sorts).

use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Time,
    Version,
    Given,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece<'a> {
    Num(&'a str),
    Text(&'a str),
}

fn pieces(s: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let digit = b[i].is_ascii_digit();
        let mut j = i;
        while j < b.len() && b[j].is_ascii_digit() == digit {
            j += 1;
        }
        // Split at byte boundaries of ASCII digits only: safe for UTF-8.
        let part = &s[i..j];
        out.push(if digit {
            Piece::Num(part)
        } else {
            Piece::Text(part)
        });
        i = j;
    }
    out
}

/// A pre-release marker: `-rc`, `rc`, `~`.
fn pre(t: &str) -> bool {
    let t = t.trim_start_matches(['-', '.', '_']);
    t.starts_with("rc") || t.starts_with('~')
}

fn num_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Kernel version order of two release strings.
pub fn version_cmp(a: &str, b: &str) -> Ordering {
    let (pa, pb) = (pieces(a), pieces(b));
    for i in 0..pa.len().max(pb.len()) {
        let o = match (pa.get(i), pb.get(i)) {
            (Some(Piece::Num(x)), Some(Piece::Num(y))) => num_cmp(x, y),
            (Some(Piece::Text(x)), Some(Piece::Text(y))) => match (pre(x), pre(y)) {
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                _ => x.cmp(y),
            },
            // A number where the other has text (6.1 against 6.a): text first.
            (Some(Piece::Num(_)), Some(Piece::Text(_))) => Ordering::Greater,
            (Some(Piece::Text(_)), Some(Piece::Num(_))) => Ordering::Less,
            // One ended: a pre-release suffix on the other puts that one first.
            (None, Some(Piece::Text(y))) if pre(y) => Ordering::Greater,
            (Some(Piece::Text(x)), None) if pre(x) => Ordering::Less,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.cmp(b)
}

/// A label with what orders it.
#[derive(Clone, Debug)]
pub struct Keyed {
    pub label: String,
    /// Its first run's start (Unix seconds).
    pub first: f64,
    /// The kernel release its runs' fingerprints say, if one.
    pub release: Option<String>,
}

/// `labels` in `order` (given: as they came).
pub fn sort(mut labels: Vec<Keyed>, order: Order) -> Vec<Keyed> {
    match order {
        Order::Given => {}
        Order::Time => labels.sort_by(|a, b| {
            a.first
                .total_cmp(&b.first)
                .then_with(|| a.label.cmp(&b.label))
        }),
        Order::Version => labels.sort_by(|a, b| {
            let ka = a.release.as_deref().unwrap_or(&a.label);
            let kb = b.release.as_deref().unwrap_or(&b.label);
            version_cmp(ka, kb)
                .then_with(|| version_cmp(&a.label, &b.label))
                .then_with(|| a.first.total_cmp(&b.first))
        }),
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_versions_sort_as_the_kernel_numbers_them() {
        let lt = |a: &str, b: &str| {
            assert_eq!(version_cmp(a, b), Ordering::Less, "{a} < {b}");
            assert_eq!(version_cmp(b, a), Ordering::Greater, "{b} > {a}");
        };
        lt("6.1.0-9-amd64", "6.1.0-10-amd64");
        lt("6.9", "6.10");
        lt("6.10-rc1", "6.10-rc2");
        lt("6.10-rc7", "6.10");
        lt("6.10", "6.10.1");
        lt("6.9.12", "6.10-rc1");
        lt("6.1.42", "6.1.100");
        lt("2.5.38", "2.5.38-mm3");
        assert_eq!(version_cmp("6.1", "6.1"), Ordering::Equal);
        lt("06.1", "6.2");
        let sorted = sort(
            ["6.1.0-10", "6.1.0-9", "6.10", "6.9"]
                .iter()
                .enumerate()
                .map(|(i, l)| Keyed {
                    label: l.to_string(),
                    first: i as f64,
                    release: None,
                })
                .collect(),
            Order::Version,
        );
        let names: Vec<&str> = sorted.iter().map(|k| k.label.as_str()).collect();
        assert_eq!(names, ["6.1.0-9", "6.1.0-10", "6.9", "6.10"]);
        // The release, where known, orders before the label.
        let by_release = sort(
            vec![
                Keyed {
                    label: "b".into(),
                    first: 0.0,
                    release: Some("6.2".into()),
                },
                Keyed {
                    label: "a".into(),
                    first: 1.0,
                    release: Some("6.10".into()),
                },
            ],
            Order::Version,
        );
        assert_eq!(by_release[0].label, "b");
    }
}
