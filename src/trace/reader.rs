//! The trace reader: one thread that, every few milliseconds, drains each
//! traced CPU's raw buffer (whole pages, non-blocking), decodes the pages
//! into events kept for a short while, takes the probe's late wake-ups
//! from [`super::wakeups`], keeps the worst K (and every one over the
//! threshold), and once the trace has passed a kept wake-up cuts the
//! window around it and explains it.  Only a wake-up still among the kept
//! ones when its window is ready costs an explanation.

use super::event::{Decoder, Event};
use super::explain::{explain, Procs};
use super::stored::{StoredEvent, Window};
use super::wakeups::{self, Wakeup};
use super::Options;
use std::collections::VecDeque;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

/// How often the reader wakes.
const PERIOD_MS: u64 = 10;
/// Context kept before a wake-up's due time, and after it ran.
pub const BEFORE_NS: u64 = 1_000_000;
pub const AFTER_NS: u64 = 200_000;
/// Events kept in memory for windows not yet cut, at least this long.
const RETAIN_NS: u64 = 200_000_000;
/// At most this many events held, over all CPUs (about 80 bytes each).
const MAX_HELD: usize = 2_000_000;
/// At most this many events in one window.
const MAX_WINDOW: usize = 200_000;
/// Wake-ups over the threshold kept beyond the worst K.
pub const MAX_OVER: usize = 200;

/// One traced CPU's buffer.
struct Cpu {
    cpu: u16,
    pipe: OwnedFd,
    lost_pages: u64,
    /// Times of pages that said events were lost before them.
    lost_at: Vec<u64>,
}

/// A wake-up kept, and its window once cut.
pub struct Kept {
    pub wakeup: Wakeup,
    pub window: Option<Window>,
}

/// What the reader hands back.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Collected {
    /// The kept wake-ups' windows, each explained.
    pub windows: Vec<Window>,
    pub irq_names: std::collections::HashMap<i32, String>,
    pub events_read: u64,
    pub bytes_read: u64,
    pub reader_cpu_ns: u64,
    pub lost_pages: u64,
    /// Events let go by the memory bound before a window needed them.
    pub windows_cut_short: u64,
    pub candidates: u64,
    /// Every task's wait to run, per role: (role, V2-serialised histogram).
    #[serde(default)]
    pub waits: Vec<(String, Vec<u8>)>,
    /// The CPUs the reader could run on ("any", or off the probe's), and
    /// the one it ended on.
    #[serde(default)]
    pub reader_cpus: Option<String>,
    #[serde(default)]
    pub reader_last_cpu: Option<usize>,
}

/// The reader: a thread of kbench, or (beside a benchmark that forks its
/// tasks, which must fork from a single-threaded kbench) a child process
/// that sends what it collected over a pipe.
pub enum Reader {
    Thread {
        stop: Arc<AtomicBool>,
        handle: std::thread::JoinHandle<Collected>,
    },
    Process {
        group: crate::sys::workers::WorkerGroup,
        stop: OwnedFd,
        result: OwnedFd,
    },
}

struct State {
    opts: Options,
    cpus: Vec<Cpu>,
    page: Vec<u8>,
    layout: super::page::Layout,
    decoder: Decoder,
    held: VecDeque<Event>,
    kept: Vec<Kept>,
    fresh: Vec<Wakeup>,
    procs: Procs,
    events_read: u64,
    bytes_read: u64,
    windows_cut_short: u64,
    candidates: u64,
    oldest_needed: u64,
    /// The longest span a window has needed, for how long to hold events.
    longest: u64,
    /// Every task's wait to run, from the events leaving `held`.
    waits: super::waits::Waits,
}

