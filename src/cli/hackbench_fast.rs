//! A getopt-sized reader for plain `kbench hackbench` command lines, tried
//! before clap.
//!
//! Why it exists: kbench is one binary with many commands, and building
//! clap's full command tree faults in about 0.6 MB of code and heap — a
//! third of rt-tests' whole hackbench.  hackbench's parent is meant to stay
//! within twice rt-tests' peak RSS (`bench/hackbench-vs-rt-tests.sh`), so
//! the common spellings of its flags are read here the way rt-tests reads
//! them with getopt.
//!
//! It is deliberately narrow: it accepts only well-formed values inside
//! the ranges `HackbenchArgs` declares, and answers `None` for everything
//! else (help, version, `--`, `-g=5`, a repeated flag, a value out of range,
//! an unknown flag), which then goes to clap, so every message a user sees
//! is still clap's.  The tests check that whatever this accepts, clap
//! parses to the same [`Cli`].

use super::{Cli, Command, GlobalArgs, HackbenchArgs};
use super::{HB_DATASIZE, HB_DATASIZE_MAX, HB_FDS, HB_FDS_MAX, HB_GROUPS, HB_GROUPS_MAX};
use super::{HB_LOOPS, HB_RUNS_MAX};
use std::ffi::OsStr;

/// A flag this reader knows, as `GlobalArgs` and `HackbenchArgs` spell it.
struct Flag {
    short: Option<char>,
    long: &'static str,
    takes_value: bool,
    global: bool,
}

const fn flag(short: Option<char>, long: &'static str, takes_value: bool, global: bool) -> Flag {
    Flag {
        short,
        long,
        takes_value,
        global,
    }
}

const FLAGS: &[Flag] = &[
    flag(None, "db", true, true),
    flag(None, "label", true, true),
    flag(None, "no-store", false, true),
    flag(None, "json", false, true),
    flag(Some('q'), "quiet", false, true),
    flag(Some('p'), "pipe", false, false),
    flag(Some('s'), "datasize", true, false),
    flag(Some('l'), "loops", true, false),
    flag(Some('g'), "groups", true, false),
    flag(Some('f'), "fds", true, false),
    flag(Some('T'), "threads", false, false),
    flag(Some('P'), "process", false, false),
    flag(Some('F'), "fifo", false, false),
    flag(None, "cpus", true, false),
    flag(None, "runs", true, false),
];

fn by_long(name: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.long == name)
}

fn by_short(c: char) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.short == Some(c))
}

/// `args` is a whole argv (program name first); `env_db` is `KBENCH_DB`.
pub fn parse<S: AsRef<OsStr>>(args: &[S], env_db: Option<&OsStr>) -> Option<Cli> {
    let mut p = Parsed::default();
    let mut seen_subcommand = false;
    let mut it = args.iter().skip(1).map(|a| a.as_ref().to_str());
    while let Some(arg) = it.next() {
        let arg = arg?;
        if !seen_subcommand {
            if arg == "hackbench" {
                seen_subcommand = true;
                continue;
            }
            // Before the subcommand only (global) flags may appear.
            if !arg.starts_with('-') {
                return None;
            }
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let f = by_long(name)?;
            if !seen_subcommand && !f.global {
                return None;
            }
            if f.takes_value {
                let value = match inline {
                    Some(v) => v,
                    None => it.next()??,
                };
                p.set_value(f.long, value)?;
            } else {
                if inline.is_some() {
                    return None;
                }
                p.set_flag(f.long)?;
            }
        } else if let Some(cluster) = arg.strip_prefix('-') {
            short_cluster(&mut p, cluster, seen_subcommand, &mut it)?;
        } else {
            return None;
        }
    }
    if !seen_subcommand || (p.threads && p.process) {
        return None;
    }
    let db = match (p.db, env_db) {
        (Some(d), _) => Some(d),
        (None, Some(v)) => Some(v.to_str()?.to_string()),
        (None, None) => None,
    };
    Some(Cli {
        global: GlobalArgs {
            db,
            label: p.label,
            no_store: p.no_store,
            json: p.json,
            quiet: p.quiet,
        },
        command: Command::Hackbench(HackbenchArgs {
            pipe: p.pipe,
            datasize: p.datasize.unwrap_or(HB_DATASIZE),
            loops: p.loops.unwrap_or(HB_LOOPS),
            groups: p.groups.unwrap_or(HB_GROUPS),
            fds: p.fds.unwrap_or(HB_FDS),
            threads: p.threads,
            process: p.process,
            fifo: p.fifo,
            cpus: p.cpus,
            runs: p.runs.unwrap_or(1),
        }),
    })
}

