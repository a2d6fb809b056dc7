//! Connect / disconnect at the protocol level: an older peer is told
//! `PMIX_ERR_NOT_SUPPORTED`; the server's own checks (a raw client bypasses
//! the client library's); the host's part of a connect that spans nodes
//! (its outcome, the minted name it is given, its job info imported, its
//! silence ended by `PMIX_TIMEOUT`).

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pmix_core::codec::frame::{self, FrameReader};
use pmix_core::proto::connect::decode_outcome;
use pmix_core::proto::{self, caps, msg, Hello, Reply, Request, Welcome};
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::{Completion, ConnectOutcome, Host, Server, ServerConfig};

const WAIT: Duration = Duration::from_secs(10);

fn p(ns: &str, r: u32) -> Proc {
    Proc::new(ns, Rank(r)).unwrap()
}

fn server(dir: &std::path::Path, host: Arc<dyn Host>) -> Server {
    let mut cfg = ServerConfig::new(Nspace::new("srv").unwrap());
    cfg.tmpdir = dir.to_path_buf();
    cfg.max_clients = 8;
    cfg.log = false;
    Server::init(cfg, host).unwrap()
}

/// Registers `ns` with `nlocal` local ranks of `job_size`.
fn register(s: &Server, ns: &str, nlocal: u32, job_size: u32) {
    let m = std::fs::metadata("/proc/self").unwrap();
    let info = [Info::new(attrs::JOB_SIZE, Value::Uint32(job_size)).unwrap()];
    s.register_nspace(&Nspace::new(ns).unwrap(), nlocal, &info)
        .unwrap();
    for r in 0..nlocal {
        s.register_client(&p(ns, r), m.uid(), m.gid()).unwrap();
    }
}

/// A client speaking `version` on a raw socket.
struct Raw {
    stream: UnixStream,
    reader: FrameReader,
    version: u16,
    caps: u64,
}

impl Raw {
    fn connect(s: &Server, proc: &Proc, version: u16) -> Raw {
        let mut stream = UnixStream::connect(s.socket_path()).unwrap();
        stream.set_read_timeout(Some(WAIT)).unwrap();
        let hello = Hello {
            min_version: 1,
            max_version: version,
            caps: caps::ALL,
            proc: proc.clone(),
            pid: std::process::id(),
            secret: s
                .setup_fork(proc)
                .unwrap()
                .into_iter()
                .find(|(k, _)| k == proto::env::CLIENT_SECRET)
                .map(|(_, v)| v),
        };
        let f = frame::encode_frame(version, msg::HELLO, 0, &hello.encode()).unwrap();
        stream.write_all(&f).unwrap();
        let mut reader = FrameReader::new();
        let mut buf = [0u8; 4096];
        let (n, _fds) = pmix_shm::fdpass::recv_with_fds(&stream, &mut buf, 1).unwrap();
        reader.push(&buf[..n]);
        let f = pmix_shm::fdpass::read_frame(&mut stream, &mut reader, Status::ERR_LOST_CONNECTION)
            .unwrap()
            .unwrap();
        let w = Welcome::decode(&f.body).unwrap();
        assert!(w.status.is_success(), "{}", w.message);
        Raw {
            stream,
            reader,
            version: w.version,
            caps: w.caps,
        }
    }

    fn send(&mut self, req: &Request, tag: u32) {
        let f = frame::encode_frame(self.version, req.msg_type(), tag, &req.encode()).unwrap();
        self.stream.write_all(&f).unwrap();
    }

    fn reply(&mut self) -> Reply {
        let f =
            pmix_shm::fdpass::read_frame(&mut self.stream, &mut self.reader, Status::ERR_TIMEOUT)
                .unwrap()
                .expect("a reply");
        Reply::decode(&f.body).unwrap()
    }

    fn call(&mut self, req: &Request) -> Reply {
        self.send(req, 7);
        self.reply()
    }
}

fn connect_req(procs: Vec<Proc>, info: Vec<Info>) -> Request {
    Request::Connect { procs, info }
}

#[test]
fn a_version_4_peer_is_told_not_supported() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), Arc::new(pmix_server::NullHost));
    register(&s, "old", 1, 1);
    let mut c = Raw::connect(&s, &p("old", 0), 4);
    assert_eq!(c.version, 4);
    assert_eq!(c.caps & caps::CONNECT, 0);
    let r = c.call(&connect_req(vec![p("old", 0)], vec![]));
    assert_eq!(r.status, Status::ERR_NOT_SUPPORTED, "{}", r.message);
    let r = c.call(&Request::Disconnect {
        nspace: "old".into(),
        info: vec![],
    });
    assert_eq!(r.status, Status::ERR_NOT_SUPPORTED, "{}", r.message);
}

#[test]
fn the_server_checks_what_the_client_library_checks_and_more() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path(), Arc::new(pmix_server::NullHost));
    register(&s, "chk", 2, 2);
    let mut c = Raw::connect(&s, &p("chk", 0), proto::PROTOCOL_VERSION);
    let r = c.call(&connect_req(vec![], vec![]));
    assert_eq!(r.status, Status::ERR_BAD_PARAM, "{}", r.message);
    let r = c.call(&connect_req(vec![p("chk", 1)], vec![]));
    assert_eq!(r.status, Status::ERR_NOT_A_MEMBER, "{}", r.message);
    let r = c.call(&Request::Disconnect {
        nspace: "nothing-here".into(),
        info: vec![],
    });
    assert_eq!(r.status, Status::ERR_NOT_FOUND, "{}", r.message);
    // a connect of one process completes at once, in the server
    let r = c.call(&connect_req(vec![p("chk", 0)], vec![]));
    assert_eq!(r.status, Status::SUCCESS, "{}", r.message);
    let (ns, ranks) = decode_outcome(&r.value.unwrap()).unwrap();
    assert_eq!(ranks, vec![p("chk", 0)]);
    // rank 1 is not in that group
    let mut c1 = Raw::connect(&s, &p("chk", 1), proto::PROTOCOL_VERSION);
    let r = c1.call(&Request::Disconnect {
        nspace: ns.clone().unwrap().as_str().into(),
        info: vec![],
    });
    assert_eq!(r.status, Status::ERR_NOT_A_MEMBER, "{}", r.message);
    let r = c.call(&Request::Disconnect {
        nspace: ns.unwrap().as_str().into(),
        info: vec![],
    });
    assert_eq!(r.status, Status::SUCCESS, "{}", r.message);
}