/// Start the reader over `pipes` (cpu, fd).
pub fn start(
    opts: Options,
    pipes: Vec<(usize, OwnedFd)>,
    page_size: usize,
    layout: super::page::Layout,
    decoder: Decoder,
    in_child: bool,
    avoid: Vec<usize>,
) -> anyhow::Result<Reader> {
    let st = State {
        cpus: pipes
            .into_iter()
            .map(|(cpu, pipe)| Cpu {
                cpu: cpu as u16,
                pipe,
                lost_pages: 0,
                lost_at: Vec::new(),
            })
            .collect(),
        page: vec![0u8; page_size],
        layout,
        decoder,
        held: VecDeque::new(),
        kept: Vec::new(),
        fresh: Vec::new(),
        procs: Procs::default(),
        events_read: 0,
        bytes_read: 0,
        windows_cut_short: 0,
        candidates: 0,
        oldest_needed: 0,
        longest: 0,
        waits: super::waits::Waits::new(std::process::id() as i32, opts.root_pid),
        opts,
    };
    if in_child {
        let mut group = crate::sys::workers::WorkerGroup::new()?;
        let (stop_r, stop_w) = crate::sys::fd::pipe()?;
        let (res_r, res_w) = crate::sys::fd::pipe()?;
        let (parent_stop, parent_result) = (stop_w.as_raw_fd(), res_r.as_raw_fd());
        // The closure owns the child's ends; in kbench it is dropped
        // (closing them) once the child is forked.
        group.spawn(0, move || {
            crate::sys::sched_account::helper_started();
            crate::sys::proc::set_name("kbench-trace");
            crate::sys::fd::close_raw(parent_stop);
            crate::sys::fd::close_raw(parent_result);
            let stop = stop_r.as_raw_fd();
            let c = helper_on(&avoid, || {
                st.run(&|| crate::sys::fd::wait_readable(stop, 0).unwrap_or(true))
            });
            crate::sys::sched_account::helper_ending(true);
            let json = serde_json::to_vec(&c).unwrap_or_default();
            match crate::sys::fd::write_all(res_w.as_raw_fd(), &json) {
                Ok(()) => 0,
                Err(_) => 1,
            }
        })?;
        return Ok(Reader::Process {
            group,
            stop: stop_w,
            result: res_r,
        });
    }
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let handle = std::thread::Builder::new()
        .name("kbench-trace".into())
        .spawn(move || {
            crate::sys::sched_account::helper_started();
            let c = helper_on(&avoid, || st.run(&|| s2.load(Relaxed)));
            crate::sys::sched_account::helper_ending(false);
            c
        })?;
    Ok(Reader::Thread { stop, handle })
}

/// Run `work` as the reader: off the CPUs `avoid` (the probe's) where
/// other CPUs are online, so it never runs beside the probe (an isolated
/// probe's wake-up waited 118.6 µs behind it); which CPUs it had and the
/// CPU it ended on are said with what it collected.
fn helper_on(avoid: &[usize], work: impl FnOnce() -> Collected) -> Collected {
    let others: Vec<usize> = crate::sys::cpus::online_here()
        .into_iter()
        .filter(|c| !avoid.contains(c))
        .collect();
    let kept_off = !avoid.is_empty()
        && !others.is_empty()
        && crate::sys::sched::set_affinity(0, &others).is_ok();
    let mut c = work();
    c.reader_cpus = Some(if kept_off {
        crate::sys::cpus::format_list(&others)
    } else {
        "any".into()
    });
    c.reader_last_cpu = Some(crate::sys::sched::current_cpu());
    c
}

impl Reader {
    /// Stop the reader and take what it collected (`None`: it failed).
    pub fn finish(self) -> Option<Collected> {
        match self {
            Reader::Thread { stop, handle } => {
                stop.store(true, Relaxed);
                handle.join().ok()
            }
            Reader::Process {
                mut group,
                stop,
                result,
            } => {
                let _ = crate::sys::fd::write_all(stop.as_raw_fd(), &[1]);
                let mut json = Vec::new();
                let read = std::io::Read::read_to_end(&mut std::fs::File::from(result), &mut json);
                let _ = group.reap_one(false);
                read.ok()?;
                serde_json::from_slice(&json).ok()
            }
        }
    }
}

impl State {
    fn run(mut self, stop: &dyn Fn() -> bool) -> Collected {
        wakeups::open(self.bar());
        let cpu0 = crate::sys::time::thread_cpu_ns();
        loop {
            let stopping = stop();
            let read_at = crate::sys::time::mono_ns();
            self.read_all();
            wakeups::drain(&mut self.fresh);
            self.choose();
            self.cut_ready(if stopping { u64::MAX } else { read_at });
            self.trim(read_at);
            if stopping {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(PERIOD_MS));
        }
        let (sent, _dropped) = wakeups::close();
        self.candidates = sent;
        let lost_pages = self.cpus.iter().map(|c| c.lost_pages).sum();
        // The pipes close here, before the instance is removed.
        self.cpus.clear();
        for e in self.held.drain(..) {
            self.waits.see(&e);
        }
        Collected {
            windows: self.kept.into_iter().filter_map(|k| k.window).collect(),
            irq_names: self.decoder.irq_names,
            events_read: self.events_read,
            bytes_read: self.bytes_read,
            reader_cpu_ns: crate::sys::time::thread_cpu_ns().saturating_sub(cpu0),
            lost_pages,
            windows_cut_short: self.windows_cut_short,
            candidates: self.candidates,
            waits: self.waits.finish(),
            reader_cpus: None,
            reader_last_cpu: None,
        }
    }

