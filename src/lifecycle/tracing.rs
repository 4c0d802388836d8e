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
        Trace::On(o) => o,
    };
    // The janitor first, so no moment leaves an instance behind.
    let janitor = crate::isolate::spawn_janitor().ok();
    match crate::trace::start(&opts, probe, forks) {
        Ok(s) => Tracing {
            session: Some(s),
            janitor,
            untraced: None,
        },
        Err(why) => {
            if rep.index == 0 {
                ctx.info(&format!(
                    "kbench: not traced: {why}; the run goes on untraced"
                ));
            }
            stop_janitor(janitor);
            Tracing {
                session: None,
                janitor: None,
                untraced: Some(crate::trace::untraced(&why)),
            }
        }
    }
}

fn stop_janitor(j: Option<std::process::Child>) {
    if let Some(mut j) = j {
        let _ = j.kill();
        let _ = j.wait();
    }
}

/// Finish tracing, store what it found in `rec`, and return the lines to
/// print after the figures (empty when there is nothing to say).
pub fn end(t: Tracing, rec: &mut RunRecord) -> String {
    let Tracing {
        session,
        janitor,
        untraced,
    } = t;
    let Some(s) = session else {
        if let Some(u) = untraced {
            rec.set_settings(serde_json::json!({ "trace": u }));
        }
        return String::new();
    };
    let report = s.finish();
    stop_janitor(janitor);
    rec.set_settings(serde_json::json!({ "trace": report.settings }));
    match report.windows.encode() {
        Ok(data) => rec.attachments.push(Attachment {
            kind: crate::trace::stored::KIND.into(),
            data,
        }),
        Err(e) => rec
            .notes
            .push(format!("the trace windows could not be stored: {e:#}")),
    }
    crate::trace::show::summary(&report.settings, 3)
}
