//! A finished job's log from a LAVA server's REST API (v0.2), for `kbench
//! lava import --server URL --job ID`: the job (`/api/v0.2/jobs/ID/`) says
//! whether it finished and on which device, and its log
//! (`/api/v0.2/jobs/ID/logs/`) is the server's `output.yaml`, one
//! `- {"dt": …, "lvl": …, "msg": …}` line an event, which the importer
//! reads as it reads `lava-run`'s.  A token, where the server wants one,
//! comes from `LAVA_TOKEN` (never the command line, which other users can
//! read), sent as `Authorization: Token …`.

use crate::error::input;
use anyhow::Result;
use std::io::Read;

/// The environment variable a server's token is read from.
pub const TOKEN_VAR: &str = "LAVA_TOKEN";

/// The most bytes of a job's log read (a boot's log is megabytes).
const MAX_LOG: u64 = 512 << 20;
/// The most bytes of a job's description read.
const MAX_JOB: u64 = 16 << 20;

/// A job's log and its device, as the server gave them.
pub struct Fetched {
    pub log: Vec<u8>,
    /// The device it ran on (`actual_device`).
    pub device: Option<String>,
    /// Where it came from, for the runs' settings.
    pub source: String,
}

/// The server's root URL, checked: `http://` or `https://`, nothing after
/// the host but a path.
pub(crate) fn root(url: &str) -> Result<String> {
    let u = url.trim().trim_end_matches('/');
    let rest = u
        .strip_prefix("https://")
        .or_else(|| u.strip_prefix("http://"))
        .ok_or_else(|| {
            input(format!(
                "--server {url}: give the server's address as http://HOST or https://HOST"
            ))
        })?;
    if rest.is_empty() || rest.contains(['?', '#', ' ']) || rest.chars().any(char::is_control) {
        return Err(input(format!(
            "--server {url}: give the server's address as http://HOST or https://HOST (with its path, if it has one)"
        )));
    }
    Ok(u.to_string())
}

/// Fetch job `job`'s log from `server`: refused unless the job has
/// finished.
pub fn fetch(server: &str, job: u64) -> Result<Fetched> {
    let root = root(server)?;
    let token = std::env::var(TOKEN_VAR)
        .ok()
        .filter(|t| !t.trim().is_empty());
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(300)))
        .http_status_as_error(false)
        .build()
        .into();
    let get = |path: &str, limit: u64| -> Result<Vec<u8>> {
        let url = format!("{root}/api/v0.2/jobs/{job}/{path}");
        let mut req = agent.get(&url).header("User-Agent", "kbench");
        if let Some(t) = &token {
            req = req.header("Authorization", &format!("Token {}", t.trim()));
        }
        let mut resp = req
            .call()
            .map_err(|e| crate::error::resource(format!("{url}: {e}")))?;
        let status = resp.status().as_u16();
        if status != 200 {
            return Err(match status {
                401 | 403 => crate::error::privilege(format!(
                    "{url}: the server refused (HTTP {status}): set {TOKEN_VAR} to the token of a user who may see job {job}"
                )),
                404 => input(format!(
                    "{url}: no job {job} there, or no log of it yet (HTTP 404)"
                )),
                s => crate::error::resource(format!("{url}: HTTP {s}")),
            });
        }
        let mut body = Vec::new();
        resp.body_mut()
            .as_reader()
            .take(limit + 1)
            .read_to_end(&mut body)
            .map_err(|e| crate::error::resource(format!("{url}: {e}")))?;
        if body.len() as u64 > limit {
            return Err(input(format!("{url}: more than {} MiB", limit >> 20)));
        }
        Ok(body)
    };
    let about: serde_json::Value = serde_json::from_slice(&get("", MAX_JOB)?).map_err(|e| {
        input(format!(
            "{root}: job {job}'s description is not LAVA's JSON ({e}); is this a LAVA server?"
        ))
    })?;
    let state = about["state"].as_str().unwrap_or("unknown");
    if state != "Finished" {
        return Err(input(format!(
            "job {job} on {root} is {state}: import it once it has finished"
        )));
    }
    Ok(Fetched {
        log: get("logs/", MAX_LOG)?,
        device: about["actual_device"].as_str().map(str::to_string),
        source: format!("{root}/scheduler/job/{job}"),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_server_is_an_http_address() {
        assert_eq!(
            super::root("https://lava.example/").unwrap(),
            "https://lava.example"
        );
        assert_eq!(
            super::root("http://10.0.0.1:8000/lab").unwrap(),
            "http://10.0.0.1:8000/lab"
        );
        for bad in [
            "lava.example",
            "ftp://x",
            "http://",
            "http://x?y=1",
            "http://a b",
        ] {
            assert!(super::root(bad).is_err(), "{bad}");
        }
    }
}
