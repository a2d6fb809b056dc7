//! A fence timeout ends that fence episode for every participant and
//! breaks no later fence; a lost server and a silent host end fences too.
//! Real processes (`examples/fenceclient.rs`) under `pmixrun` and under an
//! in-test server.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::proto::caps;
use pmix_core::{Info, Nspace, Proc, Rank};
use pmix_server::host::{Completion, Host};
use pmix_server::{Server, ServerConfig, SingleNodeJob};

mod common;
use common::{example, ids, text, wait_all};

/// A directory of this test's own under the system's temporary directory,
/// removed with what the test's processes wrote there on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("pmixrs-{tag}-{}", std::process::id()));
        std::fs::create_dir(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Everything in it was made by this test or its processes (the
        // servers' socket directories included: they are pointed here).
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn pmixrun_timeout(tag: &str, env: &[String]) -> Output {
    let dir = TempDir::new(tag);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    cmd.env("TMPDIR", &dir.0)
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
    let o = pmixrun_timeout("fence-shm", &[]);
    assert_timeout_scenario(&o);
}

/// The same through the server's tracker: the client does not announce
/// `SHM_FENCE`. (The old tracker kept the timed-out arrivals: rank 2's
/// late fence succeeded alone and the next fence was "entered twice".)
#[test]
fn a_timed_out_server_fence_ends_for_all_and_the_next_ones_work() {
    let o = pmixrun_timeout(
        "fence-srv",
        &[format!("PMIXRS_CAPS={:#x}", caps::ALL & !caps::SHM_FENCE)],
    );
    assert_timeout_scenario(&o);
}

fn server(tag: &str, n: u32, host: Arc<dyn Host>, dir: &TempDir) -> (Server, Nspace) {
    let mut cfg = ServerConfig::new(Nspace::new(format!("fto-srv-{tag}")).unwrap());
    cfg.max_clients = 4;
    cfg.log = false;
    cfg.tmpdir = dir.0.clone();
    let server = Server::init(cfg, host).unwrap();
    let ns = Nspace::new(format!("fto-{tag}")).unwrap();
    let (uid, gid) = ids();
    for r in 0..n {
        server
            .register_client(&Proc::from_parts(ns.clone(), Rank(r)), uid, gid)
            .unwrap();
    }
    let infos = SingleNodeJob::new(ns.clone(), n, "testnode")
        .infos()
        .unwrap();
    server.register_nspace(&ns, n, &infos).unwrap();
    (server, ns)
}

fn spawn(server: &Server, ns: &Nspace, rank: u32, scenario: &str) -> std::process::Child {
    let p = Proc::from_parts(ns.clone(), Rank(rank));
    Command::new(example("fenceclient"))
        .arg(scenario)
        .envs(server.setup_fork(&p).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Polls for `path` until `limit`; returns when it appeared.
fn wait_for_file(path: &Path, limit: Duration) -> Option<Instant> {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if path.exists() {
            return Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    None
}

/// `kill -KILL <pid>`: the ranks of `serve-lost` are not this test's
/// children (their server process, which was, is dead).
fn kill_pid(pid: &str) {
    if !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) {
        let _ = Command::new("kill")
            .args(["-KILL", pid])
            .stderr(Stdio::null())
            .status();
    }
}

/// A shared-memory fence with no timeout ends with
/// `PMIX_ERR_LOST_CONNECTION` soon after its server process dies (SIGKILL:
/// nobody poisons the barrier). The old wait slept on until the missing
/// participant came: for ever.
#[test]
fn a_dead_server_ends_a_shm_fence_within_a_second() {
    let dir = TempDir::new("fence-lost");
    let mut server = Command::new(example("fenceclient"))
        .arg("serve-lost")
        .arg(&dir.0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let ready = wait_for_file(&dir.0.join("ready"), Duration::from_secs(30));
    let mut ended = None;
    if ready.is_some() {
        // Let rank 0 fall asleep in the fence.
        std::thread::sleep(Duration::from_millis(300));
        let _ = server.kill(); // SIGKILL, by its pid
        let killed = Instant::now();
        ended = wait_for_file(&dir.0.join("result"), Duration::from_secs(10))
            .map(|at| at.duration_since(killed));
    }
    let _ = server.kill();
    let server_out = server.wait_with_output().unwrap();
    let pids = std::fs::read_to_string(dir.0.join("pids")).unwrap_or_default();
    for pid in pids.split_whitespace() {
        kill_pid(pid);
    }
    let result = std::fs::read_to_string(dir.0.join("result")).unwrap_or_default();
    assert!(
        ready.is_some(),
        "rank 0 never got ready; {}",
        text(&server_out)
    );
    let ended = ended.unwrap_or_else(|| panic!("the fence never ended: {result:?}"));
    assert!(result.starts_with("ok lost"), "{result}");
    assert!(
        ended < Duration::from_secs(2),
        "the fence ended {ended:?} after the server died"
    );
    eprintln!("dead server: the fence ended {ended:?} after the SIGKILL ({result})");
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
    let dir = TempDir::new("fence-host");
    let (server, ns) = server("host", 1, Arc::new(SilentHost), &dir);
    let child = spawn(&server, &ns, 0, "host");
    let outs = wait_all(vec![child], Duration::from_secs(30));
    let t = text(&outs[0]);
    assert!(outs[0].status.success(), "{t}");
    assert!(t.contains("ok host never answered"), "{t}");
    eprintln!("{}", t.trim());
    server.finalize();
}
