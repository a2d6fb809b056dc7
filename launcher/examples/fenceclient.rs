//! A PMIx client driven by the fence-timeout tests
//! (`launcher/tests/fence_timeout.rs`): `fenceclient <scenario>`. It prints
//! `ok …` lines and exits 0 when every check passed; a failed check prints
//! `FAIL: …` and exits 1.
//!
//! - `timeout` (3 or more ranks): after a first fence of all ranks, the
//!   last rank sleeps [`LATE`] before its fence 1 while the others give up
//!   after a `PMIX_TIMEOUT` of 1 s: they must get `PMIX_ERR_TIMEOUT` after
//!   about 1 s, the last rank must get it at once, and then two fences of
//!   all ranks must succeed. Which path the fences take (shared memory or
//!   server) is the caller's choice (`PMIXRS_CAPS`).
//! - `serve-lost DIR`: not a client but a server process: it runs a job of
//!   two `fenceclient lost` ranks (each told `DIR` in `FENCECLIENT_DIR`),
//!   writes their pids to `DIR/pids`, and waits to be killed.
//! - `lost` (2 ranks, under `serve-lost`): rank 0 enters a fence rank 1
//!   never enters, with no timeout, after creating `DIR/ready`; when the
//!   test kills the server process, the fence must end with
//!   `PMIX_ERR_LOST_CONNECTION`, which rank 0 writes to `DIR/result`.
//! - `host` (1 rank): a fence with a proc of another namespace, handed to a
//!   host that never answers, with a `PMIX_TIMEOUT` of 1 s: the server must
//!   answer `PMIX_ERR_TIMEOUT` at the deadline.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::{NullHost, Server, ServerConfig, SingleNodeJob};

/// How late the last rank enters fence 1 in `timeout`.
const LATE: Duration = Duration::from_millis(2500);

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

fn timeout(secs: i32) -> Vec<Info> {
    vec![Info::new(attrs::TIMEOUT, Value::Int32(secs)).unwrap()]
}

/// A fence that must succeed.
fn fence_ok(c: &Client, what: &str, info: &[Info]) {
    if let Err(e) = c.fence(&[], info) {
        fail(format!("{what}: {e}"));
    }
}

/// A fence that must end with `want`; returns how long it took and the
/// error's text.
fn fence_err(c: &Client, procs: &[Proc], info: &[Info], want: Status) -> (Duration, String) {
    let t0 = Instant::now();
    let r = c.fence(procs, info);
    let took = t0.elapsed();
    match r {
        Err(e) if e.status() == want => (took, e.to_string()),
        r => fail(format!("wanted {want:?}, got {r:?} after {took:?}")),
    }
}

fn timeout_scenario(c: &Client) {
    let me = c.proc().rank.0;
    let size = c
        .get(
            &Proc::from_parts(c.proc().nspace.clone(), Rank::WILDCARD),
            attrs::JOB_SIZE,
            &[],
        )
        .and_then(|v| v.to_u64())
        .unwrap_or_else(|e| fail(format!("JOB_SIZE: {e}"))) as u32;
    check(size >= 3, || format!("needs 3 ranks or more, not {size}"));
    fence_ok(c, "fence 0", &[]);
    if me == size - 1 {
        std::thread::sleep(LATE);
        // A timeout of its own far away: only the others' may end it.
        let (took, why) = fence_err(c, &[], &timeout(30), Status::ERR_TIMEOUT);
        check(took < Duration::from_millis(500), || {
            format!("the late fence took {took:?}, not at once")
        });
        check(why.contains("already timed out"), || {
            format!("the late fence's error does not say so: {why}")
        });
        println!("ok late fence answered in {} ms: {why}", took.as_millis());
    } else {
        let (took, why) = fence_err(c, &[], &timeout(1), Status::ERR_TIMEOUT);
        check(took >= Duration::from_millis(900) && took < LATE, || {
            format!("the timed-out fence took {took:?}")
        });
        println!("ok fence timed out after {} ms: {why}", took.as_millis());
    }
    fence_ok(c, "fence 2 (after the timeout)", &timeout(30));
    fence_ok(c, "fence 3", &[]);
    println!("ok done rank {me}");
}

