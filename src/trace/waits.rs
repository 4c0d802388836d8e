//! Every task's wait to run, from the trace: for each task on the traced
//! CPUs, the time from when it became runnable (its wake-up,
//! `sched_waking`, or its preemption, a `sched_switch` that left it
//! runnable) to when it was switched in, as `runqlat` and `perf sched
//! latency` measure it, in a histogram per role: the run's own tasks
//! (kbench's measuring process and what it forked), the other tasks kbench
//! runs beside it (a scenario's background tasks: descendants of the
//! scenario's runner), and everything else.  A task's role is found from
//! `/proc` when it is first seen (its thread group, then its parents); one
//! that ended before that is counted as ended, its role unknown.

use super::event::Event;
use crate::sys::procfs::status::group_and_parent;
use hdrhistogram::Histogram;
use std::collections::HashMap;

/// Whose a task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Probe,
    Background,
    Other,
    /// Ended before it could be placed.
    Ended,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Probe, Role::Background, Role::Other, Role::Ended];

    pub fn name(self) -> &'static str {
        match self {
            Role::Probe => "probe",
            Role::Background => "background",
            Role::Other => "other",
            Role::Ended => "ended",
        }
    }
}

/// The role of `pid`: its thread group, then up its parents, until kbench's
/// measuring process (`own`), the runner of what runs beside it (`root`),
/// or the top.
pub fn role_of(pid: i32, own: i32, root: i32) -> Role {
    let Some((tgid, mut parent)) = group_and_parent(pid) else {
        return Role::Ended;
    };
    if tgid == own {
        return Role::Probe;
    }
    if tgid == root && root != own {
        // The runner itself is kbench's, beside the probe.
        return Role::Background;
    }
    for _ in 0..64 {
        if parent == own {
            return Role::Probe;
        }
        if parent == root && root != own {
            return Role::Background;
        }
        if parent <= 1 {
            return Role::Other;
        }
        parent = match group_and_parent(parent) {
            Some((_, p)) => p,
            None => return Role::Other,
        };
    }
    Role::Other
}

/// The waits seen so far.
pub struct Waits {
    own: i32,
    root: i32,
    /// Since when each task has been runnable, not yet switched in.
    runnable: HashMap<i32, u64>,
    roles: HashMap<i32, Role>,
    hists: Vec<Histogram<u64>>,
}

impl Waits {
    pub fn new(own: i32, root: i32) -> Waits {
        Waits {
            own,
            root,
            runnable: HashMap::new(),
            roles: HashMap::new(),
            hists: Role::ALL
                .iter()
                .map(|_| Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("valid bounds"))
                .collect(),
        }
    }

    /// Find the roles of the tasks `e` names, while they live (called as
    /// events are read, soon after they happened).
    pub fn place(&mut self, e: &Event) {
        for pid in e.kind.pids().into_iter().flatten().filter(|p| *p > 0) {
            if !self.roles.contains_key(&pid) {
                let r = role_of(pid, self.own, self.root);
                self.roles.insert(pid, r);
            }
        }
    }

    /// Account `e`; events must come in time order (over all CPUs).
    pub fn see(&mut self, e: &Event) {
        if let Some((pid, _)) = e.kind.woken() {
            if pid > 0 {
                self.runnable.entry(pid).or_insert(e.ts);
            }
            return;
        }
        let Some(sw) = e.kind.switched() else {
            return;
        };
        let (prev_pid, next_pid) = (sw.prev.pid, sw.next.pid);
        if prev_pid > 0 && sw.prev_state == 0 {
            // Preempted: runnable from now.
            self.runnable.insert(prev_pid, e.ts);
        } else {
            self.runnable.remove(&prev_pid);
        }
        if next_pid > 0 {
            if let Some(since) = self.runnable.remove(&next_pid) {
                let role = self.roles.get(&next_pid).copied().unwrap_or(Role::Ended);
                let i = Role::ALL.iter().position(|r| *r == role).unwrap_or(3);
                let _ = self.hists[i].record(e.ts.saturating_sub(since).max(1));
            }
        }
    }

    /// Each role's histogram (ns), V2-serialised, those with waits only.
    pub fn finish(self) -> Vec<(String, Vec<u8>)> {
        use hdrhistogram::serialization::{Serializer, V2Serializer};
        Role::ALL
            .iter()
            .zip(self.hists)
            .filter(|(_, h)| !h.is_empty())
            .filter_map(|(r, h)| {
                let mut data = Vec::new();
                V2Serializer::new().serialize(&h, &mut data).ok()?;
                Some((r.name().to_string(), data))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::event::Kind;

    fn switch(ts: u64, prev: i32, state: i64, next: i32) -> Event {
        Event {
            ts,
            cpu: 0,
            pid: prev,
            kind: Kind::Switch {
                prev_pid: prev,
                prev_prio: 120,
                prev_state: state,
                prev_comm: Default::default(),
                next_pid: next,
                next_prio: 120,
                next_comm: Default::default(),
            },
        }
    }

    #[test]
    fn a_wait_runs_from_wake_up_or_preemption_to_switch_in() {
        let me = std::process::id() as i32;
        assert_eq!(role_of(me, me, me), Role::Probe);
        assert_eq!(role_of(1, me, me), Role::Other);
        assert_eq!(role_of(i32::MAX, me, me), Role::Ended);
        let mut w = Waits::new(me, me);
        let waking = |ts, pid| Event {
            ts,
            cpu: 1,
            pid: 0,
            kind: Kind::Waking {
                pid,
                prio: 120,
                target_cpu: 0,
                comm: Default::default(),
            },
        };
        for e in [
            waking(1_000, me),
            switch(5_000, 7, 1, me),  // me waited 4 us after its wake-up
            switch(9_000, me, 0, 7),  // me preempted
            switch(12_000, 7, 1, me), // …and waited 3 us to run again
        ] {
            w.place(&e);
            w.see(&e);
        }
        let h = w.finish();
        let probe = h.iter().find(|(r, _)| r == "probe").expect("probe waits");
        let mut d = hdrhistogram::serialization::Deserializer::new();
        let hist: Histogram<u64> = d.deserialize(&mut probe.1.as_slice()).unwrap();
        assert_eq!(hist.len(), 2);
        assert_eq!(hist.max(), hist.highest_equivalent(4_000));
        assert_eq!(hist.min(), hist.lowest_equivalent(3_000));
    }
}
