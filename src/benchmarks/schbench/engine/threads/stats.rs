//! A worker's two latency histograms, and its statistics: what it
//! recorded since it last published, the resets and snapshots of the main
//! thread it has acted on.

use super::*;

/// A worker's two latency histograms (ns), recorded, zeroed, merged and
/// published together.
#[derive(Clone)]
pub(super) struct Hists {
    pub(super) wakeup: Histogram<u64>,
    pub(super) request: Histogram<u64>,
}

#[derive(Clone, Copy)]
pub(super) enum Kind {
    Wakeup,
    Request,
}

impl Hists {
    pub(super) fn new() -> Hists {
        Hists {
            wakeup: new_hist(HIST_MAX_NS),
            request: new_hist(HIST_MAX_NS),
        }
    }

    pub(super) fn record(&mut self, kind: Kind, ns: u64) {
        match kind {
            Kind::Wakeup => self.wakeup.saturating_record(ns),
            Kind::Request => self.request.saturating_record(ns),
        }
    }

    pub(super) fn reset(&mut self) {
        self.wakeup.reset();
        self.request.reset();
    }

    /// Add another's samples (same bounds and precision: it fails only on
    /// a count past `u64`).
    pub(super) fn add(&mut self, other: &Hists) -> Result<()> {
        let err = |e| anyhow!("merging histograms: {e:?}");
        self.wakeup.add(&other.wakeup).map_err(err)?;
        self.request.add(&other.request).map_err(err)
    }
}

/// A worker's own statistics, and the epochs of the last reset and
/// snapshot it acted on.
pub(super) struct Stats {
    pub(super) hists: Hists,
    pub(super) reset_seen: u64,
    pub(super) snap_seen: u64,
    /// What was recorded since the last publication, while it fits
    /// (capacity [`LOG_CAP`], never grown: no allocation while measuring).
    pub(super) log: Vec<(Kind, u64)>,
    /// More was recorded since the last publication than `log` holds.
    pub(super) overflow: bool,
}

impl Stats {
    pub(super) fn record(&mut self, kind: Kind, ns: u64) {
        self.hists.record(kind, ns);
        if self.log.len() < LOG_CAP {
            self.log.push((kind, ns));
        } else {
            self.overflow = true;
        }
    }

    /// Recorded since the last publication.
    pub(super) fn dirty(&self) -> bool {
        self.overflow || !self.log.is_empty()
    }

    /// Between requests (never inside one): zero the statistics or publish
    /// a snapshot when the main thread asked.
    pub(super) fn housekeeping(&mut self, w: &Worker, shared: &Shared) {
        self.take_reset(w, shared);
        let s = shared.snap_epoch.load(Relaxed);
        if s != self.snap_seen {
            self.snap_seen = s;
            self.publish(w);
        }
    }

    /// Zero the statistics if the main thread asked since the last time,
    /// first publishing them as the closed interval.
    pub(super) fn take_reset(&mut self, w: &Worker, shared: &Shared) {
        let r = shared.reset_epoch.load(Relaxed);
        if r != self.reset_seen {
            self.publish(w);
            {
                let mut slots = w.snapshot.lock().unwrap_or_else(|e| e.into_inner());
                let slots = &mut *slots;
                // The old closed one becomes live, to be zeroed and brought
                // up to date at the next publication (its epoch is old).
                std::mem::swap(&mut slots.live, &mut slots.closed);
            }
            self.reset_seen = r;
            self.hists.reset();
            self.log.clear();
            self.overflow = false;
        }
    }

    /// Bring the published statistics up to this worker's: add what was
    /// recorded since the last publication (after zeroing them, if this
    /// worker has zeroed its own since), or copy when that did not fit.
    pub(super) fn publish(&mut self, w: &Worker) {
        let mut slots = w.snapshot.lock().unwrap_or_else(|e| e.into_inner());
        let slot = &mut slots.live;
        match slot {
            Some(p) if !self.overflow => {
                if p.reset_epoch != self.reset_seen {
                    p.hists.reset();
                    p.reset_epoch = self.reset_seen;
                }
                for &(kind, ns) in &self.log {
                    p.hists.record(kind, ns);
                }
            }
            Some(p) => {
                p.hists.reset();
                // Counts this worker holds itself: adding cannot overflow.
                let _ = p.hists.add(&self.hists);
                p.reset_epoch = self.reset_seen;
            }
            None => {
                *slot = Some(Published {
                    hists: self.hists.clone(),
                    reset_epoch: self.reset_seen,
                })
            }
        }
        self.log.clear();
        self.overflow = false;
    }
}
