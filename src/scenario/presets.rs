//! Built-in scenarios, embedded in the binary.

/// (name, TOML).
pub const PRESETS: &[(&str, &str)] = &[
    ("quick", include_str!("presets/quick.toml")),
    (
        "xanmod-clear-2023",
        include_str!("presets/xanmod-clear-2023.toml"),
    ),
    ("contest", include_str!("presets/contest.toml")),
    ("fair-latency", include_str!("presets/fair-latency.toml")),
    ("interbench", include_str!("presets/interbench.toml")),
    ("scaling", include_str!("presets/scaling.toml")),
];

/// The TOML of preset `name`.
pub fn get(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// A preset's description line.
pub fn description(toml_text: &str) -> String {
    toml_text
        .lines()
        .find_map(|l| l.strip_prefix("description = \""))
        .map(|d| d.trim_end_matches('"').to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every preset parses, its task arguments checked by each command's
    /// own parser, at scales whose products are not whole numbers too.
    #[test]
    fn every_preset_parses_here_at_any_scale() {
        for (name, text) in PRESETS {
            for scale in [0.01, 0.05, 0.07, 0.33, 0.35, 1.0, 2.5] {
                let sc = super::super::schema::parse(name, text, Some(scale), &[])
                    .unwrap_or_else(|e| panic!("{name} at scale {scale}: {e:#}"));
                assert_eq!(&sc.name, name);
            }
            assert!(!description(text).is_empty());
        }
    }
}
