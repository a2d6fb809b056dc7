//! The per-client caps on outstanding operations (issue 14, item 3), with
//! real client processes (`examples/capclient.rs`) on an in-test server
//! whose `max_pending_per_client` is [`LIMIT`]: a client's `get`s held for
//! a commit, and its requests the host has not answered, beyond the limit
//! are refused at once with `PMIX_ERR_OUT_OF_RESOURCE` naming the limit;
//! the server keeps exactly the limit, another client is still served, and
//! the count goes back down once the operations are answered.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pmix_core::{Info, Nspace, Proc, Rank};
use pmix_server::{Completion, Host, NullHost, Server, ServerConfig, SingleNodeJob};

mod common;
use common::{example, ids, text, wait_all};

/// The server's `max_pending_per_client` in these tests.
const LIMIT: usize = 8;

fn server(tag: &str, host: Arc<dyn Host>, dir: &Path) -> (Server, Nspace) {
    let mut cfg = ServerConfig::new(Nspace::new(format!("srv-{tag}")).unwrap());
    cfg.max_clients = 8;
    cfg.max_pending_per_client = LIMIT;
    cfg.tmpdir = dir.to_path_buf();
    let server = Server::init(cfg, host).unwrap();
    let ns = Nspace::new(format!("job-{tag}")).unwrap();
    let (uid, gid) = ids();
    for r in 0..3 {
        server
            .register_client(&Proc::from_parts(ns.clone(), Rank(r)), uid, gid)
            .unwrap();
    }
    let infos = SingleNodeJob::new(ns.clone(), 3, "testnode")
        .infos()
        .unwrap();
    server.register_nspace(&ns, 3, &infos).unwrap();
    (server, ns)
}

struct Job {
    server: Server,
    children: Vec<Child>,
    rank0_out: BufReader<ChildStdout>,
    go: [PathBuf; 2],
    _dir: tempfile::TempDir,
}

