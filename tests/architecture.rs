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

/// The imports of one file, given its top-level module and its depth
/// below the crate root (`src/x.rs`, `src/x/mod.rs`: 1; `src/x/y.rs`: 2).
fn uses_of(file: &str, top: &str, depth: usize, src: &str) -> Vec<Use> {
    let code = code_only(src);
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let at = format!("{file}:{}", n + 1);
        let mut push = |to: &str| {
            if to != top && to != "self" && to != "super" {
                out.push(Use {
                    from: top.to_string(),
                    to: to.to_string(),
                    at: at.clone(),
                });
            }
        };
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let before_ok = i == 0 || {
                let b = rest.as_bytes()[i - 1] as char;
                !(b.is_alphanumeric() || b == '_' || b == '$')
            };
            let after = &rest[i + "crate::".len()..];
            if before_ok {
                if after.starts_with('{') {
                    for h in group_heads(after) {
                        push(&h);
                    }
                } else if let Some(id) = ident_at(after) {
                    push(id);
                }
            }
            rest = after;
        }
        // `super::` climbing to the crate root names a top-level module.
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
            if before_ok && k == depth {
                if after.starts_with('{') {
                    for h in group_heads(after) {
                        push(&h);
                    }
                } else if let Some(id) = ident_at(after) {
                    push(id);
                }
            }
            rest = &rest[i + "super::".len() * k.max(1)..];
        }
    }
    out
}

/// Every `.rs` file under `dir`, as (path relative to `src/`, text).
fn sources(dir: &Path) -> Vec<(String, String)> {
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

/// `x.rs` → (x, 1); `x/mod.rs` → (x, 1); `x/y.rs` → (x, 2); `main.rs` → (main, 0).
fn module_of(rel: &str) -> (String, usize) {
    let parts: Vec<&str> = rel.trim_end_matches(".rs").split('/').collect();
    let top = parts[0].to_string();
    if parts.len() == 1 {
        return (top.clone(), if top == "main" { 0 } else { 1 });
    }
    let depth = if parts.last() == Some(&"mod") {
        parts.len() - 1
    } else {
        parts.len()
    };
    (top, depth)
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
    for (rel, src) in files {
        let (top, depth) = module_of(rel);
        tops.insert(top.clone());
        for u in uses_of(&format!("src/{rel}"), &top, depth, src) {
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
    // A circle: a path back to where it started (depth-first, each
    // circle reported once by its smallest module).
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
                        out.push(format!("import circle: {}", lines.join("; ")));
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

/// Each function of `src` (test modules left out): (file, name, lines).
fn function_lengths(files: &[(String, String)]) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for (rel, src) in files {
        let lines: Vec<&str> = src.lines().collect();
        let end = lines
            .windows(2)
            .position(|w| w[0].starts_with("#[cfg(test)]") && w[1].starts_with("mod tests"))
            .unwrap_or(lines.len());
        let mut i = 0;
        while i < end {
            let l = lines[i];
            let body = l.trim_start();
            let indent = l.len() - body.len();
            let after_vis = body
                .strip_prefix("pub(crate) ")
                .or_else(|| body.strip_prefix("pub(super) "))
                .or_else(|| body.strip_prefix("pub "))
                .unwrap_or(body);
            let after = after_vis
                .strip_prefix("const ")
                .or_else(|| after_vis.strip_prefix("unsafe "))
                .unwrap_or(after_vis);
            if let Some(rest) = after.strip_prefix("fn ") {
                if !l.trim_end().ends_with(';') {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let close = format!("{}}}", " ".repeat(indent));
                    let j = (i + 1..end)
                        .find(|&j| {
                            lines[j].starts_with(&close) && lines[j].trim_end().len() <= indent + 2
                        })
                        .unwrap_or(end);
                    out.push((format!("src/{rel}"), name, j - i + 1));
                    i = j;
                }
            }
            i += 1;
        }
    }
    out
}

/// No source file over 600 lines and no function over 100 (test code
/// left out), but the functions listed above with their reasons.
#[test]
fn files_and_functions_a_reader_can_hold() {
    let files = sources(&root().join("src"));
    let mut problems = Vec::new();
    for (rel, src) in &files {
        if rel == "hostile_tests.rs" {
            continue;
        }
        let code = src.split("\n#[cfg(test)]\nmod tests").next().unwrap_or(src);
        let n = code.lines().count();
        if n > 600 {
            problems.push(format!(
                "src/{rel}: {n} lines outside its tests, more than 600"
            ));
        }
    }
    let long: Vec<(String, String, usize)> = function_lengths(&files)
        .into_iter()
        .filter(|(f, _, n)| *n > 100 && f != "src/hostile_tests.rs")
        .collect();
    for (file, name, n) in &long {
        if !LONG_FUNCTIONS
            .iter()
            .any(|(f, g, _)| f == file && g == name)
        {
            problems.push(format!("{file}: fn {name} is {n} lines, more than 100"));
        }
    }
    for (file, name, _) in LONG_FUNCTIONS {
        if !long.iter().any(|(f, g, _)| f == file && g == name) {
            problems.push(format!(
                "{file}: fn {name} is no longer over 100 lines: take it off LONG_FUNCTIONS"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
