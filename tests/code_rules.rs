//! The house's rules, read as code rather than text: every file under
//! `src/` is parsed (syn), paths are resolved through the file's `use`
//! items (so `use std::io::stdout as out; writeln!(out(), …)` is still a
//! write to standard output), macro arguments are read as expressions,
//! and test code (`#[cfg(test)]` items and the files they declare) is
//! left out.  Three rules:
//!
//! - a child kbench (a function that finds kbench's own binary and makes
//!   a `Command`) is built only in the launcher, and in the helpers named
//!   below with their reason;
//! - the experiment fronts and the kinds never write to standard output
//!   or error themselves (a print macro, or `stdout()` / `stderr()` used
//!   for more than asking whether it is a terminal): they say it through
//!   `session::Front` and `experiment::event`;
//! - a store is opened only in `store/` and `session/` (and the few files
//!   named below): `store::open`, `SqliteStore::open`, `PgStore::open`,
//!   however imported.
//!
//! It also holds every kind under `experiment/kinds/` to 300 lines
//! outside its tests.

use std::collections::BTreeMap;
use syn::visit::{self, Visit};

/// Files that may build a child kbench, and why.
const CHILD_MAKERS: &[(&str, &str)] = &[
    ("experiment/launch.rs", "the one launcher of a unit's child kbench"),
    ("sys/janitor.rs", "the janitor: a helper that outlives kbench to clean up, not a unit"),
    ("health/mod.rs", "the health monitor: a helper process beside a run, not a unit"),
    (
        "scenario/runner.rs",
        "a scenario's tasks: placed, prioritised children in sessions of their own; scenario sits beside experiment and cannot import its launcher",
    ),
];

/// Files of the fronts and kinds that may touch standard error, and why.
const WRITERS: &[(&str, &str)] = &[];

/// Files that may open a store themselves, and why (beside `store/` and
/// `session/`).
const STORE_OPENERS: &[(&str, &str)] = &[
    (
        "cmd/push.rs",
        "push and pull's remote store, named by --to or --from",
    ),
    ("vm/guest.rs", "the guest's own store, inside the guest"),
    ("lava/guest.rs", "the boot's own store, on the device"),
];

/// What must speak through the session: the experiment fronts.
const FRONTS: &[&str] = &["vm/", "bisect/", "experiment/", "track/", "lava/"];

/// One thing found in a file: (line, what).
#[derive(Default)]
struct Found {
    /// Functions (by first line) that find kbench's own binary, and those
    /// that make a `Command`.
    exe_in: Vec<usize>,
    command_in: Vec<usize>,
    writes: Vec<(usize, String)>,
    opens: Vec<(usize, String)>,
}

struct Reader {
    aliases: BTreeMap<String, Vec<String>>,
    /// The first line of the function being read.
    func: usize,
    found: Found,
    /// `stdout()` / `stderr()` calls that only ask about the terminal.
    benign: Vec<(usize, usize)>,
}

fn line_of(s: proc_macro2::Span) -> (usize, usize) {
    let p = s.start();
    (p.line, p.column)
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| quote::quote!(#m).to_string().contains("test"))
    })
}

/// The `use` items of a file, as alias → full path.
fn uses(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut BTreeMap<String, Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            uses(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut full = prefix.clone();
            if n.ident != "self" {
                full.push(n.ident.to_string());
            }
            let name = full.last().cloned().unwrap_or_default();
            out.insert(name, full);
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            if r.ident != "self" {
                full.push(r.ident.to_string());
            }
            out.insert(r.rename.to_string(), full);
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                uses(t, prefix, out);
            }
        }
        syn::UseTree::Glob(_) => {}
    }
}

impl Reader {
    /// A path, its first segment resolved through the file's `use`s.
    fn resolve(&self, p: &syn::Path) -> Vec<String> {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        match segs.first().and_then(|f| self.aliases.get(f)) {
            Some(full) => full
                .iter()
                .cloned()
                .chain(segs[1..].iter().cloned())
                .collect(),
            None => segs,
        }
    }

