//! Who this process is, as the password file says: its home folder, for
//! when `HOME` is unset or not absolute (a systemd unit, cron, `env -i`),
//! so that a default path never becomes relative to wherever the process
//! happened to start; and who ran it through sudo, with their groups.
//!
//! `/etc/passwd` and `/etc/group` are read as files, not through glibc's
//! `getpwuid_r`: kbench is linked statically, and a lookup that falls
//! through to a module of `nsswitch.conf` (`systemd`, for a uid the files
//! do not list) loads a shared library into the static binary and crashes
//! it (SIGSEGV, found by a test).  Users from a directory service are
//! therefore not seen: such a user's home and groups are not known.

use std::path::PathBuf;

/// The home folder of the effective user from the password file, when it
/// has an absolute one.
pub fn home() -> Option<PathBuf> {
    home_of(super::proc::uid())
}

/// The user who ran kbench through sudo (`SUDO_UID`, `SUDO_GID`), when
/// kbench runs as root for them: what kbench does in their files (git,
/// a build) it does as them, so it leaves nothing of root's there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invoker {
    pub uid: u32,
    pub gid: u32,
    pub home: Option<PathBuf>,
    /// Their supplementary groups, from the group database: a repository
    /// they reach only through a group stays reachable.
    pub groups: Vec<u32>,
}

/// [`Invoker`]: `None` unless this process is root and sudo says who
/// asked (a user other than root).
pub fn invoker() -> Option<Invoker> {
    if super::proc::euid() != 0 {
        return None;
    }
    let num = |k: &str| std::env::var(k).ok()?.trim().parse::<u32>().ok();
    let uid = num("SUDO_UID").filter(|&u| u != 0)?;
    let gid = num("SUDO_GID")?;
    Some(Invoker {
        uid,
        gid,
        home: home_of(uid),
        groups: groups_of(uid, gid),
    })
}

/// User `uid`'s entry in the password file: its name and home folder.
fn passwd_entry(uid: u32) -> Option<(String, String)> {
    let text = std::fs::read_to_string("/etc/passwd").ok()?;
    entry_in(&text, uid)
}

/// [`passwd_entry`] from the text of a password file.
fn entry_in(text: &str, uid: u32) -> Option<(String, String)> {
    text.lines().find_map(|line| {
        let f: Vec<&str> = line.split(':').collect();
        (f.len() >= 7 && f[2].trim().parse::<u32>().ok() == Some(uid))
            .then(|| (f[0].to_string(), f[5].to_string()))
    })
}

/// The groups user `uid` belongs to with primary group `gid`: `gid` and
/// every group `/etc/group` lists them in.  The file, not
/// `getgrouplist`: kbench is linked statically, and glibc's NSS crashes
/// in a static binary there; groups from a directory service (LDAP,
/// SSSD) are therefore not seen.
pub fn groups_of(uid: u32, gid: u32) -> Vec<u32> {
    let Some((name, _)) = passwd_entry(uid) else {
        return vec![gid];
    };
    let text = std::fs::read_to_string("/etc/group").unwrap_or_default();
    groups_in(&text, &name, gid)
}

/// [`groups_of`] from the text of a group file.
fn groups_in(text: &str, name: &str, gid: u32) -> Vec<u32> {
    let mut out = vec![gid];
    for line in text.lines() {
        let f: Vec<&str> = line.split(':').collect();
        if f.len() < 4 || line.starts_with('#') {
            continue;
        }
        let Ok(g) = f[2].trim().parse::<u32>() else {
            continue;
        };
        if f[3].split(',').any(|m| m.trim() == name) && !out.contains(&g) {
            out.push(g);
        }
    }
    out.truncate(65_536);
    out
}

/// Make `cmd`'s child `who`: their supplementary groups, then their group
/// and user, set before it execs.  std's `uid()` would drop every
/// supplementary group, and a repository readable only through one (a
/// team's group) would then fail where the user's own git succeeds.
pub fn run_as(cmd: &mut std::process::Command, who: &Invoker) {
    use std::os::unix::process::CommandExt;
    let groups: Vec<libc::gid_t> = who.groups.clone();
    let (uid, gid) = (who.uid, who.gid);
    let err = std::io::Error::last_os_error;
    // SAFETY: the closure only makes async-signal-safe system calls on the
    // child itself, reading values moved in (nothing allocated or locked).
    unsafe {
        cmd.pre_exec(move || {
            if libc::setgroups(groups.len(), groups.as_ptr()) != 0
                || libc::setgid(gid) != 0
                || libc::setuid(uid) != 0
            {
                return Err(err());
            }
            Ok(())
        });
    }
}

/// A user's home folder from the password file, when absolute.
fn home_of(uid: u32) -> Option<PathBuf> {
    let p = PathBuf::from(passwd_entry(uid)?.1);
    p.is_absolute().then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_users_groups_come_from_the_group_file() {
        let file = "root:x:0:\nadm:x:4:syslog,ann\n# note\nusers:x:100:bob, ann\nbad:x:z:ann\nshort:x\nstaff:x:50:anne\n";
        assert_eq!(groups_in(file, "ann", 1000), vec![1000, 4, 100]);
        assert_eq!(groups_in(file, "zed", 7), vec![7]);
        assert!(groups_of(0, 0).contains(&0));
        // A uid no file lists (the lookup that crashed through NSS).
        assert_eq!(groups_of(4_000_000_000, 77), vec![77]);
        assert_eq!(home_of(4_000_000_000), None);
        let pw =
            "root:x:0:0:root:/root:/bin/bash\nann:x:1000:1000::/home/ann:/bin/sh\nbad:x:z:1:::\n";
        assert_eq!(entry_in(pw, 1000), Some(("ann".into(), "/home/ann".into())));
        assert_eq!(entry_in(pw, 5), None);
    }

    /// As root (which CI is, and what sudo gives): the child is the user
    /// with every group it was given, not only its primary one.
    #[test]
    fn run_as_keeps_the_supplementary_groups() {
        if super::super::proc::euid() != 0 {
            eprintln!("not run: needs root to become another user");
            return;
        }
        let who = Invoker {
            uid: 65534,
            gid: 65534,
            home: None,
            groups: vec![65534, 4, 100],
        };
        let mut c = std::process::Command::new("id");
        run_as(&mut c, &who);
        let out = c.output().unwrap();
        assert!(out.status.success());
        let ids = String::from_utf8_lossy(&out.stdout);
        assert!(ids.contains("uid=65534"), "{ids}");
        assert!(ids.contains("gid=65534"), "{ids}");
        let groups: Vec<&str> = ids
            .split("groups=")
            .nth(1)
            .unwrap_or("")
            .split(',')
            .map(|g| g.split('(').next().unwrap_or("").trim())
            .collect();
        assert!(groups.contains(&"4") && groups.contains(&"100"), "{ids}");
    }
}
