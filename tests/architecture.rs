//! The house, checked: the layers ARCHITECTURE.md declares (its `layers`
//! block, bottom first) are read from there, every `crate::…` path (and
//! every `super::` that climbs to the crate root) in `src/` is found with
//! comments and string literals left out, and the test fails, naming the
//! file and line, on an import from a lower layer to a higher one, on a
//! circle of imports between top-level modules, and on a top-level module
//! that no layer names.  It also fails when a file under `tests/` is not
//! compiled, and when ARCHITECTURE.md or CONTRIBUTING.md names a path that
//! does not exist.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Upward imports allowed on purpose, each with its reason: (from, to,
/// why).  Empty: the house has none.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The layers, bottom first, from ARCHITECTURE.md's ```layers block: one
/// line a layer, its modules separated by spaces.
fn layers(doc: &str) -> Vec<Vec<String>> {
    let start = doc
        .find("```layers\n")
        .expect("ARCHITECTURE.md has a ```layers block");
    let body = &doc[start + "```layers\n".len()..];
    let end = body.find("```").expect("the layers block is closed");
    body[..end]
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Source with comments and the insides of string and char literals
/// blanked (newlines kept, so line numbers stay right).
fn code_only(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let at = |j: usize| c.get(j).copied().unwrap_or('\0');
    let mut i = 0;
    while i < c.len() {
        if c[i] == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (at(i + 1) == '"' || (at(i + 1) == '#' && (at(i + 2) == '"' || at(i + 2) == '#')))
            && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
        {
            // r"…" or r#"…"#
            let mut hashes = 0;
            let mut j = i + 1;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            out.push(' ');
            for _ in 0..=hashes {
                out.push(' ');
            }
            i = j + 1;
            while i < c.len() {
                if c[i] == '"' && (0..hashes).all(|k| c.get(i + 1 + k) == Some(&'#')) {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(c[i]));
                i += 1;
            }
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' {
            // A char literal ('x', '\n', '\u{1F600}'), not a lifetime ('a).
            let close = if at(i + 1) == '\\' {
                (i + 2..c.len().min(i + 12)).find(|&k| c[k] == '\'')
            } else if at(i + 2) == '\'' {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(k) => {
                    for _ in i..=k {
                        out.push(' ');
                    }
                    i = k + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// One import: the top-level module that uses, the one used, where.
#[derive(Clone, Debug)]
struct Use {
    from: String,
    to: String,
    at: String,
}

fn ident_at(s: &str) -> Option<&str> {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (end > 0).then(|| &s[..end])
}

/// The first segment of each path in a `{…}` group (nested groups too).
fn group_heads(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = true;
    for (i, ch) in s.char_indices() {
        match ch {
            '{' => {
                depth += 1;
                start = depth == 1;
            }
            '}' => {
                if depth == 1 {
                    break;
                }
                depth -= 1;
            }
            ',' if depth == 1 => start = true,
            c if c.is_whitespace() => {}
            _ if start && depth == 1 => {
                if let Some(id) = ident_at(&s[i..]) {
                    out.push(id.to_string());
                }
                start = false;
            }
            _ => {}
        }
    }
    out
}

/// The unit of layering a module path belongs to: the longest prefix of
/// it that a layer names (`experiment::kinds` for
/// [experiment, kinds, matrix] when a layer names it), else its
/// top-level module.
fn unit_of(path: &[String], units: &BTreeSet<String>) -> String {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|u| units.contains(u))
        .unwrap_or_else(|| path.first().cloned().unwrap_or_else(|| "main".into()))
}

/// The imports of one file, given its module path (`report/curves.rs`:
/// [report, curves]): the unit of layering each path it names starts at
/// ([`unit_of`]; a top-level module unless a layer names a deeper one).
fn uses_of(file: &str, module: &[String], src: &str, units: &BTreeSet<String>) -> Vec<Use> {
    let top = unit_of(module, units);
    let mut out = Vec::new();
    for (n, line) in code_only(src).lines().enumerate() {
        for path in named_paths(line, module) {
            if matches!(
                path.first().map(String::as_str),
                None | Some("self" | "super")
            ) {
                continue;
            }
            let to = unit_of(&path, units);
            if to != top {
                out.push(Use {
                    from: top.clone(),
                    to,
                    at: format!("{file}:{}", n + 1),
                });
            }
        }
    }
    out
}

/// Every `.rs` file under `dir`, as (path relative to `src/`, text).
pub(crate) fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// What is wrong with the house: one line each, naming file and line.
fn problems(layers: &[Vec<String>], files: &[(String, String)]) -> Vec<String> {
    let level: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.iter().map(move |m| (m.as_str(), i)))
        .collect();
    let mut out = Vec::new();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut tops = BTreeSet::new();
    let units: BTreeSet<String> = level.keys().map(|k| k.to_string()).collect();
    for (rel, src) in files {
        let module = module_path(rel);
        tops.insert(module.first().cloned().unwrap_or_else(|| "main".into()));
        for u in uses_of(&format!("src/{rel}"), &module, src, &units) {
            graph
                .entry(u.from.clone())
                .or_default()
                .entry(u.to.clone())
                .or_insert(u.at.clone());
            let (Some(&a), Some(&b)) = (level.get(u.from.as_str()), level.get(u.to.as_str()))
            else {
                continue;
            };
            let excepted = EXCEPTIONS
                .iter()
                .any(|(f, t, _)| *f == u.from && *t == u.to);
            if b > a && !excepted {
                out.push(format!(
                    "{}: {} (layer {}) imports {} (layer {}), a higher layer",
                    u.at,
                    u.from,
                    a + 1,
                    u.to,
                    b + 1
                ));
            }
        }
    }
    for t in &tops {
        if !level.contains_key(t.as_str()) {
            out.push(format!(
                "src/{t}: module {t} is in no layer of ARCHITECTURE.md's layers block"
            ));
        }
    }
    out.extend(circles(&graph, "import circle"));
    out
}

/// Every circle in `graph` (a path back to where it started, found depth
/// first, each circle reported once by its smallest module), as
/// "`what`: a -> b at file:line; b -> a at file:line".
fn circles(graph: &BTreeMap<String, BTreeMap<String, String>>, what: &str) -> Vec<String> {
    let mut out = Vec::new();
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in graph.get(&at).map(|m| m.keys()).into_iter().flatten() {
                if next == start {
                    if path.iter().all(|p| p >= start) {
                        let lines: Vec<String> = path
                            .iter()
                            .zip(path.iter().skip(1).chain(std::iter::once(start)))
                            .map(|(a, b)| format!("{a} -> {b} at {}", graph[a][b]))
                            .collect();
                        out.push(format!("{what}: {}", lines.join("; ")));
                    }
                } else if graph.contains_key(next) && seen.insert(next.clone()) {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    out
}

/// A file's module path: `report/curves.rs` → [report, curves];
/// `report/mod.rs` → [report]; `main.rs` → [].
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "main" || p == "lib")
    {
        parts.pop();
    }
    parts
}

/// The paths a line of code names from the crate root, one level into a
/// `{…}` group: `crate::a::b::{c, d::e}` → [a,b,c], [a,b,d]; `super::x`
/// resolved from `module` (the file's module path).
fn named_paths(line: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let segments = |mut after: &str, mut base: Vec<String>, out: &mut Vec<Vec<String>>| loop {
        if after.starts_with('{') {
            for h in group_heads(after) {
                let mut p = base.clone();
                p.push(h);
                out.push(p);
            }
            return;
        }
        match ident_at(after) {
            Some(id) => {
                base.push(id.to_string());
                after = &after[id.len()..];
                match after.strip_prefix("::") {
                    Some(a) => after = a,
                    None => {
                        out.push(base);
                        return;
                    }
                }
            }
            None => {
                out.push(base);
                return;
            }
        }
    };
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        let before_ok = i == 0 || {
            let b = rest.as_bytes()[i - 1] as char;
            !(b.is_alphanumeric() || b == '_' || b == '$' || b == ':')
        };
        let after = &rest[i + "crate::".len()..];
        if before_ok {
            segments(after, Vec::new(), &mut out);
        }
        rest = after;
    }
    let mut rest = line;
    while let Some(i) = rest.find("super::") {
        let before_ok = i == 0 || {
            let b = rest.as_bytes()[i - 1] as char;
            !(b.is_alphanumeric() || b == '_' || b == ':')
        };
        let mut after = &rest[i..];
        let mut k = 0;
        while let Some(a) = after.strip_prefix("super::") {
            k += 1;
            after = a;
        }
        if before_ok && k <= module.len() {
            segments(after, module[..module.len() - k].to_vec(), &mut out);
        }
        rest = &rest[i + "super::".len() * k.max(1)..];
    }
    out
}

/// Circles between sibling modules at every depth below the top (test
/// code left out): `report::curves -> report::svg` and back is one.
fn inner_circles(files: &[(String, String)]) -> Vec<String> {
    let tests = test_files(files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(r, _)| module_path(r)).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (rel, src) in files {
        if tests.contains(rel) {
            continue;
        }
        let from = module_path(rel);
        for (n, line) in measured_lines(src).iter().enumerate() {
            for path in named_paths(line, &from) {
                // The longest prefix of the path that is a module.
                let Some(to) = (1..=path.len())
                    .rev()
                    .map(|k| path[..k].to_vec())
                    .find(|p| modules.contains(p))
                else {
                    continue;
                };
                let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
                if common == 0 || common == from.len() || common == to.len() {
                    continue; // top level (checked by layer), or parent and child
                }
                graph
                    .entry(from[..=common].join("::"))
                    .or_default()
                    .entry(to[..=common].join("::"))
                    .or_insert(format!("src/{rel}:{}", n + 1));
            }
        }
    }
    circles(&graph, "import circle inside a module")
}

#[test]
fn no_circle_even_inside_a_module() {
    let files = sources(&root().join("src"));
    let found = inner_circles(&files);
    assert!(
        found.is_empty(),
        "{} circle(s) inside modules:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The inner checker sees a circle of two siblings through `super::` and
/// `crate::` paths and a `use` group, and not a parent using its child, a
/// child using its parent, or an import made only by test code.
#[test]
fn the_checker_finds_circles_inside_a_module() {
    let f = |rel: &str, src: &str| (rel.to_string(), src.to_string());
    let planted = [
        f("main.rs", "mod report;\n"),
        f(
            "report/mod.rs",
            "mod curves;\nmod svg;\nuse self::curves::X;\n",
        ),
        f(
            "report/curves.rs",
            "use super::{svg, Y};\nuse crate::report::Z;\n",
        ),
        f("report/svg.rs", "fn f() { crate::report::curves::g(); }\n"),
    ];
    let p = inner_circles(&planted);
    assert_eq!(
        p,
        vec![
            "import circle inside a module: report::curves -> report::svg at src/report/curves.rs:1; report::svg -> report::curves at src/report/svg.rs:1".to_string()
        ]
    );
    let clean = [
        f("main.rs", "mod report;\n"),
        f(
            "report/mod.rs",
            "mod curves;\nmod svg;\nuse self::curves::X;\n",
        ),
        f("report/curves.rs", "use super::{svg, Y};\n"),
        f(
            "report/svg.rs",
            "use super::Y;\n#[cfg(test)]\nmod tests {\n    use crate::report::curves::g;\n}\n",
        ),
    ];
    assert_eq!(inner_circles(&clean), Vec::<String>::new());
}

#[test]
fn layers_only_import_downward_and_never_in_a_circle() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let layers = layers(&doc);
    assert!(layers.len() >= 5, "too few layers read: {layers:?}");
    let files = sources(&root().join("src"));
    assert!(files.len() > 100, "only {} source files read", files.len());
    let found = problems(&layers, &files);
    assert!(
        found.is_empty(),
        "{} problem(s) with the layers:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// A layer may name a module inside a top-level one (`experiment::kinds`
/// above `bisect`, the rest of `experiment` below it): the deeper module
/// is its own unit, and its parent importing it is an upward import.
#[test]
fn a_layer_may_name_a_module_inside_another() {
    let layers = vec![
        vec!["exp".to_string()],
        vec!["bis".into()],
        vec!["exp::kinds".into()],
    ];
    let f = |rel: &str, src: &str| (rel.to_string(), src.to_string());
    let fine = [
        f(
            "exp/mod.rs",
            "pub mod kinds;
",
        ),
        f(
            "exp/engine.rs",
            "fn e() {}
",
        ),
        f(
            "bis/mod.rs",
            "use crate::exp::engine;
",
        ),
        f(
            "exp/kinds/mod.rs",
            "use crate::bis::x;
use super::super::engine::e;
",
        ),
    ];
    assert_eq!(problems(&layers, &fine), Vec::<String>::new());
    let wrong = [
        f(
            "exp/engine.rs",
            "use crate::exp::kinds::m;
",
        ),
        f(
            "exp/kinds/mod.rs",
            "fn k() {}
",
        ),
        f(
            "bis/mod.rs",
            "use crate::exp::kinds::m;
",
        ),
    ];
    let p = problems(&layers, &wrong);
    assert!(
        p.iter()
            .any(|l| l
                .starts_with("src/exp/engine.rs:1: exp (layer 1) imports exp::kinds (layer 3)")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|l| l.starts_with("src/bis/mod.rs:1: bis (layer 2) imports exp::kinds (layer 3)")),
        "{p:?}"
    );
}

/// The checker itself: it sees a deliberate upward import (in a `use`
/// group and in a path), a circle within a layer, an import hidden in a
/// comment or a string (not an import), and a `super::` that climbs to
/// the crate root.
#[test]
fn the_checker_finds_upward_imports_and_circles() {
    let layers = vec![
        vec!["low".to_string()],
        vec!["mid".into(), "side".into()],
        vec!["top".into()],
    ];
    let f = |rel: &str, src: &str| (rel.to_string(), src.to_string());
    let clean = [
        f("low.rs", "// crate::top in a comment\nconst S: &str = \"crate::top\";\nconst R: &str = r#\"crate::top\"#;\nfn lt<'a>(x: &'a str) -> char { 'c' }\n"),
        f("mid/mod.rs", "use crate::low;\nuse super::low::x;\n"),
        f("top.rs", "use crate::{mid::a, low};\n"),
    ];
    assert_eq!(problems(&layers, &clean), Vec::<String>::new());
    let upward = [
        f("low.rs", "use crate::{text, mid::x};\n"),
        f("mid/a.rs", "fn f() { super::super::top::go(); }\n"),
        f("top.rs", ""),
    ];
    let p = problems(&layers, &upward);
    assert!(
        p.iter()
            .any(|l| l.starts_with("src/low.rs:1: low (layer 1) imports mid (layer 2)")),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|l| l.starts_with("src/mid/a.rs:1: mid (layer 2) imports top")),
        "{p:?}"
    );
    let circle = [
        f("mid.rs", "use crate::side::b;\n"),
        f("side/mod.rs", "fn g() { crate::mid::a(); }\n"),
    ];
    let p = problems(&layers, &circle);
    assert!(
        p.iter().any(|l| l.starts_with(
            "import circle: mid -> side at src/mid.rs:1; side -> mid at src/side/mod.rs:1"
        )),
        "{p:?}"
    );
    let unknown = [f("attic.rs", "")];
    assert!(problems(&layers, &unknown)[0].contains("module attic is in no layer"));
}

/// Every file under `tests/` is compiled: a test file is a `mod` of
/// `tests/main.rs`, or a folder with its own `main.rs` that Cargo.toml
/// names as a test target (cargo's discovery is off, so a file nobody
/// lists would silently never run).
#[test]
fn every_test_file_is_compiled() {
    let tests = root().join("tests");
    let main = std::fs::read_to_string(tests.join("main.rs")).unwrap();
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let mut missing = Vec::new();
    for e in std::fs::read_dir(&tests).unwrap().flatten() {
        let p = e.path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let listed = |m: &str| main.lines().any(|l| l.trim() == format!("mod {m};"));
        let problem = if p.is_file() && name.ends_with(".rs") && name != "main.rs" {
            let m = name.trim_end_matches(".rs");
            (!listed(m)).then(|| format!("tests/{name}: not a `mod {m};` of tests/main.rs"))
        } else if p.is_dir() && p.join("main.rs").exists() {
            (!cargo.contains(&format!("path = \"tests/{name}/main.rs\"")))
                .then(|| format!("tests/{name}/main.rs: no [[test]] in Cargo.toml"))
        } else if p.is_dir() && p.join("mod.rs").exists() {
            (!listed(&name)).then(|| format!("tests/{name}/: not a `mod {name};` of tests/main.rs"))
        } else {
            None
        };
        missing.extend(problem);
    }
    assert!(
        missing.is_empty(),
        "test files never compiled:\n{}",
        missing.join("\n")
    );
}

/// Every path the house's two maps name (`src/…`, `tests/…`, `bench/…`
/// in backticks) exists, so they describe the house as it is.
#[test]
fn the_maps_name_only_paths_that_exist() {
    let mut missing = Vec::new();
    for doc in ["ARCHITECTURE.md", "CONTRIBUTING.md"] {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for piece in text.split('`').skip(1).step_by(2) {
            let p = piece.trim();
            let is_path = ["src/", "tests/", "bench/", "docs/", ".ci/"]
                .iter()
                .any(|pre| p.starts_with(pre))
                && !p.contains(' ')
                && !p.contains('<')
                && !p.contains('*');
            if is_path && !root().join(p.trim_end_matches('/')).exists() {
                missing.push(format!("{doc}: `{p}` does not exist"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Functions still over 100 lines, each with why it is not split yet
/// (file, function, reason); the test fails on any other function over 100
/// lines, and on an entry here that is no longer over (so the list only
/// shrinks).  Empty: every function is under 100 lines.
const LONG_FUNCTIONS: &[(&str, &str, &str)] = &[];

/// Whether the lines before `i` (attributes, blank lines skipped back to
/// the item) include `#[cfg(test)]`: the item at `i` is test code.
fn cfg_test_above(lines: &[&str], i: usize) -> bool {
    let mut j = i;
    while j > 0 {
        j -= 1;
        let l = lines[j].trim();
        if l.starts_with("#[cfg(test)]") || l.starts_with("#[cfg(all(test") {
            return true;
        }
        if !(l.starts_with("#[") || l.starts_with("///") || l.is_empty()) {
            return false;
        }
    }
    false
}

/// The module an item line declares: `mod x;` → (x, false), `mod x {` →
/// (x, true); `pub`, `pub(crate)` and `pub(super)` allowed.
fn mod_decl(line: &str) -> Option<(String, bool)> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("pub(crate) ")
        .or_else(|| t.strip_prefix("pub(super) "))
        .or_else(|| t.strip_prefix("pub "))
        .unwrap_or(t);
    let rest = t.strip_prefix("mod ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let after = rest[name.len()..].trim();
    if name.is_empty() {
        None
    } else if after.starts_with(';') {
        Some((name, false))
    } else if after.starts_with('{') {
        Some((name, true))
    } else {
        None
    }
}

/// The files (relative to `src/`) that are test code: declared behind
/// `#[cfg(test)]` as `mod x;`, and every module below such a file.
pub(crate) fn test_files(files: &[(String, String)]) -> BTreeSet<String> {
    let known: BTreeSet<&str> = files.iter().map(|(r, _)| r.as_str()).collect();
    let child = |parent: &str, name: &str| -> Option<String> {
        let dir = match parent.rsplit_once('/') {
            Some((d, "mod.rs")) => format!("{d}/"),
            Some((d, f)) => format!("{d}/{}/", f.trim_end_matches(".rs")),
            None if parent == "main.rs" || parent == "lib.rs" => String::new(),
            None => format!("{}/", parent.trim_end_matches(".rs")),
        };
        [format!("{dir}{name}.rs"), format!("{dir}{name}/mod.rs")]
            .into_iter()
            .find(|p| known.contains(p.as_str()))
    };
    let mut out = BTreeSet::new();
    let mut todo: Vec<String> = Vec::new();
    for (rel, src) in files {
        let lines: Vec<&str> = src.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if let Some((name, false)) = mod_decl(l) {
                if cfg_test_above(&lines, i) {
                    // `#[path = "f.rs"]` above names the file, beside its parent.
                    let path =
                        lines[..i].iter().rev().take(3).find_map(|a| {
                            a.trim().strip_prefix("#[path = \"")?.strip_suffix("\"]")
                        });
                    match path {
                        Some(f) => todo.extend(
                            Some(match rel.rsplit_once('/') {
                                Some((d, _)) => format!("{d}/{f}"),
                                None => f.to_string(),
                            })
                            .filter(|p| known.contains(p.as_str())),
                        ),
                        None => todo.extend(child(rel, &name)),
                    }
                }
            }
        }
    }
    while let Some(t) = todo.pop() {
        if !out.insert(t.clone()) {
            continue;
        }
        let src = &files.iter().find(|(r, _)| *r == t).unwrap().1;
        for l in src.lines() {
            if let Some((name, false)) = mod_decl(l) {
                todo.extend(child(&t, &name));
            }
        }
    }
    out
}

/// The line (0-based) of the brace that closes the one opened at or after
/// line `from` in `code` (comments and literals blanked), or None when a
/// `;` ends the item first.
fn closing_line(code: &[&str], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut opened = false;
    let mut nest = 0usize; // ( and [ before the body: `[u8; 4]` ends nothing
    for (j, l) in code.iter().enumerate().skip(from) {
        for ch in l.chars() {
            match ch {
                '(' | '[' if !opened => nest += 1,
                ')' | ']' if !opened => nest = nest.saturating_sub(1),
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' if opened => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(j);
                    }
                }
                ';' if !opened && nest == 0 => return None,
                _ => {}
            }
        }
    }
    None
}

/// The numbers (0-based) of the lines of `src` outside its inline test
/// modules (`#[cfg(test)] mod x { … }`, matched brace by brace, with the
/// attributes above them), and `src` with comments and literals blanked.
fn outside_test_modules(src: &str) -> (Vec<usize>, String) {
    let blanked = code_only(src);
    let code: Vec<&str> = blanked.lines().collect();
    let lines: Vec<&str> = src.lines().collect();
    let mut out: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some((_, true)) = mod_decl(code.get(i).copied().unwrap_or("")) {
            if cfg_test_above(&lines, i) {
                if let Some(end) = closing_line(&code, i) {
                    // The attribute lines above were already kept: drop them.
                    while out
                        .last()
                        .is_some_and(|&j| lines[j].trim_start().starts_with("#["))
                    {
                        out.pop();
                    }
                    i = end + 1;
                    continue;
                }
            }
        }
        out.push(i);
        i += 1;
    }
    (out, blanked)
}

/// A file's code with its inline test modules taken out: the lines that
/// are measured (comments and literals blanked).
fn measured_lines(src: &str) -> Vec<String> {
    let (kept, blanked) = outside_test_modules(src);
    let code: Vec<&str> = blanked.lines().collect();
    kept.into_iter()
        .map(|i| code.get(i).copied().unwrap_or("").to_string())
        .collect()
}

/// Each function of the measured code of `src` files (test files and test
/// modules left out): (file, name, lines).
fn function_lengths(files: &[(String, String)]) -> Vec<(String, String, usize)> {
    let tests = test_files(files);
    let mut out = Vec::new();
    for (rel, src) in files {
        if tests.contains(rel) {
            continue;
        }
        let measured = measured_lines(src);
        let lines: Vec<&str> = measured.iter().map(String::as_str).collect();
        for (i, l) in lines.iter().enumerate() {
            let body = l.trim_start();
            // Any visibility: `pub`, `pub(crate)`, `pub(super)`,
            // `pub(in crate::x)`.
            let after_vis = body
                .strip_prefix("pub(")
                .and_then(|r| r.split_once(") ").map(|(_, rest)| rest))
                .or_else(|| body.strip_prefix("pub "))
                .unwrap_or(body);
            let after = after_vis
                .strip_prefix("const ")
                .or_else(|| after_vis.strip_prefix("async "))
                .or_else(|| after_vis.strip_prefix("unsafe "))
                .or_else(|| after_vis.strip_prefix("extern \"C\" "))
                .unwrap_or(after_vis);
            let Some(rest) = after.strip_prefix("fn ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if let Some(j) = closing_line(&lines, i) {
                out.push((format!("src/{rel}"), name, j - i + 1));
            }
        }
    }
    out
}

/// What the size limits find in `files`: a file over 600 measured lines,
/// a function over 100 but those in `allowed` (and an allowed one that is
/// no longer long).
fn size_problems(files: &[(String, String)], allowed: &[(&str, &str, &str)]) -> Vec<String> {
    let tests = test_files(files);
    let mut problems = Vec::new();
    for (rel, src) in files {
        if tests.contains(rel) {
            continue;
        }
        let n = measured_lines(src).len();
        if n > 600 {
            problems.push(format!(
                "src/{rel}: {n} lines outside its tests, more than 600"
            ));
        }
    }
    let long: Vec<(String, String, usize)> = function_lengths(files)
        .into_iter()
        .filter(|(_, _, n)| *n > 100)
        .collect();
    for (file, name, n) in &long {
        if !allowed.iter().any(|(f, g, _)| f == file && g == name) {
            problems.push(format!("{file}: fn {name} is {n} lines, more than 100"));
        }
    }
    for (file, name, _) in allowed {
        if !long.iter().any(|(f, g, _)| f == file && g == name) {
            problems.push(format!(
                "{file}: fn {name} is no longer over 100 lines: take it off LONG_FUNCTIONS"
            ));
        }
    }
    problems
}

/// No source file over 600 lines and no function over 100 (test code
/// left out: brace-matched `#[cfg(test)] mod x { … }` blocks and files
/// declared `#[cfg(test)] mod x;`), but the functions listed above with
/// their reasons.
#[test]
fn files_and_functions_a_reader_can_hold() {
    let files = sources(&root().join("src"));
    let problems = size_problems(&files, LONG_FUNCTIONS);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The size checker itself has no holes: a 601-line file whose test
/// module is a file of its own (`#[cfg(test)] mod tests;` above its code)
/// is measured whole; its 2,000-line test file is not; a function after
/// an inline test module is measured, and a brace inside a string does not
/// end a test module early.
#[test]
fn the_size_checker_has_no_holes() {
    let f = |rel: &str, src: String| (rel.to_string(), src);
    let filler = |n: usize| "const X: u8 = 0;\n".repeat(n);
    let big = format!("#[cfg(test)]\nmod tests;\n{}", filler(599));
    let files = vec![
        f("big/mod.rs", big),
        f("big/tests.rs", filler(2000)),
        f(
            "fns.rs",
            format!(
                "#[cfg(test)]\nmod tests {{\n    const S: &str = \"}}\";\n    fn t() {{}}\n}}\n\npub fn long() {{\n{}}}\n",
                "    let _ = 1;\n".repeat(100)
            ),
        ),
        f("main.rs", "mod big;\nmod fns;\n".to_string()),
    ];
    let p = size_problems(&files, &[]);
    assert_eq!(
        p,
        vec![
            "src/big/mod.rs: 601 lines outside its tests, more than 600".to_string(),
            "src/fns.rs: fn long is 102 lines, more than 100".to_string(),
        ]
    );
    // A function of any visibility is measured: `pub(in crate::x)` too.
    let scoped = vec![
        f(
            "scoped.rs",
            format!(
                "pub(in crate) fn long() {{\n{}}}\n",
                "    let _ = 1;\n".repeat(99)
            ),
        ),
        f("main.rs", "mod scoped;\n".to_string()),
    ];
    assert_eq!(
        size_problems(&scoped, &[]),
        vec!["src/scoped.rs: fn long is 101 lines, more than 100".to_string()]
    );
    // One line fewer, and one statement fewer: nothing to say.
    let fine = vec![
        f(
            "big/mod.rs",
            format!("#[cfg(test)]\nmod tests;\n{}", filler(598)),
        ),
        f("big/tests.rs", filler(2000)),
        f("main.rs", "mod big;\n".to_string()),
    ];
    assert_eq!(size_problems(&fine, &[]), Vec::<String>::new());
}

/// clap stays at the edge: the files that may use it (the command line,
/// a benchmark's flags, the registry and the lifecycle's entry and
/// spelling that build its command, the global flags, the check of an
/// experiment's command, the commands, and the suites that feed them);
/// an engine, a load, a store, a statistic or a report never does.
#[test]
fn clap_only_at_the_edge() {
    let allowed = |rel: &str| {
        rel.starts_with("cli/")
            || rel.starts_with("cmd/")
            || (rel.starts_with("benchmarks/")
                && (rel.ends_with("/args.rs") || rel == "benchmarks/trace_args.rs"))
            || [
                "main.rs",
                "registry.rs",
                "lifecycle/entry.rs",
                "lifecycle/spell.rs",
                "session/global.rs",
                "experiment/mod.rs",
                "experiment/command.rs",
                "hostile_tests.rs",
            ]
            .contains(&rel)
    };
    let wrong: Vec<String> = sources(&root().join("src"))
        .into_iter()
        .filter(|(rel, src)| code_only(src).contains("clap::") && !allowed(rel))
        .map(|(rel, _)| format!("src/{rel} uses clap"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Files outside `sys/` that may name a `/proc` path, and why: none of
/// them reads a kernel file that `sys::procfs` reads.
const PROC_NAMED: &[(&str, &str)] = &[
    (
        "experiment/knob.rs",
        "a knob is the sysctl file it writes and reads back, named by the user",
    ),
    (
        "vm/guest.rs",
        "the guest's init mounts proc at /proc and binds it for the job",
    ),
    (
        "fingerprint/config.rs",
        "names /proc/config.gz as where a config came from (read under the fingerprint's root)",
    ),
];

/// The lines of `src` outside its inline test modules, comment lines left
/// out, as written, with their numbers (1-based).
fn non_test_lines(src: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = src.lines().collect();
    outside_test_modules(src)
        .0
        .into_iter()
        .filter(|&i| !lines[i].trim_start().starts_with("//"))
        .map(|i| (i + 1, lines[i].to_string()))
        .collect()
}

/// Every `"/proc` literal in code outside `sys/`, test code and the
/// `allowed` files left out.
fn proc_readers(files: &[(String, String)], allowed: &[(&str, &str)]) -> Vec<String> {
    let tests = test_files(files);
    let mut out = Vec::new();
    for (rel, src) in files {
        if rel.starts_with("sys/") || tests.contains(rel) || allowed.iter().any(|(f, _)| f == rel) {
            continue;
        }
        for (n, l) in non_test_lines(src) {
            // `"/proc/…"`, or `"proc/…"` joined under a root.
            if l.contains("\"/proc") || l.contains("\"proc/") {
                out.push(format!(
                    "src/{rel}:{n} reads /proc outside sys/ (read it through sys::procfs): {}",
                    l.trim()
                ));
            }
        }
    }
    out
}

/// `/proc` is read in one place, `sys/` (`sys::procfs`, `sys::procstat`,
/// `sys::sched_account`), so a kernel that changes a file's format meets
/// one parser.
#[test]
fn proc_is_read_only_in_sys() {
    let files = sources(&root().join("src"));
    let wrong = proc_readers(&files, PROC_NAMED);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for (f, why) in PROC_NAMED {
        assert!(
            files.iter().any(|(r, _)| r == f),
            "{f} is allowed to name /proc ({why}) but does not exist"
        );
    }
}

/// The check above finds a planted reader, and leaves `sys/`, comments,
/// inline test modules and test files alone.
#[test]
fn the_proc_checker_finds_a_planted_reader() {
    let f = |r: &str, s: &str| (r.to_string(), s.to_string());
    let files = vec![
        f("main.rs", "#[cfg(test)]\nmod checks;\nmod load;\n"),
        f(
            "load/mod.rs",
            "// \"/proc/meminfo\" in a comment\nfn a() {\n    let m = std::fs::read_to_string(\"/proc/meminfo\");\n}\n#[cfg(test)]\nmod tests {\n    const P: &str = \"/proc/stat\";\n}\n",
        ),
        f("checks.rs", "fn t() { std::fs::read(\"/proc/stat\"); }\n"),
        f(
            "fingerprint/mod.rs",
            "fn m(root: &Path) {\n    let m = std::fs::read_to_string(root.join(\"proc/meminfo\"));\n}\n",
        ),
        f("sys/procfs.rs", "fn r() { std::fs::read(\"/proc/stat\"); }\n"),
    ];
    let found = proc_readers(&files, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("src/load/mod.rs:3 reads /proc outside sys/"));
    assert!(
        found[1].starts_with("src/fingerprint/mod.rs:2 reads /proc outside sys/"),
        "a path joined under a root: {found:?}"
    );
    assert!(proc_readers(
        &files,
        &[
            ("load/mod.rs", "planted"),
            ("fingerprint/mod.rs", "planted")
        ]
    )
    .is_empty());
}

/// What the map must name: every top-level module (a folder or a file of
/// `src/`, but `main.rs` and test files) as `name/` or `name.rs`, and
/// every subcommand `kbench --help` lists, as `` `kbench name` `` or in
/// its command list.  What it lacks, by name.
fn unmapped(map: &str, modules: &[String], commands: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for m in modules {
        let named = if m.ends_with(".rs") {
            map.contains(&format!("`{m}`")) || map.contains(&format!("`src/{m}`"))
        } else {
            map.contains(&format!("`{m}/`")) || map.contains(&format!("`src/{m}/`"))
        };
        if !named {
            out.push(format!("module {m} is not on ARCHITECTURE.md's map"));
        }
    }
    for c in commands {
        if !map.contains(&format!("`{c}`")) && !map.contains(&format!("`kbench {c}")) {
            out.push(format!("command {c} is not on ARCHITECTURE.md's map"));
        }
    }
    out
}

/// The top-level modules of `src/`: folders as `x/`, files as `x.rs`
/// (main.rs and `#[cfg(test)]` files left out).
fn top_modules(src: &Path) -> Vec<String> {
    let files = sources(src);
    let tests = test_files(&files);
    let mut out: Vec<String> = std::fs::read_dir(src)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                Some(format!("{n}/"))
            } else if n.ends_with(".rs") && n != "main.rs" && !tests.contains(&n) {
                Some(n)
            } else {
                None
            }
        })
        .collect();
    out.sort();
    out
}

/// The subcommands `kbench --help` lists, but the benchmarks (the map
/// places them all in `benchmarks/<name>/`, and the registry lists them).
fn subcommands() -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kbench"))
        .arg("--help")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // A command's line starts two spaces in; its help's folded lines more.
    let benchmarks = crate::common::registered_benchmarks(&crate::common::Env::new());
    text.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|c| c != "help" && !benchmarks.contains(c))
        .collect()
}

/// The map is whole: ARCHITECTURE.md names every top-level module and
/// every command (a new one fails here until it is placed on the map).
#[test]
fn the_map_names_every_module_and_command() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let modules: Vec<String> = top_modules(&root().join("src"))
        .into_iter()
        .map(|m| m.trim_end_matches('/').to_string())
        .collect();
    assert!(modules.len() > 10, "{modules:?}");
    let commands = subcommands();
    assert!(commands.iter().any(|c| c == "compare"), "{commands:?}");
    let missing = unmapped(&map, &modules, &commands);
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    // The check itself: a planted module and command are found.
    let planted = unmapped(
        &map,
        &["planted".to_string(), "planted.rs".to_string()],
        &["planted-cmd".to_string()],
    );
    assert_eq!(
        planted,
        vec![
            "module planted is not on ARCHITECTURE.md's map",
            "module planted.rs is not on ARCHITECTURE.md's map",
            "command planted-cmd is not on ARCHITECTURE.md's map",
        ]
    );
}

/// The experiment fronts, and the commands' own layer: what they show goes
/// through `session::Front` (a terminal, JSON lines, a capture), and the
/// store is opened only by `store/` and `session/`.
const FRONTS: &[&str] = &["vm/", "bisect/", "experiment/", "track/", "lava/"];

/// Files that may open a store themselves, and why.
const STORE_OPENERS: &[(&str, &str)] = &[
    (
        "cmd/push.rs",
        "push and pull's remote store, named by --to or --from",
    ),
    ("vm/guest.rs", "the guest's own store, inside the guest"),
    ("lava/guest.rs", "the boot's own store, on the device"),
];

/// Print sites in the fronts, and store opens outside `store/`,
/// `session/` and the `allowed` files; test code left out.
fn speakers_and_openers(files: &[(String, String)], allowed: &[(&str, &str)]) -> Vec<String> {
    let tests = test_files(files);
    let mut out = Vec::new();
    for (rel, src) in files {
        if tests.contains(rel) || rel.starts_with("store/") || rel.starts_with("session/") {
            continue;
        }
        let front = FRONTS.iter().any(|f| rel.starts_with(f));
        let may_open = allowed.iter().any(|(f, _)| f == rel);
        for (n, l) in non_test_lines(src) {
            let prints = ["println!(", "eprintln!(", "print!(", "eprint!("]
                .iter()
                .any(|m| l.contains(m));
            if front && prints {
                out.push(format!(
                    "src/{rel}:{n} prints (say it through session::Front): {}",
                    l.trim()
                ));
            }
            if !may_open && (l.contains("store::open(") || l.contains("SqliteStore::open(")) {
                out.push(format!(
                    "src/{rel}:{n} opens a store (open it through session): {}",
                    l.trim()
                ));
            }
        }
    }
    out
}

#[test]
fn fronts_speak_through_the_session_and_open_no_store() {
    let files = sources(&root().join("src"));
    let wrong = speakers_and_openers(&files, STORE_OPENERS);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for (f, why) in STORE_OPENERS {
        assert!(
            files.iter().any(|(r, _)| r == f),
            "{f} may open a store ({why}) but does not exist"
        );
    }
}

/// The check above finds a planted print and a planted open, and leaves
/// test code, `store/`, `session/` and prints outside the fronts alone.
#[test]
fn the_front_checker_finds_a_planted_print_and_open() {
    let f = |r: &str, s: &str| (r.to_string(), s.to_string());
    let files = vec![
        f("main.rs", "#[cfg(test)]\nmod checks;\nmod vm;\n"),
        f(
            "vm/report.rs",
            "fn a() {\n    println!(\"hi\");\n}\n#[cfg(test)]\nmod tests {\n    fn t() { eprintln!(\"t\"); }\n}\n",
        ),
        f(
            "track/mod.rs",
            "fn b() {\n    let s = crate::store::open(None, Access::ReadOnly);\n}\n",
        ),
        f("checks.rs", "fn t() { println!(\"x\"); crate::store::open(None, A); }\n"),
        f("cmd/list.rs", "fn l() { println!(\"fine: the edge prints\"); }\n"),
        f("store/mod.rs", "fn o() { SqliteStore::open(p, a); }\n"),
        f("session/mod.rs", "fn s() { store::open(None, a); }\n"),
    ];
    let found = speakers_and_openers(&files, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("src/vm/report.rs:2 prints"),
        "{found:?}"
    );
    assert!(
        found[1].starts_with("src/track/mod.rs:2 opens a store"),
        "{found:?}"
    );
    assert_eq!(
        speakers_and_openers(&files, &[("track/mod.rs", "planted")]).len(),
        1
    );
}

/// Files that may start a child kbench, and why: a unit is run only
/// through `experiment::runner::Runner`.
const CHILD_MAKERS: &[(&str, &str)] = &[
    (
        "experiment/runner/here.rs",
        "the runner of a unit in this boot",
    ),
    (
        "experiment/combos.rs",
        "a matrix asks each command's --dry-run for its plan before any unit runs",
    ),
];

/// Child kbench processes started outside the `allowed` files, test code
/// left out.
fn children_started(files: &[(String, String)], allowed: &[(&str, &str)]) -> Vec<String> {
    let tests = test_files(files);
    let mut out = Vec::new();
    for (rel, src) in files {
        if tests.contains(rel) || allowed.iter().any(|(f, _)| f == rel) {
            continue;
        }
        for (n, l) in non_test_lines(src) {
            if l.contains("Child::new(") {
                out.push(format!(
                    "src/{rel}:{n} starts a child kbench (run a unit through experiment::runner::Runner): {}",
                    l.trim()
                ));
            }
        }
    }
    out
}

#[test]
fn units_run_only_through_a_runner() {
    let files = sources(&root().join("src"));
    let wrong = children_started(&files, CHILD_MAKERS);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for (f, why) in CHILD_MAKERS {
        assert!(
            files.iter().any(|(r, _)| r == f),
            "{f} may start a child kbench ({why}) but does not exist"
        );
    }
    // The check finds a planted launcher, and leaves test code alone.
    let f = |r: &str, s: &str| (r.to_string(), s.to_string());
    let planted = vec![
        f("main.rs", "mod bisect;\n"),
        f(
            "bisect/measure.rs",
            "fn a() {\n    let c = launch::Child::new(db, None, true);\n}\n#[cfg(test)]\nmod tests {\n    fn t() { Child::new(None, None, true); }\n}\n",
        ),
    ];
    let found = children_started(&planted, CHILD_MAKERS);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/bisect/measure.rs:2 starts a child"),
        "{found:?}"
    );
}

/// The flags experiments share, each declared once in `cli/shared.rs`.
const SHARED_FLAGS: &[&str] = &["alpha", "seed", "dry_run", "rounds", "max_runs"];

/// Shared flags declared outside `cli/shared.rs`: a field of that name
/// under `cli/` whose type is not the shared struct.
fn shared_flags_redeclared(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, src) in files {
        if !rel.starts_with("cli/") || rel == "cli/shared.rs" {
            continue;
        }
        for (n, l) in non_test_lines(src) {
            let t = l.trim();
            for f in SHARED_FLAGS {
                if let Some(ty) = t.strip_prefix(&format!("pub {f}:")) {
                    if !ty
                        .trim()
                        .trim_start_matches("super::")
                        .starts_with("shared::")
                    {
                        out.push(format!(
                            "src/{rel}:{n} declares --{} again (flatten cli/shared.rs's): {t}",
                            f.replace('_', "-")
                        ));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn shared_flags_are_declared_once() {
    let files = sources(&root().join("src"));
    let wrong = shared_flags_redeclared(&files);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The check finds a planted declaration and takes the shared one.
    let f = |r: &str, s: &str| (r.to_string(), s.to_string());
    let planted = vec![f(
        "cli/planted.rs",
        "pub struct A {\n    pub rounds: super::shared::Rounds,\n    #[arg(long)]\n    pub max_runs: usize,\n}\n",
    )];
    let found = shared_flags_redeclared(&planted);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src/cli/planted.rs:4 declares --max-runs"),
        "{found:?}"
    );
}
