//! How the kernel scheduled one repetition, from counters read at its two
//! ends (no tracing): this run's own tasks ([`crate::sys::sched_account`]:
//! switches voluntary and involuntary, CPU time, run-queue wait, time
//! slices, migrations; tasks that ended during the run included), every
//! other task's switches (the machine's `ctxt` less this run's), and the
//! interrupts and softirqs each CPU took ([`crate::health::irqs`]).
//!
//! Stored as `sched.*` metrics, rates per second of the run: the run's
//! own under its scenario role (`sched.probe.*`, or `sched.background.*`
//! for a scenario's background task, whose runs are compared beside the
//! probe's), `sched.other.*`, `sched.irq.*`, `sched.softirq.*` and per
//! CPU `sched.cpuN.*`.  What the kernel does not give is listed in the
//! run's settings (`sched.not_available`) and stored as no metric, never
//! as zero.

use crate::health::irqs;
use crate::measure::{Better, Measurement};
use crate::store::RunRecord;
use crate::sys::sched_account::{self as acct, Counters, Usage};

/// What was read when the repetition started.
pub struct Start {
    at: std::time::Instant,
    live: Option<Counters>,
    ended: (Counters, u64),
    usage: Usage,
    irqs: Option<Counted>,
    softirqs: Option<Counted>,
    ctxt: Option<u64>,
}

/// A table's CPUs (by number, in its columns' order) and its counts.
pub type Counted = (Vec<usize>, irqs::Table);

/// `/proc/interrupts` and `/proc/softirqs`, in that order.
fn tables() -> [Option<Counted>; 2] {
    crate::sys::procfs::irq_tables().map(|(_, text)| irqs::parse(&text?))
}

/// What grew between two reads of one table; `None` when its CPUs
/// changed between them (one went offline), so no column is misnamed.
fn grew(a: Option<Counted>, b: Option<Counted>) -> Option<Counted> {
    let ((ca, a), (cb, b)) = a.zip(b)?;
    (ca == cb).then(|| (cb, irqs::since(&a, &b)))
}

/// This process's live tasks, `None` when the kernel keeps no schedstat.
fn live() -> Option<Counters> {
    let (c, n) = acct::live();
    (n > 0).then_some(c)
}

/// Read the counters before a repetition (and arm the record of tasks
/// that end during it: before any worker is forked).
pub fn begin() -> Start {
    acct::arm();
    let [irqs, softirqs] = tables();
    Start {
        live: live(),
        ended: acct::ended_so_far(),
        usage: acct::usage(),
        irqs,
        softirqs,
        ctxt: crate::sys::procfs::cpustat::context_switches(),
        at: std::time::Instant::now(),
    }
}

/// What the counters gave over one repetition.
pub struct Taken {
    pub wall_s: f64,
    pub own: Option<Counters>,
    pub ended_tasks: u64,
    pub usage: Usage,
    pub other_switches: Option<u64>,
    pub irqs: Option<Counted>,
    pub softirqs: Option<Counted>,
}

/// Read them again after the repetition.
pub fn take(s: Start) -> Taken {
    let wall_s = s.at.elapsed().as_secs_f64();
    let (ended, n_ended) = acct::ended_so_far();
    let own = match (s.live, live()) {
        (Some(a), Some(mut now)) => {
            // The live tasks now, and those that ended since the start.
            now.add(&ended.since(&s.ended.0));
            Some(now.since(&a))
        }
        _ => None,
    };
    let [irqs, softirqs] = tables();
    let usage = acct::usage().since(&s.usage);
    let own_switches = usage.voluntary.saturating_add(usage.involuntary);
    Taken {
        wall_s,
        own,
        ended_tasks: n_ended.saturating_sub(s.ended.1),
        usage,
        other_switches: s
            .ctxt
            .zip(crate::sys::procfs::cpustat::context_switches())
            .map(|(a, b)| b.saturating_sub(a).saturating_sub(own_switches)),
        irqs: grew(s.irqs, irqs),
        softirqs: grew(s.softirqs, softirqs),
    }
}

