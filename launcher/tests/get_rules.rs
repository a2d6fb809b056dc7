//! The `get` rules of docs/GET-RULES.md with real processes
//! (`examples/getclient.rs`): `pmixrun -n 2` jobs, in-test servers for a
//! peer that dies and for a server that goes away, and two in-test servers
//! as two nodes (a host that relays the fence blobs and the direct-modex
//! requests between them) for the remote-peer path.

use std::process::{Command, Output};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pmix_core::{attrs, Info, Nspace, Proc, Rank, Value};
use pmix_server::{Completion, Host, NullHost, Server, ServerConfig};

mod common;
use common::{example, ids, one_node_job, start_client, text, wait_all};

fn pmixrun(scenario: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "60", "-n", "2"])
        .arg(example("getclient"))
        .arg(scenario)
        .output()
        .unwrap()
}

/// Every rank printed `ok done`, none `FAIL`.
fn assert_ok(o: &Output, ranks: usize) {
    let t = text(o);
    assert!(o.status.success(), "{t}");
    assert!(!t.contains("FAIL"), "{t}");
    assert_eq!(t.matches("ok done").count(), ranks, "{t}");
}

#[test]
fn a_plain_get_waits_for_a_key_committed_after_the_fence() {
    let o = pmixrun("late");
    assert_ok(&o, 2);
    let t = text(&o);
    assert!(t.contains("ok at once"), "{t}");
    assert!(t.contains("ok local late key after"), "{t}");
}

#[test]
fn pmix_timeout_ends_a_get_with_err_timeout() {
    let o = pmixrun("timeout");
    assert_ok(&o, 2);
    let t = text(&o);
    assert!(t.contains("ok uncommitted timeout after"), "{t}");
    assert!(t.contains("ok committed timeout after"), "{t}");
}

#[test]
fn a_get_waits_until_the_peer_finalizes_without_the_key() {
    let o = pmixrun("finalized");
    assert_ok(&o, 2);
    assert!(
        text(&o).contains("ok not found when the peer ended"),
        "{}",
        text(&o)
    );
}

#[test]
fn get_all_returns_every_visible_value_of_a_proc_once() {
    let o = pmixrun("all");
    assert_ok(&o, 2);
    let t = text(&o);
    for line in [
        "ok own values",
        "ok peer values",
        "ok job values",
        "ok errors",
    ] {
        assert_eq!(t.matches(line).count(), 2, "{line}: {t}");
    }
}

fn server(tag: &str, host: Arc<dyn Host>) -> Server {
    let mut cfg = ServerConfig::new(Nspace::new(format!("srv-get-{tag}")).unwrap());
    cfg.max_clients = 8;
    Server::init(cfg, host).unwrap()
}

#[test]
fn a_get_waits_until_the_peer_dies_without_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let (s, ns) = one_node_job("get-dead", 2, Arc::new(NullHost), tmp.path());
    let kids = (0..2)
        .map(|r| start_client("getclient", &s, &ns, r, "dead"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(30));
    let t0 = text(&outs[0]);
    assert!(outs[0].status.success(), "{t0}");
    assert!(t0.contains("ok not found when the peer ended"), "{t0}");
    assert!(text(&outs[1]).contains("ok exiting without finalize"));
}

fn epoch_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

