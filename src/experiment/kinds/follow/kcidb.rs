//! A follow as KCIDB v5.3: a checkout and a build of each revision it
//! measured, a test of the followed metric on each (its median, in its
//! unit), and for each confirmed or leading culprit an issue
//! (`culprit.code`: the code under test) with incidents: present on the
//! culprit's test and on the later nightly's, absent on its parent's and
//! on the earlier nightly's, so a dashboard can say where it appears.

use super::design::label_of;
use super::state::State;
use crate::experiment::engine::Plan;
use crate::report::kcidb::{id, segment, ORIGIN};
use crate::store::{RunFilter, Store};
use anyhow::Result;
use std::path::Path;

/// One measured revision: its label in the store, its commit, and
/// whether the issue is present there.
struct Measured {
    label: String,
    rev: String,
    present: Option<bool>,
}

/// The document, as text.
pub fn document(plan: &Plan<State>, store: &dyn Store, benchmark: &str) -> Result<String> {
    let repo = Path::new(&plan.state.repo);
    let full = |r: &str| {
        crate::bisect::git::commit(repo, r)
            .map(|c| c.id)
            .unwrap_or_default()
    };
    let (mut checkouts, mut builds, mut tests, mut issues, mut incidents) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for p in &plan.state.points {
        let mut measured = Vec::new();
        if p.again.is_some() {
            for side in 0..2 {
                measured.push(Measured {
                    label: label_of(&plan.id, &p.between[side]),
                    rev: p.revs[side].clone(),
                    present: None,
                });
            }
        }
        let culprit = p
            .bisection
            .as_ref()
            .and_then(|b| b.culprit.as_ref().map(|c| (b, c)));
        if let Some((b, c)) = culprit {
            for (r, present) in [(&c.parent, false), (&c.rev, true)] {
                measured.push(Measured {
                    label: format!("{}/{r}", b.label),
                    rev: full(r),
                    present: Some(present),
                });
            }
            measured[0].present = Some(false);
            measured[1].present = Some(true);
        }
        let issue = culprit.map(|(b, c)| {
            let issue_id = id("issue", &[&plan.id, &c.rev]);
            let change = c.changes.first();
            issues.push(serde_json::json!({
                "id": issue_id, "version": 1, "origin": ORIGIN,
                "comment": format!(
                    "{} {:+.1} % from {} \"{}\" ({})",
                    plan.state.metric,
                    change.map_or(f64::NAN, |x| x.1),
                    c.rev, c.subject,
                    if c.confirmed { "confirmed against its parent" } else { "a lead, not confirmed" }
                ),
                "culprit": { "code": true, "tool": false, "harness": false },
                "misc": {
                    "kbench_follow": plan.id, "kbench_bisection": b.id,
                    "between": p.between, "confirmed": c.confirmed,
                    "change_pct": change.map(|x| x.1), "change_ci95_pct": change.and_then(|x| x.2),
                    "alpha": plan.state.alpha / 2.0,
                },
            }));
            issue_id
        });
        for m in &measured {
            let checkout = id("checkout", &[&m.rev]);
            if !checkouts
                .iter()
                .any(|c: &serde_json::Value| c["id"] == checkout.as_str())
            {
                let mut c = serde_json::json!({
                    "id": checkout, "origin": ORIGIN, "tree_name": segment(&plan.state.repo),
                    "misc": { "kbench_label": m.label },
                });
                if m.rev.len() == 40 {
                    c["git_commit_hash"] = m.rev.clone().into();
                }
                checkouts.push(c);
                builds.push(serde_json::json!({
                    "id": id("build", &[&m.rev]), "checkout_id": checkout, "origin": ORIGIN,
                    "status": "PASS",
                    "misc": { "build": plan.state.build },
                }));
            }
            let test_id = id("test", &[&plan.id, &m.label, &plan.state.metric]);
            tests.push(test_of(plan, store, benchmark, m, &test_id)?);
            if let (Some(issue_id), Some(present)) = (&issue, m.present) {
                incidents.push(serde_json::json!({
                    "id": id("incident", &[issue_id, &test_id]), "origin": ORIGIN,
                    "issue_id": issue_id, "issue_version": 1,
                    "test_id": test_id, "present": present,
                }));
            }
        }
    }
    let doc = serde_json::json!({
        "version": { "major": 5, "minor": 3 },
        "checkouts": checkouts, "builds": builds, "tests": tests,
        "issues": issues, "incidents": incidents,
    });
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}

/// The followed metric's test on one measured revision: its median, in
/// its unit.
fn test_of(
    plan: &Plan<State>,
    store: &dyn Store,
    benchmark: &str,
    m: &Measured,
    test_id: &str,
) -> Result<serde_json::Value> {
    let runs = store.load_runs(
        &RunFilter {
            labels: vec![m.label.clone()],
            only_complete: true,
            ..Default::default()
        },
        false,
    )?;
    let values: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.metrics.iter().find(|x| x.name == plan.state.metric))
        .map(|x| x.value)
        .collect();
    let unit = runs
        .iter()
        .find_map(|r| r.metrics.iter().find(|x| x.name == plan.state.metric))
        .map(|x| x.unit.clone());
    let mut t = serde_json::json!({
        "id": test_id, "build_id": id("build", &[&m.rev]), "origin": ORIGIN,
        "path": format!("kbench.{}.{}", segment(benchmark), segment(&plan.state.metric)),
        "status": "PASS",
        "misc": { "kbench_label": m.label, "runs": values.len() },
    });
    if !values.is_empty() {
        let median = crate::stats::describe::median(&values);
        if median.is_finite() {
            let mut n = serde_json::json!({ "value": median });
            if let Some(u) = unit.filter(|u| !u.is_empty()) {
                n["unit"] = u.into();
            }
            t["number"] = n;
        }
    }
    Ok(t)
}
