//! Labels as a report shows them: without the part every compared label
//! shares (`…/autogroup=1` → `autogroup=1`), or whole with `--wide`.  Every
//! table and chart names labels through here, so they agree.

use crate::compare::Comparison;

/// The labels as `c` shows them: shortened ([`shortener`]), or whole
/// with `--wide`.
pub fn labels_of(c: &Comparison) -> impl Fn(&str) -> String {
    let none: &[String] = &[];
    shortener(if c.wide { none } else { &c.labels })
}

/// Labels without the part they all share (`…/autogroup=1` → `autogroup=1`).
pub fn shortener(labels: &[String]) -> impl Fn(&str) -> String {
    let common = match labels {
        [] | [_] => 0,
        [first, rest @ ..] => {
            let mut n = first.len();
            for l in rest {
                n = n.min(
                    first
                        .bytes()
                        .zip(l.bytes())
                        .take_while(|(a, b)| a == b)
                        .count(),
                );
            }
            // Cut at a '/' so a label keeps whole parts.
            first[..n].rfind('/').map_or(0, |i| i + 1)
        }
    };
    move |l: &str| {
        if common > 0 && l.len() > common && l.is_char_boundary(common) {
            l[common..].to_string()
        } else {
            l.to_string()
        }
    }
}
