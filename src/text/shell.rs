//! Words quoted for `sh`: a command kbench writes for a shell to run (a
//! campaign's reboot, a lab's test step) keeps each word one word.

/// Single-quote `s` for `sh`, unless it is plain already.
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:+,".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Words joined into one `sh` command line.
pub fn join(words: &[String]) -> String {
    words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_stay_words() {
        assert_eq!(super::quote("a-b_c.d/e=f"), "a-b_c.d/e=f");
        assert_eq!(super::quote(""), "''");
        assert_eq!(super::quote("it's $x"), "'it'\\''s $x'");
        assert_eq!(super::join(&["echo".into(), "a b".into()]), "echo 'a b'");
    }
}
