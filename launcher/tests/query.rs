//! Queries, process sets, programming models and cross-version answers
//! across real processes (`examples/queryclient.rs`): under `pmixrun`
//! (sets on the command line), and with a server in this test process
//! whose host answers a query and which defines and deletes a set while
//! the clients run. Every run is bounded: `pmixrun --timeout`, or a
//! deadline after which the clients are killed by pid.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;
use common::{example, one_node_job, start_client, text};
use pmix_core::{attrs, Info, Proc, Query, Rank, Value};
use pmix_server::{Completion, Host};

fn pmixrun(np: u32, extra: &[&str], scenario: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "60", "-n", &np.to_string()])
        .args(extra)
        .arg(example("queryclient"))
        .arg(scenario)
        .output()
        .unwrap()
}

fn assert_ok(o: &Output, np: usize, lines: &[&str]) {
    let all = text(o);
    assert!(o.status.success(), "{all}");
    assert!(!all.contains("FAIL"), "{all}");
    assert_eq!(all.matches("ok done").count(), np, "{all}");
    for l in lines {
        assert_eq!(all.matches(l).count(), np, "{l:?}:\n{all}");
    }
}

const PSETS: [&str; 4] = ["--pset", "even:0,2", "--pset", "everyone:all"];

#[test]
fn queries_answer_namespaces_proc_tables_and_psets_with_their_edge_cases() {
    let o = pmixrun(3, &PSETS, "query");
    assert_ok(
        &o,
        3,
        &[
            "ok namespaces",
            "ok proc tables",
            "ok pset queries",
            "ok pset gets",
            "ok edge cases",
        ],
    );
}

#[test]
fn command_line_psets_reach_late_handlers_exactly_once() {
    let o = pmixrun(3, &PSETS, "psets");
    assert_ok(&o, 3, &["ok pset events once"]);
}

#[test]
fn a_bad_pset_argument_is_a_usage_error() {
    let o = pmixrun(2, &["--pset", "x:0,5"], "query");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("rank 5"), "{}", text(&o));
}

#[test]
fn programming_models_are_seen_by_another_library_and_a_local_peer() {
    let o = pmixrun(2, &[], "model");
    assert_ok(
        &o,
        2,
        &[
            "ok model in process",
            "ok proc-local model event",
            "ok model seen by peer",
        ],
    );
}

#[test]
fn an_older_protocol_gets_not_supported_and_honest_attribute_support() {
    let o = pmixrun(2, &["-x", "PMIXRS_PROTOCOL_MAX=4"], "oldserver");
    assert_ok(&o, 2, &["ok old server"]);
}

#[test]
fn pmixrun_answers_the_time_its_timeout_leaves() {
    let o = pmixrun(1, &[], "remaining");
    assert_ok(&o, 1, &["ok time remaining"]);
}

/// Answers `PMIX_TIME_REMAINING` (and nothing else).
struct QueryHost;

impl Host for QueryHost {
    fn query(&self, _proc: &Proc, queries: &[Query], done: Completion<Vec<Info>>) {
        let mut out = Vec::new();
        for q in queries {
            for k in &q.keys {
                if k == attrs::TIME_REMAINING {
                    out.push(Info::new(attrs::TIME_REMAINING, Value::Uint32(42)).unwrap());
                }
            }
        }
        done(Ok(out));
    }
}

#[test]
fn runtime_psets_are_defined_and_deleted_once_for_every_handler() {
    const N: u32 = 3;
    let dir = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("rtpset", N, Arc::new(QueryHost), dir.path());
    let mut children = Vec::new();
    let (tx, rx) = mpsc::channel();
    for r in 0..N {
        let mut ch = start_client("queryclient", &server, &ns, r, "runtime");
        let out = ch.stdout.take().unwrap();
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send((r, line));
            }
        });
        children.push(ch);
    }
    drop(tx);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut log = Vec::new();
    let wait_lines = |want: &str, log: &mut Vec<String>| {
        let mut seen = 0;
        while seen < N {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok((r, l)) => {
                    if l == want {
                        seen += 1;
                    }
                    log.push(format!("[{r}] {l}"));
                }
                Err(_) => return false,
            }
        }
        true
    };
    let members = [
        Proc::from_parts(ns.clone(), Rank(0)),
        Proc::from_parts(ns.clone(), Rank(1)),
    ];
    let ok = wait_lines("ready", &mut log)
        && server.define_process_set("rt", &members).is_ok()
        && wait_lines("seen define", &mut log)
        && server.delete_process_set("rt").is_ok();
    if !ok {
        for c in &mut children {
            let _ = c.kill();
        }
    }
    let outs = common::wait_all(children, Duration::from_secs(60));
    while let Ok((r, l)) = rx.try_recv() {
        log.push(format!("[{r}] {l}"));
    }
    let all: String = log.join("\n")
        + &outs
            .iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .collect::<String>();
    assert!(ok, "the clients did not get through:\n{all}");
    assert!(outs.iter().all(|o| o.status.success()), "{all}");
    assert_eq!(all.matches("ok runtime psets").count(), N as usize, "{all}");
    // Deleting again: the set is gone.
    assert!(server.delete_process_set("rt").is_err());
    server.finalize();
}
