//! The shared PostgreSQL store, against a real server: `KBENCH_TEST_PG`
//! names a database (`.ci/run` starts one on loopback).  Without it these
//! tests say they were skipped.

use crate::common::Env;

fn server() -> Option<String> {
    match std::env::var("KBENCH_TEST_PG") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            eprintln!("skipped: set KBENCH_TEST_PG=postgres://… to run the PostgreSQL tests");
            None
        }
    }
}

/// A fresh database on the test server for one test (dropped at the end).
struct Db {
    admin: String,
    name: String,
    url: String,
}

impl Db {
    fn new(admin: &str, tag: &str) -> Db {
        let name = format!("kbt_{tag}_{}", std::process::id());
        let mut c =
            postgres::Client::connect(admin, postgres::NoTls).expect("connect to KBENCH_TEST_PG");
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
            .unwrap();
        c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(admin);
        Db {
            admin: admin.to_string(),
            url: format!("{base}/{name}"),
            name,
        }
    }

    /// Runs stored (0 before kbench has created its tables).
    fn count(&self) -> i64 {
        let mut c = postgres::Client::connect(&self.url, postgres::NoTls).unwrap();
        c.query_one("SELECT count(*) FROM runs", &[])
            .map_or(0, |r| r.get(0))
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

const SEED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/seed2023.csv");

#[test]
fn same_runs_in_same_compare_out() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "parity");
    let env = Env::new();
    env.ok(&["import", SEED, "--format", "csv"]);
    env.ok(&[
        "hackbench",
        "-g",
        "1",
        "-f",
        "2",
        "-l",
        "20",
        "--runs",
        "3",
        "--label",
        "measured",
    ]);
    env.ok(&["push", "--to", &db.url]);
    assert_eq!(db.count(), 21);
    let local = env.json(&[
        "compare",
        "--label",
        "clear-6.1.53",
        "--label",
        "xanmod-6.1.54",
    ]);
    let remote = env.json(&[
        "compare",
        "--label",
        "clear-6.1.53",
        "--label",
        "xanmod-6.1.54",
        "--db",
        &db.url,
    ]);
    assert_eq!(
        local, remote,
        "compare from PostgreSQL equals compare from SQLite"
    );
    let runs = env.json(&["runs", "list", "--db", &db.url, "--label", "measured"]);
    let id = runs["runs"][0]["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id, "--db", &db.url]);
    assert!(
        show["fingerprint"]["id"].is_string(),
        "fingerprints travel with the runs"
    );
    let labels = env.json(&["labels", "--db", &db.url]);
    assert_eq!(labels["labels"].as_array().unwrap().len(), 3);
}

#[test]
fn push_and_pull_are_idempotent() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "idem");
    let a = Env::new();
    a.ok(&["import", SEED, "--format", "csv"]);
    a.ok(&["push", "--to", &db.url]);
    a.ok(&["push", "--to", &db.url]);
    assert_eq!(db.count(), 18, "a run pushed twice is stored once");
    let b = Env::new();
    b.ok(&["pull", "--from", &db.url]);
    b.ok(&["pull", "--from", &db.url]);
    assert_eq!(
        b.json(&["runs", "list"])["runs"].as_array().unwrap().len(),
        18
    );
    let c = Env::new();
    c.ok(&["pull", "--from", &db.url, "--label", "clear-6.1.53"]);
    assert_eq!(
        c.json(&["runs", "list"])["runs"].as_array().unwrap().len(),
        9
    );
}

