//! The reboot command a campaign runs after a block: the plan's template
//! with its placeholders filled, each value quoted once for `sh -c`.

use super::Boot;

pub(super) use crate::text::shell::quote as shell_quote;

/// The reboot command for `b`: every placeholder of the template filled
/// in one pass, each value shell-quoted once, so a value that itself reads
/// `{release}` stays that text (filling one placeholder after another
/// would fill it again, unquoted, inside the first one's quotes).
pub fn reboot_command(template: &str, b: &Boot) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let value = [
            ("{entry}", b.entry.as_deref().unwrap_or("")),
            ("{release}", b.release.as_deref().unwrap_or("")),
            ("{label}", b.label.as_str()),
        ]
        .into_iter()
        .find(|(p, _)| after.starts_with(p));
        match value {
            Some((p, v)) => {
                out.push_str(&shell_quote(v));
                rest = &after[p.len()..];
            }
            None => {
                out.push('{');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
