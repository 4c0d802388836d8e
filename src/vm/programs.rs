//! Programs a guest's command names, carried into its initramfs with the
//! shared libraries they need.
//!
//! The guest has no root filesystem but its initramfs, so a program the
//! command starts (a matrix's `--sched NAME=scx_bpfland`) must be in it.
//! sched_ext schedulers are dynamically linked (libelf, libz, libc), so
//! the program goes in with every library the host's dynamic loader
//! resolves for it (`ldd`), each at the path the loader will look for it
//! in the guest; the command is rewritten to name the program there.
//! (`--share-root` could serve them from the host instead, but Debian's
//! 7.x kernels build virtio 9p as compressed modules.)

use super::initramfs::{Entry, Source, FILES_DIR};
use crate::error::input;
use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};

/// `command` with each `--sched NAME=PROGRAM …` naming the program inside
/// the guest, and the entries that put it and its libraries there.
pub fn carry(command: &[String]) -> Result<(Vec<String>, Vec<Entry>)> {
    let mut cmd = command.to_vec();
    let mut entries: Vec<Entry> = Vec::new();
    if cmd.first().map(String::as_str) != Some("matrix") {
        return Ok((cmd, entries));
    }
    let end = cmd.iter().position(|a| a == "--").unwrap_or(cmd.len());
    let mut i = 1;
    while i < end {
        let (at, value) = match cmd[i].strip_prefix("--sched=") {
            Some(v) => (i, v.to_string()),
            None if cmd[i] == "--sched" && i + 1 < end => {
                i += 1;
                (i, cmd[i].clone())
            }
            None => {
                i += 1;
                continue;
            }
        };
        i += 1;
        let v = crate::experiment::sched::parse(&value).map_err(input)?;
        let Some(program) = crate::experiment::sched::program(&v)? else {
            continue;
        };
        let args = v.command.as_deref().unwrap_or_default();
        let base = program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scheduler".into());
        let inside = format!("{FILES_DIR}/sched/{}/{base}", v.name);
        entries.push(Entry {
            name: inside.clone(),
            source: Source::File(program.clone()),
            mode: 0o755,
        });
        for lib in libraries(&program)? {
            let name = lib.to_string_lossy().trim_start_matches('/').to_string();
            if !entries.iter().any(|e| e.name == name) {
                entries.push(Entry {
                    name,
                    source: Source::File(lib),
                    mode: 0o755,
                });
            }
        }
        let words: Vec<String> = std::iter::once(format!("/{inside}"))
            .chain(args.iter().skip(1).cloned())
            .collect();
        let rewritten = format!("{}={}", v.name, words.join(" "));
        cmd[at] = if cmd[at].starts_with("--sched=") {
            format!("--sched={rewritten}")
        } else {
            rewritten
        };
    }
    Ok((cmd, entries))
}

/// The shared libraries (and the loader) `program` needs, as the host's
/// loader resolves them; none for a static program.
fn libraries(program: &Path) -> Result<Vec<PathBuf>> {
    let out = std::process::Command::new("ldd")
        .arg(program)
        .output()
        .map_err(|e| anyhow!("ldd {}: {e}", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        // "not a dynamic executable": nothing to carry.
        return Ok(Vec::new());
    }
    parse_ldd(&text).map_err(|lib| {
        input(format!(
            "{} needs {lib}, which this machine does not have",
            program.display()
        ))
    })
}

/// The paths in `ldd`'s output, or the first library it could not find.
fn parse_ldd(text: &str) -> std::result::Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let path = match line.split_once("=>") {
            Some((lib, rest)) => {
                let rest = rest.trim();
                if rest.starts_with("not found") {
                    return Err(lib.trim().to_string());
                }
                rest.split_whitespace().next().unwrap_or("")
            }
            None => line.split_whitespace().next().unwrap_or(""),
        };
        if path.starts_with('/') {
            out.push(PathBuf::from(path));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ldd_output_gives_every_library_and_the_loader() {
        let text = "\tlinux-vdso.so.1 (0x00007ffd)\n\
            \tlibelf.so.1 => /lib/x86_64-linux-gnu/libelf.so.1 (0x00007f)\n\
            \tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)\n\
            \t/lib64/ld-linux-x86-64.so.2 (0x00007f)\n";
        assert_eq!(
            parse_ldd(text).unwrap(),
            [
                "/lib/x86_64-linux-gnu/libelf.so.1",
                "/lib/x86_64-linux-gnu/libc.so.6",
                "/lib64/ld-linux-x86-64.so.2"
            ]
            .map(PathBuf::from)
        );
        assert_eq!(
            parse_ldd("\tlibbpf.so.1 => not found\n").unwrap_err(),
            "libbpf.so.1"
        );
    }

    #[test]
    fn a_matrix_sched_program_goes_in_with_its_libraries() {
        let sh = crate::experiment::sched::program(&crate::experiment::sched::Variant {
            name: "x".into(),
            command: Some(vec!["sh".into()]),
        })
        .unwrap()
        .unwrap();
        let cmd: Vec<String> = [
            "matrix",
            "--sched",
            "eevdf",
            &format!("--sched=fake={} -c true", sh.display()),
            "--",
            "testbench",
        ]
        .map(String::from)
        .to_vec();
        let (out, entries) = carry(&cmd).unwrap();
        assert_eq!(out[2], "eevdf");
        let base = sh.file_name().unwrap().to_string_lossy();
        assert_eq!(
            out[3],
            format!("--sched=fake=/{FILES_DIR}/sched/fake/{base} -c true")
        );
        assert!(entries[0].name.ends_with(&format!("sched/fake/{base}")));
        assert!(entries.iter().any(|e| e.name.contains("libc.so")));
        // Other commands are left alone.
        let (same, none) = carry(&["cyclictest".to_string()]).unwrap();
        assert_eq!(same, ["cyclictest"]);
        assert!(none.is_empty());
    }
}
