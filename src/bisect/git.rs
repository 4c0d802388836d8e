//! A git range as candidates, and each candidate built in a work tree of
//! its own (`git worktree add --detach`), so the user's checkout is never
//! touched and a candidate's build stays while it is measured beside the
//! others.  Worktrees live in the bisection's private scratch folder and
//! go with it; the next bisection forgets those of a bisection that was
//! killed ([`prune`]), and only those: a worktree of the user's that is
//! away keeps its registration.
//!
//! Git and the build run with no hooks (`core.hooksPath` is
//! `/dev/null`), and under sudo as the user who ran kbench whenever the
//! folder is theirs ([`crate::sys::user::invoker`]): objects, worktree
//! records and build output in their repository stay theirs, so a killed
//! bisection leaves nothing of root's that breaks their next `git
//! worktree add`.

use crate::sys::user::Invoker;
use anyhow::{anyhow, Context, Result};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Under sudo, the user `dir` belongs to, when it is the one who ran kbench.
fn owner(dir: &Path) -> Option<Invoker> {
    let who = crate::sys::user::invoker()?;
    let m = std::fs::metadata(dir).ok()?;
    (m.uid() == who.uid).then_some(who)
}

/// Run `cmd` as the invoking user when `dir` is theirs.
fn as_owner(cmd: &mut Command, dir: &Path) {
    if let Some(who) = owner(dir) {
        crate::sys::user::run_as(cmd, &who);
        if let Some(h) = &who.home {
            cmd.env("HOME", h);
        }
    }
}

/// Make the bisection's scratch folder the invoking user's, when the
/// repository is theirs, so that git, run as them, can add worktrees in
/// it (root, which removes it at the end, still can).
pub fn lend(scratch: &Path, repo: &Path) -> Result<()> {
    if let Some(who) = owner(repo) {
        std::os::unix::fs::chown(scratch, Some(who.uid), Some(who.gid))
            .with_context(|| format!("lending {} to uid {}", scratch.display(), who.uid))?;
    }
    Ok(())
}

