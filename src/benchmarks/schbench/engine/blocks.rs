//! schbench's percentile blocks, from full-resolution histograms:
//!
//! ```text
//! (tab-indented in the output)
//! Wakeup Latencies percentiles (usec) runtime 10 (s) (30212 total samples)
//!       50.0th: 7          (7806 samples)
//!     * 99.0th: 175        (2590 samples)
//!       min=1, max=10224
//! ```
//!
//! Each line's value is the smallest value at or below which that share
//! of the samples lie; its sample count is how many samples lie between
//! the previous line's value and this one (the first line counts from the
//! bottom), as schbench counts them.

use hdrhistogram::Histogram;

/// Percentiles of the latency blocks; the starred one is the 99th.
pub const LAT_PERCENTILES: &[f64] = &[50.0, 90.0, 99.0, 99.9];
/// Percentiles of the RPS block; the starred one is the 50th.
pub const RPS_PERCENTILES: &[f64] = &[20.0, 50.0, 90.0];

/// One block.  `scale` divides recorded values into the printed unit
/// (1000 for ns → usec, 1 for RPS), to the nearest: schbench's own
/// figures are differences of two clock reads each cut to the
/// microsecond, right on average, so cutting kbench's nanoseconds would
/// print them half a microsecond low (7 % of a 7 us wake-up).
pub fn percentile_block(
    label: &str,
    unit: &str,
    runtime_s: u64,
    h: &Histogram<u64>,
    percentiles: &[f64],
    star: f64,
    scale: u64,
) -> String {
    let mut s = format!(
        "{label} percentiles ({unit}) runtime {runtime_s} (s) ({} total samples)\n",
        h.len()
    );
    let mut prev_cum = 0u64;
    for &p in percentiles {
        let (v, cum) = if h.is_empty() {
            (0, 0)
        } else {
            let v = h.value_at_quantile(p / 100.0);
            (v, h.count_between(0, v))
        };
        s.push_str(&format!(
            "\t{}{:2.1}th: {:<10} ({} samples)\n",
            if p == star { "* " } else { "  " },
            p,
            nearest(v, scale),
            cum.saturating_sub(prev_cum)
        ));
        prev_cum = cum;
    }
    let (min, max) = if h.is_empty() {
        (0, 0)
    } else {
        (nearest(h.min(), scale), nearest(h.max(), scale))
    };
    s.push_str(&format!("\t  min={min}, max={max}\n"));
    s
}

fn nearest(v: u64, scale: u64) -> u64 {
    v.saturating_add(scale / 2) / scale
}

/// The three blocks schbench prints together: wake-up and request
/// latency (ns histograms, printed in usec) and requests per second.
pub fn latency_and_rps_blocks(
    runtime_s: u64,
    wakeup: &Histogram<u64>,
    request: &Histogram<u64>,
    rps: &Histogram<u64>,
) -> String {
    let lat = |label, h| percentile_block(label, "usec", runtime_s, h, LAT_PERCENTILES, 99.0, 1000);
    let mut t = lat("Wakeup Latencies", wakeup);
    t += &lat("Request Latencies", request);
    t += &percentile_block("RPS", "requests", runtime_s, rps, RPS_PERCENTILES, 50.0, 1);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_are_printed_to_the_nearest() {
        // 7.4 us prints 7 and 7.6 us prints 8, where cutting printed 7 for
        // both (schbench's differences of whole microseconds are right on
        // average, so cut figures would read half a microsecond low).
        let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        h.record(7_400).unwrap();
        h.record(7_600).unwrap();
        let text = percentile_block("Wakeup Latencies", "usec", 1, &h, &[50.0], 50.0, 1000);
        assert!(
            text.contains("\t* 50.0th: 7          (1 samples)\n"),
            "{text}"
        );
        assert!(text.contains("\t  min=7, max=8\n"), "{text}");
    }

    #[test]
    fn percentiles_and_counts_by_hand() {
        // 100 samples of 1..=100 us: p50 = 50, p90 = 90, p99 = 99,
        // p99.9 = 100; counts 50, 40, 9, 1.
        let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        for us in 1..=100u64 {
            h.record(us * 1000).unwrap();
        }
        let text = percentile_block(
            "Wakeup Latencies",
            "usec",
            10,
            &h,
            LAT_PERCENTILES,
            99.0,
            1000,
        );
        assert_eq!(
            text,
            "Wakeup Latencies percentiles (usec) runtime 10 (s) (100 total samples)\n\
             \t  50.0th: 50         (50 samples)\n\
             \t  90.0th: 90         (40 samples)\n\
             \t* 99.0th: 99         (9 samples)\n\
             \t  99.9th: 100        (1 samples)\n\
             \t  min=1, max=100\n"
        );
        // schbench's rule: the first value with at least p % of the samples
        // at or below it: 20 % of 5 → the 1st, 50 % → the 3rd, 90 % → the 5th.
        let mut r = crate::benchmarks::schbench::engine::rps_hist();
        for v in [982, 996, 1004, 1010, 1021] {
            r.record(v).unwrap();
        }
        let text = percentile_block("RPS", "requests", 5, &r, RPS_PERCENTILES, 50.0, 1);
        assert!(
            text.contains("\t  20.0th: 982        (1 samples)\n"),
            "{text}"
        );
        assert!(
            text.contains("\t* 50.0th: 1004       (2 samples)\n"),
            "{text}"
        );
        assert!(
            text.contains("\t  90.0th: 1021       (2 samples)\n"),
            "{text}"
        );
        assert!(text.ends_with("\t  min=982, max=1021\n"), "{text}");
    }
}
