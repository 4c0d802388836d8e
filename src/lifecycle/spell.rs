//! A group of stored runs named the way its user typed it: the parameters
//! written back as the benchmark's own flags (`schbench -t 1 -r 8`): the
//! words of the entry's rules, then the flags in the order they are
//! declared, every flag at its default left out.
//!
//! Reports state a group's parameters once, above its rows; in the
//! benchmark's spelling a reader recognises the command (rt-tests'
//! `hackbench -g 4 -f 4 -l 2000`) instead of decoding stored field names.
//! A flag is declared once, as a field of the benchmark's `args.rs`: its
//! clap id is the name its value is stored under (`#[arg(id =
//! "runtime_s", short = 'r', long = "runtime")]`), and its short or long
//! name, default and value name are how it is spelled here and keyed in
//! scenario files.  [`Spelling::flags`] writes every stored parameter
//! that is a flag's id that way, in the order the flags are declared, so
//! a new flag needs no line here and a changed default cannot leave
//! reports saying the old one.  An entry's `spell` rules say only what no
//! flag's id does (hackbench's stored `mode` is `-T`; a default that
//! follows from other flags), before the flags.  What neither says (a
//! scenario's `var.level`, an import's fields) follows as `name=value`;
//! in a debug build a run of kbench's own that stores such a member stops
//! ([`Spelling::unspelled`]).

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Parameters being written as a command line.
pub struct Spelling<'a> {
    params: &'a Map<String, Value>,
    command: clap::Command,
    words: Vec<String>,
    said: BTreeSet<String>,
    /// What leaving a flag out means for these runs, where the command
    /// cannot state it (it follows from other flags), by stored name.
    implied: BTreeMap<String, String>,
}

/// Members that are never words: the shape's version, and the scenario
/// task (reports say it apart, after the command).
const UNSPOKEN: &[&str] = &["v", "task"];

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

impl<'a> Spelling<'a> {
    pub fn new(params: &'a Value, command: clap::Command) -> Spelling<'a> {
        Spelling {
            params: params.as_object().unwrap_or(&EMPTY),
            command,
            words: Vec::new(),
            said: BTreeSet::new(),
            implied: BTreeMap::new(),
        }
    }

    /// Every stored parameter not said yet that is the id of one of the
    /// command's flags, as that flag, in the order the flags are declared.
    pub fn flags(mut self) -> Self {
        let ids: Vec<String> = self
            .command
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .filter(|id| self.params.contains_key(id) && !self.said.contains(id))
            .collect();
        for id in ids {
            let implied = self.implied.get(&id).cloned();
            self = self.arg_or(&id, &id, implied.as_deref());
        }
        self
    }

    /// What [`Spelling::flags`] takes for the default of flag `param`,
    /// where the command cannot state it because it follows from other
    /// flags (cyclictest's `--policy` is fifo when `-p` is given).
    pub fn implied(mut self, param: &str, default: &str) -> Self {
        self.implied.insert(param.to_string(), default.to_string());
        self
    }

    /// The stored members that no rule and no flag said and that are
    /// neither unspoken nor dotted (a scenario's `var.level`): a
    /// parameter stored under a name no flag has as its id.
    #[cfg(any(debug_assertions, test))]
    pub fn unspelled(self) -> Vec<String> {
        let flagged = self.flags();
        flagged
            .params
            .keys()
            .filter(|k| {
                !flagged.said.contains(*k) && !UNSPOKEN.contains(&k.as_str()) && !k.contains('.')
            })
            .cloned()
            .collect()
    }

    /// The stored parameters, for rules that depend on them.
    pub fn params(&self) -> &'a Map<String, Value> {
        self.params
    }

