//! `/proc/<pid>/cgroup` and `/proc/<pid>/autogroup`: which group a task's
//! CPU time is shared in, for explanations, isolation and limits.

/// One line of `/proc/<pid>/cgroup`: `hierarchy-id:controllers:path`
/// (cgroup v2's unified line is `0::path`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub hierarchy: u32,
    pub controllers: Vec<String>,
    pub path: String,
}

/// Every line that has the three fields (a path may contain `:`).
pub fn parse(text: &str) -> Vec<Line> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, ':');
            let hierarchy = f.next()?.parse().ok()?;
            let controllers = f
                .next()?
                .split(',')
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect();
            let path = f.next()?.trim_end().to_string();
            Some(Line {
                hierarchy,
                controllers,
                path,
            })
        })
        .collect()
}

/// A task's cgroup lines (`None` once it has ended).
pub fn of(pid: i32) -> Option<Vec<Line>> {
    Some(parse(&super::read(&super::pid_file(pid, "cgroup"))?))
}

/// This process's cgroup lines.
pub fn own() -> Option<Vec<Line>> {
    Some(parse(&super::read("/proc/self/cgroup")?))
}

/// The cgroup v2 path (`0::`) among `lines`.
pub fn unified(lines: &[Line]) -> Option<&str> {
    lines
        .iter()
        .find(|l| l.hierarchy == 0 && l.controllers.is_empty())
        .map(|l| l.path.as_str())
}

/// The path a task's CPU time is shared under: the v1 `cpu` controller's
/// hierarchy, else the v2 path.
pub fn cpu(lines: &[Line]) -> Option<&str> {
    lines
        .iter()
        .find(|l| l.controllers.iter().any(|c| c == "cpu"))
        .map(|l| l.path.as_str())
        .or_else(|| unified(lines))
}

/// A task's autogroup number, from `/proc/<pid>/autogroup`
/// (`/autogroup-12 nice 0`), while it lives and autogroup is on.
pub fn autogroup(pid: i32) -> Option<u64> {
    parse_autogroup(&super::read(&super::pid_file(pid, "autogroup"))?)
}

/// The number in `/autogroup-12 nice 0`.
pub fn parse_autogroup(text: &str) -> Option<u64> {
    text.split_whitespace()
        .next()?
        .strip_prefix("/autogroup-")?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_and_v2_lines_read() {
        let v1 = "12:cpu,cpuacct:/user.slice\n11:cpuset:/\n0::/user.slice/a:b\n";
        let lines = parse(v1);
        assert_eq!(lines.len(), 3);
        assert_eq!(cpu(&lines), Some("/user.slice"));
        assert_eq!(unified(&lines), Some("/user.slice/a:b"));
        let v2 = parse("0::/system.slice/x.service\n");
        assert_eq!(cpu(&v2), Some("/system.slice/x.service"));
        assert!(parse("garbage\nx:y:z\n").is_empty());
        assert_eq!(parse_autogroup("/autogroup-12 nice 0\n"), Some(12));
        assert_eq!(parse_autogroup("autogroup-12\n"), None);
    }
}
