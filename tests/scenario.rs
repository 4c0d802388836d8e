//! Scenarios: parsing errors with their places, the dry-run plan,
//! background restart and stop, failures, Ctrl-C.

use crate::common::{interrupt, orphans, wait_for, Env};

fn write(env: &Env, name: &str, text: &str) -> String {
    let p = env.dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

const HEAD: &str = "name = \"t\"\ndescription = \"test\"\n";

#[test]
fn errors_name_file_line_and_column() {
    let env = Env::new();
    let cases: &[(&str, &str)] = &[
        ("[[phase]]\nname = \"p\"\nbogus = 1\n", ":5:1: unknown field `bogus`, expected one of `name`, `drop_caches`, `settle`, `task`"),
        ("runs = \"many\"\n[[phase]]\nname = \"p\"\n", ":3:8: 'many' is not a number of runs from 1 to 100000"),
        ("runs = 0\n[[phase]]\nname = \"p\"\n", ":3:8: runs must be from 1 to 100000"),
        ("runs = 3\nprecision = 5\n[[phase]]\nname = \"p\"\n", ": precision applies only with runs = \"auto\""),
        ("[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"fio\"\n", ":6:8: unknown task kind 'fio' (expected one of: hackbench, cyclictest, responsiveness, coldwalk, job, load, contest, schbench, interbench)"),
        ("[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\nargs = { grups = 4 }\n", ":7:8: unknown flag 'grups' for hackbench"),
        ("[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\nargs = { groups = 0 }\n", ":7:8: hackbench: invalid value '0' for '--groups <GROUPS>'"),
        ("[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\ncpus = \"0-4095\"\n", ":7:8: CPU list '0-4095' names CPU"),
        ("[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\nrole = \"background\"\n", ":3:1: phase 'p' has no probe"),
        ("[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\nargs = { loops = \"${ncpus*2}\" }\n", ":7:8: args.loops: unknown variable 'ncpus'"),
        ("[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"coldwalk\"\n", ":5:1: coldwalk needs args.path"),
    ];
    for (body, want) in cases {
        let f = write(&env, "s.toml", &format!("{HEAD}{body}"));
        let err = env.fails(&["run", &f], 2);
        assert!(
            err.contains(&format!("{f}{want}")),
            "for\n{body}\nexpected `{f}{want}` in:\n{err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let err = env.fails(&["run", "no-such-preset-or-file"], 2);
    assert!(
        err.contains("neither a scenario file nor a preset") && err.contains("quick"),
        "{err}"
    );
    assert!(!env.db().exists(), "nothing started, nothing stored");
}

#[test]
fn dry_run_prints_the_plan() {
    let env = Env::new();
    let f = write(
        &env,
        "plan.toml",
        &format!(
            "{HEAD}runs = 2\n[vars]\nn = 3\n[[phase]]\nname = \"load\"\nsettle = \"1s\"\n[[phase.task]]\nname = \"bg\"\nkind = \"hackbench\"\nrole = \"background\"\ncpus = \"0\"\nnice = 5\nargs = {{ groups = \"${{n}}\", loops = \"${{1000*scale}}\", pipe = true }}\n[[phase.task]]\nname = \"lat\"\nkind = \"cyclictest\"\nargs = {{ duration = \"${{10*scale}}s\", threads = 1 }}\n"
        ),
    );
    let out = env.ok(&["run", &f, "--dry-run", "--scale", "0.5"]);
    let want = "scenario t: test
2 repetition(s), scale 0.5

phase 1 load, settle 1.0 s  (about 6 s)
  background bg                 kbench hackbench --groups 3 --loops 500 --pipe  [cpus 0, nice 5]
  probe      lat                kbench cyclictest --duration 5s --threads 1

estimated time: about 12 s
";
    assert_eq!(out, want);
    let out = env.ok(&["run", &f, "--dry-run", "--var", "n=7"]);
    assert!(out.contains("--groups 7"), "{out}");
    let err = env.fails(&["run", &f, "--dry-run", "--var", "m=7"], 2);
    assert!(err.contains("has no variable 'm'"), "{err}");
    assert!(!env.db().exists());
}

#[test]
fn trace_true_traces_the_probes_that_can_be() {
    let env = Env::new();
    let body = "[[phase]]\nname = \"p\"\n[[phase.task]]\nname = \"bg\"\nkind = \"hackbench\"\nrole = \"background\"\n[[phase.task]]\nname = \"lat\"\nkind = \"cyclictest\"\nargs = { duration = \"1s\" }\n[[phase.task]]\nname = \"walk\"\nkind = \"coldwalk\"\nargs = { path = \"/usr\" }\n[[phase.task]]\nname = \"sch\"\nkind = \"schbench\"\ntrace = false\n";
    let f = write(&env, "t.toml", &format!("{HEAD}trace = true\n{body}"));
    let out = env.ok(&["run", &f, "--dry-run"]);
    let line = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no task {name} in {out}"))
            .to_string()
    };
    assert!(line("lat").contains("--trace"), "{out}");
    assert!(!line("bg").contains("--trace"), "a background task: {out}");
    assert!(
        !line("walk").contains("--trace"),
        "coldwalk is no latency probe: {out}"
    );
    assert!(
        !line("sch").contains("--trace"),
        "the task's own trace = false: {out}"
    );
    // A task's own trace = true: on a background hackbench it is asked
    // for; on a kind that cannot be traced it is an error at its place.
    let f = write(
        &env,
        "t2.toml",
        &format!(
            "{HEAD}{}",
            body.replace(
                "role = \"background\"\n",
                "role = \"background\"\ntrace = true\n"
            )
        ),
    );
    let out = env.ok(&["run", &f, "--dry-run"]);
    assert!(
        out.lines()
            .any(|l| l.contains(" bg ") && l.contains("--trace")),
        "{out}"
    );
    let f = write(
        &env,
        "t3.toml",
        &format!(
            "{HEAD}{}",
            body.replace("name = \"walk\"\n", "name = \"walk\"\ntrace = true\n")
        ),
    );
    let err = env.fails(&["run", &f, "--dry-run"], 2);
    assert!(
        err.contains(&format!(
            "{f}:15:9: coldwalk cannot be traced (trace = true is for"
        )) && err.contains("cyclictest"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn background_restarts_and_everything_stops() {
    let env = Env::new();
    let f = write(
        &env,
        "bg.toml",
        &format!(
            "{HEAD}[[phase]]\nname = \"p\"\n[[phase.task]]\nname = \"bg\"\nkind = \"hackbench\"\nrole = \"background\"\nargs = {{ groups = 1, fds = 2, loops = 200 }}\n[[phase.task]]\nname = \"lat\"\nkind = \"cyclictest\"\nrow = \"latency\"\nargs = {{ duration = \"1500ms\", threads = 1 }}\n"
        ),
    );
    let v = env.json(&["run", &f, "--label", "sc"]);
    assert_eq!(v["rows"][0]["row"], "bg");
    assert_eq!(v["rows"][1]["row"], "latency");
    // The report says what each row means, with units on every figure.
    let cell = v["rows"][1]["repetitions"][0].as_str().unwrap();
    assert!(cell.ends_with(" us"), "{cell}");
    assert_eq!(
        v["rows"][1]["meaning"],
        "worst timer wake-up delay seen; lower is better"
    );
    let hb = v["rows"][0]["repetitions"][0].as_str().unwrap();
    assert!(hb.ends_with(" s") || hb.ends_with(" ms"), "{hb}");
    assert!(v["rows"][0]["meaning"]
        .as_str()
        .unwrap()
        .starts_with("time to pass every message"));
    let runs = env.json(&["runs", "list", "--benchmark", "hackbench"]);
    let n = runs["runs"].as_array().unwrap().len();
    assert!(n >= 2, "the background hackbench was restarted: {n} runs");
    let id = runs["runs"][0]["id"].as_i64().unwrap().to_string();
    let show = env.json(&["runs", "show", &id]);
    assert_eq!(show["phase"], "p");
    assert_eq!(show["repetition"], 0);
    assert!(show["scenario"].as_str().unwrap().starts_with("t/"));
    assert_eq!(show["settings"]["placement"]["role"], "background");
    // Every background run but the one the phase's end cut short is
    // complete; a hackbench cut short stays interrupted (its Time would be
    // that of less work than asked), never complete.
    let mut ids: Vec<(i64, String)> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_i64().unwrap(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    ids.sort();
    let (last, rest) = ids.split_last().unwrap();
    assert!(rest.iter().all(|r| r.1 == "complete"), "{runs}");
    assert!(last.1 == "complete" || last.1 == "interrupted", "{runs}");
    let show = env.json(&["runs", "show", &last.0.to_string()]);
    assert!(
        show["settings"]["sched"]["role"] == "background",
        "{}",
        show["settings"]["sched"]
    );
    assert!(
        wait_for(10, || orphans().is_empty()),
        "left a process: {:?}",
        orphans()
    );
}

#[test]
fn a_failing_task_fails_its_repetition_and_the_scenario_goes_on() {
    let env = Env::new();
    let f = write(
        &env,
        "fail.toml",
        &format!("{HEAD}runs = 2\n[[phase]]\nname = \"p\"\n[[phase.task]]\nname = \"bad\"\nkind = \"job\"\nargs = {{ job_cmd = \"sh -c 'echo nope >&2; exit 4'\" }}\n"),
    );
    let err = env.fails(&["run", &f], 1);
    assert!(
        err.contains("2 failure(s)")
            && err.contains("repetition 1 phase p")
            && err.contains("repetition 2 phase p"),
        "{err}"
    );
    assert!(err.contains("nope"), "the task's stderr is shown: {err}");
    let err = env.fails(&["run", &f, "--fail-fast"], 1);
    assert!(err.contains("1 failure(s)"), "{err}");
}

#[test]
fn ctrl_c_stops_every_task() {
    let env = Env::new();
    let f = write(
        &env,
        "long.toml",
        &format!(
            "{HEAD}[[phase]]\nname = \"p\"\n[[phase.task]]\nname = \"bg\"\nkind = \"load\"\nrole = \"background\"\nargs = {{ name = \"cpu\", procs = 1, duration = \"1h\" }}\n[[phase.task]]\nname = \"lat\"\nkind = \"cyclictest\"\nargs = {{ duration = \"1h\", threads = 1 }}\n"
        ),
    );
    let kb = env.spawn(&["run", &f, "-q"]);
    let pid = kb.id();
    // Both tasks (kbench children) and the load's workers are up.
    assert!(wait_for(30, || crate::common::children(pid).len() >= 2));
    std::thread::sleep(std::time::Duration::from_millis(800));
    interrupt(kb);
    assert!(
        wait_for(15, || orphans().is_empty()),
        "left a process: {:?}",
        orphans()
    );
}

#[test]
fn presets_list_and_show() {
    let env = Env::new();
    let out = env.ok(&["presets"]);
    for p in ["quick", "xanmod-clear-2023", "contest"] {
        assert!(out.contains(p), "{out}");
    }
    let toml = env.ok(&["presets", "show", "xanmod-clear-2023"]);
    assert!(toml.contains("name = \"xanmod-clear-2023\"") && toml.contains("[[phase]]"));
    let err = env.fails(&["presets", "show", "nope"], 2);
    assert!(err.contains("no preset 'nope'"), "{err}");
    let plan = env.ok(&["run", "xanmod-clear-2023", "--scale", "0.05", "--dry-run"]);
    assert!(
        plan.contains(
            "kbench cyclictest --distance 500 --duration 15s --mlockall --priority 98 --smp"
        ),
        "the seed's rt-tests --smp ran thread N at 1000 + 500*N us: {plan}"
    );
    assert!(
        plan.contains("phase 1 ls-alone")
            && plan.contains("probe      ls-R-alone         kbench coldwalk /usr"),
        "the seed's \"no bg_jobs\" baseline: {plan}"
    );
    let toml = env.ok(&["presets", "show", "xanmod-clear-2023"]);
    assert!(
        toml.contains("show = [\"total_response\""),
        "os latency is the total: {toml}"
    );
}

/// Each task runs in its own session, so with autogroup on it is its own
/// scheduling group, as the seed's separate terminals were; `session =
/// "shared"` keeps kbench's.
#[test]
fn tasks_get_their_own_autogroup_unless_shared() {
    if !std::path::Path::new("/proc/self/autogroup").exists() {
        eprintln!("skipped: this kernel has no autogroup (CONFIG_SCHED_AUTOGROUP)");
        return;
    }
    let env = Env::new();
    let d = env.dir.path().display().to_string();
    let task = |n: &str, extra: &str| {
        format!(
            "[[phase.task]]\nname = \"{n}\"\nkind = \"job\"\n{extra}args = {{ job_cmd = \"sh -c 'cat /proc/self/autogroup > {d}/{n}; sleep 0.5'\" }}\n"
        )
    };
    let f = write(
        &env,
        "ag.toml",
        &format!(
            "{HEAD}[[phase]]\nname = \"p\"\n{}{}{}",
            task("a", ""),
            task("b", ""),
            task("c", "session = \"shared\"\n")
        ),
    );
    let v = env.json(&["run", &f, "--label", "ag"]);
    assert_eq!(v["failures"].as_array().map_or(0, |a| a.len()), 0, "{v}");
    // The kernel prints nothing for the boot session's default group (and
    // for a task whose cpu cgroup is not the root), so an empty file is
    // "no autogroup of its own", not an error.
    let first = |s: String| s.split_whitespace().next().unwrap_or("").to_string();
    let group = |n: &str| first(std::fs::read_to_string(format!("{d}/{n}")).unwrap());
    let mine = first(std::fs::read_to_string("/proc/self/autogroup").unwrap());
    assert!(
        !group("a").is_empty(),
        "a task in its own session has its own autogroup"
    );
    assert_ne!(group("a"), group("b"), "two tasks, two autogroups");
    assert_ne!(group("a"), mine);
    assert_eq!(group("c"), mine, "a shared task keeps kbench's session");
    let runs = env.json(&["runs", "list", "--benchmark", "job"]);
    let sessions: Vec<String> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let id = r["id"].as_i64().unwrap().to_string();
            env.json(&["runs", "show", &id])["settings"]["placement"]["session"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        sessions.iter().filter(|s| *s == "own").count(),
        2,
        "{sessions:?}"
    );
    assert_eq!(
        sessions.iter().filter(|s| *s == "shared").count(),
        1,
        "{sessions:?}"
    );
}

/// `runs = "auto:MAX"`: the scenario repeats until every probe's figure is
/// within `precision`, looking after repetitions 3, 5, 8, …: a loose
/// precision stops at the first look (3 repetitions stored), an
/// impossible one runs to the cap and says so.
#[test]
fn runs_auto_stops_when_every_probe_is_precise() {
    let env = Env::new();
    let body = |precision: &str| {
        format!(
            "{HEAD}runs = \"auto:5\"\nprecision = {precision}\n[[phase]]\nname = \"p\"\n[[phase.task]]\nkind = \"hackbench\"\nargs = {{ groups = 1, fds = 2, loops = 50 }}\n"
        )
    };
    let count = |label: &str| {
        let out = env.json(&["runs", "list", "--label", label]);
        out["runs"].as_array().unwrap().len()
    };
    // Runs the scenario at `precision` under `label`; its stderr.
    let run = |label: &str, precision: &str| {
        let f = write(&env, &format!("{label}.toml"), &body(precision));
        let o = env.run(&["run", &f, "--label", label]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        err
    };
    // 10000 %: decided at the first look whatever the machine's noise.
    let err = run("loose", "10000");
    assert!(err.contains("stopped after 3 repetitions"), "{err}");
    assert_eq!(count("loose"), 3);
    let err = run("tight", "0.000001");
    assert!(err.contains("reached its cap of 5 repetitions"), "{err}");
    assert_eq!(count("tight"), 5);
}

/// Ctrl-C is heard while a scenario file is read and checked: a file of
/// 20,000 phases takes seconds to check (it ignored Ctrl-C for all of
/// them), and must end with exit 130 soon after the signal.
#[test]
fn ctrl_c_is_heard_while_a_large_scenario_is_checked() {
    let env = Env::new();
    let f = env.dir.path().join("big.toml");
    let mut s = String::from("name = \"big\"\n");
    for i in 0..20_000 {
        s.push_str(&format!(
            "[[phase]]\nname = \"p{i}\"\n[[phase.task]]\nkind = \"hackbench\"\nrole = \"probe\"\nargs = {{ loops = 5 }}\n"
        ));
    }
    std::fs::write(&f, s).unwrap();
    let mut kb = env
        .cmd()
        .args(["run", f.to_str().unwrap(), "--dry-run"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: kill has no memory preconditions; the pid is our child's.
    unsafe { libc::kill(kb.id() as i32, libc::SIGINT) };
    let ended = wait_for(5, || kb.try_wait().unwrap().is_some());
    if !ended {
        let _ = kb.kill();
    }
    let status = kb.wait().unwrap();
    assert!(ended, "still checking the scenario 5 s after Ctrl-C");
    assert_eq!(status.code(), Some(130));
}

#[test]
fn a_background_load_stopped_as_planned_is_complete_with_its_work() {
    let env = Env::new();
    let f = write(
        &env,
        "load.toml",
        &format!(
            "{HEAD}[[phase]]\nname = \"p\"\n[[phase.task]]\nname = \"hog\"\nkind = \"load\"\nrole = \"background\"\nargs = {{ name = \"cpu\", procs = 1 }}\n[[phase.task]]\nname = \"lat\"\nkind = \"cyclictest\"\nargs = {{ duration = \"1s\", threads = 1 }}\n"
        ),
    );
    env.ok(&["run", &f, "--label", "sc"]);
    let runs = env.json(&["runs", "list", "--benchmark", "load"]);
    let r = &runs["runs"][0];
    assert_eq!(r["status"], "complete", "{runs}");
    let show = env.json(&["runs", "show", &r["id"].as_i64().unwrap().to_string()]);
    assert!(
        show["notes"].to_string().contains("stopped as planned"),
        "{}",
        show["notes"]
    );
    let work = show["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "work")
        .unwrap();
    assert!(
        work["value"].as_f64().unwrap() > 0.0,
        "its work up to then: {work}"
    );
    assert!(
        wait_for(10, || orphans().is_empty()),
        "left a process: {:?}",
        orphans()
    );
}
