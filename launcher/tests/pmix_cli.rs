//! The `pmix` command against a live `pmixrun` job: `ps` lists its ranks
//! with their pids, `query` answers the namespaces, `events` prints an
//! event `notify` raised, a custom-range `notify` reaches the job's
//! handlers; no server is exit status 3; `--help` has examples and the
//! exit codes.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{example, text, wait_all};

fn pmix(args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_pmix"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_all(vec![child], Duration::from_secs(60)).remove(0)
}

/// `pmixrun -n n toolee` with its files under `tmp`; its pid.
fn job(tmp: &Path, n: u32) -> (Child, u32) {
    let pidfile = tmp.join("pid");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .env("TMPDIR", tmp)
        .args(["--timeout", "60", "--report-pid"])
        .arg(&pidfile)
        .args(["-n", &n.to_string()])
        .arg(example("toolee"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    match common::reported_pid(&pidfile) {
        Some(pid) => (child, pid),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pmixrun wrote no --report-pid file");
        }
    }
}

#[test]
fn pmix_ps_query_events_and_notify_against_pmixrun() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let (j, pid) = job(tmp.path(), 2);
    let ns = format!("run-{pid}-job");
    let pid_s = pid.to_string();

    // ps: both ranks, once each has connected (their pids are known then).
    let t0 = Instant::now();
    let ps = loop {
        let o = pmix(&["--tmpdir", dir, "ps"]);
        let ok = o.status.success()
            && text(&o)
                .lines()
                .filter(|l| l.contains(&ns) && l.contains("RUNNING"))
                .count()
                == 2;
        if ok || t0.elapsed() > Duration::from_secs(20) {
            break o;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(ps.status.success(), "{}", text(&ps));
    let out = text(&ps);
    assert!(out.starts_with("  SERVER  NSPACE"), "{out}");
    for r in 0..2 {
        assert!(
            out.lines().any(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                w.len() >= 5
                    && w[0] == pid_s
                    && w[1] == ns
                    && w[2] == r.to_string()
                    && w[3].parse::<u32>().is_ok_and(|p| p > 0)
            }),
            "rank {r} not listed with its pid:\n{out}"
        );
    }

    let q = pmix(&["--pid", &pid_s, "--tmpdir", dir, "query", "pmix.qry.ns"]);
    assert!(q.status.success(), "{}", text(&q));
    assert!(
        text(&q).contains("pmix.qry.ns = ") && text(&q).contains(&ns),
        "{}",
        text(&q)
    );

    // events: a watcher sees what notify raises.
    let watcher = Command::new(env!("CARGO_BIN_EXE_pmix"))
        .args([
            "--pid", &pid_s, "--tmpdir", dir, "events", "--code", "-3101",
        ])
        .args(["--count", "1", "--timeout", "30"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let n = pmix(&[
        "--pid", &pid_s, "--tmpdir", dir, "notify", "-3101", "--range", "session",
    ]);
    assert!(n.status.success(), "{}", text(&n));
    let w = wait_all(vec![watcher], Duration::from_secs(60)).remove(0);
    assert!(w.status.success(), "{}", text(&w));
    assert!(text(&w).contains("event -3101"), "{}", text(&w));

    // A custom range naming the job releases its ranks.
    let n = pmix(&[
        "--pid", &pid_s, "--tmpdir", dir, "notify", "-3100", "--range", "custom", "--target", &ns,
    ]);
    assert!(n.status.success(), "{}", text(&n));
    let o = wait_all(vec![j], Duration::from_secs(60)).remove(0);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        text(&o).matches("got -3100 from ").count(),
        2,
        "{}",
        text(&o)
    );

    // The job is gone: nothing to reach.
    let none = pmix(&["--tmpdir", dir, "ps"]);
    assert_eq!(none.status.code(), Some(3), "{}", text(&none));
}

#[test]
fn pmix_help_has_examples_and_exit_codes() {
    let h = pmix(&["--help"]);
    assert!(h.status.success());
    let t = text(&h);
    for want in [
        "pmix ps",
        "pmix query",
        "pmix events",
        "pmix notify",
        "Exit status",
        "3 no",
    ] {
        assert!(t.contains(want), "{want}: {t}");
    }
    let bad = pmix(&["frobnicate"]);
    assert_eq!(bad.status.code(), Some(2));
}
