//! Debian's kernels for the tests that boot them, fetched with `apt-get
//! download` and unpacked with `dpkg -x` (never installed) into a cache
//! kept between runs (`KBENCH_TEST_KERNELS`, else
//! `/var/cache/kbench-test-kernels`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the kernels are kept.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("KBENCH_TEST_KERNELS") {
        return PathBuf::from(d);
    }
    let shared = PathBuf::from("/var/cache/kbench-test-kernels");
    if std::fs::create_dir_all(&shared).is_ok() {
        return shared;
    }
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kernels")
}

/// `apt-get download PKG` in `cache` (with `apt_options`, a sources list
/// of the caller's own say) and `dpkg -x` of it into `into`; the .deb goes.
pub fn download_and_unpack(
    cache: &Path,
    pkg: &str,
    into: &Path,
    apt_options: &[String],
) -> Result<(), String> {
    let got = Command::new("apt-get")
        .args(apt_options)
        .args(["download", "-q", pkg])
        .current_dir(cache)
        .output()
        .map_err(|e| format!("apt-get: {e}"))?;
    if !got.status.success() {
        return Err(format!(
            "apt-get download {pkg}: {}",
            String::from_utf8_lossy(&got.stderr).trim()
        ));
    }
    let deb = std::fs::read_dir(cache)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{pkg}_")) && n.ends_with(".deb"))
        })
        .ok_or(format!("apt-get download {pkg} left no .deb"))?;
    let x = Command::new("dpkg")
        .arg("-x")
        .arg(&deb)
        .arg(into)
        .status()
        .map_err(|e| format!("dpkg -x: {e}"))?;
    let _ = std::fs::remove_file(&deb);
    if !x.success() {
        return Err(format!("dpkg -x {} failed", deb.display()));
    }
    Ok(())
}

/// Today's Debian kernel with sched_ext: the newest `linux-binary-7.*`
/// of trixie-backports (with its config and modules), through a
/// sources list of its own; its image.
pub fn fetch_todays_kernel() -> Result<PathBuf, String> {
    let cache = cache_dir().join("trixie-backports");
    let parts = cache.join("sources");
    let lists = cache.join("lists");
    for d in [&parts, &lists.join("partial")] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::write(
        parts.join("trixie-backports.sources"),
        "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n",
    )
    .map_err(|e| e.to_string())?;
    // apt with this sources list and lists folder alone.
    let options: Vec<String> = [
        "Dir::Etc::SourceList=/dev/null".to_string(),
        format!("Dir::Etc::SourceParts={}", parts.display()),
        format!("Dir::State::Lists={}", lists.display()),
        "Dir::Cache::pkgcache=".to_string(),
        "Dir::Cache::srcpkgcache=".to_string(),
    ]
    .into_iter()
    .flat_map(|o| ["-o".to_string(), o])
    .collect();
    let apt = |tool: &str, args: &[&str]| {
        Command::new(tool)
            .args(&options)
            .args(args)
            .current_dir(&cache)
            .output()
            .map_err(|e| format!("{tool}: {e}"))
    };
    let listed = std::fs::read_dir(&lists).is_ok_and(|d| {
        d.flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with("_Packages"))
    });
    if !listed {
        let u = apt("apt-get", &["update", "-qq"])?;
        if !u.status.success() {
            return Err(format!(
                "apt-get update (trixie-backports): {}",
                String::from_utf8_lossy(&u.stderr).trim()
            ));
        }
    }
    let found = apt(
        "apt-cache",
        &[
            "search",
            "--names-only",
            r"^linux-binary-7\.[0-9.]+\+deb[0-9]+-amd64$",
        ],
    )?;
    let version = |r: &str| -> Vec<u32> {
        r.split(|c: char| !c.is_ascii_digit())
            .filter_map(|x| x.parse().ok())
            .collect()
    };
    let r = String::from_utf8_lossy(&found.stdout)
        .lines()
        .filter_map(|l| l.split(' ').next()?.strip_prefix("linux-binary-"))
        .max_by_key(|r| version(r))
        .ok_or("no linux-binary-7.* in trixie-backports")?
        .to_string();
    let dir = cache.join(format!("split-{r}"));
    let modules = dir.join(format!("usr/lib/modules/{r}"));
    let image = modules.join("vmlinuz");
    let ready =
        image.is_file() && modules.join("config").is_file() && modules.join("kernel").is_dir();
    if !ready {
        for pkg in ["binary", "base", "modules"] {
            download_and_unpack(&cache, &format!("linux-{pkg}-{r}"), &dir, &options)?;
        }
    }
    image
        .is_file()
        .then_some(image)
        .ok_or_else(|| format!("no image in {}", dir.display()))
}
