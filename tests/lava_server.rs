//! `kbench lava import --server URL --job ID`: a finished job's log read
//! through a LAVA server's REST API (v0.2).  The server here is a stub
//! (Python's http.server) that answers as lava-server does:
//! `/api/v0.2/jobs/ID/` is the job as JSON (`state`, `actual_device`),
//! `/api/v0.2/jobs/ID/logs/` its `output.yaml` (`- {"dt": …, "lvl": …,
//! "msg": …}` lines), and both want `Authorization: Token …`.  The boot in
//! the log is a real `kbench lava test`, run here: its console lines are
//! put in the log as a device's would be.

use crate::common::Env;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The stub: serves `dir`'s `job-N.json` and `job-N.yaml` for job N,
/// when the request carries `Token secret`.
const STUB: &str = r#"
import http.server, sys, os
d = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        if self.headers.get("Authorization") != "Token secret":
            self.send_response(401); self.end_headers(); self.wfile.write(b'{"detail":"no"}'); return
        p = self.path.strip("/").split("/")
        if len(p) >= 4 and p[:3] == ["api", "v0.2", "jobs"]:
            name = "job-%s.%s" % (p[3], "yaml" if p[4:] == ["logs"] else "json")
            f = os.path.join(d, name)
            if os.path.isfile(f):
                self.send_response(200)
                self.send_header("Content-Type", "application/yaml" if name.endswith("yaml") else "application/json")
                self.end_headers()
                self.wfile.write(open(f, "rb").read())
                return
        self.send_response(404); self.end_headers()
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;

struct Stub(Child, u16);

impl Stub {
    fn start(dir: &std::path::Path) -> Stub {
        let mut c = Command::new("python3")
            .args(["-c", STUB])
            .arg(dir)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3");
        let mut line = String::new();
        BufReader::new(c.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the stub's port");
        Stub(c, port)
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.1)
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A LAVA log line (YAML flow map, double-quoted as LAVA writes it).
fn event(lvl: &str, msg: &str) -> String {
    format!(
        "- {}",
        serde_json::json!({ "dt": "2026-12-05T10:00:00.000000", "lvl": lvl, "msg": msg })
    )
}

#[test]
fn a_finished_jobs_log_is_imported_from_a_lava_servers_rest_api() {
    let env = Env::new();
    let walked = tempfile::tempdir().unwrap();
    std::fs::write(walked.path().join("f"), "x").unwrap();
    // The boot's console: what `kbench lava test` printed on the device.
    let console = env.ok(&[
        "lava",
        "test",
        "--plan",
        "p1",
        "--boot",
        "1",
        "--label",
        "std",
        "--",
        "coldwalk",
        walked.path().to_str().unwrap(),
        "--no-drop",
        "--runs",
        "2",
    ]);
    assert!(console.contains("KBENCH-LAVA-BUNDLE"), "{console}");
    let served = tempfile::tempdir().unwrap();
    let mut log = vec![event("info", "start: 1 boot"), event("target", "login:")];
    log.extend(console.lines().map(|l| event("target", l)));
    log.push(event("results", "{case: job, result: pass}"));
    std::fs::write(served.path().join("job-7.yaml"), log.join("\n") + "\n").unwrap();
    std::fs::write(
        served.path().join("job-7.json"),
        r#"{"id": 7, "state": "Finished", "health": "Complete", "actual_device": "bbb-03"}"#,
    )
    .unwrap();
    std::fs::write(
        served.path().join("job-8.json"),
        r#"{"id": 8, "state": "Running", "health": "Unknown", "actual_device": "bbb-03"}"#,
    )
    .unwrap();
    let stub = Stub::start(served.path());
    let url = stub.url();
    let import = |env: &Env, job: &str, token: Option<&str>| {
        let mut c = env.cmd();
        c.args(["lava", "import", "--server", &url, "--job", job]);
        for v in [
            "http_proxy",
            "HTTP_PROXY",
            "https_proxy",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "all_proxy",
        ] {
            c.env_remove(v);
        }
        match token {
            Some(t) => c.env("LAVA_TOKEN", t),
            None => c.env_remove("LAVA_TOKEN"),
        };
        c.output().unwrap()
    };
    let text = |o: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let into = Env::new();
    let out = import(&into, "7", Some("secret"));
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("1 boot(s) with runs, 0 failed boot(s); 2 run(s) new"),
        "{}",
        text(&out)
    );
    let runs = into.json(&["runs", "list", "--label", "std"]);
    assert_eq!(runs["runs"].as_array().unwrap().len(), 2, "{runs}");
    let show = into.json(&["runs", "show", "1"]);
    assert_eq!(show["settings"]["lava"]["device"], "bbb-03", "{show}");
    assert_eq!(show["settings"]["lava"]["plan"], "p1");
    assert!(show["settings"]["lava"]["log"]
        .as_str()
        .unwrap()
        .ends_with("/scheduler/job/7"));
    // Twice adds nothing.
    let again = import(&into, "7", Some("secret"));
    assert!(text(&again).contains("0 run(s) new"), "{}", text(&again));
    // No token, a job still running, a job that is not there, a server
    // that is not one: one line each, and nothing stored.
    let empty = Env::new();
    for (job, token, code, says) in [
        ("7", None, 1, "set LAVA_TOKEN"),
        ("8", Some("secret"), 2, "job 8 on http://127.0.0.1"),
        ("9", Some("secret"), 2, "no job 9 there"),
    ] {
        let out = import(&empty, job, token);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(code), "job {job}: {err}");
        assert!(err.contains(says), "job {job}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let err = empty.fails(
        &["lava", "import", "--server", "lava.example", "--job", "1"],
        2,
    );
    assert!(err.contains("http://HOST"), "{err}");
    let err = empty.fails(&["lava", "import", "--server", &url], 2);
    assert!(err.contains("--job"), "{err}");
    assert!(!empty.db().exists(), "a refused import made a store");
}