    /// A stored parameter (null when absent), counted as said.
    pub fn take(&mut self, param: &str) -> &'a Value {
        self.said.insert(param.to_string());
        self.params.get(param).unwrap_or(&Value::Null)
    }

    /// `param` as the flag whose clap id is `id`, left out at the flag's
    /// default (a flag without one: when null, false, zero or empty): for
    /// a parameter whose stored name is not its flag's id because the two
    /// mean different things (contest stores each run's one load as
    /// `load`, of the list `--loads` gives).
    pub fn arg(self, param: &str, id: &str) -> Self {
        self.arg_or(param, id, None)
    }

    /// [`Spelling::arg`] where leaving the flag out means `default` when
    /// given, not what the command declares.
    fn arg_or(mut self, param: &str, id: &str, default: Option<&str>) -> Self {
        let v = self.take(param);
        let Some(a) = self.command.get_arguments().find(|a| a.get_id() == id) else {
            // An entry naming a flag it lacks is a bug (the registry's test
            // spells every entry in a debug build); said as a member.
            debug_assert!(
                false,
                "{}: no flag {id} for {param}",
                self.command.get_name()
            );
            self.said.remove(param);
            return self;
        };
        let takes = a.get_action().takes_values();
        let flag = flag_of(a);
        let declared: Vec<String> = a
            .get_default_values()
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect();
        let default = default
            .map(str::to_string)
            .or_else(|| (!declared.is_empty() && takes).then(|| declared.join(",")));
        if !takes {
            if v == &Value::Bool(true) {
                self.words.extend(flag);
            }
            return self;
        }
        let at_default = match &default {
            Some(d) => same(v, d),
            None => quiet(v),
        };
        if v.is_null() || at_default {
            return self;
        }
        let list = a
            .get_value_names()
            .is_some_and(|n| n.iter().any(|n| n.as_str().contains("LIST")));
        self.words.extend(flag);
        self.words.push(shell_word(&text(v, list)));
        self
    }

    /// The flag `flag` alone when `param` is `value` (hackbench's mode
    /// `thread` is `-T`).
    pub fn when(mut self, param: &str, value: &str, flag: &str) -> Self {
        if self.take(param).as_str() == Some(value) {
            self.words.push(flag.to_string());
        }
        self
    }

    /// A list given as one flag per member (interbench's `-W Audio -W
    /// Video`), left out when it is `default`.
    pub fn each(mut self, param: &str, flag: &str, default: &[&str]) -> Self {
        let v = self.take(param);
        let Some(items) = v.as_array() else {
            return self;
        };
        let items: Vec<String> = items.iter().map(|i| text(i, false)).collect();
        if items.iter().map(String::as_str).eq(default.iter().copied()) {
            return self;
        }
        for i in items {
            self.words.push(flag.to_string());
            self.words.push(shell_word(&i));
        }
        self
    }

    /// A parameter that says nothing a reader needs (it follows from
    /// others, or only names where output went).
    pub fn unsaid(mut self, param: &str) -> Self {
        self.take(param);
        self
    }

    /// A parameter that is already words, as they are (a job's name:
    /// `generated-small -j2`).
    pub fn words(mut self, param: &str) -> Self {
        if let Some(w) = self.take(param).as_str().filter(|w| !w.is_empty()) {
            self.words.push(w.to_string());
        }
        self
    }

    /// The words, then every member no flag said, as `name=value`
    /// (null, false and empty ones left out).
    pub fn done(mut self) -> Vec<String> {
        for (k, v) in self.params {
            if self.said.contains(k) || UNSPOKEN.contains(&k.as_str()) || quiet_member(v) {
                continue;
            }
            self.words.push(match v {
                Value::Bool(true) => k.clone(),
                v => format!("{k}={}", shell_word(&text(v, false))),
            });
        }
        self.words
    }
}

/// Parameters no entry spells (another tool's import): every member as
/// `name=value`.
pub fn members(params: &Value) -> Vec<String> {
    Spelling::new(params, clap::Command::new("none")).done()
}

/// `-t`, `--split`, or nothing for a positional value.
fn flag_of(a: &clap::Arg) -> Option<String> {
    if a.is_positional() {
        return None;
    }
    a.get_short()
        .map(|c| format!("-{c}"))
        .or_else(|| a.get_long().map(|l| format!("--{l}")))
}

/// Null, false, zero, or empty: what a flag without a default stores
/// when it was not given.
fn quiet(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// A member nobody declared is shown unless null, false or empty (a zero
/// may be the point: `var.level=0`).
fn quiet_member(v: &Value) -> bool {
    !matches!(v, Value::Number(_)) && quiet(v)
}

/// Whether a stored value is the flag's default as the command line
/// writes it (`30s` is 30 seconds; `1,2,3` a list).
fn same(v: &Value, default: &str) -> bool {
    match v {
        Value::Number(n) => {
            let Some(x) = n.as_f64() else {
                return false;
            };
            default.trim().parse::<f64>().ok() == Some(x)
                || crate::sys::time::parse_duration(default)
                    .is_ok_and(|d| (d.as_secs_f64() - x).abs() <= 1e-9 * x.abs().max(1.0))
        }
        Value::Array(items) => {
            let parts: Vec<&str> = default.split(',').collect();
            parts.len() == items.len()
                && items.iter().zip(parts).all(|(i, p)| match i {
                    Value::Array(_) | Value::Object(_) => false,
                    i => same(i, p),
                })
        }
        Value::String(s) => s == default,
        Value::Bool(b) => default == if *b { "true" } else { "false" },
        Value::Null | Value::Object(_) => false,
    }
}

/// A value as the command line writes it: whole numbers without a
/// fraction, a CPU list in ranges (`0-3,8`), other lists comma-joined.
fn text(v: &Value, cpu_list: bool) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
            (_, _, Some(f)) => f.to_string(),
            _ => n.to_string(),
        },
        Value::Array(items) => {
            let cpus: Option<Vec<usize>> = items
                .iter()
                .map(|i| i.as_u64().and_then(|u| usize::try_from(u).ok()))
                .collect();
            match cpus {
                Some(c) if cpu_list && !c.is_empty() => crate::sys::cpus::format_list(&c),
                _ => items
                    .iter()
                    .map(|i| text(i, false))
                    .collect::<Vec<_>>()
                    .join(","),
            }
        }
        Value::Bool(b) => b.to_string(),
        Value::Null => String::new(),
        Value::Object(_) => v.to_string(),
    }
}

