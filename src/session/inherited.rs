//! What a parent kbench passes to the child kbench processes it starts (a
//! scenario's tasks, a matrix's or a campaign's commands), through the
//! environment.  The names are declared here and read here, once, into
//! the session: the parents set them with [`Inherited`]'s constants, and
//! nothing else reads them.

use crate::store::RunRecord;

/// The scenario run a task belongs to (`name/unique id`).
pub const ENV_SCENARIO: &str = "KBENCH_SCENARIO_RUN";
/// The isolation a scenario put in place, as JSON, for its tasks to record.
pub const ENV_ISOLATION: &str = "KBENCH_SCENARIO_ISOLATION";
/// The scenario phase a task runs in.
pub const ENV_PHASE: &str = "KBENCH_SCENARIO_PHASE";
/// The scenario repetition a task runs in.
pub const ENV_REP: &str = "KBENCH_SCENARIO_REPETITION";
/// The scenario task's name.
pub const ENV_TASK: &str = "KBENCH_SCENARIO_TASK";
/// Where and how the task was placed (CPUs, policy, nice), as JSON.
pub const ENV_PLACEMENT: &str = "KBENCH_SCENARIO_PLACEMENT";
/// The experiment (matrix or campaign) a command runs in, as JSON: its
/// kind, id, round, position and the knob values read back.
pub const ENV_EXPERIMENT: &str = "KBENCH_EXPERIMENT";
/// What a matrix says of the sched_ext scheduler it attached for this
/// run (name, command, program's SHA-256, seconds to attach), as JSON.
pub const ENV_SCHED_EXT: &str = "KBENCH_SCHED_EXT";
/// The scenario variables the user set (`--var`), as a JSON object.
pub const ENV_VARS: &str = "KBENCH_SCENARIO_VARS";
/// The kbench process whose descendants are kbench's own (a scenario's
/// runner, a matrix, a campaign), for the health monitor and isolation.
pub const ENV_ROOT: &str = "KBENCH_ROOT_PID";

/// Every variable above.
const ALL: &[&str] = &[
    ENV_SCENARIO,
    ENV_ISOLATION,
    ENV_PHASE,
    ENV_REP,
    ENV_TASK,
    ENV_PLACEMENT,
    ENV_EXPERIMENT,
    ENV_SCHED_EXT,
    ENV_VARS,
    ENV_ROOT,
];

/// Everything a parent passed down, read once when the session starts.
#[derive(Clone, Debug, Default)]
pub struct Inherited {
    pub scenario: Option<String>,
    pub phase: Option<String>,
    pub repetition: Option<i64>,
    pub task: Option<String>,
    pub placement: Option<serde_json::Value>,
    /// The scenario's isolation, as its runner recorded it.
    pub isolation: Option<serde_json::Value>,
    pub experiment: Option<crate::store::Tag>,
    /// The sched_ext scheduler a parent matrix attached for this run.
    pub sched_ext: Option<serde_json::Value>,
    /// The scenario variables set with `--var`, for the task's parameters.
    pub vars: Option<serde_json::Map<String, serde_json::Value>>,
    /// The kbench process whose descendants are kbench's own: the
    /// parent's when it said, else this one.
    pub root_pid: i32,
}

impl Inherited {
    /// What the parent passed, when there is one: the variables are
    /// read only when `KBENCH_ROOT_PID` names an ancestor that runs this
    /// same program (every parent kbench sets it); otherwise they are
    /// anyone's (`KBENCH_EXPERIMENT` forged knobs into runs) and are
    /// ignored, with a line saying so.
    pub fn from_env() -> Inherited {
        let set: Vec<&str> = ALL
            .iter()
            .copied()
            .filter(|k| std::env::var_os(k).is_some())
            .collect();
        if set.is_empty() {
            return Inherited::from_vars(|_| None);
        }
        let parent = std::env::var(ENV_ROOT)
            .ok()
            .and_then(|v| v.parse::<i32>().ok())
            .filter(|&p| crate::sys::procstat::is_kbench_ancestor(p));
        if parent.is_none() {
            eprintln!(
                "kbench: ignoring {}: they are only for a kbench's own children, and no parent kbench set them",
                set.join(", ")
            );
            return Inherited::from_vars(|_| None);
        }
        Inherited::from_vars(|k| std::env::var(k).ok())
    }