/// `-pT`, `-g10`, `-g 10`, `-qpg10`: flags, then at most one value option
/// taking the rest of the cluster or the next argument.
fn short_cluster<'a, I>(
    p: &mut Parsed,
    cluster: &str,
    seen_subcommand: bool,
    it: &mut I,
) -> Option<()>
where
    I: Iterator<Item = Option<&'a str>>,
{
    if cluster.is_empty() {
        return None;
    }
    for (i, c) in cluster.char_indices() {
        let f = by_short(c)?;
        if !seen_subcommand && !f.global {
            return None;
        }
        if f.takes_value {
            let rest = &cluster[i + c.len_utf8()..];
            let value = if rest.is_empty() { it.next()?? } else { rest };
            return p.set_value(f.long, value);
        }
        p.set_flag(f.long)?;
    }
    Some(())
}

#[derive(Default)]
struct Parsed {
    db: Option<String>,
    label: Vec<String>,
    no_store: bool,
    json: bool,
    quiet: bool,
    pipe: bool,
    datasize: Option<u32>,
    loops: Option<u64>,
    groups: Option<u32>,
    fds: Option<u32>,
    threads: bool,
    process: bool,
    fifo: bool,
    cpus: Option<String>,
    runs: Option<u32>,
}

impl Parsed {
    /// A boolean flag; `None` when unknown or given twice (clap refuses
    /// repeats of these).
    fn set_flag(&mut self, name: &str) -> Option<()> {
        let slot = match name {
            "no-store" => &mut self.no_store,
            "json" => &mut self.json,
            "quiet" => &mut self.quiet,
            "pipe" => &mut self.pipe,
            "threads" => &mut self.threads,
            "process" => &mut self.process,
            "fifo" => &mut self.fifo,
            _ => return None,
        };
        once_bool(slot)
    }

    /// An option's value, checked the way `HackbenchArgs` declares it.
    fn set_value(&mut self, name: &str, value: &str) -> Option<()> {
        // clap reads a leading '-' as the next flag, not as a value.
        if value.is_empty() || value.starts_with('-') {
            return None;
        }
        match name {
            "db" => once(&mut self.db, value.to_string()),
            "label" => {
                self.label.push(value.to_string());
                Some(())
            }
            "cpus" => once(&mut self.cpus, value.to_string()),
            "datasize" => once(&mut self.datasize, number(value, HB_DATASIZE_MAX.into())?),
            "loops" => once(&mut self.loops, number(value, u64::MAX)?),
            "groups" => once(&mut self.groups, number(value, HB_GROUPS_MAX.into())?),
            "fds" => once(&mut self.fds, number(value, HB_FDS_MAX.into())?),
            "runs" => once(&mut self.runs, number(value, HB_RUNS_MAX.into())?),
            _ => None,
        }
    }
}

fn once_bool(slot: &mut bool) -> Option<()> {
    if *slot {
        return None;
    }
    *slot = true;
    Some(())
}

fn once<T>(slot: &mut Option<T>, v: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(v);
    Some(())
}