/// Run git in `repo` with `args`; its stdout, or its stderr as the error.
fn git(repo: &Path, args: &[&str]) -> Result<String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(repo)
        .args(["-c", "core.hooksPath=/dev/null"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null());
    as_owner(&mut cmd, repo);
    let out = cmd
        .output()
        .map_err(|e| anyhow!("running git: {e} (is git installed?)"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(anyhow!(
            "git {}: {}",
            args.join(" "),
            crate::text::one_line(err.trim())
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A commit: full id, short id, subject.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Commit {
    pub id: String,
    pub short: String,
    pub subject: String,
}

/// `rev` as a commit of `repo`.
pub fn commit(repo: &Path, rev: &str) -> Result<Commit> {
    if rev.starts_with('-') {
        return Err(crate::error::input(format!("'{rev}' is not a revision")));
    }
    let id = git(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| crate::error::input(format!("{}: no commit '{rev}'", repo.display())))?
    .trim()
    .to_string();
    let line = git(repo, &["log", "-1", "--format=%h%x00%s", &id])?;
    let (short, subject) = line.trim_end().split_once('\0').unwrap_or((&id, ""));
    Ok(Commit {
        id: id.clone(),
        short: short.to_string(),
        subject: subject.to_string(),
    })
}

/// The candidates from `good` to `bad`: good first, then every commit on
/// the first-parent path after it, bad last.
pub fn range(repo: &Path, good: &str, bad: &str) -> Result<Vec<Commit>> {
    git(repo, &["rev-parse", "--is-inside-work-tree"]).map_err(|e| {
        // git says why: not a repository, or one of another user's that
        // git refuses to read ("dubious ownership").
        crate::error::input(format!("--repo {}: {e:#}", repo.display()))
    })?;
    let g = commit(repo, good)?;
    let b = commit(repo, bad)?;
    if g.id == b.id {
        return Err(crate::error::input("--good and --bad name the same commit"));
    }
    if git(repo, &["merge-base", "--is-ancestor", &g.id, &b.id]).is_err() {
        return Err(crate::error::input(format!(
            "--good {good} is not an ancestor of --bad {bad}: give them in history's order"
        )));
    }
    let list = git(
        repo,
        &[
            "rev-list",
            "--reverse",
            "--first-parent",
            "--ancestry-path",
            &format!("{}..{}", g.id, b.id),
        ],
    )?;
    let mut out = vec![g];
    for id in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
        out.push(commit(repo, id)?);
    }
    if out.len() > 100_000 {
        return Err(crate::error::input("the range holds over 100,000 commits"));
    }
    Ok(out)
}

/// Forget the worktrees a killed bisection left registered: those in a
/// bisection's scratch folder (`kbench-bisect-*/tree-*`) whose folder is
/// gone.  No other worktree is touched (`git worktree prune` would
/// forget a user's worktree on a drive that is away, and its index).
pub fn prune(repo: &Path) {
    let Ok(list) = git(repo, &["worktree", "list", "--porcelain"]) else {
        return;
    };
    for entry in list.split("\n\n") {
        let Some(path) = entry.lines().find_map(|l| l.strip_prefix("worktree ")) else {
            continue;
        };
        let p = Path::new(path);
        if entry.lines().any(|l| l.starts_with("prunable")) && ours(p) && !p.exists() {
            let _ = git(repo, &["worktree", "remove", "--force", path]);
        }
    }
}

/// Is `p` a worktree a bisection made (`…/kbench-bisect-*/tree-*`)?
fn ours(p: &Path) -> bool {
    let name = |q: Option<&Path>| {
        q.and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string()
    };
    name(Some(p)).starts_with("tree-") && name(p.parent()).starts_with("kbench-bisect-")
}

/// A detached work tree of `id` at `dir`.
pub fn worktree(repo: &Path, dir: &Path, id: &str) -> Result<()> {
    let d = dir
        .to_str()
        .ok_or_else(|| anyhow!("{} is not UTF-8", dir.display()))?;
    git(repo, &["worktree", "add", "--detach", "--force", d, id])
        .with_context(|| format!("a work tree of {id}"))?;
    Ok(())
}

/// Remove the work tree at `dir`.
pub fn remove_worktree(repo: &Path, dir: &Path) {
    if let Some(d) = dir.to_str() {
        let _ = git(repo, &["worktree", "remove", "--force", d]);
    }
}

/// Apply the revert of `id` in the work tree at `dir`, uncommitted:
/// whether it applied cleanly (if not, the tree is put back).
pub fn revert(dir: &Path, id: &str) -> bool {
    if git(dir, &["revert", "--no-edit", "--no-commit", id]).is_ok() {
        return true;
    }
    let _ = git(dir, &["revert", "--abort"]);
    let _ = git(dir, &["reset", "--hard", "--quiet"]);
    false
}

/// Run `build` (a shell command) in `dir`, its output in `log`: the last
/// line it printed, or why it failed (with its last lines).
pub fn build(dir: &Path, build: &str, log: &Path) -> std::result::Result<String, String> {
    let out = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(build)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    as_owner(&mut cmd, dir);
    crate::sys::proc::on_exec(
        &mut cmd,
        crate::sys::proc::OnExec {
            die_with_parent: true,
            ..Default::default()
        },
    );
    let status = cmd.status().map_err(|e| format!("starting sh: {e}"))?;
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if !status.success() {
        let tail = lines[lines.len().saturating_sub(3)..].join(" / ");
        return Err(format!(
            "`{build}` failed ({status}){}",
            if tail.is_empty() {
                String::new()
            } else {
                format!(": {}", crate::text::clean(&tail))
            }
        ));
    }
    Ok(lines
        .last()
        .map(|l| l.trim().to_string())
        .unwrap_or_default())
}

/// The image a build named: `--image PATH` (in the tree), else its last
/// output line, which must name a file.
pub fn image(
    dir: &Path,
    given: Option<&Path>,
    last_line: &str,
) -> std::result::Result<PathBuf, String> {
    let p = match given {
        Some(g) => dir.join(g),
        None if last_line.is_empty() => {
            return Err("the build printed nothing to name its image (give --image PATH)".into())
        }
        None => dir.join(last_line),
    };
    if p.is_file() {
        Ok(p)
    } else {
        Err(format!(
            "the build named {}, which is not a file (give --image PATH)",
            p.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(dir: &Path, script: &str) {
        let ok = Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "{script}");
    }

    #[test]
    fn a_range_is_its_first_parent_commits_in_order() {
        if Command::new("git").arg("--version").output().is_err() {
            eprintln!("skipped: no git here");
            return;
        }
        let d = tempfile::tempdir().unwrap();
        sh(
            d.path(),
            "git init -q . && git config user.email t@t && git config user.name t && \
             for i in 1 2 3 4; do echo $i > f; git add f; git commit -qm \"c$i\"; done",
        );
        let r = range(d.path(), "HEAD~3", "HEAD").unwrap();
        let subjects: Vec<&str> = r.iter().map(|c| c.subject.as_str()).collect();
        assert_eq!(subjects, ["c1", "c2", "c3", "c4"]);
        assert!(range(d.path(), "HEAD", "HEAD~3")
            .unwrap_err()
            .to_string()
            .contains("not an ancestor"));
        assert!(range(d.path(), "nope", "HEAD")
            .unwrap_err()
            .to_string()
            .contains("no commit 'nope'"));
        assert!(range(d.path(), "--all", "HEAD").is_err());
        // A work tree of the second, built.
        let wt = d.path().join("wt");
        worktree(d.path(), &wt, &r[1].id).unwrap();
        assert_eq!(std::fs::read_to_string(wt.join("f")).unwrap(), "2\n");
        let log = d.path().join("log");
        assert_eq!(build(&wt, "echo building; echo f", &log).unwrap(), "f");
        assert_eq!(image(&wt, None, "f").unwrap(), wt.join("f"));
        assert!(build(&wt, "echo oops; exit 3", &log)
            .unwrap_err()
            .contains("oops"));
        remove_worktree(d.path(), &wt);
        assert!(!wt.exists());
    }
}
