//! A fence timeout ends that fence episode for every participant and
//! breaks no later fence; a silent host ends fences too (a lost server:
//! `lost_server.rs`).
//! Real processes (`examples/fenceclient.rs`) under `pmixrun` and under an
//! in-test server.

use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use pmix_core::proto::caps;
use pmix_core::{Info, Proc};
use pmix_server::host::{Completion, Host};

mod common;
use common::{example, one_node_job, start_client, text, wait_all};

fn pmixrun_timeout(env: &[String]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    cmd.env("TMPDIR", dir.path())
        .args(["--timeout", "60", "-n", "3"]);
    for e in env {
        cmd.args(["-x", e]);
    }
    cmd.arg(example("fenceclient"))
        .arg("timeout")
        .output()
        .unwrap()
}

fn assert_timeout_scenario(o: &Output) {
    let t = text(o);
    assert!(o.status.success(), "{t}");
    assert!(!t.contains("FAIL"), "{t}");
    assert_eq!(t.matches("ok fence timed out").count(), 2, "{t}");
    assert_eq!(t.matches("ok late fence answered").count(), 1, "{t}");
    assert_eq!(t.matches("ok done").count(), 3, "{t}");
    for l in t
        .lines()
        .filter(|l| l.contains("ok fence") || l.contains("ok late"))
    {
        eprintln!("{l}");
    }
}

/// Shared-memory path: ranks 0 and 1 time out fence 1 (`PMIX_TIMEOUT` 1 s)
/// while rank 2 sleeps 2.5 s; rank 2's late fence 1 is answered
/// `PMIX_ERR_TIMEOUT` at once, and the next two fences of all ranks
/// succeed. (The old barrier poisoned itself: every later fence failed.)
#[test]
fn a_timed_out_shm_fence_ends_for_all_and_the_next_ones_work() {
    let o = pmixrun_timeout(&[]);
    assert_timeout_scenario(&o);
}

/// The same through the server's tracker: the client does not announce
/// `SHM_FENCE`. (The old tracker kept the timed-out arrivals: rank 2's
/// late fence succeeded alone and the next fence was "entered twice".)
#[test]
fn a_timed_out_server_fence_ends_for_all_and_the_next_ones_work() {
    let o = pmixrun_timeout(&[format!("PMIXRS_CAPS={:#x}", caps::ALL & !caps::SHM_FENCE)]);
    assert_timeout_scenario(&o);
}

/// A host that swallows every cross-node fence.
struct SilentHost;

impl Host for SilentHost {
    fn fence_nb(&self, procs: &[Proc], info: &[Info], data: Vec<u8>, done: Completion<Vec<u8>>) {
        let _ = (procs, info, data);
        // Never answers: keep the completion alive so nothing answers for it.
        std::mem::forget(done);
    }
}

/// A fence spanning nodes, handed to a host that never answers, is
/// answered `PMIX_ERR_TIMEOUT` by the server at its deadline (the old
/// server left it to the client's own deadline: no such answer).
#[test]
fn a_silent_host_does_not_hang_a_fence_with_a_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("fto-host", 1, Arc::new(SilentHost), dir.path());
    let child = start_client("fenceclient", &server, &ns, 0, "host");
    let outs = wait_all(vec![child], Duration::from_secs(30));
    let t = text(&outs[0]);
    assert!(outs[0].status.success(), "{t}");
    assert!(t.contains("ok host never answered"), "{t}");
    eprintln!("{}", t.trim());
    server.finalize();
}
