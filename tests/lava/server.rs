//! A job run by a real LAVA server and imported through its REST API
//! (`kbench lava import --server URL --job ID`): Debian's lava-server with
//! its scheduler and a lava-worker serving one QEMU device on this machine
//! (`.ci/lava-server.sh` sets them up and ends them).  The job `kbench
//! lava job` wrote is submitted through the API as a lab's user would, the
//! server schedules it on its worker, the worker's `lava-run` boots the
//! guest, and kbench reads the finished job from the server alone.

use super::{jobs_in, jobs_of, parts};
use crate::common::{self, Env};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The server for the test's length: stopped (and what its start began
/// ended) on drop, pass or fail.
struct Server {
    url: String,
    token: String,
    dir: PathBuf,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/lava-server.sh")
}

impl Server {
    /// `None` (said) where this machine has no lava-server, which CI must
    /// have.
    fn start(dir: &Path) -> Option<Server> {
        let out = Command::new("bash")
            .arg(script())
            .arg("start")
            .arg(dir)
            .output()
            .unwrap();
        if !out.status.success() {
            let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run a LAVA server: {why}"
            );
            eprintln!("skipped: {why}");
            return None;
        }
        let said = String::from_utf8_lossy(&out.stdout);
        let mut w = said.split_whitespace();
        Some(Server {
            url: w.next().unwrap().to_string(),
            token: w.next().unwrap().to_string(),
            dir: dir.to_path_buf(),
        })
    }

    fn agent() -> ureq::Agent {
        ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .http_status_as_error(false)
            .build()
            .into()
    }

    /// Submit a job's YAML as a user would (POST /api/v0.2/jobs/): its id.
    fn submit(&self, yaml: &str) -> u64 {
        let mut resp = Self::agent()
            .post(&format!("{}/api/v0.2/jobs/", self.url))
            .header("Authorization", &format!("Token {}", self.token))
            .header("Content-Type", "application/json")
            .send(serde_json::json!({ "definition": yaml }).to_string())
            .unwrap();
        let status = resp.status().as_u16();
        let body = resp.body_mut().read_to_string().unwrap();
        assert_eq!(status, 201, "the server refused the job: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        v["job_ids"][0].as_u64().unwrap()
    }

    /// `kbench lava import --server URL --job ID` with the user's token in
    /// `LAVA_TOKEN`, asserted to exit `code`: what it said (both streams).
    fn import(&self, env: &Env, job: u64, code: i32) -> String {
        let out = env
            .cmd()
            .env("LAVA_TOKEN", &self.token)
            .args([
                "lava",
                "import",
                "--server",
                &self.url,
                "--job",
                &job.to_string(),
            ])
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            out.status.code(),
            Some(code),
            "lava import of job {job}: {said}"
        );
        assert!(!said.contains("panicked"), "{said}");
        said
    }

    /// The job's state and health once it has finished (or at the limit).
    fn wait(&self, job: u64, limit: Duration) -> (String, String) {
        let started = Instant::now();
        let mut dropped = 0;
        loop {
            // A poll the server drops (its web worker recycled or timed out
            // on a loaded machine) is asked again, a few times at most.
            let body = Self::agent()
                .get(&format!("{}/api/v0.2/jobs/{job}/", self.url))
                .header("Authorization", &format!("Token {}", self.token))
                .call()
                .and_then(|mut r| r.body_mut().read_to_string());
            let body = match body {
                Ok(b) => b,
                Err(e) if dropped < 5 => {
                    dropped += 1;
                    eprintln!("poll of job {job} dropped ({e}); asking again");
                    std::thread::sleep(Duration::from_secs(5));
                    continue;
                }
                Err(e) => panic!("the server dropped 6 polls of job {job}: {e}"),
            };
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            let state = v["state"].as_str().unwrap_or("?").to_string();
            if state == "Finished" || started.elapsed() > limit {
                return (state, v["health"].as_str().unwrap_or("?").to_string());
            }
            std::thread::sleep(Duration::from_secs(5));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

/// One boot of each kernel, as two jobs a lab submits: the server runs
/// them on its worker; `lava import --server --job` stores each boot under
/// its label with the device the server names and the guest's own
/// fingerprint, and a second import adds nothing; a job that has not
/// finished, and a job the server does not have, are refused with why.
#[test]
fn jobs_run_by_a_lava_server_are_imported_through_its_rest_api() {
    let Some((g, _)) = parts() else { return };
    let state = tempfile::tempdir().unwrap();
    let Some(server) = Server::start(state.path()) else {
        return;
    };
    let env = Env::new();
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("disk.img");
    common::guest::disk(g, &disk, "rm /etc/systemd/journald.conf.d/console.conf\n");
    // The worker runs as root and reads the disk by its path.
    let jobs = dir.path().join("jobs");
    jobs_of(
        &env,
        g,
        &disk,
        &["--boots", "1", "--seed", "3"],
        &jobs,
        &["cyclictest", "-t", "1", "-D", "3s"],
    );
    let files = jobs_in(&jobs);
    assert_eq!(files.len(), 2);
    let ids: Vec<u64> = files
        .iter()
        .map(|f| server.submit(&std::fs::read_to_string(f).unwrap()))
        .collect();
    // The second is queued behind the first on the one device: not
    // finished yet, so refused.
    let early = server.import(&env, ids[1], 2);
    assert!(early.contains("import it once it has finished"), "{early}");
    for id in &ids {
        let started = Instant::now();
        let (state, health) = server.wait(*id, Duration::from_secs(1500));
        assert_eq!(
            (state.as_str(), health.as_str()),
            ("Finished", "Complete"),
            "job {id}"
        );
        eprintln!(
            "lava-server job {id}: finished in {:.0} s after the last",
            started.elapsed().as_secs_f64()
        );
    }
    for id in &ids {
        let said = server.import(&env, *id, 0);
        assert!(
            said.contains("1 boot(s) with runs, 0 failed boot(s); 1 run(s) new"),
            "{said}"
        );
    }
    let again = server.import(&env, ids[0], 0);
    assert!(again.contains("0 run(s) new"), "{again}");
    for (label, release) in [("std", &g.std), ("rt", &g.rt)] {
        let runs = env.json(&["runs", "list", "--label", label]);
        let runs = runs["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1, "{label}");
        let show = env.json(&["runs", "show", &runs[0]["id"].to_string()]);
        assert_eq!(show["fingerprint"]["release"], release.as_str());
        assert_eq!(show["settings"]["lava"]["device"], "qemu01");
        assert!(
            show["settings"]["lava"].to_string().contains(&server.url),
            "{}",
            show["settings"]["lava"]
        );
    }
    // A job the server does not have.
    let none = server.import(&env, 999_999, 2);
    assert!(none.contains("no job 999999"), "{none}");
}
