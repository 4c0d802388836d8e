//! The kernel's own description of a trace event's binary layout, read
//! from its `events/<system>/<event>/format` file: the event's id and,
//! per field, its offset, size and signedness.  Decoding never assumes a
//! layout: a field is found by its name here, so a kernel that moves or
//! widens one is read right, and one that lacks a field says so.
//!
//! Format of the file: Documentation/trace/events.rst, "Event formats"
//! (`field:TYPE NAME; offset:N; size:N; signed:N;`); `__data_loc` fields
//! hold a u32 whose low 16 bits are the data's offset in the record and
//! high 16 bits its length (include/trace/stages/stage2_data_offsets.h).

use std::collections::HashMap;

/// One field of an event record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub offset: usize,
    pub size: usize,
    pub signed: bool,
    /// `__data_loc`: the field points at variable-length data.
    pub data_loc: bool,
}

/// An event's id and fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Format {
    pub id: u16,
    pub fields: HashMap<String, Field>,
}

/// Parse a `format` file; `None` when it has no usable `ID:` line.
pub fn parse(text: &str) -> Option<Format> {
    let id = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("ID:"))?
        .trim()
        .parse()
        .ok()?;
    Some(Format {
        id,
        fields: parse_fields(text),
    })
}

/// The `field:` lines of a format file (or of `events/header_page`).
pub fn parse_fields(text: &str) -> HashMap<String, Field> {
    let mut fields = HashMap::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("field:") else {
            continue;
        };
        let mut decl = "";
        let (mut offset, mut size, mut signed) = (None, None, false);
        for (i, part) in rest.split(';').enumerate() {
            let part = part.trim();
            if i == 0 {
                decl = part;
            } else if let Some(v) = part.strip_prefix("offset:") {
                offset = v.trim().parse().ok();
            } else if let Some(v) = part.strip_prefix("size:") {
                size = v.trim().parse().ok();
            } else if let Some(v) = part.strip_prefix("signed:") {
                signed = v.trim() == "1";
            }
        }
        let (Some(offset), Some(size)) = (offset, size) else {
            continue;
        };
        // The name is the declaration's last word, less any `[N]`.
        let name = decl
            .rsplit(|c: char| c.is_whitespace() || c == '*')
            .next()
            .unwrap_or("")
            .split('[')
            .next()
            .unwrap_or("");
        if name.is_empty() {
            continue;
        }
        let data_loc = decl.starts_with("__data_loc");
        fields.insert(
            name.to_string(),
            Field {
                offset,
                size,
                signed,
                data_loc,
            },
        );
    }
    fields
}

impl Format {
    /// The named field, or an error naming it (a kernel without it).
    pub fn field(&self, name: &str) -> Result<Field, String> {
        self.fields
            .get(name)
            .cloned()
            .ok_or_else(|| format!("the event has no field '{name}'"))
    }
}

impl Field {
    /// An integer field of `rec`, sign-extended when signed; 0 when the
    /// record is too short (a damaged record never panics).
    pub fn int(&self, rec: &[u8]) -> i64 {
        let Some(b) = rec.get(self.offset..self.offset.saturating_add(self.size)) else {
            return 0;
        };
        match (self.size, self.signed) {
            (1, true) => b[0] as i8 as i64,
            (1, false) => b[0] as i64,
            (2, true) => i16::from_ne_bytes([b[0], b[1]]) as i64,
            (2, false) => u16::from_ne_bytes([b[0], b[1]]) as i64,
            (4, true) => i32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as i64,
            (4, false) => u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as i64,
            (8, _) => i64::from_ne_bytes(b.try_into().unwrap_or_default()),
            _ => 0,
        }
    }

    /// A string field: a fixed `char[N]` or a `__data_loc char[]`, up to
    /// its first NUL.
    pub fn str<'a>(&self, rec: &'a [u8]) -> &'a [u8] {
        let bytes = if self.data_loc {
            let loc = self.int(rec) as u32;
            let (off, len) = ((loc & 0xffff) as usize, (loc >> 16) as usize);
            rec.get(off..off.saturating_add(len)).unwrap_or(&[])
        } else {
            rec.get(self.offset..self.offset.saturating_add(self.size))
                .unwrap_or(&[])
        };
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        &bytes[..end]
    }
}

/// Formats as this kernel gives them, for tests.
#[cfg(test)]
pub(crate) mod tests_support {
    /// This kernel's own sched_switch and irq_handler_entry formats, as
    /// read from tracefs (6.18, x86-64).
    pub const SCHED_SWITCH: &str = "name: sched_switch\nID: 372\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\nprint fmt: \"prev_comm=%s\"\n";
}

#[cfg(test)]
mod tests {
    use super::tests_support::SCHED_SWITCH;
    use super::*;

    const IRQ_ENTRY: &str = "name: irq_handler_entry\nID: 100\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n";

    #[test]
    fn this_kernels_formats_are_read() {
        let f = parse(SCHED_SWITCH).unwrap();
        assert_eq!(f.id, 372);
        let next = f.field("next_pid").unwrap();
        assert_eq!((next.offset, next.size, next.signed), (56, 4, true));
        assert_eq!(f.field("prev_comm").unwrap().size, 16);
        assert!(f.field("nope").is_err());
        let i = parse(IRQ_ENTRY).unwrap();
        assert!(i.field("name").unwrap().data_loc);
    }

    #[test]
    fn fields_decode_from_a_record() {
        let f = parse(IRQ_ENTRY).unwrap();
        let mut rec = vec![0u8; 16];
        rec[8..12].copy_from_slice(&(-3i32).to_ne_bytes());
        let name = b"virtio0\0";
        let loc = (16u32) | ((name.len() as u32) << 16);
        rec[12..16].copy_from_slice(&loc.to_ne_bytes());
        rec.extend_from_slice(name);
        assert_eq!(f.field("irq").unwrap().int(&rec), -3);
        assert_eq!(f.field("name").unwrap().str(&rec), b"virtio0");
        // A short or lying record reads as nothing, never a panic.
        assert_eq!(f.field("irq").unwrap().int(&rec[..9]), 0);
        let mut bad = rec.clone();
        bad[12..16].copy_from_slice(&u32::MAX.to_ne_bytes());
        assert_eq!(f.field("name").unwrap().str(&bad), b"");
    }

    #[test]
    fn a_file_without_an_id_is_refused() {
        assert!(parse("name: x\nformat:\n").is_none());
        assert!(parse("ID: notanumber\n").is_none());
        assert!(parse("").is_none());
    }
}
