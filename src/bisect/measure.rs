//! The real candidates: built, measured and stored.  A unit is one run
//! of the command as a child kbench in the candidate's work tree, one
//! boot of its image (`--vm`), or the next stored run of a label; each is
//! tagged (`settings.experiment`: the bisection, its decision, the
//! candidate's role, the unit's number), so a resumed bisection reads
//! back what it had measured.

use super::git::{self, Commit};
use super::search::{Candidate, Measure, Role, State, Status, Unit};
use super::{Env, Plan, Runner, Source};
use crate::error::input;
use crate::experiment::runner::{self as unit, Here, Ran, Runner as _, Stored};
use crate::store::{Kind, RunFilter, RunRecord, Store, Tag};
use anyhow::{anyhow, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A list item's short name: a file's name, or the label itself.
pub fn short_name(item: &str) -> String {
    Path::new(item)
        .file_name()
        .filter(|_| Path::new(item).exists())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| item.to_string())
}

/// A candidate ready to measure.
enum Ready {
    /// Its work tree, built.
    Tree(PathBuf),
    /// Its kernel image (and the initramfs of its guest, once written).
    Image(Box<crate::vm::Image>, Option<PathBuf>),
    /// A stored label: its runs with the metrics, in order.
    Stored(Stored),
}

pub struct Real<'a> {
    plan: &'a Plan,
    env: &'a Env,
    store: Option<Box<dyn Store>>,
    scratch: crate::sys::janitor::Scratch,
    /// The git range's commits (good end first), and the revert's tree.
    commits: Vec<Commit>,
    revert_tree: Option<PathBuf>,
    trees: Vec<PathBuf>,
    /// The largest built work tree so far, in bytes: the room the next
    /// one needs.
    largest_tree: u64,
    ready: BTreeMap<usize, Ready>,
    pub machine: Option<crate::vm::Machine>,
    labels: Vec<String>,
    metrics: Vec<String>,
    boots: usize,
}