/// Starts ranks 0–2, rank `r` running `cmd(r)` (an example and its
/// arguments).
fn start(tag: &str, host: Arc<dyn Host>, cmd: impl Fn(u32) -> (&'static str, Vec<String>)) -> Job {
    let dir = tempfile::tempdir().unwrap();
    let (server, ns) = server(tag, host, dir.path());
    let go = [dir.path().join("go1"), dir.path().join("go2")];
    let mut children: Vec<Child> = (0..3)
        .map(|r| {
            let p = Proc::from_parts(ns.clone(), Rank(r));
            let (name, args) = cmd(r);
            Command::new(example(name))
                .args(args)
                .envs(server.setup_fork(&p).unwrap())
                .env(pmix_client::ON_LOST_SERVER_ENV, "continue")
                .env("CAPCLIENT_GO1", &go[0])
                .env("CAPCLIENT_GO2", &go[1])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let rank0_out = BufReader::new(children[0].stdout.take().unwrap());
    Job {
        server,
        children,
        rank0_out,
        go,
        _dir: dir,
    }
}

impl Job {
    /// Reads rank 0's lines until its refusal line (bounded by the
    /// example's own 10 s limit: it exits with `FAIL` otherwise).
    fn rank0_refused(&mut self) -> String {
        let mut seen = String::new();
        loop {
            let mut l = String::new();
            if self.rank0_out.read_line(&mut l).unwrap() == 0 {
                self.kill();
                panic!("rank 0 ended before refusing: {seen}");
            }
            seen.push_str(&l);
            if l.starts_with("ok refused") {
                return l;
            }
            if l.starts_with("FAIL") {
                self.kill();
                panic!("rank 0: {seen}");
            }
        }
    }

    /// Waits (at most 10 s) until the server holds `n` requests.
    fn wait_held(&mut self, n: usize) {
        let t0 = Instant::now();
        while self.server.held_requests() != n {
            if t0.elapsed() > Duration::from_secs(10) {
                let held = self.server.held_requests();
                self.kill();
                panic!("the server holds {held} requests, not {n}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn kill(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
        }
    }

    /// Waits for every rank (at most 30 s); each must pass; returns rank
    /// 0's remaining output and the others' whole output.
    fn finish(mut self) -> String {
        let mut rest = String::new();
        for l in self.rank0_out.lines() {
            rest.push_str(&l.unwrap());
            rest.push('\n');
        }
        let outs = wait_all(std::mem::take(&mut self.children), Duration::from_secs(30));
        for (r, o) in outs.iter().enumerate() {
            assert!(o.status.success(), "rank {r}: {rest}{}", text(o));
            rest.push_str(&text(o));
        }
        assert!(!rest.contains("FAIL"), "{rest}");
        assert_eq!(self.server.held_requests(), 0, "{rest}");
        self.server.finalize();
        rest
    }
}

/// `get`s held for a commit, sent by client processes that ask the server
/// for a local peer's data (`rawgets`; the Rust client waits in shared
/// memory instead). Before the cap: all 12 were held (rank 0 failed on
/// "0 refusals, not 4").
#[test]
fn held_gets_beyond_the_cap_are_refused_and_others_still_served() {
    let over = 4;
    let mut job = start("cap-gets", Arc::new(NullHost), |r| match r {
        0 => (
            "rawgets",
            vec![(LIMIT + over).to_string(), over.to_string()],
        ),
        1 => ("capclient", vec!["gets".into(), LIMIT.to_string()]),
        _ => ("rawgets", vec!["1".into(), "0".into()]),
    });
    let refused = job.rank0_refused();
    job.wait_held(LIMIT);
    std::fs::write(&job.go[0], b"").unwrap();
    // Rank 2's get is held too: the cap is per client.
    job.wait_held(LIMIT + 1);
    std::fs::write(&job.go[1], b"").unwrap();
    let out = job.finish();
    assert!(out.contains("ok 8 held gets answered"), "{out}");
    assert!(out.contains("ok 1 held gets answered"), "{out}");
    eprintln!("{}\n{}", refused.trim(), out);
}

/// A host that holds every publish until [`HoldingHost::release`], and
/// answers at once after that.
#[derive(Default)]
struct HoldingHost {
    held: Mutex<Vec<Completion<()>>>,
    released: Mutex<bool>,
}

impl HoldingHost {
    fn held(&self) -> usize {
        self.held.lock().unwrap().len()
    }

    fn release(&self) {
        *self.released.lock().unwrap() = true;
        let held = std::mem::take(&mut *self.held.lock().unwrap());
        for done in held {
            done(Ok(()));
        }
    }
}

impl Host for HoldingHost {
    fn publish(&self, _proc: &Proc, _info: &[Info], done: Completion<()>) {
        if *self.released.lock().unwrap() {
            return done(Ok(()));
        }
        self.held.lock().unwrap().push(done);
    }
}

/// Requests the host has not answered. Before the cap: all 12 went to the
/// host.
#[test]
fn host_requests_beyond_the_cap_are_refused_and_others_still_served() {
    let host = Arc::new(HoldingHost::default());
    let mut job = start("cap-host", host.clone(), |_| {
        ("capclient", vec!["host".into(), LIMIT.to_string()])
    });
    let refused = job.rank0_refused();
    job.wait_held(LIMIT);
    assert_eq!(host.held(), LIMIT);
    std::fs::write(&job.go[0], b"").unwrap();
    // Rank 2's publish reaches the host: the cap is per client.
    job.wait_held(LIMIT + 1);
    assert_eq!(host.held(), LIMIT + 1);
    host.release();
    let out = job.finish();
    assert!(out.contains("ok 8 held publish requests answered"), "{out}");
    assert!(out.contains("ok publish after the answers"), "{out}");
    assert!(out.contains("ok other client's publish answered"), "{out}");
    eprintln!("{}\n{}", refused.trim(), out);
}