fn csv_runs(env: &Env, tag: &str, n: usize) -> String {
    let p = env.dir.path().join(format!("{tag}.csv"));
    let mut s = String::from("label,benchmark,metric,unit,value,run\n");
    for i in 0..n {
        s.push_str(&format!("{tag},b,time,s,{}.5,{i}\n", i % 7));
    }
    std::fs::write(&p, s).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn four_concurrent_pushers_lose_and_double_nothing() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "conc");
    let envs: Vec<Env> = (0..4).map(|_| Env::new()).collect();
    for (i, e) in envs.iter().enumerate() {
        let f = csv_runs(e, &format!("host{i}"), 500);
        e.ok(&["import", &f, "--format", "csv"]);
    }
    let kids: Vec<_> = envs
        .iter()
        .map(|e| {
            e.cmd()
                .args(["push", "--to", &db.url, "-q"])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for k in kids {
        let out = k.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(db.count(), 2000);
    // Everyone again, at once: still exactly 2000.
    let kids: Vec<_> = envs
        .iter()
        .map(|e| {
            e.cmd()
                .args(["push", "--to", &db.url, "-q"])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut k in kids {
        assert!(k.wait().unwrap().success());
    }
    assert_eq!(db.count(), 2000);
}

#[test]
fn a_dropped_connection_mid_push_completes_on_retry() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "drop");
    let env = Env::new();
    let f = csv_runs(&env, "big", 6000);
    env.ok(&["import", &f, "--format", "csv"]);
    let kb = env
        .cmd()
        .args(["push", "--to", &db.url])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once some batches are in, cut the push's connection from the server side.
    assert!(crate::common::wait_for(60, || db.count() > 0));
    let mut c = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    c.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kbench' AND datname = current_database() AND pid <> pg_backend_pid()",
        &[],
    )
    .unwrap();
    let out = kb.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        eprintln!(
            "the push finished before its connection was cut; retry path not exercised this time"
        );
    } else {
        assert!(err.contains("run it again"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    env.ok(&["push", "--to", &db.url]);
    assert_eq!(db.count(), 6000, "nothing lost, nothing doubled");
}

#[test]
fn bad_urls_servers_and_schemas() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    env.ok(&["import", SEED, "--format", "csv"]);
    let err = env.fails(&["push", "--to", "postgres://kb:pw@[bad"], 2);
    assert!(
        err.contains("not a PostgreSQL URL") && !err.contains(":pw@"),
        "{err}"
    );
    let err = env.fails(
        &["push", "--to", "postgres://kb:topsecret@127.0.0.1:1/kbench"],
        2,
    );
    assert!(
        err.contains("cannot connect") && !err.contains("topsecret") && err.contains("kb:***@"),
        "{err}"
    );
    let err = env.fails(&["push", "--to", "/tmp/file.db"], 2);
    assert!(err.contains("postgres:// URL"), "{err}");
    let db = Db::new(&admin, "schema");
    // The same user with a wrong password (the test server uses password auth).
    let (scheme, rest) = db.url.split_once("://").unwrap();
    if let Some((userinfo, host)) = rest.split_once('@') {
        let user = userinfo.split(':').next().unwrap();
        let wrong = format!("{scheme}://{user}:definitely-wrong@{host}");
        let err = env.fails(&["push", "--to", &wrong], 2);
        assert!(
            err.contains("cannot connect") && !err.contains("definitely-wrong"),
            "{err}"
        );
    }
    env.ok(&["push", "--to", &db.url]);
    let mut c = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    c.execute(
        "UPDATE kbench_meta SET value = '99' WHERE key = 'schema_version'",
        &[],
    )
    .unwrap();
    let err = env.fails(&["compare", "--db", &db.url], 2);
    assert!(err.contains("schema version 99"), "{err}");
    // A version no kbench writes is a damaged store, not version 0 to
    // migrate over.
    for bad in ["-3", "banana", ""] {
        c.execute(
            "UPDATE kbench_meta SET value = $1 WHERE key = 'schema_version'",
            &[&bad],
        )
        .unwrap();
        let err = env.fails(&["compare", "--db", &db.url], 2);
        assert!(err.contains("the store is damaged"), "{bad}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

/// A host name in the URL (resolved by kbench on its own thread, not by
/// a resolver thread that would outlive the connection): process-mode
/// hackbench, which forks only from a single-threaded kbench, measures
/// and stores.
#[test]
fn a_host_name_in_the_url_does_not_stop_measuring() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "hostname");
    let url = db.url.replace("127.0.0.1", "localhost");
    assert!(url.contains("@localhost:"), "{url}");
    let env = Env::new();
    for args in [
        &["hackbench", "-g", "1", "-f", "2", "-l", "20"][..],
        &["load", "cpu", "--duration", "1s"][..],
    ] {
        let o = env
            .cmd()
            .args(args)
            .args(["--db", &url, "-q"])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(db.count(), 2);
}

/// TLS as libpq spells it, against the test server's `kbtls` user (which
/// it refuses without TLS) and a throwaway CA: disable is refused by the
/// server; prefer and require encrypt; verify-ca checks the chain;
/// verify-full also the name; a wrong root, a missing one and a name the
/// certificate does not hold are refused with one line, and the password
/// is never printed.
#[test]
fn tls_modes_as_libpq_spells_them() {
    let (Ok(url), Ok(ca), Ok(cert)) = (
        std::env::var("KBENCH_TEST_PG_TLS"),
        std::env::var("KBENCH_TEST_PG_CA"),
        std::env::var("KBENCH_TEST_PG_CERT"),
    ) else {
        eprintln!("skipped: KBENCH_TEST_PG_TLS, KBENCH_TEST_PG_CA and KBENCH_TEST_PG_CERT name a TLS test server (.ci/pg.sh starts one)");
        return;
    };
    let env = Env::new();
    let by_ip = url.replace("localhost", "127.0.0.1");
    let ok = |u: String| {
        let o = env.run(&["runs", "list", "--db", &u]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{u}: {err}");
    };
    let refused = |u: String, says: &str| {
        let o = env.run(&["runs", "list", "--db", &u]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "{u}: {err}");
        assert!(err.contains(says), "{u}: {err}");
        assert!(!err.contains("kbpass"), "the password was printed: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    };
    refused(format!("{url}?sslmode=disable"), "no encryption");
    ok(url.clone());
    ok(format!("{url}?sslmode=prefer"));
    ok(format!("{url}?sslmode=require"));
    ok(format!("{url}?sslmode=verify-full&sslrootcert={ca}"));
    ok(format!("{url}?sslmode=verify-full&sslrootcert={cert}"));
    ok(format!("{by_ip}?sslmode=verify-ca&sslrootcert={ca}"));
    refused(
        format!("{by_ip}?sslmode=verify-full&sslrootcert={ca}"),
        "not valid for name",
    );
    refused(
        format!("{url}?sslmode=verify-full&sslrootcert=system"),
        "UnknownIssuer",
    );
    refused(
        format!("{url}?sslmode=verify-ca&sslrootcert=/nonexistent.pem"),
        "needs the CA",
    );
    refused(format!("{url}?sslmode=allow-ish"), "is not one of");
}

/// No form of the password reaches stdout or stderr: in the user info or
/// as `?password=`, through a scenario run's closing line.
#[test]
fn a_scenario_on_postgres_never_prints_the_password() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "redact");
    let (userinfo, rest) = db.url.split_once('@').unwrap();
    let (scheme_user, password) = userinfo.rsplit_once(':').unwrap();
    let as_query = format!("{scheme_user}@{rest}?password={password}");
    let env = Env::new();
    let f = env.dir.path().join("s.toml");
    std::fs::write(
        &f,
        "name = \"t\"\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\nargs = { groups = 1, fds = 1, loops = 10 }\n",
    )
    .unwrap();
    for url in [db.url.as_str(), as_query.as_str()] {
        let o = env.run(&["--db", url, "run", f.to_str().unwrap(), "--label", "pw"]);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.status.success(), "{all}");
        assert!(all.contains("runs stored in"), "{all}");
        assert!(!all.contains(password), "the password was printed: {all}");
    }
}

/// One insert path: a run with metrics, a histogram, notes and a
/// fingerprint, written to SQLite and to PostgreSQL, reads back the same
/// from both (every field, metrics and notes in their order).
#[test]
fn a_run_reads_back_the_same_from_both_stores() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "same");
    let a = Env::new();
    a.ok(&[
        "hackbench",
        "-g",
        "1",
        "-f",
        "2",
        "-l",
        "20",
        "--label",
        "both",
    ]);
    a.ok(&["push", "--to", &db.url]);
    let show = |args: &[&str]| {
        let mut v = a.json(args);
        // Where it is stored differs; what is stored must not.
        if let Some(o) = v.as_object_mut() {
            o.remove("id");
            o.remove("stored_in");
        }
        v
    };
    let id = a.json(&["runs", "list"])["runs"][0]["id"]
        .as_i64()
        .unwrap()
        .to_string();
    let local = show(&["runs", "show", &id]);
    let pg_id = a.json(&["--db", &db.url, "runs", "list"])["runs"][0]["id"]
        .as_i64()
        .unwrap()
        .to_string();
    let remote = show(&["--db", &db.url, "runs", "show", &pg_id]);
    assert!(
        local["metrics"].as_array().is_some_and(|m| m.len() >= 3),
        "{local}"
    );
    assert_eq!(local, remote, "SQLite and PostgreSQL read back differently");
    // A traced run's attachment (its trace windows) travels and reads
    // back the same: the Perfetto export from both stores is identical.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("the attachment half skipped: tracing needs root");
        return;
    }
    a.ok(&[
        "cyclictest",
        "-l",
        "300",
        "--trace",
        "--trace-worst",
        "3",
        "--label",
        "traced",
    ]);
    a.ok(&["push", "--to", &db.url, "--label", "traced"]);
    let traced = |args: &[&str]| {
        let runs = a.json(&[args, &["runs", "list", "--label", "traced"]].concat());
        runs["runs"][0]["id"].as_i64().unwrap().to_string()
    };
    let (lid, rid) = (traced(&[]), traced(&["--db", &db.url]));
    let local = a.ok(&["runs", "trace", &lid, "-o", "-"]);
    let remote = a.ok(&["--db", &db.url, "runs", "trace", &rid, "-o", "-"]);
    assert!(local.contains("traceEvents"), "{local}");
    assert_eq!(
        local.replace(&format!("run {lid},"), "run X,"),
        remote.replace(&format!("run {rid},"), "run X,"),
        "the trace attachment reads back differently"
    );
}

/// `kbench track` over one series in both stores gives the same answer.
#[test]
fn track_gives_the_same_answer_from_both_stores() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "track");
    let env = Env::new();
    let f = env.dir.path().join("series.csv");
    std::fs::write(&f, crate::track::series_csv("", 2026)).unwrap();
    env.ok(&["import", f.to_str().unwrap(), "--format", "csv", "-q"]);
    env.ok(&["push", "--to", &db.url]);
    let local = env.json(&["track"]);
    let remote = env.json(&["track", "--db", &db.url]);
    assert_eq!(
        local, remote,
        "track from PostgreSQL equals track from SQLite"
    );
    assert_eq!(crate::track::found(&local).len(), 3);
}

/// A server that closes idle sessions after a second (`idle_session_timeout`,
/// as a pooler or a firewall may): a matrix holds its store while its
/// children measure for longer than that, and each child holds its own
/// while it measures; every run still lands in the shared store, none in
/// the local fallback, and the matrix ends well.
#[test]
fn connections_closed_while_idle_are_opened_again() {
    let Some(admin) = server() else { return };
    let db = Db::new(&admin, "idle");
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    c.batch_execute(&format!(
        "ALTER DATABASE {} SET idle_session_timeout = '1s'",
        db.name
    ))
    .unwrap();
    let env = Env::new();
    let out = env
        .cmd()
        .args([
            "--db",
            &db.url,
            "matrix",
            "--vary",
            "seconds=2,3",
            "--rounds",
            "1",
        ])
        .args(["--", "testbench"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("instead"), "{err}");
    assert_eq!(db.count(), 2, "{err}");
}