impl<'a> Real<'a> {
    pub fn new(plan: &'a Plan, env: &'a Env) -> Result<Real<'a>> {
        let store = env.front.write_store()?;
        let scratch = crate::sys::janitor::Scratch::in_tmp("bisect")?;
        let commits = match &plan.source {
            Source::Git {
                repo, good, bad, ..
            } => {
                git::lend(scratch.path(), repo)?;
                git::prune(repo);
                git::range(repo, good, bad)?
            }
            Source::List { .. } => Vec::new(),
        };
        let machine = match &plan.runner {
            Runner::Vm { .. } => {
                let o = env.machine.clone().ok_or_else(|| {
                    input("a --vm bisection needs the machine's flags again to resume: give --vm with --resume")
                })?;
                Some(crate::vm::Machine::new(&o)?)
            }
            _ => None,
        };
        let labels = match &plan.source {
            Source::Git { .. } => commits
                .iter()
                .map(|c| format!("{}/{}", plan.label, c.short))
                .collect(),
            Source::List { items } if plan.runner == Runner::Stored => items.clone(),
            Source::List { items } => items
                .iter()
                .enumerate()
                .map(|(i, it)| format!("{}/{i}-{}", plan.label, short_name(it)))
                .collect(),
        };
        let metrics = super::directions(plan)?.into_iter().map(|m| m.0).collect();
        Ok(Real {
            plan,
            env,
            store: Some(store),
            scratch,
            commits,
            revert_tree: None,
            trees: Vec::new(),
            largest_tree: 0,
            ready: BTreeMap::new(),
            machine,
            labels,
            metrics,
            boots: 0,
        })
    }

    /// On a resume, the git range must still be the one bisected: a
    /// range rewritten since (a rebase, a force-push) names other
    /// commits, and what was measured no longer says anything of them.
    pub fn same_range(&self, planned: &[super::search::Candidate]) -> Result<()> {
        let Source::Git { good, bad, .. } = &self.plan.source else {
            return Ok(());
        };
        // Short ids may grow as the repository does: each planned one
        // must begin the commit now in its place.
        let same = self.commits.len() == planned.len()
            && self
                .commits
                .iter()
                .zip(planned)
                .all(|(c, p)| c.id.starts_with(&p.name));
        if !same {
            return Err(input(format!(
                "the range {good}..{bad} is not the one this bisection began on ({} candidates then, {} now): it was rewritten; start a new bisection",
                planned.len(),
                self.commits.len()
            )));
        }
        Ok(())
    }

    fn store(&mut self) -> &mut dyn Store {
        &mut **self
            .store
            .as_mut()
            .expect("the store is open until the end")
    }

    /// Remove the work trees; hand back the store.
    pub fn finish(mut self) -> Box<dyn Store> {
        if let Source::Git { repo, .. } = &self.plan.source {
            for t in self.trees.iter().chain(&self.revert_tree) {
                git::remove_worktree(repo, t);
            }
        }
        self.store.take().expect("the store is open until the end")
    }

    fn label(&self, i: usize) -> String {
        self.labels
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("{}/revert", self.plan.label))
    }

    /// Build candidate `i` of the git range (or the revert) in a tree of its own.
    fn build(&mut self, i: usize) -> std::result::Result<Ready, String> {
        let Source::Git {
            repo, build, image, ..
        } = &self.plan.source
        else {
            return Err("not a git range".into());
        };
        let tree = match (self.commits.get(i), &self.revert_tree) {
            (Some(c), _) => {
                self.room_for_a_tree()?;
                let t = self.scratch.path().join(format!("tree-{i}-{}", c.short));
                git::worktree(repo, &t, &c.id).map_err(|e| format!("{e:#}"))?;
                self.trees.push(t.clone());
                t
            }
            (None, Some(t)) => t.clone(),
            (None, None) => return Err("no such candidate".into()),
        };
        let log = self.scratch.path().join(format!("build-{i}.log"));
        let last = git::build(&tree, build, &log)?;
        self.largest_tree = self.largest_tree.max(crate::load::tree_bytes(&tree));
        if self.machine.is_none() {
            return Ok(Ready::Tree(tree));
        }
        let img = git::image(&tree, image.as_deref(), &last)?;
        let ready = self.image_ready(
            i,
            &img,
            tree.join(".config").is_file().then(|| tree.join(".config")),
        );
        // The image is copied out: its tree (a built kernel, gigabytes)
        // is not needed again, but for the revert's.
        if Some(&tree) != self.revert_tree.as_ref() {
            git::remove_worktree(repo, &tree);
            self.trees.retain(|t| *t != tree);
        }
        ready
    }

    /// Is there room for one more work tree where the trees go?  The
    /// largest built so far, and 1 GiB to spare: a 500-commit Linux range
    /// would otherwise fill the disk.
    fn room_for_a_tree(&self) -> std::result::Result<(), String> {
        const SPARE: u64 = 1 << 30;
        let Ok((free, _)) = crate::sys::fd::statvfs(self.scratch.path()) else {
            return Ok(());
        };
        let need = self.largest_tree.saturating_add(SPARE);
        if free < need {
            return Err(format!(
                "no room for another work tree in {}: {} MiB free, and a built tree takes about {} MiB (the largest so far) with 1 GiB to spare; set TMPDIR to a roomier filesystem",
                self.scratch.path().display(),
                free >> 20,
                self.largest_tree >> 20
            ));
        }
        Ok(())
    }

    /// A built image copied out where its config is found beside it.
    fn image_ready(
        &self,
        i: usize,
        img: &Path,
        config: Option<PathBuf>,
    ) -> std::result::Result<Ready, String> {
        let found =
            crate::vm::Image::inspect(img).map_err(|e| format!("{}: {e}", img.display()))?;
        let release = found
            .release
            .clone()
            .unwrap_or_else(|| format!("candidate-{i}"));
        let boot = self.scratch.path().join(format!("image-{i}/boot"));
        std::fs::create_dir_all(&boot).map_err(|e| e.to_string())?;
        let to = boot.join(format!("vmlinuz-{release}"));
        std::fs::copy(img, &to).map_err(|e| format!("copying {}: {e}", img.display()))?;
        if let Some(c) = config.or(found.config) {
            let _ = std::fs::copy(c, boot.join(format!("config-{release}")));
        }
        let copied = crate::vm::Image::inspect(&to).map_err(|e| e.to_string())?;
        Ok(Ready::Image(Box::new(copied), None))
    }

    /// For a bisection of stored labels, the emulated runs among them
    /// (none for the other kinds: their runs are yet to be measured).
    pub fn stored_emulated(&self) -> Result<crate::health::emulated::Emulated> {
        let (Source::List { items }, Runner::Stored, Some(store)) =
            (&self.plan.source, &self.plan.runner, self.store.as_ref())
        else {
            return Ok(Default::default());
        };
        let runs = store.load_runs(
            &crate::store::RunFilter {
                labels: items.clone(),
                only_complete: true,
                ..Default::default()
            },
            false,
        )?;
        Ok(crate::health::emulated::among(&runs))
    }

    /// A stored label's runs as units, oldest first: those with every
    /// metric.
    fn stored(&self, label: &str) -> std::result::Result<Ready, String> {
        let store = self.store.as_ref().ok_or("no store")?;
        let metrics = &self.metrics;
        let stored = Stored::of(&**store, label)
            .map_err(|e| format!("{e:#}"))?
            .only(|r| values_of(std::slice::from_ref(r), metrics).is_some());
        if stored.runs().is_empty() {
            return Err(format!(
                "label {label} has no run with {}",
                self.metrics.join(", ")
            ));
        }
        Ok(Ready::Stored(stored))
    }

    /// The tag of a new unit (its own random id: a resumed bisection's
    /// units never meet an earlier one's).
    fn tag(&self, i: usize, step: usize, role: Role) -> Tag {
        Tag::Bisect {
            id: self.plan.id.clone(),
            step,
            role: role.as_str().to_string(),
            candidate: i,
            unit: crate::sys::proc::random_hex128()[..12].to_string(),
        }
    }

    /// One unit of candidate `i`, run where it is ready to run: in its
    /// tree, in a boot of its image, or its label's next stored run.
    fn run_unit(&mut self, i: usize, store: &mut dyn Store, tag: &Tag) -> Result<Ran> {
        let label = self.label(i);
        let mut unit = unit::Unit {
            label: &label,
            command: &self.plan.command,
            tag: Some(tag),
            number: 0,
            of: 0,
            env: &[],
        };
        match self.ready.get_mut(&i) {
            Some(Ready::Stored(stored)) => stored.run(store, &unit),
            Some(Ready::Tree(tree)) => {
                let command = in_tree(&self.plan.command, &self.plan.source, tree);
                let mut here = Here::on(self.env.front.db())
                    .quiet(true)
                    .quiet_stdout(true)
                    .in_dir(tree);
                unit.command = &command;
                here.run(store, &unit)
            }
            Some(Ready::Image(..)) => {
                self.boots += 1;
                unit.number = self.boots;
                self.boot(i, store, &unit)
            }
            None => Err(anyhow!("candidate {i} was not prepared")),
        }
    }

    /// One boot of candidate `i`'s image (its initramfs written at the
    /// first).
    fn boot(&mut self, i: usize, store: &mut dyn Store, unit: &unit::Unit) -> Result<Ran> {
        let Some(Ready::Image(img, initrd)) = self.ready.get(&i) else {
            return Err(anyhow!("candidate {i} has no image"));
        };
        let (img, initrd) = (img.clone(), initrd.clone());
        let Runner::Vm { append, .. } = &self.plan.runner else {
            return Err(anyhow!("not a --vm bisection"));
        };
        let cmdline = crate::vm::cmdline(append.as_deref(), None);
        let (command, files) = crate::vm::guest_command(&self.plan.command)?;
        let m = self
            .machine
            .as_ref()
            .expect("a --vm bisection has its machine");
        let guest = crate::vm::Guest {
            image: &img,
            cmdline: &cmdline,
            label: unit.label,
            command: &command,
            files: &files,
        };
        let initrd = match initrd {
            Some(p) => p,
            None => {
                let p = self.scratch.path().join(format!("initramfs-{i}.cpio"));
                m.initramfs(&guest, &p)?;
                if let Some(Ready::Image(_, slot)) = self.ready.get_mut(&i) {
                    *slot = Some(p.clone());
                }
                p
            }
        };
        let ran = crate::vm::Booter {
            machine: m,
            front: &self.env.front,
            guest,
            initrd: &initrd,
            scratch: self.scratch.path(),
            session: &self.plan.id,
        }
        .run(store, unit)?;
        if ran.failed.is_some() && !ran.interrupted {
            let head = format!("boot {}", unit.number);
            self.say(&format!(
                "{}: {}",
                unit.label,
                crate::vm::report::done_line(&head, &ran)
            ));
        }
        Ok(ran)
    }
}