    fn call(&mut self, path: &[String], at: (usize, usize)) {
        let last = |n: usize| path.iter().rev().nth(n).map(String::as_str);
        if last(0) == Some("current_exe") {
            self.found.exe_in.push(self.func);
        }
        if last(0) == Some("new") && last(1) == Some("Command") {
            self.found.command_in.push(self.func);
        }
        if matches!(last(0), Some("stdout" | "stderr"))
            && (path.len() == 1 || path.iter().any(|s| s == "io"))
            && !self.benign.contains(&at)
        {
            self.found
                .writes
                .push((at.0, format!("{}()", path.join("::"))));
        }
        let store_open = last(0) == Some("open")
            && last(1).is_some_and(|s| s == "store" || s.ends_with("Store"));
        if store_open || last(0) == Some("open_store") {
            self.found.opens.push((at.0, path.join("::")));
        }
    }
}

impl<'ast> Visit<'ast> for Reader {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(m) => &m.attrs,
            syn::Item::Use(u) => &u.attrs,
            _ => return visit::visit_item(self, i),
        };
        if !is_test(attrs) {
            visit::visit_item(self, i);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        let before = self.func;
        self.func = line_of(f.sig.ident.span()).0;
        visit::visit_impl_item_fn(self, f);
        self.func = before;
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let before = self.func;
        self.func = line_of(f.sig.ident.span()).0;
        visit::visit_item_fn(self, f);
        self.func = before;
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if matches!(
            m.method.to_string().as_str(),
            "is_terminal" | "as_fd" | "as_raw_fd"
        ) {
            if let syn::Expr::Call(c) = &*m.receiver {
                if let syn::Expr::Path(p) = &*c.func {
                    self.benign.push(line_of(p.path.segments[0].ident.span()));
                }
            }
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            let path = self.resolve(&p.path);
            self.call(&path, line_of(p.path.segments[0].ident.span()));
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        if matches!(
            name.as_deref(),
            Some("println" | "print" | "eprintln" | "eprint" | "dbg")
        ) {
            let at = line_of(m.path.segments[0].ident.span());
            self.found
                .writes
                .push((at.0, format!("{}!", name.unwrap_or_default())));
        }
        // The arguments as expressions, so a call inside a macro
        // (`writeln!(std::io::stderr(), …)`, `format!("{}", f())`) is read.
        let args = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        );
        if let Ok(args) = args {
            for a in &args {
                self.visit_expr(a);
            }
        }
        visit::visit_macro(self, m);
    }
}

/// What `src` (file `rel`) does, test code left out.
fn read(src: &str) -> Found {
    let Ok(file) = syn::parse_file(src) else {
        return Found::default();
    };
    let mut aliases = BTreeMap::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            uses(&u.tree, &mut Vec::new(), &mut aliases);
        }
    }
    let mut r = Reader {
        aliases,
        func: 0,
        found: Found::default(),
        benign: Vec::new(),
    };
    // Method calls are visited before the calls they hold, so a
    // terminal check is known before its `stdout()` is read.
    r.visit_file(&file);
    r.found
}

/// Every breach of the three rules, one line each.
fn breaches(files: &[(String, String)], tests: &std::collections::BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, src) in files {
        if tests.contains(rel) {
            continue;
        }
        let f = read(src);
        let allowed = |list: &[(&str, &str)]| list.iter().any(|(a, _)| a == rel);
        if !allowed(CHILD_MAKERS) {
            for l in f.exe_in.iter().filter(|l| f.command_in.contains(l)) {
                out.push(format!(
                    "src/{rel}:{l} builds a child kbench (run a unit through experiment::runner)"
                ));
            }
        }
        if FRONTS.iter().any(|p| rel.starts_with(p)) && !allowed(WRITERS) {
            for (l, what) in &f.writes {
                out.push(format!(
                    "src/{rel}:{l} writes to the terminal itself ({what}): say it through session::Front or experiment::event"
                ));
            }
        }
        let opener = rel.starts_with("store/") || rel.starts_with("session/");
        if !opener && !allowed(STORE_OPENERS) {
            for (l, what) in &f.opens {
                out.push(format!(
                    "src/{rel}:{l} opens a store ({what}): open it through session"
                ));
            }
        }
    }
    out
}

#[test]
fn the_code_keeps_the_house_rules() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = crate::architecture::sources(&root);
    let tests = crate::architecture::test_files(&files);
    let wrong = breaches(&files, &tests);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for (f, why) in CHILD_MAKERS.iter().chain(WRITERS).chain(STORE_OPENERS) {
        assert!(
            files.iter().any(|(r, _)| r == f),
            "{f} is allowed ({why}) but does not exist"
        );
    }
}

