//! A report that carries the runs it was made from (`compare --bundle`),
//! so a reader can check it: `kbench import REPORT --format report` puts
//! the runs in a store of their own, and `kbench compare` gives the same
//! verdicts, or another test of the reader's choosing.
//!
//! The runs travel as kbench's own store (a SQLite file holding only
//! them: values, histograms, fingerprints, settings, notes), compressed
//! with gzip and written in base64 lines between two marker lines, with
//! its length and SHA-256.  Base64 has no `<` and no `-`, so the block sits
//! inside an inert `<script type="application/x-kbench-bundle">` in HTML
//! and inside a comment in Markdown, and neither renders it.  Reading one
//! back, the block is bounded, checked against its length and sum, and
//! opened as a foreign store (`store::foreign`): a file from elsewhere is
//! untrusted.

use crate::store::RunRecord;
use anyhow::{anyhow, Result};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};

/// The line that opens a bundle: `BEGIN LENGTH SHA256`.
pub const BEGIN: &str = "KBENCH-REPORT-BUNDLE v1";
/// The line that closes it.
pub const END: &str = "KBENCH-REPORT-END";
/// The largest store a bundle may unpack to.
pub const MAX_BYTES: usize = 256 << 20;
/// Base64 characters a line.
const LINE: usize = 76;

/// The bundle block for `runs`, `scratch` a private folder for the
/// store it writes and reads back.
pub fn encode(runs: &[RunRecord], scratch: &std::path::Path) -> Result<String> {
    use base64::Engine;
    let bytes = crate::store::foreign::bytes_of(runs, &scratch.join("bundle.db"))?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&bytes)?;
    let packed = gz.finish()?;
    let text = base64::engine::general_purpose::STANDARD.encode(&packed);
    let sum = crate::fingerprint::hex(&Sha256::digest(&bytes));
    let mut out = format!("{BEGIN} {} {sum}\n", bytes.len());
    for chunk in text.as_bytes().chunks(LINE) {
        out.push_str(&String::from_utf8_lossy(chunk));
        out.push('\n');
    }
    out.push_str(END);
    out.push('\n');
    Ok(out)
}

/// How a reader gets the runs back, in a sentence.
pub fn how(runs: usize, file_hint: &str) -> String {
    format!(
        "This report carries the {runs} runs it was made from: `kbench --db check.db import {file_hint} --format report`, then `kbench --db check.db compare` gives the same verdicts."
    )
}

/// `html` with the bundle of `runs` before its `</body>`.
pub fn into_html(html: &str, block: &str, runs: usize) -> String {
    let tail = format!(
        "<p class=\"bundle\">{}</p>\n<script type=\"application/x-kbench-bundle\" id=\"kbench-bundle\">\n{block}</script>\n",
        crate::report::svg::escape(&how(runs, "REPORT.html"))
    );
    match html.rfind("</body>") {
        Some(i) => format!("{}{tail}{}", &html[..i], &html[i..]),
        None => format!("{html}{tail}"),
    }
}

/// `md` with the bundle of `runs` at its end, in a comment.
pub fn into_markdown(md: &str, block: &str, runs: usize) -> String {
    format!(
        "{}\n{}\n\n<!--\n{block}-->\n",
        md.trim_end(),
        how(runs, "REPORT.md")
    )
}

