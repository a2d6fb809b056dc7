//! What a tool attached to a live `pmixrun` job is told it may ask for
//! (use case "Debugging: Direct-Launch Debugger Tool", UC-14):
//! `PMIX_QUERY_SPAWN_SUPPORT` and `PMIX_QUERY_DEBUG_SUPPORT` list what
//! pmixrun really honours, and what it does not honour is refused. And
//! a tool's `PMIx_IOF_push` to the stdin of a rank it spawned with
//! `PMIX_FWD_STDIN`.

use std::process::Stdio;
use std::time::Duration;

use pmix_client::tool::Tool;
use pmix_core::{attrs, Query, Status, Value};

mod common;
use common::toolee::{attach_by_pid, info, release, start_toolee};
use common::{example, text, wait_all};

/// The comma-separated answer to `key`, split.
fn listed(t: &Tool, key: &str) -> Vec<String> {
    let r = t
        .client()
        .unwrap()
        .query(&[Query {
            keys: vec![key.to_owned()],
            qualifiers: vec![],
        }])
        .unwrap_or_else(|e| panic!("query {key}: {e}"));
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(r[0].is(key), "{r:?}");
    match &r[0].value {
        Value::String(s) => s.split(',').map(str::to_owned).collect(),
        other => panic!("{key}: not a string: {other:?}"),
    }
}

#[test]
fn a_tool_is_told_the_spawn_and_debug_support_pmixrun_honours() {
    let tmp = tempfile::tempdir().unwrap();
    let (job, pid) = start_toolee(tmp.path(), 1, Stdio::piped());
    let t = attach_by_pid(tmp.path(), pid);

    let debug = listed(&t, attrs::QUERY_DEBUG_SUPPORT);
    for want in [
        attrs::DEBUG_STOP_IN_INIT,
        attrs::BREAKPOINT,
        attrs::DEBUGGER_DAEMONS,
        attrs::DEBUG_TARGET,
        attrs::DEBUG_DAEMONS_PER_PROC,
        attrs::DEBUG_DAEMONS_PER_NODE,
    ] {
        assert!(debug.iter().any(|a| a == want), "{want} not in {debug:?}");
    }
    assert!(
        !debug.iter().any(|a| a == attrs::DEBUG_STOP_ON_EXEC),
        "stop-on-exec is not honoured, yet listed: {debug:?}"
    );
    let spawn = listed(&t, attrs::QUERY_SPAWN_SUPPORT);
    for want in [
        attrs::SET_ENVAR,
        attrs::PREPEND_ENVAR,
        attrs::WDIR,
        attrs::NOTIFY_COMPLETION,
        attrs::JOB_TIMEOUT,
        attrs::SPAWN_TIMEOUT,
        attrs::FWD_STDOUT,
        attrs::FWD_STDERR,
        attrs::DEBUG_STOP_IN_INIT,
        attrs::DEBUGGER_DAEMONS,
        attrs::DEBUG_TARGET,
        attrs::DEBUG_DAEMONS_PER_PROC,
        attrs::DEBUG_DAEMONS_PER_NODE,
    ] {
        assert!(spawn.iter().any(|a| a == want), "{want} not in {spawn:?}");
    }
    assert!(
        !spawn.iter().any(|a| a == attrs::DEBUG_STOP_ON_EXEC),
        "{spawn:?}"
    );

    // What is not listed is refused, not silently ignored.
    let app = pmix_core::App {
        cmd: example("pastinit").to_string_lossy().into_owned(),
        maxprocs: 1,
        ..Default::default()
    };
    let e = t
        .client()
        .unwrap()
        .spawn(&[info(attrs::DEBUG_STOP_ON_EXEC, true)], &[app])
        .expect_err("stop-on-exec is not supported");
    assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED, "{e}");
    assert!(e.to_string().contains("PMIX_DEBUG_STOP_IN_INIT"), "{e}");

    release(&t);
    let o = wait_all(vec![job], Duration::from_secs(60)).remove(0);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn a_tool_pushes_lines_to_the_stdin_of_a_rank_it_spawned() {
    use pmix_core::proto::iof::STDOUT_CHANNEL;
    use std::sync::mpsc;
    let tmp = tempfile::tempdir().unwrap();
    let (job, pid) = start_toolee(tmp.path(), 1, Stdio::piped());
    let t = attach_by_pid(tmp.path(), pid);
    let c = t.client().unwrap();
    let app = pmix_core::App {
        cmd: example("stdinreader").to_string_lossy().into_owned(),
        maxprocs: 2,
        ..Default::default()
    };
    let ns = c.spawn(&[info(attrs::FWD_STDIN, true)], &[app]).unwrap();
    let all = pmix_core::Proc::new(ns.as_str(), pmix_core::Rank::WILDCARD).unwrap();
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    c.iof_pull(
        std::slice::from_ref(&all),
        STDOUT_CHANNEL,
        move |_, src, _, bytes| {
            for l in String::from_utf8_lossy(bytes).lines() {
                let _ = tx.lock().unwrap().send(format!("{}: {l}", src.rank.0));
            }
        },
    )
    .unwrap();
    let rank0 = pmix_core::Proc::new(ns.as_str(), pmix_core::Rank(0)).unwrap();
    let rank1 = pmix_core::Proc::new(ns.as_str(), pmix_core::Rank(1)).unwrap();
    // Only rank 0's stdin is forwarded (as mpirun forwards to rank 0).
    let e = c.iof_push(&[rank1], b"lost\n", &[]).unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_FOUND, "{e}");
    c.iof_push(std::slice::from_ref(&rank0), b"alpha\n", &[])
        .unwrap();
    c.iof_push(&[all], b"beta\ngamma\n", &[info(attrs::IOF_COMPLETE, true)])
        .unwrap();
    let mut got = Vec::new();
    while !got.iter().any(|l: &String| l.starts_with("0: eof")) {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(l) => got.push(l),
            Err(_) => panic!("rank 0's output so far: {got:?}"),
        }
    }
    let rank0_lines: Vec<&String> = got.iter().filter(|l| l.starts_with("0: ")).collect();
    assert_eq!(
        rank0_lines,
        [
            "0: read alpha",
            "0: read beta",
            "0: read gamma",
            "0: eof after 3 lines"
        ],
        "{got:?}"
    );
    // Closed: pushing again is refused.
    let e = c.iof_push(&[rank0], b"late\n", &[]).unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_FOUND, "{e}");
    release(&t);
    let o = wait_all(vec![job], Duration::from_secs(60)).remove(0);
    assert!(o.status.success(), "{}", text(&o));
}
