//! What a benchmark declares about itself, once: its [`Entry`] (name,
//! help line, metrics with unit and direction, the default report metric,
//! its flags, how long a run of it takes, how its stored parameters are
//! read), and the helpers entries are written with.  The registry lists
//! the entries; everything that needs to know every benchmark (the
//! command line, scenario task kinds, compare's grouping) reads it there.

pub use super::spell::Spelling;
pub use crate::measure::MetricSpec;
use crate::session::Ctx;
use anyhow::Result;

/// One benchmark, as the rest of kbench sees it.
pub struct Entry {
    /// Subcommand, scenario task kind and stored benchmark name.
    pub name: &'static str,
    /// The help line.
    pub about: &'static str,
    /// Metrics it stores under fixed names (per-thread or per-CPU ones,
    /// `cpu0.p99_us`, come on top).
    pub metrics: &'static [MetricSpec],
    /// Metrics it stores once per part, named `<part>_<name>` (interbench's
    /// task and load pairs); empty for most.
    pub parts: &'static [MetricSpec],
    /// Metric a scenario report shows by default.
    pub headline: &'static str,
    /// The subcommand's flags (clap, built on demand).
    pub command: fn() -> clap::Command,
    /// Run it from parsed flags.
    pub run: fn(&Ctx, &clap::ArgMatches) -> Result<()>,
    /// Seconds a run with these flags takes, when its flags say.
    pub estimate: fn(&[String]) -> Option<f64>,
    /// Stored parameters of any version in their canonical form, which is
    /// what compare groups by.
    pub canonical: fn(&serde_json::Value) -> serde_json::Value,
    /// The first repetition of a command differs from the rest on the
    /// machines measured (see the entry's comment): with `--runs` above 1
    /// it is stored marked warm-up, and compare leaves it out unless
    /// `--include-warmup`.
    pub warmup: bool,
    /// Whether a command line of it reads stored runs of several labels
    /// (`contest --show`), so that `--label` may be given more than once.
    pub many_labels: fn(&clap::ArgMatches) -> bool,
    /// How its stored parameters are written as its own command line
    /// beyond what its flags say: every parameter stored under a flag's
    /// clap id is spelled as that flag without a word here
    /// ([`Spelling::flags`]); the rules say the rest (hackbench's `mode`
    /// as `-T`), or are [`by_flags`].  See [`Entry::spelled`].
    pub spell: fn(Spelling) -> Spelling,
}

impl Entry {
    /// Canonical parameters as its own command line, defaults left out
    /// (`-t 1 -r 8`): how reports name a group of its runs
    /// ([`super::spell`]).
    pub fn spelled(&self, params: &serde_json::Value) -> Vec<String> {
        (self.spell)(Spelling::new(params, (self.command)()))
            .flags()
            .done()
    }

    /// The stored parameters that neither a flag's id nor a rule says:
    /// empty for every run kbench makes (checked in debug builds).
    #[cfg(any(debug_assertions, test))]
    pub fn unspelled(&self, params: &serde_json::Value) -> Vec<String> {
        (self.spell)(Spelling::new(params, (self.command)())).unspelled()
    }
}

/// `spell` for a benchmark whose every stored parameter is a flag's id.
pub fn by_flags(s: Spelling) -> Spelling {
    s
}

/// `canonical` for benchmarks whose parameters are a struct `P` with
/// serde defaults: read into `P` and write back, so a field added with a
/// default reads the same in old and new runs.  Members `P` does not know
/// are kept as they are (a scenario task's name).
pub fn canonical_via<P>(v: &serde_json::Value) -> serde_json::Value
where
    P: serde::Serialize + serde::de::DeserializeOwned,
{
    let Ok(p) = serde_json::from_value::<P>(v.clone()) else {
        return v.clone();
    };
    let mut out = serde_json::to_value(p).unwrap_or_else(|_| v.clone());
    if let (serde_json::Value::Object(o), serde_json::Value::Object(orig)) = (&mut out, v) {
        for (k, val) in orig {
            o.entry(k.clone()).or_insert_with(|| val.clone());
        }
    }
    out
}

/// A subcommand built from clap `Args`.
pub fn command<A: clap::Args>(name: &'static str, about: &'static str) -> clap::Command {
    A::augment_args(clap::Command::new(name).about(about))
}

/// Typed flags from a subcommand's matches.
pub fn args<A: clap::FromArgMatches>(m: &clap::ArgMatches) -> Result<A> {
    A::from_arg_matches(m).map_err(|e| crate::error::input(crate::text::one_line(&e.to_string())))
}

/// The value following `flag` in an argv.
pub fn flag_value<'a>(argv: &'a [String], flag: &str) -> Option<&'a str> {
    argv.iter()
        .position(|a| a == flag)
        .and_then(|i| argv.get(i + 1))
        .map(String::as_str)
}

/// The value following `flag` in an argv, as seconds.
pub fn flag_seconds(argv: &[String], flag: &str) -> Option<f64> {
    let v = flag_value(argv, flag)?;
    crate::sys::time::parse_duration(v)
        .ok()
        .map(|d| d.as_secs_f64())
}

/// `many_labels` of a benchmark that always measures one label.
pub fn one_label(_: &clap::ArgMatches) -> bool {
    false
}

/// No estimate.
pub fn no_estimate(_: &[String]) -> Option<f64> {
    None
}

/// Serialize a parameters struct (it cannot fail for these shapes).
pub fn to_value<P: serde::Serialize>(p: &P) -> serde_json::Value {
    serde_json::to_value(p).unwrap_or_default()
}

/// The default of a parameters struct's `v`: the shape's first version
/// (`v` is bumped when a field's meaning changes).
pub fn one() -> u32 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_members_survive_canonical_reading() {
        #[derive(serde::Serialize, serde::Deserialize)]
        struct P {
            #[serde(default)]
            a: u32,
        }
        let v = serde_json::json!({"task": "probe"});
        let c = canonical_via::<P>(&v);
        assert_eq!(c["a"], 0);
        assert_eq!(c["task"], "probe");
    }
}
