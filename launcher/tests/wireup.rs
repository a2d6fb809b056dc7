//! Wire-up with real processes: an in-test server, children running
//! `examples/testclient.rs`, and in-process clients for protocol edge cases.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pmix_client::{Client, ClientConfig};
use pmix_core::codec::blob;
use pmix_core::proto::{caps, msg};
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::{Completion, Host, Server, ServerConfig, SingleNodeJob};

mod common;
use common::{ids, text, wait_all};

fn testclient() -> PathBuf {
    common::example("testclient")
}

#[derive(Default)]
struct TestHost {
    connected: Mutex<Vec<Proc>>,
    finalized: Mutex<Vec<Proc>>,
    aborted: Mutex<Vec<(Proc, Status)>>,
    /// Simulates a second node holding this proc: fences that span nodes
    /// add its card, direct modex answers for it.
    remote: Mutex<Option<Proc>>,
    /// What the server handed to `fence_nb`: (procs, entries of the blob).
    fences: Mutex<Vec<(Vec<Proc>, Vec<blob::ModexEntry>)>>,
}

fn remote_card(p: &Proc) -> Vec<blob::ModexEntry> {
    let card: Vec<u8> = (0..64u32).map(|i| (i * 7 + p.rank.0) as u8).collect();
    vec![(
        p.clone(),
        vec![Info::new("test.card", Value::ByteObject(card)).unwrap()],
    )]
}

impl Host for TestHost {
    fn client_connected(&self, proc: &Proc, done: Completion<()>) {
        self.connected.lock().unwrap().push(proc.clone());
        done(Ok(()));
    }
    fn client_finalized(&self, proc: &Proc, done: Completion<()>) {
        self.finalized.lock().unwrap().push(proc.clone());
        done(Ok(()));
    }
    fn abort(&self, proc: &Proc, status: Status, _m: &str, _p: &[Proc], done: Completion<()>) {
        self.aborted.lock().unwrap().push((proc.clone(), status));
        done(Ok(()));
    }
    fn fence_nb(&self, procs: &[Proc], _info: &[Info], data: Vec<u8>, done: Completion<Vec<u8>>) {
        let Some(remote) = self.remote.lock().unwrap().clone() else {
            return done(Err(pmix_core::Error::new(Status::ERR_NOT_SUPPORTED)));
        };
        let local = blob::decode_modex_all(&data).unwrap();
        self.fences.lock().unwrap().push((procs.to_vec(), local));
        // The "other node's" blob, concatenated after ours, from another
        // thread as a real RM would.
        std::thread::spawn(move || {
            let mut all = data;
            all.extend(blob::encode_modex(&remote_card(&remote)).unwrap());
            done(Ok(all));
        });
    }
    fn direct_modex(&self, proc: &Proc, info: &[Info], done: Completion<Vec<u8>>) {
        let remote = self.remote.lock().unwrap().clone();
        if remote.as_ref() != Some(proc) {
            return done(Err(pmix_core::Error::new(Status::ERR_NOT_FOUND)));
        }
        let asked = pmix_core::info::find(info, pmix_core::attrs::REQUIRED_KEY).is_some();
        let entries = vec![(
            proc.clone(),
            vec![Info::new("test.sparse", Value::Uint32(if asked { 77 } else { 0 })).unwrap()],
        )];
        done(Ok(blob::encode_modex(&entries).unwrap()));
    }
}

struct Job {
    server: Server,
    host: Arc<TestHost>,
    ns: Nspace,
}

fn server(tag: &str) -> (Server, Arc<TestHost>) {
    let host = Arc::new(TestHost::default());
    let mut cfg = ServerConfig::new(Nspace::new(format!("srv-{tag}")).unwrap());
    cfg.max_clients = 16;
    cfg.log = true;
    let s = Server::init(cfg, host.clone()).unwrap();
    (s, host)
}