fn lost_dir() -> PathBuf {
    std::env::var_os("FENCECLIENT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| fail("FENCECLIENT_DIR is not set".into()))
}

fn lost_scenario(c: &Client) {
    fence_ok(c, "fence 0", &[]);
    if c.proc().rank.0 != 0 {
        // Never enters the second fence; the test kills it.
        std::thread::sleep(Duration::from_secs(60));
        return;
    }
    let dir = lost_dir();
    let write = |name: &str, text: &str| {
        // Written whole, then renamed: the test never reads half a file.
        let tmp = dir.join(format!("{name}.tmp"));
        if std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, dir.join(name)))
            .is_err()
        {
            fail(format!("cannot write {name} in {}", dir.display()));
        }
    };
    write("ready", "");
    let t0 = Instant::now();
    let r = c.fence(&[], &[]);
    let took = t0.elapsed();
    let text = match r {
        Err(e) if e.status() == Status::ERR_LOST_CONNECTION => {
            format!("ok lost after {} ms: {e}", took.as_millis())
        }
        r => format!("FAIL: wanted PMIX_ERR_LOST_CONNECTION, got {r:?} after {took:?}"),
    };
    write("result", &text);
}

/// The server process of `lost`: runs the two ranks, then waits to be
/// killed (at most two minutes).
fn serve_lost(dir: &str) {
    let pid = std::process::id();
    fn err<T>(e: pmix_core::Error) -> T {
        fail(format!("server: {e}"))
    }
    let mut cfg = ServerConfig::new(Nspace::new(format!("fto-lost-srv-{pid}")).unwrap());
    cfg.max_clients = 2;
    cfg.log = false;
    cfg.tmpdir = PathBuf::from(dir);
    let server = Server::init(cfg, Arc::new(NullHost)).unwrap_or_else(err);
    let ns = Nspace::new(format!("fto-lost-{pid}")).unwrap();
    let me = std::fs::metadata("/proc/self").unwrap_or_else(|e| fail(e.to_string()));
    let (uid, gid) = {
        use std::os::unix::fs::MetadataExt;
        (me.uid(), me.gid())
    };
    let procs: Vec<Proc> = (0..2)
        .map(|r| Proc::from_parts(ns.clone(), Rank(r)))
        .collect();
    for p in &procs {
        server.register_client(p, uid, gid).unwrap_or_else(err);
    }
    let infos = SingleNodeJob::new(ns.clone(), 2, "testnode")
        .infos()
        .unwrap_or_else(err);
    server.register_nspace(&ns, 2, &infos).unwrap_or_else(err);
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(e.to_string()));
    let mut children = Vec::new();
    for p in &procs {
        let child = Command::new(&exe)
            .arg("lost")
            .env("FENCECLIENT_DIR", dir)
            .envs(server.setup_fork(p).unwrap_or_else(err))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| fail(format!("spawn: {e}")));
        children.push(child);
    }
    let pids: Vec<String> = children.iter().map(|c| c.id().to_string()).collect();
    let path = PathBuf::from(dir).join("pids");
    std::fs::write(&path, pids.join(" ")).unwrap_or_else(|e| fail(e.to_string()));
    std::thread::sleep(Duration::from_secs(120));
    // Nobody killed this process: end the job by the ranks' pids.
    for mut c in children {
        let _ = c.kill();
        let _ = c.wait();
    }
}

fn host_scenario(c: &Client) {
    let elsewhere = Nspace::new("fenceclient-elsewhere").unwrap();
    let procs = [c.proc().clone(), Proc::from_parts(elsewhere, Rank(0))];
    let (took, why) = fence_err(c, &procs, &timeout(1), Status::ERR_TIMEOUT);
    check(
        took >= Duration::from_millis(900) && took < Duration::from_millis(1900),
        || format!("the cross-node fence took {took:?}: {why}"),
    );
    check(why.contains("other nodes"), || {
        format!("not the server's answer: {why}")
    });
    println!(
        "ok host never answered; fence ended after {} ms",
        took.as_millis()
    );
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    if scenario == "serve-lost" {
        let dir = std::env::args().nth(2).unwrap_or_default();
        return serve_lost(&dir);
    }
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    match scenario.as_str() {
        "timeout" => timeout_scenario(&c),
        "lost" => {
            lost_scenario(&c);
            return; // the server is gone: nothing to finalize with
        }
        "host" => host_scenario(&c),
        s => fail(format!("unknown scenario {s:?}")),
    }
    if let Err(e) = c.finalize() {
        fail(format!("finalize: {e}"));
    }
}
