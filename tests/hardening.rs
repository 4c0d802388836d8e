//! Numbers from users that once overflowed, wrapped or panicked: each is
//! refused with one line naming the allowed range, exit 2, nothing started.

use crate::common::Env;

fn refused(env: &Env, args: &[&str], says: &str) {
    let o = env.run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: one line: {err}"
    );
}

#[test]
fn numbers_that_overflowed_are_refused_with_their_range() {
    let env = Env::new();
    // The distance overflowed the interval to 0: a busy loop at RT priority.
    refused(
        &env,
        &[
            "cyclictest",
            "-t",
            "2",
            "-d",
            "2305843009213692952",
            "-l",
            "1",
            "--no-store",
        ],
        "1 hour",
    );
    refused(
        &env,
        &["cyclictest", "-D", "1e20", "--no-store"],
        "longer than a year",
    );
    refused(
        &env,
        &["load", "cpu", "--duration", "1e20", "--no-store"],
        "longer than a year",
    );
    refused(
        &env,
        &["responsiveness", "-t", "1e20", "--no-store"],
        "longer than a year",
    );
    // Under one page, the mem load divided by zero.
    refused(
        &env,
        &[
            "load",
            "mem",
            "--size",
            "1",
            "--duration",
            "1s",
            "--no-store",
        ],
        "at least 1 MiB",
    );
    refused(&env, &["hackbench", "--cpus", "1024", "--no-store"], "1024");
}

#[test]
fn scenario_numbers_do_not_wrap_into_range() {
    let env = Env::new();
    for (key, value, says) in [
        (
            "priority",
            "4294967394",
            "priority 4294967394 is out of range",
        ),
        ("nice", "4294967276", "nice 4294967276 is out of range"),
    ] {
        let f = env.dir.path().join(format!("{key}.toml"));
        std::fs::write(
            &f,
            format!(
                "name = \"t\"\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\n{key} = {value}\n"
            ),
        )
        .unwrap();
        refused(&env, &["run", f.to_str().unwrap(), "--dry-run"], says);
    }
    let f = env.dir.path().join("settle.toml");
    std::fs::write(
        &f,
        "name = \"t\"\n[[phase]]\nname = \"p\"\nsettle = \"1e20\"\n[[phase.task]]\nkind = \"hackbench\"\n",
    )
    .unwrap();
    refused(
        &env,
        &["run", f.to_str().unwrap(), "--dry-run"],
        "longer than a year",
    );
    let f = env.dir.path().join("deep.toml");
    let deep = format!("{}1{}", "(".repeat(50_000), ")".repeat(50_000));
    std::fs::write(
        &f,
        format!("name = \"t\"\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\nargs = {{ groups = \"${{{deep}}}\" }}\n"),
    )
    .unwrap();
    refused(
        &env,
        &["run", f.to_str().unwrap(), "--dry-run"],
        "at most 1000",
    );
}

/// Every file of a tree with its content, to see that nothing changed.
fn snapshot(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// `job --kernel-tree` builds out of tree: the user's tree, its own
/// `.config` included, is byte for byte the same afterwards.
#[test]
fn a_kernel_build_never_writes_into_the_users_tree() {
    let env = Env::new();
    let tree = env.dir.path().join("linux");
    std::fs::create_dir(&tree).unwrap();
    // A stand-in for kbuild: honours O=, writes only there.
    std::fs::write(
        tree.join("Makefile"),
        "O ?= .\n\
         defconfig:\n\techo CONFIG_DEF=y > $(O)/.config\n\
         olddefconfig:\n\ttest -f $(O)/.config\n\
         prepare:\n\ttouch $(O)/prepared\n\
         clean:\n\trm -f $(O)/vmlinux\n\
         vmlinux:\n\techo built > $(O)/vmlinux\n",
    )
    .unwrap();
    std::fs::write(tree.join("Kconfig"), "config DEF\n").unwrap();
    std::fs::write(tree.join(".config"), "CONFIG_MINE=y\n").unwrap();
    std::fs::write(tree.join("main.c"), "int main(void) { return 0; }\n").unwrap();
    let before = snapshot(&tree);
    let cfg = env.dir.path().join("my.config");
    std::fs::write(&cfg, "CONFIG_FILE=y\n").unwrap();
    for kconfig in ["defconfig", cfg.to_str().unwrap()] {
        env.ok(&[
            "job",
            "--kernel-tree",
            tree.to_str().unwrap(),
            "--kconfig",
            kconfig,
            "--target",
            "vmlinux",
            "--runs",
            "2",
            "--no-store",
            "-q",
        ]);
        assert_eq!(
            snapshot(&tree),
            before,
            "the tree changed (kconfig {kconfig})"
        );
    }
}
