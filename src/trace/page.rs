//! One page of the kernel's trace ring buffer, as a read of a CPU's
//! `trace_pipe_raw` returns it, decoded into (timestamp, record) pairs.
//!
//! The page header's layout comes from tracefs' `events/header_page` (the
//! page's base timestamp, its `commit` length, where the data starts).
//! Each entry has a 32-bit header, `type_len` in its low 5 bits and a
//! 27-bit time delta above, as `events/header_event` says; the meanings of
//! the types (data with its length in the next word or as `type_len`
//! words, padding 29, time extend 30, absolute time stamp 31) and the
//! `commit` flags for lost events (bit 31: events were lost before this
//! page; bit 30: their count is stored after the data) are those of
//! kernel/trace/ring_buffer.c (`rb_event_length`, `rb_event_data`,
//! `RB_MISSED_EVENTS`, `RB_MISSED_STORED`, `rb_fix_abs_ts`).

/// Where the page header's fields are (from `events/header_page`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub timestamp: usize,
    pub commit: usize,
    pub commit_size: usize,
    pub data: usize,
}

impl Layout {
    /// Read the layout from the text of `events/header_page`.
    pub fn parse(text: &str) -> Option<Layout> {
        let f = super::format::parse_fields(text);
        let ts = f.get("timestamp")?;
        let commit = f.get("commit")?;
        let data = f.get("data")?;
        Some(Layout {
            timestamp: ts.offset,
            commit: commit.offset,
            commit_size: commit.size,
            data: data.offset,
        })
    }
}

const MISSED_EVENTS: u64 = 1 << 31;
const MISSED_STORED: u64 = 1 << 30;
const TS_SHIFT: u32 = 27;
const TS_MSB: u64 = 0xf8 << 56;

/// What a page said about itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageInfo {
    /// Events the kernel lost before this page: `Some(0)` when it lost
    /// some but did not store how many.
    pub missed: Option<u64>,
    /// Data records decoded.
    pub records: u64,
    /// The last timestamp on the page.
    pub last_ts: u64,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize, size: usize) -> Option<u64> {
    match size {
        8 => Some(u64::from_ne_bytes(b.get(at..at + 8)?.try_into().ok()?)),
        4 => u32_at(b, at).map(u64::from),
        _ => None,
    }
}