/// Plain decimal digits within `1..=hi` (every hackbench number starts at
/// 1); anything else is clap's to judge.
fn number<T: TryFrom<u64>>(s: &str, hi: u64) -> Option<T> {
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = s.parse().ok()?;
    if n < 1 || n > hi {
        return None;
    }
    T::try_from(n).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn argv(line: &str) -> Vec<String> {
        std::iter::once("kbench")
            .chain(line.split_whitespace())
            .map(String::from)
            .collect()
    }

    /// Whatever the fast reader accepts, clap must parse to the same thing.
    fn agrees(line: &str, env_db: Option<&str>) -> bool {
        let args = argv(line);
        let fast = parse(&args, env_db.map(OsStr::new));
        let Some(fast) = fast else { return false };
        let mut slow = Cli::try_parse_from(&args)
            .unwrap_or_else(|e| panic!("fast reader accepted `{line}`, clap refused it: {e}"));
        if slow.global.db.is_none() {
            // clap reads KBENCH_DB from the test's own environment; the
            // fast reader was handed `env_db` instead.
            slow.global.db = env_db.map(String::from);
        }
        assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "`{line}`");
        true
    }

    #[test]
    fn plain_lines_are_read_as_clap_reads_them() {
        if std::env::var_os("KBENCH_DB").is_some() {
            return; // the comparison above assumes clap sees no KBENCH_DB
        }
        for line in [
            "hackbench",
            "hackbench -P -g 10 -f 20 -l 1500",
            "hackbench -T -p -g4 -f4 -l20000 -s 512",
            "hackbench --threads --pipe --groups 3 --fds=7 --loops=9 --datasize 64",
            "hackbench -pT -g2",
            "hackbench -pTg2 -f 3",
            "hackbench -Fqp -l1",
            "--no-store hackbench -g 1",
            "--db /tmp/x.db --label rt --json hackbench --runs 3",
            "-q hackbench --cpus 0-1",
            "-q --json hackbench -p",
            "hackbench --cpus=0,1 --no-store --label=a --db=postgres://u@h/db",
            "hackbench -g 1 --label a",
            "hackbench -s 1048576 -g 100000 -f 10000 --runs 100000",
            "hackbench -l 18446744073709551615",
            "hackbench -g 007",
        ] {
            assert!(
                agrees(line, None),
                "`{line}` should be taken by the fast reader"
            );
        }
        assert!(agrees("hackbench -g 2", Some("/tmp/env.db")));
        assert!(agrees("hackbench -g 2", Some("")));
        assert!(agrees("hackbench --db /tmp/flag.db", Some("/tmp/env.db")));
    }

    #[test]
    fn everything_unusual_is_left_to_clap() {
        for line in [
            "",
            "sysinfo",
            "run hackbench",
            "hackbench --help",
            "hackbench -h",
            "--version",
            "hackbench -V",
            "hackbench -g 0",
            "hackbench -g -1",
            "hackbench -g +3",
            "hackbench -g 1.5",
            "hackbench -g abc",
            "hackbench -g",
            "hackbench -g=4",
            "hackbench -f 10001",
            "hackbench -s 0",
            "hackbench -s 1048577",
            "hackbench -l 0",
            "hackbench -l 18446744073709551616",
            "hackbench --runs 0",
            "hackbench -T -P",
            "hackbench -TP",
            "hackbench -p -p",
            "hackbench -g 1 -g 2",
            "hackbench --cpus 0 --cpus 1",
            "hackbench --cpus -1",
            "hackbench --db",
            "hackbench --db=",
            "hackbench --pipe=yes",
            "hackbench --bogus",
            "hackbench -x",
            "hackbench extra",
            "hackbench --",
            "hackbench -",
            "-g 1 hackbench",
            "-qp hackbench",
            "--runs 2 hackbench",
            "--label x",
            "--label hackbench cyclictest",
        ] {
            let args = argv(line);
            assert!(
                parse(&args, None).is_none(),
                "`{line}` must go to clap, the fast reader took it"
            );
        }
    }

    /// Random lines from a vocabulary of good and bad tokens: every line
    /// the fast reader takes, clap takes too and reads the same way.
    #[test]
    fn random_lines_never_disagree_with_clap() {
        if std::env::var_os("KBENCH_DB").is_some() {
            return;
        }
        const WORDS: &[&str] = &[
            "hackbench",
            "hackbench",
            "-p",
            "-T",
            "-P",
            "-F",
            "-q",
            "-g",
            "-f",
            "-l",
            "-s",
            "--runs",
            "--cpus",
            "--db",
            "--label",
            "--no-store",
            "--json",
            "--quiet",
            "--pipe",
            "--threads",
            "--process",
            "--fifo",
            "--groups",
            "--fds=3",
            "--loops=0",
            "--datasize=64",
            "-g3",
            "-pT",
            "-Tg2",
            "-Fl5",
            "-qs",
            "0",
            "1",
            "7",
            "20",
            "100000",
            "100001",
            "-1",
            "x",
            "0-1",
            "--",
            "-h",
            "-V",
            "sysinfo",
            "--groups=",
            "--label=a",
            "--db=/tmp/k.db",
            "-",
            "-g=2",
        ];
        // xorshift64*: a fixed sequence, so a failure can be replayed.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let mut taken = 0;
        for _ in 0..20_000 {
            // Half the lines start like a real one, so many are taken.
            let mut line: Vec<&str> = Vec::new();
            if next() % 2 == 0 {
                line.push("hackbench");
            }
            for _ in 0..(next() % 7) {
                line.push(WORDS[(next() % WORDS.len() as u64) as usize]);
            }
            if agrees(&line.join(" "), None) {
                taken += 1;
            }
        }
        // Enough accepted lines that the comparison means something.
        assert!(taken > 500, "only {taken} random lines were taken");
    }

    #[test]
    fn bad_utf8_is_left_to_clap() {
        use std::os::unix::ffi::OsStrExt;
        let args = [
            OsStr::new("kbench"),
            OsStr::new("hackbench"),
            OsStr::new("--cpus"),
            OsStr::from_bytes(b"0\xff"),
        ];
        assert!(parse(&args, None).is_none());
        let args = [OsStr::new("kbench"), OsStr::new("hackbench")];
        assert!(parse(&args, Some(OsStr::from_bytes(b"\xff"))).is_none());
    }
}