/// The store a bundle in `text` carries, checked: `Ok(None)` when there
/// is none, an error saying why when it is cut, altered or too large.
pub fn decode(text: &str) -> Result<Option<Vec<u8>>> {
    use base64::Engine;
    let mut lines = text.lines().map(str::trim);
    let Some(head) = lines.by_ref().find(|l| l.starts_with(BEGIN)) else {
        return Ok(None);
    };
    let mut words = head[BEGIN.len()..].split_whitespace();
    let (Some(len), Some(sum), None) = (words.next(), words.next(), words.next()) else {
        return Err(anyhow!(
            "the bundle's first line is not `{BEGIN} LENGTH SHA256`"
        ));
    };
    let len: usize = len
        .parse()
        .ok()
        .filter(|&n| n <= MAX_BYTES)
        .ok_or_else(|| {
            anyhow!(
                "the bundle's length '{}' is not a size up to {MAX_BYTES} bytes",
                crate::text::clip(len, 40)
            )
        })?;
    let mut b64 = String::new();
    let mut closed = false;
    for l in lines {
        if l == END {
            closed = true;
            break;
        }
        if b64.len() + l.len() > MAX_BYTES {
            return Err(anyhow!("the bundle is larger than {MAX_BYTES} bytes"));
        }
        b64.push_str(l);
    }
    if !closed {
        return Err(anyhow!("the bundle is cut: no {END} line"));
    }
    let packed = base64::engine::general_purpose::STANDARD
        .decode(b64.as_bytes())
        .map_err(|e| anyhow!("the bundle is not base64: {e}"))?;
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(&packed[..])
        .take(MAX_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow!("the bundle does not unpack: {e}"))?;
    if bytes.len() != len {
        return Err(anyhow!(
            "the bundle unpacks to {} bytes, not the {len} its first line says",
            bytes.len()
        ));
    }
    if crate::fingerprint::hex(&Sha256::digest(&bytes)) != sum.to_ascii_lowercase() {
        return Err(anyhow!(
            "the bundle's SHA-256 does not match: it was altered"
        ));
    }
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs() -> Vec<RunRecord> {
        ["a", "b"]
            .iter()
            .map(|l| {
                let mut r = RunRecord::new(l, "hackbench", serde_json::json!({"loops": 5}), None);
                r.metrics.push(crate::measure::Metric::new(
                    "time",
                    "s",
                    1.5,
                    crate::stats::Better::Lower,
                ));
                r
            })
            .collect()
    }

    #[test]
    fn a_bundle_round_trips_and_refuses_what_was_altered() {
        let d = tempfile::tempdir().unwrap();
        let block = encode(&runs(), d.path()).unwrap();
        let html = into_html("<html><body><p>x</p></body></html>", &block, 2);
        assert!(html.ends_with("</script>\n</body></html>"), "{html}");
        assert!(html.contains("carries the 2 runs"));
        let bytes = decode(&html).unwrap().unwrap();
        let back = crate::store::foreign::runs(
            &bytes,
            &d.path().join("back.db"),
            &crate::store::foreign::Expect {
                label: None,
                below: false,
                max_rows: 1000,
            },
        )
        .unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].metrics[0].value, 1.5);
        let md = into_markdown("# r\n", &block, 2);
        assert_eq!(decode(&md).unwrap().unwrap(), bytes);
        assert_eq!(decode("no bundle here").unwrap(), None);
        // Cut, altered, lying about its length.
        let cut: String = block.lines().take(2).map(|l| format!("{l}\n")).collect();
        assert!(decode(&cut).unwrap_err().to_string().contains("cut"));
        let head = block.lines().next().unwrap();
        let sum = head.rsplit(' ').next().unwrap();
        let altered = block.replacen(sum, &"0".repeat(64), 1);
        assert!(decode(&altered)
            .unwrap_err()
            .to_string()
            .contains("altered"));
        let len = head.split(' ').nth(2).unwrap();
        let longer = block.replacen(&format!(" {len} "), " 12 ", 1);
        assert!(decode(&longer)
            .unwrap_err()
            .to_string()
            .contains("not the 12"));
        let huge = block.replacen(&format!(" {len} "), " 99999999999 ", 1);
        assert!(decode(&huge).unwrap_err().to_string().contains("up to"));
        let garbage = format!("{BEGIN} 10 {}\n!!!!\n{END}\n", "0".repeat(64));
        assert!(decode(&garbage).unwrap_err().to_string().contains("base64"));
    }
}
