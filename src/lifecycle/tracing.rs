//! `--trace` around one repetition: the trace session started just before
//! the measurement and finished just after, with a janitor that removes
//! the trace instance if kbench is killed meanwhile; what it found stored
//! with the run (settings `trace`, the windows as an attachment) and shown
//! after the repetition's figures.  A probe that is not traced records
//! that, and why.

use super::{Rep, Trace};
use crate::session::Ctx;
use crate::store::{Attachment, RunRecord};

/// Tracing in progress for one repetition.
pub struct Tracing {
    session: Option<crate::trace::Session>,
    janitor: Option<std::process::Child>,
    /// The settings when nothing is traced (`None`: not a probe).
    untraced: Option<serde_json::Value>,
}

/// Start what `trace` asks for.  Tracing that cannot start is said (on
/// the first repetition) with the reason, and the run goes on untraced.
pub fn begin(ctx: &Ctx, trace: Trace, probe: Option<&[usize]>, forks: bool, rep: Rep) -> Tracing {
    let opts = match trace {
        Trace::NotAProbe => {
            return Tracing {
                session: None,
                janitor: None,
                untraced: None,
            }
        }
        Trace::Off => {
            return Tracing {
                session: None,
                janitor: None,
                untraced: Some(crate::trace::untraced("not asked (--trace)")),
            }
        }
        Trace::On(mut o) => {
            o.root_pid = ctx.inherited.root_pid;
            o
        }
    };
    // The janitor first, so no moment leaves an instance behind.
    let janitor = crate::isolate::spawn_janitor().ok();
    match crate::trace::start(&opts, probe, forks) {
        Ok(s) => {
            // What a kbench killed with its janitor left was removed first.
            for name in &s.left_removed {
                ctx.info(&format!(
                    "kbench: removed the trace instance {name}, left still recording by a kbench killed together with its janitor"
                ));
            }
            Tracing {
                session: Some(s),
                janitor,
                untraced: None,
            }
        }
        Err(why) => {
            if rep.index == 0 {
                ctx.info(&format!(
                    "kbench: not traced: {why}; the run goes on untraced"
                ));
            }
            crate::sys::janitor::end(janitor);
            Tracing {
                session: None,
                janitor: None,
                untraced: Some(crate::trace::untraced(&why)),
            }
        }
    }
}

/// Finish tracing, store what it found in `rec`, and return the lines to
/// print after the figures (empty when there is nothing to say) and every
/// task's wait to run, for the record after the benchmark's own figures.
pub fn end(t: Tracing, rec: &mut RunRecord) -> (String, crate::measure::Measurement) {
    let Tracing {
        session,
        janitor,
        untraced,
    } = t;
    let Some(s) = session else {
        if let Some(u) = untraced {
            rec.set_settings(serde_json::json!({ "trace": u }));
        }
        return (String::new(), crate::measure::Measurement::default());
    };
    let report = s.finish();
    crate::sys::janitor::end(janitor);
    rec.set_settings(serde_json::json!({ "trace": report.settings }));
    let waits = waits(&report.waits).unwrap_or_else(|e| {
        rec.notes.push(format!(
            "every task's wait to run could not be stored: {e:#}"
        ));
        crate::measure::Measurement::default()
    });
    match report.windows.encode() {
        Ok(data) => rec.attachments.push(Attachment {
            kind: crate::trace::stored::KIND.into(),
            data,
        }),
        Err(e) => rec
            .notes
            .push(format!("the trace windows could not be stored: {e:#}")),
    }
    (crate::trace::show::summary(&report.settings, 3), waits)
}

/// Every task's wait to run, as the trace saw it on the traced CPUs: a
/// histogram per role (`sched_wait.probe`, ns) and its p50, p99 and max
/// as `sched.<role>.wakeup_wait_*_us` metrics (the `runqlat` view).
fn waits(w: &[(String, Vec<u8>)]) -> anyhow::Result<crate::measure::Measurement> {
    let mut m = crate::measure::Measurement::default();
    for (role, data) in w {
        let mut d = hdrhistogram::serialization::Deserializer::new();
        let h: hdrhistogram::Histogram<u64> = d
            .deserialize(&mut data.as_slice())
            .map_err(|e| anyhow::anyhow!("{role}: {e:?}"))?;
        let us = |v: u64| v as f64 / 1e3;
        let lower = crate::measure::Better::Lower;
        m.push(
            &format!("sched.{role}.wakeup_wait_p50_us"),
            "us",
            us(h.value_at_quantile(0.5)),
            lower,
        );
        m.push(
            &format!("sched.{role}.wakeup_wait_p99_us"),
            "us",
            us(h.value_at_quantile(0.99)),
            lower,
        );
        m.push(
            &format!("sched.{role}.wakeup_wait_max_us"),
            "us",
            us(h.max()),
            lower,
        );
        m.push(
            &format!("sched.{role}.wakeups_traced"),
            "count",
            h.len() as f64,
            crate::measure::Better::Neither,
        );
        m.histograms.push(crate::measure::NamedHistogram {
            name: format!("sched_wait.{role}"),
            unit: "ns".into(),
            hist: h,
        });
    }
    Ok(m)
}
