//! `/proc/mounts`: where cgroup hierarchies and file systems are mounted.

/// One mount: device, mount point, type and options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    pub source: String,
    pub target: String,
    pub fstype: String,
    pub options: Vec<String>,
}

impl Mount {
    pub fn has_option(&self, o: &str) -> bool {
        self.options.iter().any(|x| x == o)
    }
}

/// Every well-formed line, with the kernel's octal escapes (`\040` for a
/// space) in paths decoded.
pub fn parse(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some(Mount {
                source: unescape(f.next()?),
                target: unescape(f.next()?),
                fstype: f.next()?.to_string(),
                options: f.next()?.split(',').map(str::to_string).collect(),
            })
        })
        .collect()
}

/// The mounts now (empty when `/proc/mounts` cannot be read).
pub fn read() -> Vec<Mount> {
    parse(&super::read("/proc/mounts").unwrap_or_default())
}

fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (b[i], octal) {
            (b'\\', Some(d)) => {
                let v = d.iter().fold(0u32, |a, c| a * 8 + u32::from(c - b'0'));
                out.push(u8::try_from(v).unwrap_or(b'?'));
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_escapes_read() {
        let m = parse("cgroup /sys/fs/cgroup/cpuset cgroup rw,nosuid,cpuset 0 0\nnone /mnt/a\\040b tmpfs rw 0 0\nshort line\n");
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].fstype, "cgroup");
        assert!(m[0].has_option("cpuset"));
        assert_eq!(m[1].target, "/mnt/a b");
        assert_eq!(unescape("\\777x\\12"), "?x\\12");
    }
}
