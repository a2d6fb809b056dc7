//! `PMIx_Spawn` through `pmixrun` with real processes
//! (`examples/spawnclient.rs`): environment directives, `PMIX_PARENT_ID`,
//! errors to the spawner, `PMIX_EVENT_JOB_END`, and sessions whose spawned
//! children die at once.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{example, one_node_job, start_client, text, wait_all};

fn pmixrun(pre: &[&str], args: &[&str], env: &[(&str, &str)]) -> (Output, Duration) {
    let t0 = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "60"])
        .args(pre)
        .arg(example("spawnclient"))
        .args(args)
        .envs(env.iter().copied())
        .env_remove("T_SET")
        .env_remove("T_ADD")
        .env_remove("T_NEW")
        .env_remove("T_APPENV")
        .output()
        .unwrap();
    (o, t0.elapsed())
}

fn no_fail(o: &Output) {
    assert!(!text(o).contains("FAIL"), "{}", text(o));
}

#[test]
fn spawned_children_get_the_directives_in_order_and_their_parent() {
    let (o, _) = pmixrun(
        &[
            "-n",
            "2",
            "--tag-output",
            "-x",
            "T_X=fromx",
            "-x",
            "T_XKEEP=fromx",
        ],
        &["parent_env"],
        &[("T_KEEP", "base"), ("T_PATH", "/base"), ("T_GONE", "x")],
    );
    no_fail(&o);
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("[1,0]<stdout>: ok spawned"), "{out}");
    // The children's output is forwarded and tagged with their job.
    assert!(
        out.contains("[2,0]<stdout>: ok child 0 env parent"),
        "{out}"
    );
    assert!(
        out.contains("[2,1]<stdout>: ok child 1 env parent"),
        "{out}"
    );
    assert!(out.contains("[1,0]<stdout>: ok job end"), "{out}");
}

#[test]
fn spawn_errors_reach_the_spawner_within_its_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let not_exec = dir.path().join("not-executable");
    std::fs::write(&not_exec, "#!/bin/sh\nexit 0\n").unwrap();
    let token = format!("pmixrs-partial-{}", std::process::id());
    let (o, took) = pmixrun(
        &["-n", "1", "--spawn-slots", "3"],
        &["parent_errors", not_exec.to_str().unwrap(), &token],
        &[],
    );
    no_fail(&o);
    assert!(o.status.success(), "{}", text(&o));
    for what in [
        "ok missing:",
        "ok missing in PATH:",
        "ok not executable:",
        "ok zero procs:",
        "ok no apps:",
        "ok over the limit:",
        "ok bad wdir:",
        "ok partial:",
        "ok partial job gone",
        "after errors",
    ] {
        assert!(text(&o).contains(what), "{what}\n{}", text(&o));
    }
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn a_failed_child_job_sends_job_end_with_its_status_and_sets_the_exit_status() {
    let (o, _) = pmixrun(&["-n", "1"], &["parent_exit", "3"], &[]);
    no_fail(&o);
    let out = text(&o);
    assert!(out.contains("ok job end"), "{out}");
    assert!(
        out.contains(&format!(
            "status {} code 3",
            pmix_core::Status::ERR_JOB_NON_ZERO_TERM.0
        )),
        "{out}"
    );
    // The parent finished normally; the child job's failure still decides
    // pmixrun's status.
    assert_eq!(o.status.code(), Some(3), "{out}");
    assert!(out.contains("of spawned job 2"), "{out}");
}

#[test]
fn finished_jobs_give_back_their_slots_and_namespaces() {
    // 100 jobs of 2 with room for 2 spawned processes at a time, and more
    // jobs than the server's 64 namespace cells.
    let (o, _) = pmixrun(
        &["-n", "1", "--spawn-slots", "2"],
        &["many_spawns", "100"],
        &[],
    );
    no_fail(&o);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("ok 100 spawns"), "{}", text(&o));
}