impl Taken {
    /// The `sched.*` metrics, `role` naming this run's own tasks.
    pub fn measurement(&self, role: &str) -> Measurement {
        let mut m = Measurement::default();
        let n = Better::Neither;
        let per_s = |x: u64| x as f64 / self.wall_s.max(1e-9);
        let r = |what: &str| format!("sched.{role}.{what}");
        m.push(
            &r("voluntary_switches_per_s"),
            "1/s",
            per_s(self.usage.voluntary),
            n,
        );
        m.push(
            &r("involuntary_switches_per_s"),
            "1/s",
            per_s(self.usage.involuntary),
            n,
        );
        m.push(&r("cpu_pct"), "%", per_s(self.usage.cpu_us) / 1e4, n);
        if let Some(c) = &self.own {
            m.push(
                &r("runqueue_wait_ms_per_s"),
                "ms/s",
                per_s(c.wait_ns) / 1e6,
                Better::Lower,
            );
            if c.slices > 0 {
                m.push(
                    &r("runqueue_wait_per_slice_us"),
                    "us",
                    c.wait_ns as f64 / c.slices as f64 / 1e3,
                    Better::Lower,
                );
            }
            m.push(&r("slices_per_s"), "1/s", per_s(c.slices), n);
            m.push(&r("migrations_per_s"), "1/s", per_s(c.migrations), n);
        }
        if let Some(o) = self.other_switches {
            m.push("sched.other.switches_per_s", "1/s", per_s(o), n);
        }
        for (kind, t) in [("irq", &self.irqs), ("softirq", &self.softirqs)] {
            let Some((cpus, t)) = t else { continue };
            let mut per_cpu: Vec<u64> = Vec::new();
            for (name, counts) in t {
                let total: u64 = counts.iter().fold(0, |a, b| a.saturating_add(*b));
                if total > 0 {
                    m.push(
                        &format!("sched.{kind}.{name}_per_s"),
                        "1/s",
                        per_s(total),
                        n,
                    );
                }
                per_cpu.resize(per_cpu.len().max(counts.len()), 0);
                for (i, c) in counts.iter().enumerate() {
                    per_cpu[i] = per_cpu[i].saturating_add(*c);
                }
            }
            // Named by the CPU's number from the table's header, not by
            // the column's place (CPU0 CPU2 CPU3 with CPU1 offline).
            for (cpu, total) in cpus.iter().zip(&per_cpu) {
                m.push(
                    &format!("sched.cpu{cpu}.{kind}s_per_s"),
                    "1/s",
                    per_s(*total),
                    n,
                );
            }
        }
        m
    }

    /// What the kernel did not give, for the run's settings.
    pub fn not_available(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.own.is_none() {
            v.push("run-queue wait, time slices and migrations (no /proc/<tid>/schedstat: CONFIG_SCHED_INFO)");
        }
        if self.other_switches.is_none() {
            v.push("the machine's context switches (/proc/stat ctxt)");
        }
        if self.irqs.is_none() {
            v.push("interrupts per CPU (/proc/interrupts)");
        }
        if self.softirqs.is_none() {
            v.push("softirqs per CPU (/proc/softirqs)");
        }
        v
    }
}

/// Store what the counters gave with `rec`: the metrics, and in its
/// settings what they cover and what was not available.
pub fn record(t: &Taken, role: &str, rec: &mut RunRecord) -> anyhow::Result<()> {
    rec.absorb(&t.measurement(role))?;
    rec.set_settings(serde_json::json!({ "sched": {
        "role": role,
        "wall_s": t.wall_s,
        "tasks_ended_during_the_run": t.ended_tasks,
        "covers": "switches and CPU: this run's every thread and reaped descendant (getrusage); run-queue wait, slices, migrations: its own threads and forked workers, ended ones included (schedstat)",
        "not_available": t.not_available(),
    }}));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With CPU 1 offline `/proc/interrupts` has columns CPU0 CPU2: the
    /// second column's counts are CPU 2's, and are named so.
    #[test]
    fn per_cpu_counts_are_named_by_the_cpus_number() {
        let text = "           CPU0       CPU2\n LOC:   10   30   Local timer interrupts\n";
        let t = Taken {
            wall_s: 1.0,
            own: None,
            ended_tasks: 0,
            usage: Usage::default(),
            other_switches: None,
            irqs: irqs::parse(text),
            softirqs: None,
        };
        let names: Vec<String> = t
            .measurement("probe")
            .metrics
            .iter()
            .map(|m| m.name.clone())
            .filter(|n| n.starts_with("sched.cpu"))
            .collect();
        assert_eq!(names, ["sched.cpu0.irqs_per_s", "sched.cpu2.irqs_per_s"]);
        let a = irqs::parse(text);
        let b = irqs::parse("      CPU0\n LOC:  12\n");
        assert!(
            grew(a, b).is_none(),
            "a CPU gone between reads names nothing"
        );
    }
}