fn job(tag: &str, n: u32) -> Job {
    let (server, host) = server(tag);
    let ns = Nspace::new(format!("job-{tag}")).unwrap();
    register(&server, &ns, n);
    Job { server, host, ns }
}

fn register(server: &Server, ns: &Nspace, n: u32) {
    let (uid, gid) = ids();
    for r in 0..n {
        server
            .register_client(&Proc::from_parts(ns.clone(), Rank(r)), uid, gid)
            .unwrap();
    }
    // The directory keys' paths are only read by the clients, never made.
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wireup-never-made");
    let infos = SingleNodeJob::new(ns.clone(), n, "testnode")
        .with_dirs(
            tmp.to_string_lossy(),
            tmp.join(ns.as_str()).to_string_lossy(),
        )
        .infos()
        .unwrap();
    server.register_nspace(ns, n, &infos).unwrap();
}

fn spawn(
    job: &Job,
    ranks: std::ops::Range<u32>,
    scenario: &str,
    env: &[(&str, String)],
) -> Vec<std::process::Child> {
    ranks
        .map(|r| {
            let p = Proc::from_parts(job.ns.clone(), Rank(r));
            let mut cmd = Command::new(testclient());
            cmd.arg(scenario)
                .envs(job.server.setup_fork(&p).unwrap())
                .envs(env.iter().map(|(k, v)| (*k, v.clone())))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect()
}

fn assert_all_ok(outs: &[Output]) {
    for (r, o) in outs.iter().enumerate() {
        assert!(o.status.success(), "rank {r}: {}", text(o));
        assert!(text(o).contains("ok done"), "rank {r}: {}", text(o));
    }
}

#[test]
fn four_ranks_wire_up_and_finalize() {
    let j = job("wire4", 4);
    let outs = wait_all(spawn(&j, 0..4, "wireup", &[]), Duration::from_secs(60));
    assert_all_ok(&outs);
    assert_eq!(j.host.connected.lock().unwrap().len(), 4);
    assert_eq!(j.host.finalized.lock().unwrap().len(), 4);
    assert!(j.host.aborted.lock().unwrap().is_empty());
}

#[test]
fn client_without_shared_modex_or_fence_is_served_over_the_socket() {
    // An older client announcing only part of the capabilities: commits go
    // over the socket, fences through the server.
    let j = job("nocaps", 3);
    let only = caps::SHM_STORE | caps::DIRECT_MODEX | caps::SOCKET_COMMIT;
    let env = [("PMIXRS_CAPS", format!("{only:#x}"))];
    let outs = wait_all(spawn(&j, 0..3, "wireup", &env), Duration::from_secs(60));
    assert_all_ok(&outs);
}

#[test]
fn get_times_out_then_waits_for_a_late_commit() {
    let j = job("late", 2);
    let outs = wait_all(spawn(&j, 0..2, "late", &[]), Duration::from_secs(60));
    assert_all_ok(&outs);
    assert!(
        text(&outs[0]).contains("ok timeout after"),
        "{}",
        text(&outs[0])
    );
}

#[test]
fn a_rank_dying_fails_the_others_fence() {
    let j = job("die", 3);
    let outs = wait_all(
        spawn(&j, 0..3, "die_before_fence", &[]),
        Duration::from_secs(30),
    );
    for o in &outs[..2] {
        assert!(o.status.success(), "{}", text(o));
        assert!(text(o).contains("fence: Err("), "{}", text(o));
    }
}

#[test]
fn a_rank_dying_fails_a_server_side_fence() {
    let j = job("diesub", 3);
    let outs = wait_all(
        spawn(&j, 0..3, "die_before_subset_fence", &[]),
        Duration::from_secs(30),
    );
    assert!(outs[0].status.success(), "{}", text(&outs[0]));
    assert!(
        text(&outs[0]).contains("subset fence: Err("),
        "{}",
        text(&outs[0])
    );
}

#[test]
fn abort_reaches_the_host() {
    let j = job("abort", 2);
    let mut children = spawn(&j, 0..2, "abort", &[]);
    let t0 = Instant::now();
    while j.host.aborted.lock().unwrap().is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(20), "no abort");
        std::thread::sleep(Duration::from_millis(5));
    }
    for c in &mut children {
        let _ = c.kill();
        let _ = c.wait();
    }
    let a = j.host.aborted.lock().unwrap();
    assert_eq!(a[0].0.rank, Rank(0));
    assert_eq!(a[0].1, Status(7));
}