/// Decode `page`, calling `each(timestamp_ns, record)` for every data
/// record in order.  A truncated or damaged page ends the walk where it
/// stops making sense; it never panics.
pub fn decode(page: &[u8], l: &Layout, mut each: impl FnMut(u64, &[u8])) -> PageInfo {
    let mut info = PageInfo::default();
    let (Some(mut ts), Some(commit)) = (
        u64_at(page, l.timestamp, 8),
        u64_at(page, l.commit, l.commit_size),
    ) else {
        return info;
    };
    let len = (commit & !(MISSED_EVENTS | MISSED_STORED)) as usize;
    let data = page.get(l.data..).unwrap_or(&[]);
    let end = len.min(data.len());
    if commit & MISSED_EVENTS != 0 {
        let stored = (commit & MISSED_STORED != 0)
            .then(|| u64_at(data, len, 8))
            .flatten();
        info.missed = Some(stored.unwrap_or(0));
    }
    let mut at = 0usize;
    while at + 4 <= end {
        let Some(h) = u32_at(data, at) else { break };
        let type_len = h & 0x1f;
        let delta = (h >> 5) as u64;
        let next_word = || u32_at(data, at + 4).map(u64::from);
        let size = match type_len {
            29 => {
                if delta == 0 {
                    break; // the rest of the page is padding
                }
                ts = ts.wrapping_add(delta);
                4 + next_word().unwrap_or(u64::MAX) as usize
            }
            30 => {
                let Some(hi) = next_word() else { break };
                ts = ts.wrapping_add(delta | (hi << TS_SHIFT));
                8
            }
            31 => {
                let Some(hi) = next_word() else { break };
                let mut abs = delta | (hi << TS_SHIFT);
                if ts & TS_MSB != 0 {
                    abs |= ts & TS_MSB;
                    if abs < ts {
                        abs = abs.wrapping_add(1 << 59);
                    }
                }
                ts = abs;
                8
            }
            0 => {
                let Some(n) = next_word() else { break };
                ts = ts.wrapping_add(delta);
                let n = n as usize;
                if n < 4 {
                    break;
                }
                if let Some(rec) = data.get(at + 8..(at + 4 + n).min(end)) {
                    each(ts, rec);
                    info.records += 1;
                }
                4 + n
            }
            words => {
                ts = ts.wrapping_add(delta);
                let n = words as usize * 4;
                if let Some(rec) = data.get(at + 4..(at + 4 + n).min(end)) {
                    each(ts, rec);
                    info.records += 1;
                }
                4 + n
            }
        };
        at = match at.checked_add(size) {
            Some(a) => a,
            None => break,
        };
    }
    info.last_ts = ts;
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const HEADER_PAGE: &str = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

    /// Build a page: base timestamp, then entries.
    pub fn page(base: u64, entries: &[Vec<u8>], commit_flags: u64) -> Vec<u8> {
        let body: Vec<u8> = entries.concat();
        let mut p = vec![0u8; 16];
        p[0..8].copy_from_slice(&base.to_ne_bytes());
        p[8..16].copy_from_slice(&((body.len() as u64) | commit_flags).to_ne_bytes());
        p.extend_from_slice(&body);
        p
    }

    pub fn small(delta: u32, data: &[u8]) -> Vec<u8> {
        assert!(data.len().is_multiple_of(4) && data.len() <= 112);
        let h = (data.len() as u32 / 4) | (delta << 5);
        let mut e = h.to_ne_bytes().to_vec();
        e.extend_from_slice(data);
        e
    }

    fn big(delta: u32, data: &[u8]) -> Vec<u8> {
        let mut e = (delta << 5).to_ne_bytes().to_vec();
        e.extend_from_slice(&(data.len() as u32 + 4).to_ne_bytes());
        e.extend_from_slice(data);
        e
    }

    fn extend(delta: u64) -> Vec<u8> {
        let h = 30u32 | (((delta & ((1 << 27) - 1)) as u32) << 5);
        let mut e = h.to_ne_bytes().to_vec();
        e.extend_from_slice(&((delta >> 27) as u32).to_ne_bytes());
        e
    }

    #[test]
    fn records_and_times_come_out_in_order() {
        let l = Layout::parse(HEADER_PAGE).unwrap();
        assert_eq!(
            (l.timestamp, l.commit, l.commit_size, l.data),
            (0, 8, 8, 16)
        );
        let p = page(
            1_000,
            &[
                small(5, &[1, 0, 0, 0]),
                extend(1 << 30),
                big(7, &[2; 200]),
                small(0, &[3, 0, 0, 0, 0, 0, 0, 0]),
            ],
            0,
        );
        let mut got = Vec::new();
        let info = decode(&p, &l, |ts, rec| got.push((ts, rec[0], rec.len())));
        assert_eq!(
            got,
            vec![
                (1_005, 1, 4),
                (1_005 + (1 << 30) + 7, 2, 200),
                (1_005 + (1 << 30) + 7, 3, 8)
            ]
        );
        assert_eq!(info.records, 3);
        assert_eq!(info.missed, None);
    }

    #[test]
    fn lost_events_are_read_from_the_page() {
        let l = Layout::parse(HEADER_PAGE).unwrap();
        let mut p = page(0, &[small(1, &[0; 4])], MISSED_EVENTS | MISSED_STORED);
        p.extend_from_slice(&42u64.to_ne_bytes());
        assert_eq!(decode(&p, &l, |_, _| {}).missed, Some(42));
        let p = page(0, &[small(1, &[0; 4])], MISSED_EVENTS);
        assert_eq!(decode(&p, &l, |_, _| {}).missed, Some(0));
    }

    #[test]
    fn damaged_pages_end_the_walk_without_panicking() {
        let l = Layout::parse(HEADER_PAGE).unwrap();
        for p in [
            vec![],
            vec![0u8; 9],
            page(0, &[big(1, &[9; 40])], 0)[..30].to_vec(),
            {
                let mut p = page(0, &[small(1, &[0; 4])], 0);
                p[8..16].copy_from_slice(&u64::MAX.to_ne_bytes());
                p
            },
            {
                // A data entry claiming a huge length.
                let mut e = 0u32.to_ne_bytes().to_vec();
                e.extend_from_slice(&u32::MAX.to_ne_bytes());
                page(0, &[e], 0)
            },
        ] {
            decode(&p, &l, |_, _| {});
        }
    }
}
