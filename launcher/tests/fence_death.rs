//! A fence participant that dies (SIGKILL) mid-fence fails the others'
//! fence at once with `PMIX_ERR_LOST_CONNECTION` and a message naming the
//! rank and saying it died; a participant that finalizes cleanly after it
//! entered a fence fails nobody. Both on the shared-memory barrier and on
//! the server's tracker. Real processes (`examples/fencedeath.rs`) under an
//! in-test server.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pmix_core::proto::caps;
use pmix_core::{Proc, Rank};
use pmix_server::{NullHost, Server};

mod common;
use common::{example, one_node_job, text, wait_all};

/// What the others' fence must end within after the kill (generous: the
/// measured figure is a few ms, see docs/RELIABILITY.md).
const BOUND: Duration = Duration::from_secs(2);

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// Starts rank `rank` of `ns` running `fencedeath <scenario>`, with the go
/// file `go` and, for the server path, a client that does not announce
/// `SHM_FENCE`.
fn start(
    server: &Server,
    ns: &pmix_core::Nspace,
    rank: u32,
    scenario: &str,
    go: &std::path::Path,
    shm: bool,
) -> Child {
    let p = Proc::from_parts(ns.clone(), Rank(rank));
    let mut cmd = Command::new(example("fencedeath"));
    cmd.arg(scenario)
        .envs(server.setup_fork(&p).unwrap())
        .env(pmix_client::ON_LOST_SERVER_ENV, "continue")
        .env("FENCEDEATH_GO", go)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !shm {
        cmd.env(
            "PMIXRS_CAPS",
            format!("{:#x}", caps::ALL & !caps::SHM_FENCE),
        );
    }
    cmd.spawn().unwrap()
}

/// The `ok rank R failed at <ms> …` time of a rank's output.
fn failed_at(t: &str) -> u128 {
    let l = t
        .lines()
        .find(|l| l.starts_with("ok rank") && l.contains("failed at"))
        .unwrap_or_else(|| panic!("no failure line: {t}"));
    l.split_whitespace().nth(5).unwrap().parse().unwrap()
}

fn killed_mid_fence(tag: &str, shm: bool) {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let (server, ns) = one_node_job(tag, 3, Arc::new(NullHost), dir.path());
    let r0 = start(&server, &ns, 0, "kill", &go, shm);
    let r1 = start(&server, &ns, 1, "kill", &go, shm);
    let mut r2 = start(&server, &ns, 2, "kill", &go, shm);
    let mut first = String::new();
    BufReader::new(r2.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    if first.trim() != "entering" {
        let mut rest = String::new();
        let _ = r2.stderr.as_mut().unwrap().read_to_string(&mut rest);
        let _ = r2.kill();
        panic!("rank 2 said {first:?} {rest}");
    }
    // Rank 2 is in (or about to enter) its fence: let it arrive, then kill
    // it (SIGKILL, by its pid).
    std::thread::sleep(Duration::from_millis(300));
    let killed_at = now_ms();
    r2.kill().unwrap();
    let _ = r2.wait();
    std::fs::write(&go, b"").unwrap();
    let outs = wait_all(vec![r0, r1], Duration::from_secs(30));
    for (rank, o) in outs.iter().enumerate() {
        let t = text(o);
        assert!(o.status.success(), "rank {rank}: {t}");
        let after = failed_at(&t).saturating_sub(killed_at);
        assert!(
            after < BOUND.as_millis(),
            "rank {rank} failed {after} ms after the kill: {t}"
        );
        eprintln!("{} ms after the kill: {}", after, t.trim());
    }
    server.finalize();
}

/// Shared-memory path. Before: `PMIX_ERR_PROC_ABORTED` (deprecated) with
/// "a participant is gone", naming nobody.
#[test]
fn a_rank_killed_mid_fence_is_named_on_the_shm_path() {
    killed_mid_fence("death-shm", true);
}

/// The server's tracker. Before: `PMIX_ERR_PROC_ABORTED`.
#[test]
fn a_rank_killed_mid_fence_is_named_on_the_server_path() {
    killed_mid_fence("death-srv", false);
}

fn finalized_mid_fence(tag: &str, shm: bool) {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let (server, ns) = one_node_job(tag, 3, Arc::new(NullHost), dir.path());
    let r0 = start(&server, &ns, 0, "finalize", &go, shm);
    let r1 = start(&server, &ns, 1, "finalize", &go, shm);
    let r2 = start(&server, &ns, 2, "finalize", &go, shm);
    let out2 = wait_all(vec![r2], Duration::from_secs(30)).remove(0);
    assert!(out2.status.success(), "rank 2: {}", text(&out2));
    std::fs::write(&go, b"").unwrap();
    let outs = wait_all(vec![r0, r1], Duration::from_secs(30));
    for (rank, o) in outs.iter().enumerate() {
        let t = text(o);
        assert!(o.status.success(), "rank {rank}: {t}");
        assert!(t.contains("fence completed"), "rank {rank}: {t}");
        eprintln!("{}", t.trim());
    }
    server.finalize();
}

/// A rank that entered a fence and then finalized cleanly is counted, not
/// mourned: the others' fence completes (shared memory).
#[test]
fn a_rank_finalized_after_entering_a_fence_fails_nobody_shm() {
    finalized_mid_fence("fin-shm", true);
}

/// The same on the server's tracker.
#[test]
fn a_rank_finalized_after_entering_a_fence_fails_nobody_server() {
    finalized_mid_fence("fin-srv", false);
}
