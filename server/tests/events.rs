//! Event notification through the server: who gets the host's events, the
//! cache and the held job events, slot reuse, clients' `NOTIFY` and
//! `EVENT_INTEREST` over the socket, and what the host is asked.
//!
//! The clients here are raw sockets speaking the protocol (the client
//! crate's event API is separate); their event rings are read through a
//! second mapping of the server's segment, as a client would.

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use pmix_core::codec::frame::{self, Frame, FrameReader};
use pmix_core::event::{EventId, EventMsg, Origin, RECORD_EVENT};
use pmix_core::proto::{self, caps, msg, Hello, Reply, Request, Welcome};
use pmix_core::{attrs, DataRange, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::{Completion, Host, Server, ServerConfig};
use pmix_shm::layout::RegionKind;
use pmix_shm::ring::Ring;
use pmix_shm::segment::Segment;

const WAIT: Duration = Duration::from_secs(10);

/// An up-call the test host saw.
#[derive(Clone, Debug, PartialEq)]
enum Call {
    Notify(Status, Proc, DataRange),
    Register(Vec<Status>),
    Deregister(Vec<Status>),
}

/// Records the event up-calls; `notify_event` answers `answer`.
#[derive(Debug)]
struct Recorder {
    calls: Mutex<Vec<Call>>,
    answer: Status,
}

impl Recorder {
    fn new(answer: Status) -> Arc<Recorder> {
        Arc::new(Recorder {
            calls: Mutex::new(Vec::new()),
            answer,
        })
    }

    fn calls(&self) -> Vec<Call> {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn record(&self, c: Call) {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(c);
    }

    /// Waits (bounded) until the host saw `n` calls.
    fn wait_for(&self, n: usize) -> Vec<Call> {
        let end = Instant::now() + WAIT;
        loop {
            let c = self.calls();
            if c.len() >= n || Instant::now() >= end {
                return c;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Host for Recorder {
    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: DataRange,
        info: &[Info],
        done: Completion<()>,
    ) {
        let _ = info;
        self.record(Call::Notify(status, source.clone(), range));
        done(if self.answer.is_success() {
            Ok(())
        } else {
            Err(pmix_core::Error::new(self.answer))
        });
    }

    fn register_events(&self, codes: &[Status], done: Completion<()>) {
        self.record(Call::Register(codes.to_vec()));
        done(Ok(()));
    }

    fn deregister_events(&self, codes: &[Status], done: Completion<()>) {
        self.record(Call::Deregister(codes.to_vec()));
        done(Ok(()));
    }
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pmixrs-events-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn config(tag: &str, cache: usize) -> ServerConfig {
    let mut cfg = ServerConfig::new(Nspace::new("srv").unwrap());
    cfg.tmpdir = tmpdir(tag);
    cfg.max_clients = 8;
    cfg.max_nspaces = 4;
    cfg.job_store_bytes = 64 << 10;
    cfg.modex_store_bytes = 8 << 10;
    cfg.event_ring_cells = 64;
    cfg.event_cache_size = cache;
    cfg.event_push_timeout = Duration::from_millis(200);
    cfg.log = false;
    cfg
}

/// A server under test; dropping it stops it and removes the directory
/// this test made for it.
struct Sut {
    server: Server,
    dir: PathBuf,
}

impl std::ops::Deref for Sut {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.server
    }
}

impl Drop for Sut {
    fn drop(&mut self) {
        self.server.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn sut(tag: &str, cache: usize, host: Arc<Recorder>) -> Sut {
    let cfg = config(tag, cache);
    let dir = cfg.tmpdir.clone();
    Sut {
        server: Server::init(cfg, host).unwrap(),
        dir,
    }
}

fn ids() -> (u32, u32) {
    let m = std::fs::metadata("/proc/self").unwrap();
    (m.uid(), m.gid())
}

fn p(ns: &str, r: u32) -> Proc {
    Proc::new(ns, Rank(r)).unwrap()
}

fn register(server: &Server, ns: &str, nlocal: u32, job_size: u32, ranks: &[u32]) {
    let nspace = Nspace::new(ns).unwrap();
    let info = [Info::new(attrs::JOB_SIZE, Value::Uint32(job_size)).unwrap()];
    server.register_nspace(&nspace, nlocal, &info).unwrap();
    let (uid, gid) = ids();
    for r in ranks {
        server.register_client(&p(ns, *r), uid, gid).unwrap();
    }
}

/// Everything waiting in `proc`'s event ring, read as its client would.
fn take_events(server: &Server, proc: &Proc) -> Vec<EventMsg> {
    let slot = server.slot_of(proc).expect("registered");
    take_slot(server, slot)
}

fn take_slot(server: &Server, slot: u32) -> Vec<EventMsg> {
    let seg = Segment::open(server.segment().fd().try_clone_to_owned().unwrap()).unwrap();
    let ring = seg.attach::<Ring>(RegionKind::CLIENT_RING, slot).unwrap();
    let mut c = ring.consumer().unwrap();
    let mut out = Vec::new();
    c.drain(usize::MAX, |kind, bytes| {
        assert_eq!(kind, RECORD_EVENT);
        out.push(EventMsg::decode(bytes).unwrap());
    });
    out
}

/// The `pmix.test.n` payload of each event.
fn numbers(evs: &[EventMsg]) -> Vec<u32> {
    evs.iter()
        .map(|e| {
            e.info
                .iter()
                .find(|i| i.key.as_str() == "pmix.test.n")
                .and_then(|i| i.value.to_u64().ok())
                .map_or(u32::MAX, |n| n as u32)
        })
        .collect()
}

fn numbered(n: u32) -> Info {
    Info::new("pmix.test.n", Value::Uint32(n)).unwrap()
}

fn custom(procs: &[Proc]) -> Vec<Info> {
    procs
        .iter()
        .map(|c| Info::new(attrs::EVENT_CUSTOM_RANGE, Value::Proc(c.clone())).unwrap())
        .collect()
}

/// A client speaking the protocol on a raw socket.
struct RawClient {
    stream: UnixStream,
    reader: FrameReader,
    welcome: Welcome,
}

impl RawClient {
    fn connect(server: &Server, proc: &Proc) -> RawClient {
        let mut stream = UnixStream::connect(server.socket_path()).unwrap();
        stream.set_read_timeout(Some(WAIT)).unwrap();
        let hello = Hello {
            min_version: proto::PROTOCOL_VERSION,
            max_version: proto::PROTOCOL_VERSION,
            caps: caps::ALL,
            proc: proc.clone(),
            pid: std::process::id(),
            secret: server
                .setup_fork(proc)
                .unwrap()
                .into_iter()
                .find(|(k, _)| k == proto::env::CLIENT_SECRET)
                .map(|(_, v)| v),
        };
        let f = frame::encode_frame(hello.max_version, msg::HELLO, 0, &hello.encode()).unwrap();
        stream.write_all(&f).unwrap();
        let mut reader = FrameReader::new();
        let mut buf = [0u8; 4096];
        let (n, _fds) = pmix_shm::fdpass::recv_with_fds(&stream, &mut buf, 1).unwrap();
        reader.push(&buf[..n]);
        let f = pmix_shm::fdpass::read_frame(&mut stream, &mut reader, Status::ERR_LOST_CONNECTION)
            .unwrap()
            .unwrap();
        assert_eq!(f.header.msg_type, msg::WELCOME);
        let welcome = Welcome::decode(&f.body).unwrap();
        assert!(welcome.status.is_success(), "{}", welcome.message);
        assert_ne!(welcome.caps & caps::EVENTS, 0);
        RawClient {
            stream,
            reader,
            welcome,
        }
    }

    fn send(&mut self, req: &Request, tag: u32) {
        let f =
            frame::encode_frame(self.welcome.version, req.msg_type(), tag, &req.encode()).unwrap();
        self.stream.write_all(&f).unwrap();
    }

    fn next_frame(&mut self) -> Frame {
        pmix_shm::fdpass::read_frame(&mut self.stream, &mut self.reader, Status::ERR_TIMEOUT)
            .unwrap()
            .expect("a frame")
    }
}

fn notify_req(status: Status, source: Proc, range: DataRange, info: Vec<Info>) -> Request {
    let mut event = EventMsg::for_notify(status, Some(source), range, &info).unwrap();
    event.id = EventId {
        origin: EventId::client_origin(1234),
        seq: 1,
    };
    Request::Notify {
        event,
        delivered: Vec::new(),
    }
}

#[test]
fn host_notify_reaches_exactly_the_in_range_clients() {
    let host = Recorder::new(Status::SUCCESS);
    let server = sut("range", 16, Arc::clone(&host));
    register(&server, "a", 2, 2, &[0, 1]);
    register(&server, "b", 1, 1, &[0]);
    let everyone = [p("a", 0), p("a", 1), p("b", 0)];
    let who = |server: &Server| -> Vec<Proc> {
        everyone
            .iter()
            .filter(|q| !take_events(server, q).is_empty())
            .cloned()
            .collect()
    };

    server
        .notify(Status(-3001), None, DataRange::LOCAL, &[])
        .unwrap();
    assert_eq!(who(&server), everyone);

    server
        .notify(Status(-3002), Some(&p("a", 0)), DataRange::NAMESPACE, &[])
        .unwrap();
    assert_eq!(who(&server), [p("a", 0), p("a", 1)]);

    let info = custom(&[p("a", 1), p("b", 0), p("c", 7)]);
    server
        .notify(Status(-3003), None, DataRange::CUSTOM, &info)
        .unwrap();
    assert_eq!(who(&server), [p("a", 1), p("b", 0)]);

    server
        .notify(Status(-3004), None, DataRange::RM, &[])
        .unwrap();
    assert!(who(&server).is_empty());

    assert!(host.calls().is_empty(), "host events never go back up");
}

#[test]
fn origins_and_sources_are_set_by_the_server() {
    let host = Recorder::new(Status::SUCCESS);
    let server = sut("origin", 16, Arc::clone(&host));
    register(&server, "a", 1, 1, &[0]);
    let me = p("a", 0);
    server
        .notify(Status(-3001), None, DataRange::LOCAL, &[])
        .unwrap();
    server
        .notify(Status(-3002), Some(&me), DataRange::LOCAL, &[])
        .unwrap();
    server
        .notify(Status(-3003), Some(&p("remote", 3)), DataRange::LOCAL, &[])
        .unwrap();
    let got = take_events(&server, &me);
    assert_eq!(got.len(), 3);
    assert_eq!((got[0].source.clone(), got[0].origin), (None, Origin::Host));
    assert_eq!(got[1].source.as_ref(), Some(&me));
    assert_eq!(got[1].origin, Origin::ThisNode);
    assert_eq!(got[2].origin, Origin::OtherNode);
    let ids: std::collections::BTreeSet<_> = got.iter().map(|e| e.id).collect();
    assert_eq!(ids.len(), 3, "distinct ids");
    assert!(got
        .iter()
        .all(|e| e.id.origin == EventId::server_origin(std::process::id())));
}

#[test]
fn host_notify_refuses_proc_local_and_bad_ranges() {
    let server = sut("bad", 16, Recorder::new(Status::SUCCESS));
    for (range, info) in [
        (DataRange::PROC_LOCAL, vec![]),
        (DataRange(77), vec![]),
        (DataRange::CUSTOM, vec![]),
        (DataRange::LOCAL, custom(&[p("a", 0)])),
    ] {
        let e = server
            .notify(Status(-3001), None, range, &info)
            .unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM, "{range:?}");
    }
}

#[test]
fn a_bad_event_ring_size_is_refused_by_init() {
    for cells in [0, 3, 1000] {
        let mut cfg = config("cells", 4);
        cfg.event_ring_cells = cells;
        let dir = cfg.tmpdir.clone();
        let e = Server::init(cfg, Recorder::new(Status::SUCCESS)).unwrap_err();
        let _ = std::fs::remove_dir_all(dir);
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
    }
}

#[test]
fn do_not_cache_events_are_not_replayed() {
    let server = sut("nocache", 16, Recorder::new(Status::SUCCESS));
    register(&server, "a", 2, 2, &[0]);
    let no_cache = [
        Info::new(attrs::EVENT_DO_NOT_CACHE, true).unwrap(),
        numbered(1),
    ];
    server
        .notify(Status(-3001), None, DataRange::LOCAL, &no_cache)
        .unwrap();
    server
        .notify(Status(-3001), None, DataRange::LOCAL, &[numbered(2)])
        .unwrap();
    assert_eq!(numbers(&take_events(&server, &p("a", 0))), [1, 2]);
    let (uid, gid) = ids();
    server.register_client(&p("a", 1), uid, gid).unwrap();
    assert_eq!(numbers(&take_events(&server, &p("a", 1))), [2]);
}

#[test]
fn the_cache_replays_in_arrival_order_and_evicts_the_oldest() {
    let server = sut("cache", 3, Recorder::new(Status::SUCCESS));
    for n in 1..=5 {
        server
            .notify(Status(-3001), None, DataRange::GLOBAL, &[numbered(n)])
            .unwrap();
    }
    register(&server, "a", 1, 1, &[0]);
    assert_eq!(numbers(&take_events(&server, &p("a", 0))), [3, 4, 5]);
}

#[test]
fn a_held_namespace_event_outlives_the_cache() {
    let server = sut("held", 1, Recorder::new(Status::SUCCESS));
    register(&server, "a", 2, 2, &[0]);
    let affected = Info::new(attrs::EVENT_AFFECTED_PROC, Value::Proc(p("a", 0))).unwrap();
    server
        .notify(
            Status(-3001),
            None,
            DataRange::NAMESPACE,
            &[affected, numbered(1)],
        )
        .unwrap();
    for n in 2..=4 {
        server
            .notify(Status(-3001), None, DataRange::LOCAL, &[numbered(n)])
            .unwrap();
    }
    assert_eq!(numbers(&take_events(&server, &p("a", 0))), [1, 2, 3, 4]);
    let (uid, gid) = ids();
    server.register_client(&p("a", 1), uid, gid).unwrap();
    assert_eq!(numbers(&take_events(&server, &p("a", 1))), [1, 4]);
    // Every local proc has it now: a restarted rank 1 does not get it again.
    server.deregister_client(&p("a", 1)).unwrap();
    server.register_client(&p("a", 1), uid, gid).unwrap();
    assert_eq!(numbers(&take_events(&server, &p("a", 1))), [4]);
}

#[test]
fn a_held_custom_event_reaches_the_named_proc_only() {
    let server = sut("heldcustom", 0, Recorder::new(Status::SUCCESS));
    register(&server, "a", 3, 3, &[0]);
    let mut info = custom(&[p("a", 2)]);
    info.push(numbered(7));
    server
        .notify(Status(-3001), None, DataRange::CUSTOM, &info)
        .unwrap();
    let (uid, gid) = ids();
    server.register_client(&p("a", 1), uid, gid).unwrap();
    server.register_client(&p("a", 2), uid, gid).unwrap();
    assert!(take_events(&server, &p("a", 1)).is_empty());
    assert_eq!(numbers(&take_events(&server, &p("a", 2))), [7]);
}

#[test]
fn slot_reuse_drains_stale_records() {
    let server = sut("reuse", 16, Recorder::new(Status::SUCCESS));
    register(&server, "a", 2, 2, &[0]);
    let old = server.slot_of(&p("a", 0)).unwrap();
    let no_cache = [
        Info::new(attrs::EVENT_DO_NOT_CACHE, true).unwrap(),
        numbered(1),
    ];
    server
        .notify(Status(-3001), None, DataRange::LOCAL, &no_cache)
        .unwrap();
    server
        .notify(Status(-3001), None, DataRange::LOCAL, &[numbered(2)])
        .unwrap();
    // Rank 0 never read them; its slot goes to rank 1.
    server.deregister_client(&p("a", 0)).unwrap();
    let (uid, gid) = ids();
    server.register_client(&p("a", 1), uid, gid).unwrap();
    assert_eq!(server.slot_of(&p("a", 1)), Some(old));
    assert_eq!(numbers(&take_slot(&server, old)), [2], "only the replay");
}

#[test]
fn a_client_notify_is_stamped_and_reaches_the_peers_it_could_not() {
    let host = Recorder::new(Status::SUCCESS);
    let server = sut("client", 16, Arc::clone(&host));
    register(&server, "a", 3, 3, &[0, 1, 2]);
    let mut c = RawClient::connect(&server, &p("a", 0));
    let mut req = notify_req(
        Status(-3001),
        p("a", 0),
        DataRange::NAMESPACE,
        vec![numbered(5)],
    );
    if let Request::Notify { event, delivered } = &mut req {
        event.source = Some(p("b", 9)); // a lie the server must not pass on
        delivered.push(server.slot_of(&p("a", 1)).unwrap());
    }
    c.send(&req, 3);
    let f = c.next_frame();
    assert_eq!(
        (f.header.msg_type, f.header.tag),
        (msg::REPLY | msg::NOTIFY, 3)
    );
    assert_eq!(Reply::decode(&f.body).unwrap().status, Status::SUCCESS);
    assert!(take_events(&server, &p("a", 1)).is_empty(), "it had it");
    let got = take_events(&server, &p("a", 2));
    assert_eq!(numbers(&got), [5]);
    assert_eq!(got[0].source, Some(p("a", 0)));
    assert_eq!(got[0].origin, Origin::ThisNode);
    assert_eq!(
        got[0].id.origin,
        EventId::client_origin(1234),
        "the id is kept"
    );
    assert!(host.calls().is_empty(), "a namespace all on this node");
    // A client of another namespace registered later is not a target.
    register(&server, "late", 1, 1, &[0]);
    assert!(take_events(&server, &p("late", 0)).is_empty());
}

#[test]
fn a_client_notify_leaves_the_node_and_answers_the_host_status() {
    let host = Recorder::new(Status::ERR_UNREACH);
    let server = sut("rm", 16, Arc::clone(&host));
    register(&server, "a", 1, 4, &[0]);
    let mut c = RawClient::connect(&server, &p("a", 0));
    c.send(
        &notify_req(Status(-3001), p("a", 0), DataRange::RM, vec![]),
        8,
    );
    let f = c.next_frame();
    assert_eq!(f.header.tag, 8);
    assert_eq!(Reply::decode(&f.body).unwrap().status, Status::ERR_UNREACH);
    c.send(
        &notify_req(Status(-3002), p("a", 0), DataRange::NAMESPACE, vec![]),
        9,
    );
    assert_eq!(c.next_frame().header.tag, 9);
    assert_eq!(
        host.calls(),
        [
            Call::Notify(Status(-3001), p("a", 0), DataRange::RM),
            Call::Notify(Status(-3002), p("a", 0), DataRange::NAMESPACE),
        ]
    );
}

#[test]
fn one_way_messages_get_no_reply() {
    let host = Recorder::new(Status::ERR_UNREACH);
    let server = sut("oneway", 16, Arc::clone(&host));
    register(&server, "a", 1, 1, &[0]);
    let mut c = RawClient::connect(&server, &p("a", 0));
    c.send(
        &notify_req(Status(-3001), p("a", 0), DataRange::GLOBAL, vec![]),
        0,
    );
    c.send(
        &Request::EventInterest {
            codes: vec![Status(-3001)],
            default: false,
        },
        0,
    );
    // A malformed one-way event is dropped too (a custom range without
    // targets).
    let mut bad = EventMsg::new(Status(-3001), DataRange::CUSTOM);
    bad.source = Some(p("a", 0));
    c.send(
        &Request::Notify {
            event: bad,
            delivered: vec![],
        },
        0,
    );
    // Nor is a body that cannot be decoded, nor any other request, when
    // sent with tag 0.
    let junk = frame::encode_frame(proto::PROTOCOL_VERSION, msg::GET, 0, b"junk").unwrap();
    c.stream.write_all(&junk).unwrap();
    c.send(
        &Request::Get {
            proc: p("a", 0),
            key: "user.none".into(),
            info: vec![Info::new(attrs::OPTIONAL, true).unwrap()],
        },
        0,
    );
    c.send(
        &notify_req(Status(-3003), p("a", 0), DataRange::LOCAL, vec![]),
        5,
    );
    let f = c.next_frame();
    assert_eq!(f.header.tag, 5, "the first reply is the tagged request's");
}

#[test]
fn the_host_is_asked_once_for_the_union_of_interests() {
    let host = Recorder::new(Status::SUCCESS);
    let server = sut("interest", 16, Arc::clone(&host));
    register(&server, "a", 3, 3, &[0, 1, 2]);
    let (x, y) = (Status(-3001), Status(-3002));
    let interest = |codes: Vec<Status>, default: bool| Request::EventInterest { codes, default };
    let mut a = RawClient::connect(&server, &p("a", 0));
    let mut b = RawClient::connect(&server, &p("a", 1));
    let mut d = RawClient::connect(&server, &p("a", 2));
    a.send(&interest(vec![x], false), 0);
    assert_eq!(host.wait_for(1), [Call::Register(vec![x])]);
    b.send(&interest(vec![x, y], false), 0);
    assert_eq!(host.wait_for(2)[1..], [Call::Register(vec![y])]);
    d.send(&interest(vec![], true), 0);
    assert_eq!(host.wait_for(3)[2..], [Call::Register(vec![])]);
    // `a` dies: `b` still wants x, nothing changes.
    drop(a);
    let end = Instant::now() + WAIT;
    while server.is_connected(&p("a", 0)) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        !server.is_connected(&p("a", 0)),
        "the server never saw `a` go"
    );
    // `d` drops its default handler.
    d.send(&interest(vec![], false), 0);
    assert_eq!(host.wait_for(4)[3..], [Call::Deregister(vec![])]);
    // `b` is deregistered: x and y go.
    server.deregister_client(&p("a", 1)).unwrap();
    assert_eq!(host.wait_for(5)[4..], [Call::Deregister(vec![y, x])]); // code order
    drop(b);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(host.calls().len(), 5);
}

#[test]
fn held_events_that_did_not_fit_come_after_the_connect() {
    let server = sut("refill", 16, Recorder::new(Status::SUCCESS));
    register(&server, "a", 2, 2, &[0]);
    let pad = Info::new("pmix.test.pad", Value::String("x".repeat(1000))).unwrap();
    for n in 1..=6 {
        server
            .notify(
                Status(-3001),
                None,
                DataRange::GLOBAL,
                &[numbered(n), pad.clone()],
            )
            .unwrap();
    }
    server
        .notify(
            Status(-3002),
            Some(&p("a", 0)),
            DataRange::NAMESPACE,
            &[numbered(7)],
        )
        .unwrap();
    let (uid, gid) = ids();
    server.register_client(&p("a", 1), uid, gid).unwrap();
    // A 64-cell ring takes three of the 17-cell records; the rest of the
    // cache is dropped, the held event waits for the client.
    assert_eq!(numbers(&take_events(&server, &p("a", 1))), [1, 2, 3]);
    let _c = RawClient::connect(&server, &p("a", 1));
    let end = Instant::now() + WAIT;
    let got = loop {
        let got = take_events(&server, &p("a", 1));
        if !got.is_empty() || Instant::now() >= end {
            break got;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert_eq!(numbers(&got), [7]);
}

#[test]
fn a_job_event_for_a_registered_client_whose_ring_is_full_waits_for_its_connect() {
    let server = sut("fullring", 0, Recorder::new(Status::SUCCESS));
    register(&server, "a", 2, 2, &[0, 1]);
    let pad = Info::new("pmix.test.pad", Value::String("x".repeat(1000))).unwrap();
    // rank 1 is registered, not connected: its 64-cell ring takes three
    // of these 17-cell records; the others must not be lost
    for n in 1..=6 {
        server
            .notify(
                Status(-3001),
                Some(&p("a", 0)),
                DataRange::NAMESPACE,
                &[numbered(n), pad.clone()],
            )
            .unwrap();
    }
    assert_eq!(numbers(&take_events(&server, &p("a", 1))), [1, 2, 3]);
    let _c = RawClient::connect(&server, &p("a", 1));
    let end = Instant::now() + WAIT;
    let mut got = Vec::new();
    while got.len() < 3 && Instant::now() < end {
        got.extend(numbers(&take_events(&server, &p("a", 1))));
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(got, [4, 5, 6]);
}
