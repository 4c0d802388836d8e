//! `--trace`: why a probe's worst wake-ups were late, from the kernel's
//! own scheduling events, recorded beside the run and explained.
//!
//! During a traced repetition kbench records task switches, wake-ups,
//! migrations, IRQ handlers, softirqs, system vectors and timer expiry on
//! the probe's CPUs (or all) in a trace instance of its own
//! ([`tracefs`]), read in binary form by one thread ([`reader`]) with
//! the event layouts from the kernel's `format` files ([`format`](mod@format),
//! [`page`], [`event`]).  The probe's measured loop sends its late
//! wake-ups through a lock-free ring ([`wakeups`]); the reader keeps the
//! worst K and every one over a threshold, and explains each from the
//! window around it ([`explain`]).  What is kept goes with the run
//! ([`stored`]); [`show`] writes it for people and [`perfetto`] for a
//! trace viewer.
//!
//! Untraced runs open nothing: the probe's only cost is one relaxed load
//! and compare per wake-up.

pub mod event;
pub mod explain;
pub mod format;
pub mod page;
pub mod perfetto;
pub mod reader;
pub mod show;
pub mod stored;
pub mod summary;
pub mod timeline;
pub mod tracefs;
pub mod waits;
pub mod wakeups;

use serde_json::json;

/// Which CPUs to trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cpus {
    /// The probe's CPUs (every CPU when it does not pin itself).
    Probe,
    All,
    List(Vec<usize>),
}

/// What `--trace` asked for.
#[derive(Clone, Debug)]
pub struct Options {
    pub cpus: Cpus,
    /// Kernel buffer per CPU, KiB.
    pub buffer_kb: u64,
    /// Keep the K worst wake-ups.
    pub worst: usize,
    /// And every one at least this late.
    pub threshold_ns: Option<u64>,
    /// The kbench process whose descendants run beside this one (a
    /// scenario's runner), for whose every task's wait is ([`waits`]); 0:
    /// none but this one.
    pub root_pid: i32,
}

/// The default per-CPU buffer: 4 MiB holds about 100 ms of events at
/// hackbench's rate here, far more than the reader's 10 ms period.
pub const DEFAULT_BUFFER_KB: u64 = 4096;

/// A trace in progress.
pub struct Session {
    instance: tracefs::Instance,
    reader: Option<reader::Reader>,
    cpus: Vec<usize>,
    missing: Vec<String>,
    /// Instances of killed kbench processes removed before this one was
    /// made (said by the caller).
    pub left_removed: Vec<String>,
    opts: Options,
    started: u64,
}

/// What tracing a repetition gave: the settings stored with the run, its
/// windows (stored as an attachment), and the explanations to print.
pub struct Report {
    pub settings: serde_json::Value,
    pub windows: stored::Windows,
    /// Every task's wait to run on the traced CPUs, per role (V2 histograms, ns).
    pub waits: Vec<(String, Vec<u8>)>,
}

/// The settings of a run that was not traced, and why.
pub fn untraced(why: &str) -> serde_json::Value {
    json!({ "traced": false, "reason": why })
}

