//! `campaign status`: each campaign's progress in a line (blocks done,
//! boots lost, blocks on a changed system, what comes next), and with a
//! name its boots, blocks and lost boots one line each; or the plans as
//! JSON.

use super::*;

/// `campaign status`.
pub fn status(db: Option<&str>, name: Option<&str>, json: bool) -> Result<()> {
    let store = crate::store::open(db, Access::ReadOnly)?;
    let plans: Vec<Plan> = match name {
        Some(n) => vec![load(store.as_ref(), n)?],
        None => crate::experiment::plan::list::<Plan>(store.as_ref(), Kind::Campaign)?
            .into_iter()
            .filter_map(|(_, p)| p.ok())
            .filter(|p| {
                let ok = check_plan(p).is_ok();
                if !ok {
                    eprintln!(
                        "kbench: campaign {}: the stored plan is damaged; left out",
                        crate::text::clean(&p.name)
                    );
                }
                ok
            })
            .collect(),
    };
    if json {
        return crate::session::print_json("campaigns", serde_json::json!({ "campaigns": plans }));
    }
    if plans.is_empty() {
        println!("no campaigns in {}", store.describe());
        return Ok(());
    }
    let say = |s: String| println!("{}", crate::text::wrap(&s, crate::text::width()));
    for p in &plans {
        let state = if p.abandoned.is_some() {
            "abandoned".to_string()
        } else if p.next >= p.order.len() {
            "complete".to_string()
        } else if p.paused.is_some() {
            "paused".to_string()
        } else {
            format!(
                "next: block {} on boot '{}'",
                p.next + 1,
                p.boots[p.order[p.next]].label
            )
        };
        let state = match crate::text::colour::of_verdict(&state) {
            Some(paint) if crate::text::colour::stdout() => paint.wrap(&state),
            _ => state,
        };
        let lost = counts(p);
        say(format!(
            "campaign {}: {} of {} blocks done{lost}, {state}; `kbench {}`",
            p.name,
            p.next.min(p.order.len()),
            p.order.len(),
            p.command.join(" ")
        ));
        say(format!("  order: {}", order_line(p)));
        if let Some(why) = &p.paused {
            say(format!("  paused: {why}"));
        }
        if name.is_some() {
            details(p, &say);
        }
    }
    Ok(())
}

/// ", N boots lost, M blocks on a changed system" (or nothing).
fn counts(p: &Plan) -> String {
    let lost = match p.lost.len() {
        0 => String::new(),
        n => format!(", {n} boot{} lost", if n == 1 { "" } else { "s" }),
    };
    match p.history.iter().filter(|b| !b.differs.is_empty()).count() {
        0 => lost,
        n => format!(
            "{lost}, {n} block{} on a changed system",
            if n == 1 { "" } else { "s" }
        ),
    }
}

/// A campaign's boots, blocks, lost boots and unit, one line each.
fn details(p: &Plan, say: &dyn Fn(String)) {
    for b in &p.boots {
        say(format!(
            "  boot {}: release {}, cmdline has [{}], entry {}",
            b.label,
            b.release.as_deref().unwrap_or("any"),
            b.cmdline.join(" "),
            b.entry.as_deref().unwrap_or("-")
        ));
    }
    for h in &p.history {
        say(format!(
            "  block {} {} boot {} {}",
            h.position + 1,
            h.label,
            h.boot_id,
            h.status
        ));
        if !h.differs.is_empty() {
            say(format!(
                "    its system differs from {}'s first block: {}",
                h.label,
                h.differs.join("; ")
            ));
        }
    }
    for l in &p.lost {
        say(format!(
            "  block {} {} lost: the machine came back as boot {}",
            l.position + 1,
            l.label,
            l.boot_id
        ));
    }
    if let Some(s) = &p.service {
        say(format!("  service: {}", s.display()));
    }
}
