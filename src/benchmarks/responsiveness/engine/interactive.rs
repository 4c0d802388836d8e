//! The interactive worker: sleep, wake, do a small task, report.

use super::{Iteration, Options};
use crate::sys::{fd, time};
use std::io::{BufRead, BufWriter, Write};

/// A small xorshift generator: the ints to sort need not be good random
/// numbers, only cheap and different each time.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Encode an iteration as 24 bytes for the result pipe.
pub fn encode(i: &Iteration) -> [u8; 24] {
    let mut b = [0u8; 24];
    b[..8].copy_from_slice(&i.response_ns.to_ne_bytes());
    b[8..16].copy_from_slice(&i.overshoot_ns.to_ne_bytes());
    b[16..].copy_from_slice(&i.work_ns.to_ne_bytes());
    b
}

/// Decode what [`encode`] wrote.
pub fn decode(b: &[u8]) -> Iteration {
    let u = |r: std::ops::Range<usize>| u64::from_ne_bytes(b[r].try_into().unwrap_or([0; 8]));
    Iteration {
        response_ns: u(0..8),
        overshoot_ns: u(8..16),
        work_ns: u(16..24),
    }
}

/// The task for position `k` of the cycle: 0 sort, 1 read and print, 2 copy.
fn task(
    kind: usize,
    o: &Options,
    sink: &mut std::fs::File,
    rng: &mut XorShift,
) -> std::io::Result<()> {
    let text = o.workdir.join("almarri");
    match kind {
        0 => {
            sink.write_all(b"sorting\n")?;
            let mut v: Vec<u64> = (0..10_000).map(|_| 1 + rng.next() % 10_000).collect();
            v.sort();
            std::hint::black_box(&v);
        }
        1 => {
            let s = std::fs::read(&text)?;
            sink.write_all(&s)?;
            sink.write_all(b"\n")?;
        }
        _ => {
            sink.write_all(b"reading/writing to almarri2\n")?;
            let copy = o.workdir.join(format!("almarri2.{}", std::process::id()));
            let _ = std::fs::remove_file(&copy);
            let mut r = std::io::BufReader::new(std::fs::File::open(&text)?);
            let mut w = BufWriter::new(std::fs::File::create(&copy)?);
            let mut line = String::new();
            while r.read_line(&mut line)? > 0 {
                w.write_all(line.as_bytes())?;
                line.clear();
            }
            w.flush()?;
        }
    }
    Ok(())
}

/// Worker body: loop until the deadline (or until killed), writing one
/// record per finished iteration to `out`.
pub fn worker(o: &Options, deadline_ns: Option<u64>, out: i32) -> i32 {
    let mut sink = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&o.print_to)
    {
        Ok(f) => f,
        Err(_) => return 2,
    };
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ std::process::id() as u64);
    let mut k = 0usize;
    let tid = crate::sys::sched::gettid();
    loop {
        if deadline_ns.is_some_and(|d| time::mono_ns() >= d) {
            return 0;
        }
        let r_ns = (o.sleeps_s[k % o.sleeps_s.len()] * 1e9) as u64;
        let start = time::mono_ns();
        let target = start + r_ns;
        time::sleep_until_ns(target);
        let mut woke = time::mono_ns();
        while woke < target {
            // A signal cut the sleep short: finish it.
            time::sleep_until_ns(target);
            woke = time::mono_ns();
        }
        crate::trace::wakeups::note(tid, target, woke);
        if task(k % 3, o, &mut sink, &mut rng).is_err() {
            return 3;
        }
        let end = time::mono_ns();
        let it = Iteration {
            response_ns: (end - start).saturating_sub(r_ns),
            overshoot_ns: woke - target,
            work_ns: end - woke,
        };
        if fd::write_all(out, &encode(&it)).is_err() {
            return 4;
        }
        k += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let i = Iteration {
            response_ns: 123_456,
            overshoot_ns: 7_000,
            work_ns: 116_456,
        };
        assert_eq!(decode(&encode(&i)), i);
    }
}
