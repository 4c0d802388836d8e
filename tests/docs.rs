//! The front door and the guide: the README stays short, every command
//! `kbench --help` lists has a page in `docs/` that names it, every page
//! of the guide is linked from the README or the guide's index, and every
//! relative link in them resolves.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pages: README.md and every `docs/*.md`.
fn pages() -> Vec<PathBuf> {
    let mut p: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    p.sort();
    p.insert(0, root().join("README.md"));
    p
}

/// The relative links of a Markdown text (`[text](target)`), anchors cut.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(j) = rest.find(')') else { break };
        let target = rest[..j].split('#').next().unwrap_or("").to_string();
        if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            out.push(target);
        }
        rest = &rest[j..];
    }
    out
}

/// What is wrong with the pages: links that do not resolve, pages that
/// nothing links to.
fn problems(pages: &[(PathBuf, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut linked = std::collections::BTreeSet::new();
    for (p, text) in pages {
        let dir = p.parent().unwrap_or(Path::new("/"));
        for l in links(text) {
            let target = dir.join(&l);
            match target.canonicalize() {
                Ok(t) => {
                    linked.insert(t);
                }
                Err(_) => out.push(format!("{}: link {l} does not resolve", p.display())),
            }
        }
    }
    for (p, _) in pages.iter().skip(1) {
        let c = p.canonicalize().unwrap();
        if !linked.contains(&c) {
            out.push(format!("{} is linked from no page", p.display()));
        }
    }
    out
}

#[test]
fn the_guide_is_whole_and_every_link_resolves() {
    let pages: Vec<(PathBuf, String)> = pages()
        .into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).unwrap();
            (p, t)
        })
        .collect();
    let readme = &pages[0].1;
    let n = readme.lines().count();
    assert!(
        n <= 300,
        "README.md has {n} lines: the front door stays under 300"
    );
    let wrong = problems(&pages);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every command has a page that names it.
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_kbench"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 20, "{commands:?}");
    let docs: String = pages
        .iter()
        .skip(1)
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for c in commands {
        assert!(
            docs.contains(&format!("kbench {c}")) || docs.contains(&format!("`{c}")),
            "no page in docs/ names the command {c}"
        );
    }
}

/// The checks themselves: a broken link and an orphan page are found.
#[test]
fn the_link_checker_finds_a_broken_link_and_an_orphan() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("docs")).unwrap();
    let readme = d.path().join("README.md");
    let a = d.path().join("docs/a.md");
    let b = d.path().join("docs/b.md");
    for (p, t) in [
        (
            &readme,
            "[a](docs/a.md) [gone](docs/gone.md#x) [web](https://x.org)",
        ),
        (&a, "[back](../README.md)"),
        (&b, "orphan"),
    ] {
        std::fs::write(p, t).unwrap();
    }
    let pages: Vec<(PathBuf, String)> = [&readme, &a, &b]
        .iter()
        .map(|p| ((*p).clone(), std::fs::read_to_string(p).unwrap()))
        .collect();
    let got = problems(&pages);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].ends_with("link docs/gone.md does not resolve"),
        "{got:?}"
    );
    assert!(
        got[1].ends_with("docs/b.md is linked from no page"),
        "{got:?}"
    );
}
