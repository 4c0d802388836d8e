//! Which threads to start, on which CPUs, at which interval.

use serde::Serialize;

/// One measurement thread.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThreadPlan {
    pub index: usize,
    /// Pinned CPU, if any.
    pub cpu: Option<usize>,
    pub interval_ns: u64,
}

/// Place threads as cyclictest does:
/// - `smp`: one per CPU of `affinity` (default: every online CPU), pinned;
/// - `threads = N`: N threads, pinned round-robin over `affinity` if given;
/// - otherwise one thread, pinned to the first `affinity` CPU if given.
///
/// Thread `i` gets `interval + i × distance`.
pub fn plan_threads(
    smp: bool,
    threads: Option<usize>,
    affinity: Option<&[usize]>,
    online: &[usize],
    interval_us: u64,
    distance_us: u64,
) -> Vec<ThreadPlan> {
    let cpus: Vec<Option<usize>> = if smp {
        affinity
            .unwrap_or(online)
            .iter()
            .map(|&c| Some(c))
            .collect()
    } else {
        let n = threads.unwrap_or(1);
        (0..n)
            .map(|i| affinity.filter(|a| !a.is_empty()).map(|a| a[i % a.len()]))
            .collect()
    };
    cpus.into_iter()
        .enumerate()
        .map(|(index, cpu)| ThreadPlan {
            index,
            cpu,
            interval_ns: (interval_us + index as u64 * distance_us) * 1000,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smp_is_one_pinned_thread_per_cpu() {
        let p = plan_threads(true, None, None, &[0, 1, 2, 3], 1000, 0);
        assert_eq!(p.len(), 4);
        assert!(p
            .iter()
            .enumerate()
            .all(|(i, t)| t.cpu == Some(i) && t.interval_ns == 1_000_000));
        let p = plan_threads(true, None, Some(&[2, 3]), &[0, 1, 2, 3], 1000, 0);
        assert_eq!(
            p.iter().map(|t| t.cpu).collect::<Vec<_>>(),
            vec![Some(2), Some(3)]
        );
    }

    #[test]
    fn threads_round_robin_over_affinity_with_distance() {
        let p = plan_threads(false, Some(3), Some(&[0, 1]), &[0, 1], 1000, 500);
        assert_eq!(
            p.iter().map(|t| t.cpu).collect::<Vec<_>>(),
            vec![Some(0), Some(1), Some(0)]
        );
        assert_eq!(
            p.iter().map(|t| t.interval_ns).collect::<Vec<_>>(),
            vec![1_000_000, 1_500_000, 2_000_000]
        );
    }

    #[test]
    fn default_is_one_unpinned_thread() {
        let p = plan_threads(false, None, None, &[0, 1], 200, 0);
        assert_eq!(
            p,
            vec![ThreadPlan {
                index: 0,
                cpu: None,
                interval_ns: 200_000
            }]
        );
    }
}