/// A host that records connects and answers them with `outcome` (or never).
struct ConnectHost {
    seen: Mutex<Vec<(Vec<Proc>, Vec<Info>)>>,
    outcome: Option<ConnectOutcome>,
}

impl Host for ConnectHost {
    fn connect(&self, procs: &[Proc], info: &[Info], done: Completion<ConnectOutcome>) {
        self.seen
            .lock()
            .unwrap()
            .push((procs.to_vec(), info.to_vec()));
        if let Some(o) = &self.outcome {
            done(Ok(o.clone()));
        } else {
            std::mem::forget(done); // never answers
        }
    }
}

#[test]
fn a_connect_spanning_nodes_goes_to_the_host_whose_outcome_everyone_gets() {
    let tmp = tempfile::tempdir().unwrap();
    let remote = Nspace::new("far").unwrap();
    let host = Arc::new(ConnectHost {
        seen: Mutex::new(Vec::new()),
        outcome: Some(ConnectOutcome {
            nspace: Some(Nspace::new("host-group").unwrap()),
            ranks: vec![p("far", 0), p("near", 0)],
            job_info: vec![(
                remote.clone(),
                vec![Info::new(attrs::JOB_SIZE, Value::Uint32(1)).unwrap()],
            )],
        }),
    });
    let s = server(tmp.path(), host.clone());
    register(&s, "near", 1, 1);
    let mut c = Raw::connect(&s, &p("near", 0), proto::PROTOCOL_VERSION);
    let procs = vec![
        Proc::from_parts(remote.clone(), Rank::WILDCARD),
        p("near", 0),
    ];
    let r = c.call(&connect_req(
        procs,
        vec![Info::new(attrs::CONNECT_ID, "hx").unwrap()],
    ));
    assert_eq!(r.status, Status::SUCCESS, "{}", r.message);
    let (ns, ranks) = decode_outcome(&r.value.unwrap()).unwrap();
    assert_eq!(ns.unwrap().as_str(), "host-group");
    assert_eq!(ranks, vec![p("far", 0), p("near", 0)]);
    let seen = host.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let (set, info) = &seen[0];
    assert_eq!(
        set,
        &vec![
            Proc::from_parts(remote.clone(), Rank::WILDCARD),
            p("near", 0)
        ]
    );
    let minted = pmix_core::proto::connect::mint_nspace(set, Some("hx"), 0);
    assert!(
        info.iter()
            .any(|i| i.is(attrs::GROUP_ID) && i.value == Value::String(minted.as_str().into())),
        "{info:?}"
    );
    // the remote namespace's job info is now served here
    let size = s
        .get(&Proc::from_parts(remote, Rank::WILDCARD), attrs::JOB_SIZE)
        .unwrap();
    assert_eq!(size, Value::Uint32(1));
}

#[test]
fn a_silent_host_is_ended_by_the_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Arc::new(ConnectHost {
        seen: Mutex::new(Vec::new()),
        outcome: None,
    });
    let s = server(tmp.path(), host);
    register(&s, "near", 1, 2); // rank 1 lives elsewhere
    let mut c = Raw::connect(&s, &p("near", 0), proto::PROTOCOL_VERSION);
    let t0 = Instant::now();
    let r = c.call(&connect_req(
        vec![Proc::new("near", Rank::WILDCARD).unwrap()],
        vec![Info::new(attrs::TIMEOUT, Value::Int32(1)).unwrap()],
    ));
    assert_eq!(r.status, Status::ERR_TIMEOUT, "{}", r.message);
    let took = t0.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "{took:?}"
    );
}

#[test]
fn a_process_of_another_cluster_reaches_the_host_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Arc::new(ConnectHost {
        seen: Mutex::new(Vec::new()),
        outcome: Some(ConnectOutcome::default()),
    });
    let s = server(tmp.path(), host.clone());
    register(&s, "near", 1, 1);
    let mut c = Raw::connect(&s, &p("near", 0), proto::PROTOCOL_VERSION);
    let far = pmix_core::cluster::multicluster_nspace("east", "job-9").unwrap();
    let procs = vec![p("near", 0), Proc::from_parts(far.clone(), Rank(3))];
    let r = c.call(&connect_req(procs, vec![]));
    // the host gave no rank map and this node cannot size the other
    // cluster's job: the explicit ranks are the map
    assert_eq!(r.status, Status::SUCCESS, "{}", r.message);
    let (_, ranks) = decode_outcome(&r.value.unwrap()).unwrap();
    assert_eq!(
        ranks,
        vec![Proc::from_parts(far.clone(), Rank(3)), p("near", 0)]
    );
    let seen = host.seen.lock().unwrap().clone();
    assert_eq!(
        seen[0].0,
        vec![Proc::from_parts(far, Rank(3)), p("near", 0)]
    );
}