    /// Every page each CPU has ready, decoded into `held`.
    fn read_all(&mut self) {
        for i in 0..self.cpus.len() {
            let mut batch: Vec<Event> = Vec::new();
            loop {
                let fd = self.cpus[i].pipe.as_raw_fd();
                let n = match crate::sys::fd::read(fd, &mut self.page) {
                    Ok(n) if n > 0 => n,
                    _ => break,
                };
                self.bytes_read += n as u64;
                let cpu = self.cpus[i].cpu;
                let dec = &mut self.decoder;
                let waits = &mut self.waits;
                let info = super::page::decode(&self.page[..n], &self.layout, |ts, rec| {
                    if let Some(e) = dec.decode(ts, cpu, rec) {
                        waits.place(&e);
                        batch.push(e);
                    }
                });
                if info.missed.is_some() {
                    self.cpus[i].lost_pages += 1;
                    let first = batch.last().map_or(info.last_ts, |e| e.ts);
                    self.cpus[i].lost_at.push(first);
                }
            }
            self.events_read += batch.len() as u64;
            self.merge(batch);
        }
    }

    /// Put one CPU's new events into `held`, which stays in time order.
    fn merge(&mut self, batch: Vec<Event>) {
        if batch.is_empty() {
            return;
        }
        // Each CPU's events come in time order: only the part of `held`
        // after this batch's first event is merged with it.
        let cut = self.held.partition_point(|e| e.ts <= batch[0].ts);
        let tail: Vec<Event> = self.held.drain(cut..).collect();
        let (mut a, mut b) = (tail.into_iter().peekable(), batch.into_iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.ts <= y.ts => a.next(),
                (_, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => break,
            };
            self.held.extend(next);
        }
        while self.held.len() > MAX_HELD {
            if let Some(e) = self.held.pop_front() {
                self.waits.see(&e);
            }
            self.windows_cut_short += 1;
        }
    }

    /// The bar a wake-up must reach to be sent: the K-th worst kept (0
    /// until K are kept), or the threshold when that is lower.
    fn bar(&self) -> u64 {
        let k = self.opts.worst;
        let worst_k = match k {
            0 => u64::MAX,
            // `kept` is sorted worst first.
            _ => self.kept.get(k - 1).map_or(0, |x| x.wakeup.latency()),
        };
        worst_k.min(self.opts.threshold_ns.unwrap_or(u64::MAX))
    }

    /// Add the fresh wake-ups to the kept, dropping what falls out of
    /// the worst K and is under the threshold.
    fn choose(&mut self) {
        if self.fresh.is_empty() {
            return;
        }
        for w in self.fresh.drain(..) {
            self.longest = self.longest.max(w.latency().saturating_add(BEFORE_NS));
            self.kept.push(Kept {
                wakeup: w,
                window: None,
            });
        }
        let k = self.opts.worst;
        let over = |l: u64, t: Option<u64>| t.is_some_and(|t| l >= t);
        self.kept
            .sort_by_key(|x| std::cmp::Reverse(x.wakeup.latency()));
        let t = self.opts.threshold_ns;
        let mut extra = 0usize;
        let mut i = 0usize;
        self.kept.retain(|x| {
            let keep = i < k
                || (over(x.wakeup.latency(), t) && {
                    extra += 1;
                    extra <= MAX_OVER
                });
            i += 1;
            keep
        });
        wakeups::set_bar(self.bar());
    }

    /// Cut and explain the windows of kept wake-ups the trace has passed
    /// (those that ran before `read_at` less the margin).
    fn cut_ready(&mut self, read_at: u64) {
        self.oldest_needed = u64::MAX;
        for i in 0..self.kept.len() {
            let w = self.kept[i].wakeup;
            if self.kept[i].window.is_some() {
                continue;
            }
            if w.ran.saturating_add(AFTER_NS) > read_at {
                self.oldest_needed = self.oldest_needed.min(w.expected.saturating_sub(BEFORE_NS));
                continue;
            }
            let from = w.expected.saturating_sub(BEFORE_NS);
            let to = w.ran.saturating_add(AFTER_NS);
            let a = self.held.partition_point(|e| e.ts < from);
            let b = self.held.partition_point(|e| e.ts <= to);
            let take = (b - a).min(MAX_WINDOW);
            let events: Vec<Event> = self.held.range(a..a + take).copied().collect();
            let lost = |cpu: u16| {
                self.cpus
                    .iter()
                    .find(|c| c.cpu == cpu)
                    .is_some_and(|c| c.lost_at.iter().any(|&t| t >= from && t <= to))
            };
            let explanation = explain(&events, &w, &self.decoder.irq_names, lost, &mut self.procs);
            let base = from;
            self.kept[i].window = Some(Window {
                explanation,
                events: events.iter().map(|e| StoredEvent::of(e, base)).collect(),
            });
        }
    }

    /// Let go of events no window still needs.
    fn trim(&mut self, read_at: u64) {
        let retain = RETAIN_NS.max(self.longest.saturating_mul(2));
        let keep_from = read_at.saturating_sub(retain).min(self.oldest_needed);
        while self.held.front().is_some_and(|e| e.ts < keep_from) {
            if let Some(e) = self.held.pop_front() {
                self.waits.see(&e);
            }
        }
    }
}