#[test]
fn a_child_job_over_its_job_timeout_is_ended_and_reported() {
    let (o, took) = pmixrun(&["-n", "1"], &["parent_job_timeout"], &[]);
    no_fail(&o);
    assert!(text(&o).contains("ok job timeout"), "{}", text(&o));
    // The first failure of any job decides the status: the timeout's.
    assert_eq!(o.status.code(), Some(124), "{}", text(&o));
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn children_that_die_at_once_never_leave_the_parent_waiting() {
    // Without PMIX_NOTIFY_COMPLETION the session ends (the parent sleeps
    // for 600 s otherwise).
    let (o, took) = pmixrun(&["-n", "2"], &["parent_exit_no_notify", "5"], &[]);
    no_fail(&o);
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    assert!(took < Duration::from_secs(20), "{took:?}\n{}", text(&o));
    // With it, the event comes even when the children are gone before the
    // spawn's answer.
    for _ in 0..3 {
        let (o, _) = pmixrun(&["-n", "1"], &["parent_exit", "4"], &[]);
        no_fail(&o);
        assert!(text(&o).contains("ok job end"), "{}", text(&o));
        assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    }
}

#[test]
fn a_client_of_protocol_4_is_told_spawn_is_not_supported() {
    let (o, _) = pmixrun(
        &["-n", "1", "-x", "PMIXRS_PROTOCOL_MAX=4"],
        &["old_client"],
        &[],
    );
    no_fail(&o);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("ok old client"), "{}", text(&o));
}

/// Pids of processes whose command line holds `token` as one argument.
fn processes_with(token: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            if cmd.split(|b| *b == 0).any(|a| a == token.as_bytes()) {
                out.push(pid);
            }
        }
    }
    out
}

/// Polls `cond` every 20 ms for up to `limit`.
fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

#[test]
fn spawned_jobs_die_with_a_killed_pmixrun() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out");
    let base = format!("pmixrs-orphan-{}", std::process::id());
    let token = format!("{base}-sleeper");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "60", "-n", "1"])
        .arg(example("spawnclient"))
        .args(["parent_hang", &base])
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = || std::fs::read_to_string(&out_path).unwrap_or_default();
    let up = eventually(Duration::from_secs(30), || {
        out().contains("ok spawned") && processes_with(&token).len() == 2
    });
    if !up {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the spawned job did not start in 30 s:\n{}", out());
    }
    // SIGKILL: pmixrun cannot clean up; its watchdog must end every job.
    child.kill().unwrap();
    child.wait().unwrap();
    let gone = eventually(Duration::from_secs(10), || {
        processes_with(&token).is_empty()
    });
    let left = processes_with(&token);
    for pid in &left {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    assert!(gone, "spawned processes {left:?} outlived pmixrun");
}

/// A host that takes spawn requests and never answers them.
#[derive(Default)]
struct SilentHost {
    held: std::sync::Mutex<Vec<pmix_server::Completion<pmix_core::Nspace>>>,
}

impl pmix_server::Host for SilentHost {
    fn spawn(
        &self,
        _: &pmix_core::Proc,
        _: &[pmix_core::Info],
        _: &[pmix_core::App],
        done: pmix_server::Completion<pmix_core::Nspace>,
    ) {
        self.held.lock().unwrap().push(done);
    }
}

#[test]
fn a_host_that_never_answers_is_a_timeout_to_the_spawner() {
    let tmp = tempfile::tempdir().unwrap();
    let host = std::sync::Arc::new(SilentHost::default());
    let (server, ns) = one_node_job("silent", 1, host.clone(), tmp.path());
    let out = wait_all(
        vec![start_client(
            "spawnclient",
            &server,
            &ns,
            0,
            "spawn_timeout",
        )],
        Duration::from_secs(30),
    );
    no_fail(&out[0]);
    assert!(out[0].status.success(), "{}", text(&out[0]));
    assert!(
        text(&out[0]).contains("ok spawn timeout"),
        "{}",
        text(&out[0])
    );
    // The host got the request; its late answer goes nowhere.
    let late = std::mem::take(&mut *host.held.lock().unwrap());
    assert_eq!(late.len(), 1);
    for done in late {
        done(Ok(pmix_core::Nspace::new("late").unwrap()));
    }
    server.finalize();
}
