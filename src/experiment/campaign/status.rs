//! `campaign status`: each campaign's progress in a line (blocks done,
//! boots lost, blocks on a changed system, what comes next), and with a
//! name its boots, blocks and lost boots one line each; or the plans as
//! JSON.

use super::*;

/// `campaign status`.
pub fn status(f: &Front, name: Option<&str>) -> Result<()> {
    let store = f.read_store()?;
    let plans: Vec<Plan> = match name {
        Some(n) => vec![load(store.as_ref(), n)?],
        None => crate::experiment::plan::list::<Plan>(store.as_ref(), Kind::Campaign)?
            .into_iter()
            .filter_map(|(_, p)| p.ok())
            .filter(|p| {
                let ok = check_plan(p).is_ok();
                if !ok {
                    f.note(&format!(
                        "kbench: campaign {}: the stored plan is damaged; left out",
                        crate::text::clean(&p.name)
                    ));
                }
                ok
            })
            .collect(),
    };
    if f.json {
        let doc = serde_json::json!({ "campaigns": plans });
        f.line(&crate::session::json_doc("campaigns", doc)?);
        return Ok(());
    }
    if plans.is_empty() {
        f.line(&format!("no campaigns in {}", store.describe()));
        return Ok(());
    }
    let say = |s: String| f.line(&crate::text::wrap(&s, crate::text::width()));
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
            "  block {} {} boot {} {}{}",
            h.position + 1,
            h.label,
            h.boot_id,
            h.status,
            h.settle
                .as_ref()
                .map_or(String::new(), |s| format!(" ({})", super::settle::line(s)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::front::Captured;
    use std::sync::Arc;

    /// `init` and `status` say what a person reads through the front they
    /// are given: here a capture, so the words are checked without a process.
    #[test]
    fn init_and_status_speak_through_their_front() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("r.db").to_string_lossy().into_owned();
        let said = Arc::new(Captured::default());
        let f = Front::new(Some(db), false, false).with_say(said.clone());
        let boots = ["a=release=6.1.0-1-amd64", "b=release=6.1.0-1-rt-amd64"]
            .iter()
            .map(|b| parse_boot(b).unwrap())
            .collect();
        let parse: crate::experiment::ParseCommand = |_| Ok(());
        let o = InitOptions {
            name: "t".into(),
            boots,
            command: vec!["hackbench".into()],
            rounds: 2,
            random: false,
            seed: None,
            reboot: "true {release}".into(),
            retries: 1,
            strict: false,
            auto: None,
            parse,
            settle_max_s: 0,
        };
        init(&f, &o).unwrap();
        status(&f, None).unwrap();
        let out = said.out.lock().unwrap().clone();
        assert!(
            out.contains("campaign t: 4 blocks (2 boots x 2 rounds, alternating order)"),
            "{out}"
        );
        assert!(out.contains("order: "), "{out}");
        assert!(out.contains("campaign t: 0 of 4 blocks done"), "{out}");
        assert!(out.contains("next: block 1 on boot 'a'"), "{out}");
        // The same front in JSON: the document, and nothing but it, on stdout.
        let js = Arc::new(Captured::default());
        let db = f.db().map(str::to_string);
        status(&Front::new(db, false, true).with_say(js.clone()), Some("t")).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&js.out.lock().unwrap()).unwrap();
        assert_eq!(doc["kind"], "campaigns");
        assert_eq!(doc["campaigns"][0]["name"], "t");
    }
}
