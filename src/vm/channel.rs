//! The guest's result on its way out: a frame on the guest's second
//! serial port (`ttyS1`; the 8250 UART is built into every x86 kernel,
//! so no module is needed), which QEMU writes to a file of the host's.
//! The console (`ttyS0`) carries only what people read.
//!
//! ```text
//! KBENCH-RESULT 1 <payload length> <SHA-256 of the payload, hex>\n
//! <payload>
//! \nKBENCH-END\n
//! ```
//!
//! The payload is the guest's report (one JSON line) and then the bytes
//! of the guest's own store.  The host takes a result only whole: a frame
//! that never started, stops short or fails its checksum makes the boot
//! a failed boot, never a partial run.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

const MAGIC: &str = "KBENCH-RESULT";
const END: &[u8] = b"\nKBENCH-END\n";
const VERSION: u32 = 1;
/// The most a result may be (a frame claiming more is refused unread).
pub const MAX_PAYLOAD: u64 = 1 << 30;

/// What the guest says of its boot.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Report {
    /// `uname -r` in the guest.
    pub release: Option<String>,
    pub boot_id: Option<String>,
    /// The command's exit status, or the signal that ended it.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// Seconds from the guest kernel's start to the command's start and end.
    pub command_started_s: Option<f64>,
    pub command_ended_s: Option<f64>,
    /// What went wrong on the way (a module that did not load, a mount).
    pub problems: Vec<String>,
    /// Modules loaded, by name.
    pub modules: Vec<String>,
    /// The sched_ext state once the command had ended (`disabled`, or
    /// `enabled: OPS` when a scheduler outlived it); `None` on a kernel
    /// without sched_ext.
    pub sched_ext_after: Option<String>,
}

/// The frame for `report` and the store's bytes.
pub fn encode(report: &Report, store: &[u8]) -> Vec<u8> {
    let mut payload = serde_json::to_vec(report).unwrap_or_else(|_| b"{}".to_vec());
    payload.push(b'\n');
    payload.extend_from_slice(store);
    let sum = crate::fingerprint::hex(&Sha256::digest(&payload));
    let mut out = format!("{MAGIC} {VERSION} {} {sum}\n", payload.len()).into_bytes();
    out.extend_from_slice(&payload);
    out.extend_from_slice(END);
    out
}

/// Why no result could be taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Broken {
    /// Nothing was sent.
    NotSent,
    /// The frame's first line is not one kbench writes.
    Malformed(String),
    /// Fewer bytes came than the frame promised.
    Truncated { got: u64, promised: u64 },
    /// The bytes are not the ones the guest sent.
    Checksum,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Broken::NotSent => write!(f, "the guest sent no result"),
            Broken::Malformed(why) => write!(f, "the guest's result is malformed ({why})"),
            Broken::Truncated { got, promised } => write!(
                f,
                "the guest's result is truncated ({got} of {promised} bytes came)"
            ),
            Broken::Checksum => write!(f, "the guest's result fails its checksum"),
        }
    }
}

/// The report and store bytes of a whole frame found in `bytes` (what
/// the port's file holds; anything before the frame is ignored).
pub fn decode(bytes: &[u8]) -> Result<(Report, Vec<u8>), Broken> {
    let start = find(bytes, MAGIC.as_bytes()).ok_or(Broken::NotSent)?;
    let rest = &bytes[start..];
    let nl = rest
        .iter()
        .take(256)
        .position(|b| *b == b'\n')
        .ok_or_else(|| Broken::Malformed("no end to its first line".into()))?;
    let head = std::str::from_utf8(&rest[..nl])
        .map_err(|_| Broken::Malformed("its first line is not text".into()))?;
    let words: Vec<&str> = head.split(' ').collect();
    let [_, version, len, sum] = words[..] else {
        return Err(Broken::Malformed(format!(
            "{} words in its first line",
            words.len()
        )));
    };
    if version != VERSION.to_string() {
        return Err(Broken::Malformed(format!(
            "version {version}, not {VERSION}"
        )));
    }
    let promised: u64 = len
        .parse()
        .map_err(|_| Broken::Malformed(format!("length '{len}'")))?;
    if promised > MAX_PAYLOAD {
        return Err(Broken::Malformed(format!(
            "it claims {promised} bytes, over the {MAX_PAYLOAD} kbench takes"
        )));
    }
    let body = &rest[nl + 1..];
    let want = promised as usize + END.len();
    if body.len() < want || &body[promised as usize..want] != END {
        let got = body.len().min(promised as usize) as u64;
        if got < promised {
            return Err(Broken::Truncated { got, promised });
        }
        return Err(Broken::Malformed(
            "no end marker where its length says".into(),
        ));
    }
    let payload = &body[..promised as usize];
    if crate::fingerprint::hex(&Sha256::digest(payload)) != sum {
        return Err(Broken::Checksum);
    }
    let split = payload
        .iter()
        .position(|b| *b == b'\n')
        .ok_or_else(|| Broken::Malformed("no report line".into()))?;
    let report: Report = serde_json::from_slice(&payload[..split])
        .map_err(|e| Broken::Malformed(format!("its report: {e}")))?;
    Ok((report, payload[split + 1..].to_vec()))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_frame_round_trips_and_a_damaged_one_never_does() {
        let r = Report {
            release: Some("6.1.0-57-rt-amd64".into()),
            exit_code: Some(0),
            ..Default::default()
        };
        let store = b"SQLite format 3\0....".to_vec();
        let mut framed = b"noise before\r\n".to_vec();
        framed.extend(encode(&r, &store));
        let (back, bytes) = decode(&framed).unwrap();
        assert_eq!(back, r);
        assert_eq!(bytes, store);
        // Cut anywhere: truncated or not sent, never taken.
        for cut in [0, 10, 40, framed.len() - 12, framed.len() - 1] {
            assert!(decode(&framed[..cut]).is_err(), "cut at {cut} was taken");
        }
        let short = &framed[..framed.len() - 20];
        assert!(
            matches!(decode(short), Err(Broken::Truncated { .. })),
            "{:?}",
            decode(short)
        );
        // One byte flipped: the checksum says so.
        let mut flipped = framed.clone();
        let at = flipped.len() - 15;
        flipped[at] ^= 1;
        assert_eq!(decode(&flipped), Err(Broken::Checksum));
        assert_eq!(decode(b"console only"), Err(Broken::NotSent));
        assert!(matches!(
            decode(b"KBENCH-RESULT 1 99999999999999 00\n"),
            Err(Broken::Malformed(_))
        ));
    }
}