/// Each planted fault fails the rules, however it is spelled; a terminal
/// check and test code do not.
#[test]
fn the_rules_find_planted_faults_however_spelled() {
    let f = |r: &str, s: &str| (r.to_string(), s.to_string());
    let files = vec![
        f("experiment/kinds/a.rs", "fn a() { let c = std::process::Command::new(std::env::current_exe().unwrap()); }\n"),
        f("experiment/kinds/b.rs", "use std::env::current_exe as me;\nuse std::process::Command as C;\nfn b() {\n    let x = me();\n    C::new(x.unwrap());\n}\n"),
        f("vm/c.rs", "use std::io::Write;\nfn c() { let _ = writeln!(std::io::stdout(), \"x\"); }\n"),
        f("bisect/d.rs", "use std::io::stderr as out;\nfn d() { let mut e = out().lock(); }\n"),
        f("track/e.rs", "fn e() { let t = std::io::stdout().is_terminal(); }\n"),
        f("lava/f.rs", "fn f() -> R { crate::store::PgStore::open(\"postgres://x\") }\n"),
        f("experiment/g.rs", "use crate::store::{self as s};\nfn g() { s::open(None, A); }\n"),
        f("experiment/h.rs", "fn h() {}\n#[cfg(test)]\nmod tests {\n    fn t() { println!(\"x\"); crate::store::open(None, A); }\n}\n"),
        f("cmd/i.rs", "fn i() { println!(\"the edge prints\"); }\n"),
        f("store/j.rs", "fn j() { SqliteStore::open(p, a); }\n"),
        f("experiment/k.rs", "fn k() { eprintln!(\"x\"); }\n"),
    ];
    let found = breaches(&files, &Default::default());
    let at = |p: &str| found.iter().filter(|l| l.starts_with(p)).count();
    assert_eq!(
        at("src/experiment/kinds/a.rs:1 builds a child"),
        1,
        "{found:#?}"
    );
    assert_eq!(
        at("src/experiment/kinds/b.rs:3 builds a child"),
        1,
        "{found:#?}"
    );
    assert_eq!(at("src/vm/c.rs:2 writes"), 1, "{found:#?}");
    assert_eq!(at("src/bisect/d.rs:2 writes"), 1, "{found:#?}");
    assert_eq!(
        at("src/track/e.rs"),
        0,
        "a terminal check is no write: {found:#?}"
    );
    assert_eq!(at("src/lava/f.rs:1 opens a store"), 1, "{found:#?}");
    assert_eq!(at("src/experiment/g.rs:2 opens a store"), 1, "{found:#?}");
    assert_eq!(at("src/experiment/h.rs"), 0, "test code: {found:#?}");
    assert_eq!(at("src/cmd/i.rs"), 0, "the edge prints: {found:#?}");
    assert_eq!(at("src/store/j.rs"), 0, "{found:#?}");
    assert_eq!(at("src/experiment/k.rs:1 writes"), 1, "{found:#?}");
    assert_eq!(found.len(), 7, "{found:#?}");
}

/// Lines of a file outside its `#[cfg(test)]` items.
fn lines_outside_tests(src: &str) -> usize {
    let Ok(file) = syn::parse_file(src) else {
        return src.lines().count();
    };
    let mut test_lines = 0;
    for item in &file.items {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            _ => continue,
        };
        if is_test(attrs) {
            use syn::spanned::Spanned;
            let s = item.span();
            test_lines += s.end().line + 1 - s.start().line;
        }
    }
    src.lines().count().saturating_sub(test_lines)
}

#[test]
fn every_kind_is_small() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = crate::architecture::sources(&root);
    let tests = crate::architecture::test_files(&files);
    let big: Vec<String> = files
        .iter()
        .filter(|(r, _)| r.starts_with("experiment/kinds/") && !tests.contains(r))
        .map(|(r, s)| (r, lines_outside_tests(s)))
        .filter(|(_, n)| *n > 300)
        .map(|(r, n)| format!("src/{r}: {n} lines outside tests, more than 300"))
        .collect();
    assert!(big.is_empty(), "{}", big.join("\n"));
    assert!(lines_outside_tests("fn a() {}\n#[cfg(test)]\nmod t {\n    fn b() {}\n}\n") == 1);
}