#[test]
fn a_waiting_get_ends_with_lost_connection_within_a_second() {
    // Rank 1 is registered but never started: rank 0 waits for its key.
    let tmp = tempfile::tempdir().unwrap();
    let (s, ns) = one_node_job("get-lost", 2, Arc::new(NullHost), tmp.path());
    let kids = vec![start_client("getclient", &s, &ns, 0, "lost")];
    let t0 = Instant::now();
    let zero = Proc::from_parts(ns.clone(), Rank(0));
    while !s.is_connected(&zero) {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "rank 0 never connected"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // Time to enter the get.
    std::thread::sleep(Duration::from_millis(300));
    let stopped = epoch_ms();
    s.stop();
    let outs = wait_all(kids, Duration::from_secs(10));
    for o in &outs {
        let t = text(o);
        assert!(o.status.success(), "{t}");
        let at: u128 = t
            .lines()
            .find_map(|l| l.strip_prefix("ok lost at "))
            .unwrap_or_else(|| panic!("no lost line: {t}"))
            .trim()
            .parse()
            .unwrap();
        let after = at.saturating_sub(stopped);
        eprintln!("PMIX_ERR_LOST_CONNECTION {after} ms after the server stopped");
        assert!(
            after < 1000,
            "LOST_CONNECTION {after} ms after the stop: {t}"
        );
    }
}

/// One node's part of a fence episode: node, blob, completion.
type FencePart = (usize, Vec<u8>, Completion<Vec<u8>>);

/// Two servers as two nodes: fence blobs and direct-modex requests go to
/// the other one, from another thread, as a real RM's network would.
#[derive(Default)]
struct Link {
    nodes: Mutex<[Weak<Server>; 2]>,
    /// This episode's blobs and completions, by node.
    fence: Mutex<Vec<FencePart>>,
    /// The info of every direct-modex request, by requesting node.
    asked: Mutex<Vec<(usize, Vec<Info>)>>,
}

struct NodeHost {
    node: usize,
    link: Arc<Link>,
}

impl Host for NodeHost {
    fn fence_nb(&self, _procs: &[Proc], _info: &[Info], data: Vec<u8>, done: Completion<Vec<u8>>) {
        let both = {
            let mut f = self.link.fence.lock().unwrap();
            f.push((self.node, data, done));
            if f.len() < 2 {
                return;
            }
            std::mem::take(&mut *f)
        };
        std::thread::spawn(move || {
            let all: Vec<u8> = both.iter().flat_map(|(_, d, _)| d.clone()).collect();
            for (_, _, done) in both {
                done(Ok(all.clone()));
            }
        });
    }

    fn direct_modex(&self, proc: &Proc, info: &[Info], done: Completion<Vec<u8>>) {
        self.link
            .asked
            .lock()
            .unwrap()
            .push((self.node, info.to_vec()));
        let other = self.link.nodes.lock().unwrap()[1 - self.node].upgrade();
        let (proc, info) = (proc.clone(), info.to_vec());
        std::thread::spawn(move || match other {
            Some(s) => s.dmodex_request_nb(&proc, &info, done),
            None => done(Err(pmix_core::Error::new(pmix_core::Status::ERR_UNREACH))),
        });
    }
}

#[test]
fn a_remote_get_is_held_on_the_peers_node_until_it_commits() {
    let link = Arc::new(Link::default());
    let ns = Nspace::new("job-get-remote").unwrap();
    let (uid, gid) = ids();
    let mut servers = Vec::new();
    for node in 0..2 {
        let host = Arc::new(NodeHost {
            node,
            link: Arc::clone(&link),
        });
        let s = Arc::new(server(&format!("remote{node}"), host));
        let me = Proc::from_parts(ns.clone(), Rank(node as u32));
        s.register_client(&me, uid, gid).unwrap();
        let infos = [
            Info::new(attrs::JOB_SIZE, Value::Uint32(2)).unwrap(),
            Info::new(attrs::LOCAL_SIZE, Value::Uint32(1)).unwrap(),
        ];
        s.register_nspace(&ns, 1, &infos).unwrap();
        link.nodes.lock().unwrap()[node] = Arc::downgrade(&s);
        servers.push(s);
    }
    let kids = (0..2)
        .map(|r| start_client("getclient", &servers[r as usize], &ns, r, "remote"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(30));
    for o in &outs {
        assert!(o.status.success(), "{}", text(o));
        assert!(text(o).contains("ok done"), "{}", text(o));
    }
    let t0 = text(&outs[0]);
    assert!(t0.contains("ok remote late key after"), "{t0}");
    assert!(t0.contains("ok remote timeout after"), "{t0}");
    // Each node asked the other, naming the key.
    let asked = link.asked.lock().unwrap();
    for node in 0..2 {
        assert!(
            asked.iter().any(|(n, info)| *n == node
                && pmix_core::info::find(info, attrs::REQUIRED_KEY).is_some()),
            "node {node} never asked: {asked:?}"
        );
    }
}