/// The command with the repository's path (as given, or a path under
/// it) turned into the candidate's work tree.
fn in_tree(command: &[String], source: &Source, tree: &Path) -> Vec<String> {
    let Source::Git { repo, .. } = source else {
        return command.to_vec();
    };
    let mut forms = vec![repo.display().to_string()];
    if let Ok(c) = repo.canonicalize() {
        forms.push(c.display().to_string());
    }
    let t = tree.display().to_string();
    command
        .iter()
        .map(|a| {
            for f in &forms {
                let f = f.trim_end_matches('/');
                if a == f {
                    return t.clone();
                }
                if let Some(rest) = a.strip_prefix(&format!("{f}/")) {
                    return format!("{t}/{rest}");
                }
            }
            a.clone()
        })
        .collect()
}

/// Each metric's mean over `runs`; `None` when a metric is in none.
fn values_of(runs: &[RunRecord], metrics: &[String]) -> Option<Vec<f64>> {
    metrics
        .iter()
        .map(|m| {
            let v: Vec<f64> = runs
                .iter()
                .flat_map(|r| r.metrics.iter().filter(|x| &x.name == m).map(|x| x.value))
                .filter(|v| v.is_finite())
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        })
        .collect()
}

impl Measure for Real<'_> {
    fn release(&mut self, keep: &[usize]) {
        let Source::Git { repo, .. } = &self.plan.source else {
            return;
        };
        let gone: Vec<usize> = self
            .ready
            .keys()
            .copied()
            .filter(|i| !keep.contains(i) && *i < self.commits.len())
            .collect();
        for i in gone {
            match self.ready.remove(&i) {
                Some(Ready::Tree(t)) => {
                    git::remove_worktree(repo, &t);
                    self.trees.retain(|x| *x != t);
                }
                Some(Ready::Image(..)) => {
                    let _ = std::fs::remove_dir_all(self.scratch.path().join(format!("image-{i}")));
                }
                _ => {}
            }
        }
    }

    fn prepare(&mut self, i: usize) -> std::result::Result<(), String> {
        if self.ready.contains_key(&i) {
            return Ok(());
        }
        let ready = match (&self.plan.source, &self.plan.runner) {
            (Source::Git { .. }, _) => self.build(i)?,
            (Source::List { items }, Runner::Stored) => self.stored(&items[i])?,
            (Source::List { items }, _) => self.image_ready(i, Path::new(&items[i]), None)?,
        };
        self.ready.insert(i, ready);
        Ok(())
    }

    fn unit(&mut self, i: usize, step: usize, role: Role) -> Result<Option<Vec<f64>>> {
        let tag = self.tag(i, step, role);
        let mut store = self.store.take().expect("the store is open until the end");
        let ran = self.run_unit(i, &mut *store, &tag);
        self.store = Some(store);
        let ran = ran?;
        if ran.interrupted {
            return Err(crate::error::Interrupted.into());
        }
        let complete: Vec<RunRecord> = ran.complete().cloned().collect();
        Ok(values_of(&complete, &self.metrics))
    }

    fn units_of(&self, step: usize) -> Result<Vec<Unit>> {
        if self.plan.runner == Runner::Stored {
            return Ok(Vec::new());
        }
        let store = self
            .store
            .as_ref()
            .expect("the store is open until the end");
        let f = RunFilter {
            since: Some(self.plan.started - 1.0),
            only_complete: true,
            ..Default::default()
        };
        let mut units: BTreeMap<(usize, String, String), Vec<RunRecord>> = BTreeMap::new();
        for r in store.load_runs(&f, false)? {
            let Some(Tag::Bisect {
                id,
                step: s,
                role,
                candidate,
                unit,
            }) = Tag::of(&r)
            else {
                continue;
            };
            if id == self.plan.id && s == step {
                units.entry((candidate, role, unit)).or_default().push(r);
            }
        }
        // In the order they were measured.
        let mut units: Vec<_> = units.into_iter().collect();
        units.sort_by(|a, b| a.1[0].started.total_cmp(&b.1[0].started));
        let mut out = Vec::new();
        for ((c, role, _), runs) in units {
            let role = Role::named(&role);
            if let Some(values) = values_of(&runs, &self.metrics) {
                out.push(Unit {
                    candidate: c,
                    role,
                    values,
                });
            }
        }
        Ok(out)
    }

    fn revert(&mut self, culprit: &Candidate) -> Option<Candidate> {
        let Source::Git { repo, .. } = &self.plan.source else {
            return None;
        };
        let c = self
            .commits
            .iter()
            .find(|c| c.short == culprit.name)?
            .clone();
        let bad = self.commits.last()?.clone();
        let t = self.scratch.path().join(format!("tree-revert-{}", c.short));
        git::worktree(repo, &t, &bad.id).ok()?;
        self.revert_tree = Some(t.clone());
        if !git::revert(&t, &c.id) {
            self.say(&format!(
                "the revert of {} does not apply cleanly on the bad end: not tried",
                c.short
            ));
            return None;
        }
        self.labels
            .push(format!("{}/revert-{}", self.plan.label, c.short));
        Some(Candidate {
            name: format!("revert-{}", c.short),
            detail: format!("{} with {} reverted", bad.short, c.short),
            status: Status::Untested,
        })
    }

    fn save(&mut self, s: &State) -> Result<()> {
        let doc = serde_json::json!({ "plan": self.plan, "state": s });
        let id = self.plan.id.clone();
        crate::experiment::plan::save(self.store(), Kind::Bisect, &id, &doc)
    }

    fn say(&mut self, line: &str) {
        let text = crate::text::wrap(&crate::text::clean(line), crate::text::width());
        self.env.front.progress(&text);
    }
}