    /// From any source of variables (the tests give a map).
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Inherited {
        let json = |k: &str| get(k).and_then(|v| serde_json::from_str(&v).ok());
        Inherited {
            scenario: get(ENV_SCENARIO),
            phase: get(ENV_PHASE),
            repetition: get(ENV_REP).and_then(|v| v.parse().ok()),
            task: get(ENV_TASK),
            placement: get(ENV_PLACEMENT).map(|p| serde_json::from_str(&p).unwrap_or_default()),
            isolation: json(ENV_ISOLATION),
            sched_ext: json(ENV_SCHED_EXT),
            experiment: json(ENV_EXPERIMENT)
                .as_ref()
                .and_then(crate::store::Tag::from_value),
            vars: match json(ENV_VARS) {
                Some(serde_json::Value::Object(o)) => Some(o),
                _ => None,
            },
            root_pid: get(ENV_ROOT)
                .and_then(|v| v.parse::<i32>().ok())
                .unwrap_or(std::process::id() as i32),
        }
    }

    /// Tie a new run to the scenario run, phase, repetition and placement
    /// and to the experiment it belongs to, if any: an experiment's knobs
    /// in effect go into the run's fingerprint, the rest into its settings.
    pub fn tag(&self, r: &mut RunRecord) {
        if let Some(sc) = &self.scenario {
            r.scenario = Some(sc.clone());
            r.phase = self.phase.clone();
            r.repetition = self.repetition;
            if let Some(task) = &self.task {
                r.notes.push(format!("scenario task {task}"));
            }
            if let Some(placement) = &self.placement {
                if let serde_json::Value::Object(m) = &mut r.params {
                    m.insert("task".into(), self.task.clone().unwrap_or_default().into());
                    for (k, v) in self.vars.iter().flatten() {
                        m.insert(format!("var.{k}"), v.clone());
                    }
                }
                r.settings["placement"] = placement.clone();
            }
        }
        if let Some(exp) = &self.experiment {
            let mut exp = exp.clone();
            if let crate::store::Tag::Matrix { knobs, .. } = &mut exp {
                if let Some(fp) = r.fingerprint.as_mut().map(std::sync::Arc::make_mut) {
                    fp.knobs.append(knobs);
                }
                knobs.clear();
            }
            exp.set_on(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_task_and_an_experiment_tag_the_run() {
        let vars: std::collections::BTreeMap<&str, &str> = [
            (ENV_SCENARIO, "quick/abc"),
            (ENV_PHASE, "p1"),
            (ENV_REP, "2"),
            (ENV_TASK, "probe"),
            (ENV_PLACEMENT, r#"{"cpus":"1"}"#),
            (
                ENV_EXPERIMENT,
                r#"{"kind":"matrix","id":"m1","knobs":{"autogroup":"0"}}"#,
            ),
            (ENV_ROOT, "4242"),
        ]
        .into_iter()
        .collect();
        let inh = Inherited::from_vars(|k| vars.get(k).map(|v| v.to_string()));
        assert_eq!(inh.root_pid, 4242);
        let mut fp = crate::fingerprint::Fingerprint::default();
        fp.knobs.clear();
        let mut r = RunRecord::new("l", "hackbench", serde_json::json!({}), Some(fp));
        inh.tag(&mut r);
        assert_eq!(r.scenario.as_deref(), Some("quick/abc"));
        assert_eq!(r.phase.as_deref(), Some("p1"));
        assert_eq!(r.repetition, Some(2));
        assert_eq!(r.params["task"], "probe");
        assert_eq!(r.settings["placement"]["cpus"], "1");
        assert_eq!(r.settings["experiment"]["id"], "m1");
        assert!(r.settings["experiment"].get("knobs").is_none());
        assert_eq!(r.fingerprint.unwrap().knobs["autogroup"], "0");
        let none = Inherited::from_vars(|_| None);
        assert_eq!(none.root_pid, std::process::id() as i32);
        let mut r = RunRecord::new("l", "hackbench", serde_json::json!({}), None);
        none.tag(&mut r);
        assert!(r.scenario.is_none() && r.settings.get("experiment").is_none());
    }
}