/// A word as a shell reads it back: quoted when it holds a space or a
/// character the shell would act on.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:,=+%@".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction, Command};
    use serde_json::json;

    fn cmd() -> Command {
        Command::new("t")
            .arg(Arg::new("message_threads").short('m').default_value("1"))
            .arg(Arg::new("threads").short('t'))
            .arg(Arg::new("runtime").short('r').default_value("30"))
            .arg(Arg::new("sleep").short('s').default_value("100"))
            .arg(Arg::new("duration").long("duration").default_value("30s"))
            .arg(Arg::new("cpus").long("cpus").value_name("LIST"))
            .arg(Arg::new("calibrate").short('C').action(ArgAction::SetTrue))
            .arg(Arg::new("name"))
    }

    fn spell(p: Value) -> String {
        Spelling::new(&p, cmd())
            .arg("name", "name")
            .arg("message_threads", "message_threads")
            .arg("workers", "threads")
            .arg("runtime_s", "runtime")
            .arg("sleep_us", "sleep")
            .arg("duration_s", "duration")
            .arg("cpus", "cpus")
            .arg("calibrate", "calibrate")
            .done()
            .join(" ")
    }

    #[test]
    fn defaults_are_left_out_and_the_rest_is_in_the_commands_spelling() {
        let p = json!({"v": 1, "message_threads": 1, "workers": 1, "runtime_s": 8,
            "sleep_us": 0, "duration_s": 30.0, "cpus": [0, 1, 2, 5], "calibrate": true,
            "task": "probe", "var.level": 0, "name": "cpu"});
        // -m 1 and --duration 30s are defaults; -s 0 is not (its default is
        // 100), a zero of a member nobody declared is kept.
        assert_eq!(spell(p), "cpu -t 1 -r 8 -s 0 --cpus 0-2,5 -C var.level=0");
    }

    /// A parameter stored under a flag's id needs no line: it is spelled
    /// as that flag, in the command's order, after the rules' words;
    /// one stored under another name is what `unspelled` reports.
    #[test]
    fn parameters_stored_under_a_flags_id_spell_themselves() {
        let p = json!({"v": 1, "calibrate": true, "runtime": 8, "message_threads": 2,
            "cpus": [0, 1], "sleep": 100, "name": "cpu", "task": "probe", "var.level": 1});
        let s = Spelling::new(&p, cmd()).flags();
        assert_eq!(
            s.done().join(" "),
            "-m 2 -r 8 --cpus 0-1 -C cpu var.level=1"
        );
        assert!(Spelling::new(&p, cmd()).unspelled().is_empty());
        let odd = json!({"runtime_s": 8, "workers": 2, "runtime": 30});
        assert_eq!(
            Spelling::new(&odd, cmd()).unspelled(),
            ["runtime_s", "workers"]
        );
        let ruled = Spelling::new(&odd, cmd())
            .arg("workers", "threads")
            .unsaid("runtime_s");
        assert!(ruled.unspelled().is_empty());
    }

    /// A default the command cannot state (it follows from other flags)
    /// is left out as the rule says it.
    #[test]
    fn an_implied_default_is_left_out() {
        let p = json!({"threads": "1", "duration": 30.0});
        let s = Spelling::new(&p, cmd()).implied("threads", "1").flags();
        assert!(s.done().is_empty());
        let p = json!({"threads": "4"});
        let s = Spelling::new(&p, cmd()).implied("threads", "1").flags();
        assert_eq!(s.done(), ["-t", "4"]);
    }

    #[test]
    fn flags_without_a_default_are_left_out_when_unset() {
        let p = json!({"workers": 0, "cpus": null, "calibrate": false, "runtime_s": 30});
        assert_eq!(spell(p), "");
    }

    #[test]
    fn words_a_shell_would_split_are_quoted() {
        let p = json!({"job": "cmd: make -j2", "note": "it's"});
        assert_eq!(members(&p).join(" "), r"job='cmd: make -j2' note='it'\''s'");
    }

    #[test]
    fn durations_and_lists_match_their_defaults_as_written() {
        assert!(same(&json!(30.0), "30s"));
        assert!(same(&json!(1.5), "1500ms"));
        assert!(!same(&json!(31.0), "30s"));
        assert!(same(&json!([1.0, 2.0, 3.0]), "1,2,3"));
        assert!(!same(&json!([1.0, 2.0]), "1,2,3"));
        assert!(same(&json!("/dev/null"), "/dev/null"));
    }

    #[test]
    fn a_list_flag_repeats_unless_it_is_the_default() {
        let p = json!({"tasks": ["Audio", "Video"]});
        let all = Spelling::new(&p, cmd())
            .each("tasks", "-W", &["Audio", "Video"])
            .done();
        assert!(all.is_empty());
        let one = Spelling::new(&json!({"tasks": ["Audio"]}), cmd())
            .each("tasks", "-W", &["Audio", "Video"])
            .done();
        assert_eq!(one, ["-W", "Audio"]);
    }
}