#[test]
fn wrong_credentials_are_refused_and_others_still_served() {
    let (server, _host) = server("cred");
    let ns = Nspace::new("job-cred").unwrap();
    let (uid, gid) = ids();
    let bad = Proc::from_parts(ns.clone(), Rank(0));
    server.register_client(&bad, uid + 1, gid).unwrap();
    let good = Proc::from_parts(ns.clone(), Rank(1));
    server.register_client(&good, uid, gid).unwrap();
    let infos = SingleNodeJob::new(ns.clone(), 2, "n").infos().unwrap();
    server.register_nspace(&ns, 2, &infos).unwrap();
    let path = server.socket_path().to_path_buf();
    let e = Client::connect(&ClientConfig::new(bad, path.clone())).unwrap_err();
    assert_eq!(e.status(), Status::ERR_INVALID_CRED, "{e}");
    // An unregistered proc.
    let stranger = Proc::from_parts(ns.clone(), Rank(7));
    let e = Client::connect(&ClientConfig::new(stranger, path.clone())).unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_FOUND, "{e}");
    // Garbage instead of a hello: an error frame or a closed socket.
    let mut s = UnixStream::connect(&path).unwrap();
    s.write_all(b"GARBAGE!GARBAGE!GARBAGE!").unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    if buf.len() >= 16 {
        let t = u16::from_le_bytes([buf[6], buf[7]]);
        assert_eq!(t, msg::WELCOME);
    }
    // A truncated hello followed by a hang-up.
    let mut s = UnixStream::connect(&path).unwrap();
    s.write_all(&b"PMXF"[..]).unwrap();
    drop(s);
    // The server still serves a good client.
    let c = Client::connect(
        &ClientConfig::from_setup_fork(&server.setup_fork(&good).unwrap()).unwrap(),
    )
    .unwrap();
    let size = c
        .get(
            &Proc::from_parts(ns, Rank::WILDCARD),
            pmix_core::attrs::JOB_SIZE,
            &[],
        )
        .unwrap();
    assert_eq!(size, pmix_core::Value::Uint32(2));
    c.disconnect().unwrap();
    assert!(!server.is_connected(&good));
}

#[test]
fn older_client_is_served_and_refused_what_it_lacks() {
    let j = job("v1", 1);
    let other = Nspace::new("job-v1-other").unwrap();
    register(&j.server, &other, 1);
    let env = [
        ("PMIXRS_PROTOCOL_MAX", "1".to_string()),
        ("PMIXRS_CAPS", format!("{:#x}", caps::V1)),
        ("OTHER_NSPACE", other.as_str().to_string()),
    ];
    let outs = wait_all(
        spawn(&j, 0..1, "two_nspaces", &env),
        Duration::from_secs(30),
    );
    let t = text(&outs[0]);
    assert!(t.contains("(version 1)"), "{t}");
    assert!(
        t.contains(&format!("Err({:?})", Status::ERR_NOT_SUPPORTED)),
        "{t}"
    );
    assert!(outs[0].status.success(), "{t}");
}

#[test]
fn future_client_is_served_at_the_server_version() {
    let j = job("v99", 1);
    let env = [("PMIXRS_PROTOCOL_MAX", "99".to_string())];
    let outs = wait_all(spawn(&j, 0..1, "version", &env), Duration::from_secs(30));
    let t = text(&outs[0]);
    let want = format!("version {} ", pmix_core::proto::PROTOCOL_VERSION);
    assert!(t.contains(&want), "{t}");
    assert!(outs[0].status.success(), "{t}");
}

