//! Splitting a command line into argv the way a POSIX shell would for
//! words and quotes, without ever running a shell.

use anyhow::Result;

/// Split `s` into words: whitespace separates; '…' is literal; "…" allows
/// \" and \\; a backslash outside quotes escapes the next character.
pub fn split(s: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => {
                            return Err(crate::error::input(format!("unterminated ' in `{s}`")))
                        }
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => {
                                return Err(crate::error::input(format!(
                                    "unterminated \" in `{s}`"
                                )))
                            }
                        },
                        Some(x) => cur.push(x),
                        None => {
                            return Err(crate::error::input(format!("unterminated \" in `{s}`")))
                        }
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(x) => cur.push(x),
                    None => return Err(crate::error::input(format!("trailing \\ in `{s}`"))),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    if out.is_empty() {
        return Err(crate::error::input("empty command"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(split("make -j2 all").unwrap(), vec!["make", "-j2", "all"]);
        assert_eq!(
            split("sh -c 'echo a b'").unwrap(),
            vec!["sh", "-c", "echo a b"]
        );
        assert_eq!(
            split(r#"x "a \"q\" b" c\ d ''"#).unwrap(),
            vec!["x", "a \"q\" b", "c d", ""]
        );
        assert_eq!(split("  spaced   out ").unwrap(), vec!["spaced", "out"]);
        assert!(split("echo 'open").is_err());
        assert!(split("   ").is_err());
    }
}
