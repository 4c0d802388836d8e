//! A boot's runs carried back through a LAVA job's log: the guest's store,
//! base64 between two marker lines, with its length and SHA-256.
//!
//! LAVA keeps a test case as a name, a result and one number; a run's
//! histograms, fingerprint (with the boot id) and settings would be lost.
//! The serial console is the one channel every device type has, and LAVA
//! logs all of it, so the guest prints its whole store there, checked as
//! `vm`'s result frame is: a bundle whose length or checksum does not
//! match (the boot died mid-print, the log was cut) is a failed boot,
//! never runs read from half a file.

use sha2::{Digest, Sha256};

/// The first line: `KBENCH-LAVA-BUNDLE PLAN BOOT LABEL BYTES SHA256`.
pub const BEGIN: &str = "KBENCH-LAVA-BUNDLE";
/// The last: `KBENCH-LAVA-END PLAN BOOT`.
pub const END: &str = "KBENCH-LAVA-END";
/// A boot whose command stored nothing: `KBENCH-LAVA-FAILED PLAN BOOT
/// LABEL REASON…`.
pub const FAILED: &str = "KBENCH-LAVA-FAILED";
/// Base64 characters a line (short enough for any console).
const LINE: usize = 76;
/// The largest store a bundle carries (a boot's runs are far smaller).
pub const MAX_BYTES: usize = 64 << 20;

/// Which boot of which plan.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Boot {
    pub plan: String,
    pub boot: u32,
    pub label: String,
}

/// The lines that carry `store` for boot `b`.
pub fn encode(b: &Boot, store: &[u8]) -> Vec<String> {
    use base64::Engine;
    let text = base64::engine::general_purpose::STANDARD.encode(store);
    let sum = crate::fingerprint::hex(&Sha256::digest(store));
    let mut out = vec![format!(
        "{BEGIN} {} {} {} {} {sum}",
        b.plan,
        b.boot,
        b.label,
        store.len()
    )];
    for chunk in text.as_bytes().chunks(LINE) {
        out.push(String::from_utf8_lossy(chunk).into_owned());
    }
    out.push(format!("{END} {} {}", b.plan, b.boot));
    out
}

/// What a log said of one boot.
#[derive(Debug, PartialEq)]
pub enum Found {
    /// The store, whole and checked.
    Store(Boot, Vec<u8>),
    /// No store: why (the guest said so, or the bundle is cut or wrong).
    Failed(Boot, String),
}

/// Every bundle and failure in the lines of a console (in order; one
/// boot may appear in several logs: the caller keeps the first).
pub fn decode<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<Found> {
    use base64::Engine;
    let mut out = Vec::new();
    let mut open: Option<(Boot, usize, String, String)> = None;
    let close = |o: Option<(Boot, usize, String, String)>, out: &mut Vec<Found>, why: &str| {
        if let Some((b, n, _, _)) = o {
            out.push(Found::Failed(
                b,
                format!("its bundle is cut short ({why}; {n} bytes announced)"),
            ));
        }
    };
    for line in lines {
        let line = line.trim_end_matches(['\r', '\n']).trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some(BEGIN) => {
                close(open.take(), &mut out, "another began");
                let (Some(b), Some(n), Some(sum)) = (
                    boot_of(&words[1..]),
                    words.get(4).and_then(|n| n.parse::<usize>().ok()),
                    words.get(5),
                ) else {
                    continue;
                };
                if n > MAX_BYTES || words.len() != 6 {
                    out.push(Found::Failed(
                        b,
                        format!("its bundle announces {n} bytes, more than {MAX_BYTES}"),
                    ));
                    continue;
                }
                open = Some((b, n, sum.to_string(), String::new()));
            }
            Some(END) => {
                let Some((b, n, sum, text)) = open.take() else {
                    continue;
                };
                if words.get(1) != Some(&b.plan.as_str())
                    || words.get(2) != Some(&b.boot.to_string().as_str())
                {
                    out.push(Found::Failed(
                        b,
                        "its bundle ends under another boot's name".into(),
                    ));
                    continue;
                }
                let bytes = base64::engine::general_purpose::STANDARD.decode(text.as_bytes());
                out.push(match bytes {
                    Ok(bytes)
                        if bytes.len() == n
                            && crate::fingerprint::hex(&Sha256::digest(&bytes)) == sum =>
                    {
                        Found::Store(b, bytes)
                    }
                    Ok(bytes) => Found::Failed(
                        b,
                        format!(
                            "its bundle does not check ({} of {n} bytes, or another checksum)",
                            bytes.len()
                        ),
                    ),
                    Err(e) => Found::Failed(b, format!("its bundle is not base64 ({e})")),
                });
            }
            Some(FAILED) => {
                close(open.take(), &mut out, "the boot failed");
                if let Some(b) = boot_of(&words[1..]) {
                    let why = words.get(4..).map(|w| w.join(" ")).unwrap_or_default();
                    out.push(Found::Failed(b, crate::text::clean(&why).into_owned()));
                }
            }
            _ => {
                if let Some((_, n, _, text)) = open.as_mut() {
                    // Base64 only, and no more than announced.
                    if line
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || b"+/=".contains(&c))
                        && text.len() <= n.div_ceil(3) * 4
                    {
                        text.push_str(line);
                    }
                }
            }
        }
    }
    close(open, &mut out, "the log ended");
    out
}

/// `PLAN BOOT LABEL` from a marker's words.
fn boot_of(w: &[&str]) -> Option<Boot> {
    let plan = w.first()?;
    let ok = |s: &str| !s.is_empty() && s.len() <= 200 && s.chars().all(|c| c.is_ascii_graphic());
    if !ok(plan) || !ok(w.get(2)?) {
        return None;
    }
    Some(Boot {
        plan: plan.to_string(),
        boot: w.get(1)?.parse().ok()?,
        label: w.get(2)?.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b() -> Boot {
        Boot {
            plan: "l1".into(),
            boot: 2,
            label: "rt".into(),
        }
    }

    #[test]
    fn a_bundle_comes_back_whole_and_a_cut_one_is_a_failure() {
        let store: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        let lines = encode(&b(), &store);
        assert!(lines.iter().all(|l| l.len() <= 100));
        // Amid other console lines, with CRs.
        let mut log = vec!["login: root".to_string()];
        log.extend(lines.iter().map(|l| format!("{l}\r")));
        log.push("root@x:~#".into());
        assert_eq!(
            decode(log.iter().map(String::as_str)),
            vec![Found::Store(b(), store.clone())]
        );
        // Cut: the end never came.
        let cut = &lines[..lines.len() / 2];
        match &decode(cut.iter().map(String::as_str))[..] {
            [Found::Failed(got, why)] => {
                assert_eq!(got, &b());
                assert!(why.contains("cut short"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        // A line lost in the middle: the checksum says so.
        let mut lost = lines.clone();
        lost.remove(3);
        assert!(
            matches!(&decode(lost.iter().map(String::as_str))[..], [Found::Failed(_, w)] if w.contains("does not check"))
        );
        // The guest's own failure line.
        let f = format!("{FAILED} l1 2 rt the command exited 2");
        assert_eq!(
            decode([f.as_str()]),
            vec![Found::Failed(b(), "the command exited 2".into())]
        );
        // Nonsense markers are no boots.
        assert!(decode([BEGIN, "KBENCH-LAVA-BUNDLE a b c d e", END]).is_empty());
    }
}