#[test]
fn fences_spanning_nodes_go_through_the_host_and_remote_data_arrives() {
    let (server, host) = server("remote");
    let ns = Nspace::new("job-remote").unwrap();
    *host.remote.lock().unwrap() = Some(Proc::from_parts(ns.clone(), Rank(2)));
    let (uid, gid) = ids();
    for r in 0..2 {
        server
            .register_client(&Proc::from_parts(ns.clone(), Rank(r)), uid, gid)
            .unwrap();
    }
    // A 3-rank job with ranks 0 and 1 on this node.
    let mut infos = SingleNodeJob::new(ns.clone(), 3, "testnode")
        .infos()
        .unwrap();
    infos.retain(|i| i.key.as_str() != attrs::LOCAL_SIZE);
    infos.push(Info::new(attrs::LOCAL_SIZE, Value::Uint32(2)).unwrap());
    // Each node's data (UC-10: the remote node's sizes are readable).
    for (id, host, n) in [(0u32, "testnode", 2u32), (1, "othernode", 1)] {
        let node = vec![
            Info::new(attrs::NODEID, Value::Uint32(id)).unwrap(),
            Info::new(attrs::HOSTNAME, Value::String(host.into())).unwrap(),
            Info::new(attrs::LOCAL_SIZE, Value::Uint32(n)).unwrap(),
            Info::new(attrs::NODE_SIZE, Value::Uint32(n)).unwrap(),
        ];
        infos.push(
            Info::new(
                attrs::NODE_INFO_ARRAY,
                Value::DataArray(Box::new(pmix_core::DataArray::from_infos(node))),
            )
            .unwrap(),
        );
    }
    server.register_nspace(&ns, 2, &infos).unwrap();
    let j = Job { server, host, ns };
    let outs = wait_all(spawn(&j, 0..2, "remote", &[]), Duration::from_secs(60));
    assert_all_ok(&outs);
    for o in &outs {
        assert!(text(o).contains("ok remote node sizes"), "{}", text(o));
    }
    let fences = j.host.fences.lock().unwrap();
    // One host fence for the whole-namespace fence; the local-only subset
    // fence never reached the host.
    assert_eq!(
        fences.len(),
        1,
        "{:?}",
        fences.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let (procs, entries) = &fences[0];
    assert_eq!(procs, &vec![Proc::from_parts(j.ns.clone(), Rank::WILDCARD)]);
    assert_eq!(entries.len(), 2);
    for (_, infos) in entries {
        let keys: Vec<&str> = infos.iter().map(|i| i.key.as_str()).collect();
        assert!(
            keys.contains(&"test.card") && keys.contains(&"test.remote"),
            "{keys:?}"
        );
        assert!(
            !keys.contains(&"test.local"),
            "LOCAL scope left the node: {keys:?}"
        );
    }
}

fn pmixrun(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    cmd.args(["--timeout", "60"]).args(args);
    cmd.output().unwrap()
}

#[test]
fn pmixrun_runs_a_pmix_job_and_reports_abort_and_missing_finalize() {
    let tc = testclient();
    let tc = tc.to_str().unwrap();
    let o = pmixrun(&["-n", "4", tc, "wireup"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(text(&o).matches("ok done").count(), 4, "{}", text(&o));

    let o = pmixrun(&["-n", "2", tc, "abort"]);
    assert_eq!(o.status.code(), Some(7), "{}", text(&o));
    assert!(
        text(&o).contains("called abort with status 7"),
        "{}",
        text(&o)
    );

    let o = pmixrun(&["-n", "2", tc, "no_finalize"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("without calling finalize"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_fence_over_two_namespaces_completes() {
    let (server, host) = server("twons");
    let a = Nspace::new("job-twons-a").unwrap();
    let b = Nspace::new("job-twons-b").unwrap();
    register(&server, &a, 1);
    register(&server, &b, 1);
    let ja = Job {
        server,
        host,
        ns: a.clone(),
    };
    let mut children = spawn(
        &ja,
        0..1,
        "two_nspaces",
        &[("OTHER_NSPACE", b.as_str().to_string())],
    );
    let jb = Job {
        server: ja.server,
        host: ja.host,
        ns: b,
    };
    children.extend(spawn(
        &jb,
        0..1,
        "two_nspaces",
        &[("OTHER_NSPACE", a.as_str().to_string())],
    ));
    let outs = wait_all(children, Duration::from_secs(30));
    for o in &outs {
        assert!(
            text(o).contains("two-namespace fence: Ok(())"),
            "{}",
            text(o)
        );
        assert!(o.status.success(), "{}", text(o));
    }
}

/// A card of 64 blobs of 4 KiB per rank (256 KiB, the size of OpenPMIx's
/// modex_twice example) commits, and after a fence every rank reads every
/// blob of its peer. With the old 64 KiB modex store the commit failed
/// with `PMIX_ERR_OUT_OF_RESOURCE`.
#[test]
fn a_card_of_a_quarter_mebibyte_commits_and_is_read_by_the_peer() {
    let j = job("bigcard", 2);
    let clients: Vec<Client> = (0..2)
        .map(|r| {
            let p = Proc::from_parts(j.ns.clone(), Rank(r));
            Client::connect(
                &ClientConfig::from_setup_fork(&j.server.setup_fork(&p).unwrap()).unwrap(),
            )
            .unwrap()
        })
        .collect();
    let blob =
        |r: u32, k: u32| -> Vec<u8> { (0..4096u32).map(|i| (i + 7 * k + r) as u8).collect() };
    std::thread::scope(|s| {
        for (r, c) in clients.iter().enumerate() {
            let r = r as u32;
            s.spawn(move || {
                for k in 0..64 {
                    c.put(
                        pmix_core::Scope::GLOBAL,
                        &format!("big.{k}"),
                        Value::ByteObject(blob(r, k)),
                    )
                    .unwrap();
                }
                c.commit().unwrap();
                c.fence(&[], &[Info::new(attrs::COLLECT_DATA, true).unwrap()])
                    .unwrap();
            });
        }
    });
    for (r, c) in clients.iter().enumerate() {
        let peer = 1 - r as u32;
        for k in 0..64 {
            let v = c
                .get(
                    &Proc::from_parts(j.ns.clone(), Rank(peer)),
                    &format!("big.{k}"),
                    &[],
                )
                .unwrap();
            assert_eq!(v, Value::ByteObject(blob(peer, k)), "rank {r} key big.{k}");
        }
    }
    for c in clients {
        c.disconnect().unwrap();
    }
}

/// A process that finalized may initialise again (OpenPMIx allows
/// `PMIx_Init` after `PMIx_Finalize`; its `simple` example does it): the
/// second session is served, and a third once that one finalized. Before,
/// the server refused the second hello with `PMIX_ERR_NO_PERMISSIONS`
/// ("already connected once").
#[test]
fn a_process_may_initialise_again_after_its_finalize() {
    let j = job("reinit", 1);
    let p = Proc::from_parts(j.ns.clone(), Rank(0));
    let cfg = ClientConfig::from_setup_fork(&j.server.setup_fork(&p).unwrap()).unwrap();
    let job_size = Proc::from_parts(j.ns.clone(), Rank::WILDCARD);
    for round in 0..3 {
        let c = Client::connect(&cfg).unwrap_or_else(|e| panic!("session {round}: {e}"));
        assert_eq!(
            c.get(&job_size, attrs::JOB_SIZE, &[]).unwrap(),
            Value::Uint32(1),
            "session {round}"
        );
        c.finalize().unwrap();
    }
    assert_eq!(j.host.finalized.lock().unwrap().len(), 3);
    assert!(j.host.aborted.lock().unwrap().is_empty());
}