/// Start tracing for `opts` beside a probe on `probe_cpus`; the reason
/// when it cannot (said once, as what to do).
///
/// `in_child`: read from a child process rather than a thread, for a
/// benchmark that forks its tasks (it must fork from a single-threaded
/// kbench); the wake-up ring is then shared with every fork, so that
/// the probe's workers and the reader meet in it.
pub fn start(
    opts: &Options,
    probe_cpus: Option<&[usize]>,
    in_child: bool,
) -> Result<Session, String> {
    let online = crate::sys::cpus::online_here();
    let cpus: Vec<usize> = match &opts.cpus {
        Cpus::All => online.clone(),
        Cpus::Probe => probe_cpus.map_or_else(|| online.clone(), <[usize]>::to_vec),
        Cpus::List(l) => l.clone(),
    };
    if let Some(c) = cpus.iter().find(|c| !online.contains(c)) {
        return Err(format!("CPU {c} is not online, so it cannot be traced"));
    }
    let root = tracefs::root()?;
    let layout = root
        .read("events/header_page")
        .ok()
        .and_then(|t| page::Layout::parse(&t))
        .ok_or("tracefs has no readable events/header_page")?;
    let (instance, missing, left) = tracefs::Instance::create(&root, opts.buffer_kb, &cpus)?;
    let mut decoder = event::Decoder::default();
    for (sys, ev, needed) in tracefs::EVENTS {
        let f = instance
            .dir
            .read(&format!("events/{sys}/{ev}/format"))
            .ok()
            .and_then(|t| format::parse(&t));
        match f.map(|f| decoder.add(sys, ev, &f)) {
            Some(Ok(())) => {}
            _ if !needed => {}
            Some(Err(e)) => return Err(format!("the trace event {sys}:{ev}: {e}")),
            None => return Err(format!("the trace event {sys}:{ev} has no readable format")),
        }
    }
    let mut pipes = Vec::with_capacity(cpus.len());
    for &c in &cpus {
        pipes.push((c, instance.pipe(c)?));
    }
    if in_child {
        wakeups::share().map_err(|e| format!("sharing the wake-up ring with forks: {e}"))?;
    }
    let page_size = instance.page_size();
    instance.start()?;
    let avoid = probe_cpus.map(<[usize]>::to_vec).unwrap_or_default();
    let reader = reader::start(
        opts.clone(),
        pipes,
        page_size,
        layout,
        decoder,
        in_child,
        avoid,
    )
    .map_err(|e| format!("starting the trace reader: {e:#}"))?;
    Ok(Session {
        instance,
        reader: Some(reader),
        cpus,
        missing,
        left_removed: left,
        opts: opts.clone(),
        started: crate::sys::time::mono_ns(),
    })
}

impl Session {
    /// Stop tracing, read what is left, explain, and remove the instance.
    pub fn finish(mut self) -> Report {
        self.instance.stop();
        let traced_s = crate::sys::time::mono_ns().saturating_sub(self.started) as f64 / 1e9;
        let Some(c) = self.reader.take().and_then(reader::Reader::finish) else {
            return Report {
                settings: untraced("the trace reader failed"),
                windows: stored::Windows::default(),
                waits: Vec::new(),
            };
        };
        let lost: u64 = self.cpus.iter().map(|&cpu| self.instance.lost(cpu)).sum();
        let mut windows = c.windows;
        windows.sort_by_key(|w| std::cmp::Reverse(w.explanation.latency_ns));
        let settings = json!({
            "traced": true,
            "cpus": crate::sys::cpus::format_list(&self.cpus),
            "buffer_kb": self.opts.buffer_kb,
            "worst": self.opts.worst,
            "threshold_ns": self.opts.threshold_ns,
            "events_missing": self.missing,
            "events_read": c.events_read,
            "bytes_read": c.bytes_read,
            "lost_events": lost,
            "lost_pages": c.lost_pages,
            "windows_cut_short": c.windows_cut_short,
            "wakeups_sent": c.candidates,
            "reader_cpu_s": c.reader_cpu_ns as f64 / 1e9,
            "reader_cpu_percent": if traced_s > 0.0 { c.reader_cpu_ns as f64 / 1e9 / traced_s * 100.0 } else { 0.0 },
            "reader_cpus": c.reader_cpus,
            "reader_last_cpu": c.reader_last_cpu,
            "outliers": windows.iter().map(|w| &w.explanation).collect::<Vec<_>>(),
        });
        Report {
            settings,
            windows: stored::Windows {
                irq_names: c.irq_names,
                cpus: self.cpus.clone(),
                windows,
            },
            waits: c.waits,
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(r) = self.reader.take() {
            r.finish();
        }
    }
}
