//! What the abuse probes share: a server of the test's own under a
//! temporary directory, registered clients, and a client speaking the
//! protocol on a raw socket (so that it can send what the client crate
//! never would).

#![allow(dead_code)]

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use pmix_core::codec::frame::{self, Frame, FrameReader};
use pmix_core::proto::{self, caps, msg, Hello, Reply, Request, Welcome};
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::{Host, Server, ServerConfig};

pub const WAIT: Duration = Duration::from_secs(10);

/// A server under `dir` (a temporary directory the test made).
pub fn server(
    dir: &std::path::Path,
    host: Arc<dyn Host>,
    tune: impl FnOnce(&mut ServerConfig),
) -> Server {
    let mut cfg = ServerConfig::new(Nspace::new("srv").unwrap());
    cfg.tmpdir = dir.to_path_buf();
    cfg.max_clients = 32;
    cfg.max_nspaces = 4;
    cfg.job_store_bytes = 64 << 10;
    cfg.modex_store_bytes = 8 << 10;
    cfg.event_ring_cells = 64;
    cfg.log = false;
    tune(&mut cfg);
    Server::init(cfg, host).unwrap()
}

pub fn p(ns: &str, r: u32) -> Proc {
    Proc::new(ns, Rank(r)).unwrap()
}

/// Registers namespace `ns` with `n` local ranks (its whole job), every
/// one a client of this test's uid/gid.
pub fn register(server: &Server, ns: &str, n: u32) {
    let nspace = Nspace::new(ns).unwrap();
    let info = [Info::new(attrs::JOB_SIZE, Value::Uint32(n)).unwrap()];
    server.register_nspace(&nspace, n, &info).unwrap();
    let m = std::fs::metadata("/proc/self").unwrap();
    for r in 0..n {
        server.register_client(&p(ns, r), m.uid(), m.gid()).unwrap();
    }
}

/// The client secret `setup_fork` gives `proc`.
pub fn secret_of(server: &Server, proc: &Proc) -> Option<String> {
    server
        .setup_fork(proc)
        .ok()?
        .into_iter()
        .find(|(k, _)| k == proto::env::CLIENT_SECRET)
        .map(|(_, v)| v)
}

/// The `HELLO` frame of `proc`, presenting `secret` (what `setup_fork`
/// gave that proc; without it a complete hello is refused).
pub fn hello_frame(proc: &Proc, secret: Option<String>) -> Vec<u8> {
    let hello = Hello {
        min_version: proto::PROTOCOL_VERSION,
        max_version: proto::PROTOCOL_VERSION,
        caps: caps::ALL,
        proc: proc.clone(),
        pid: std::process::id(),
        secret,
    };
    frame::encode_frame(hello.max_version, msg::HELLO, 0, &hello.encode()).unwrap()
}

/// The server's `WELCOME` on `stream` (the segment's descriptor, if
/// passed, is dropped), or the reason there was none.
pub fn read_welcome(stream: &UnixStream, timeout: Duration) -> Result<Welcome, String> {
    stream.set_read_timeout(Some(timeout)).unwrap();
    let mut reader = FrameReader::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(f) = reader.next_frame().map_err(|e| e.to_string())? {
            assert_eq!(f.header.msg_type, msg::WELCOME);
            return Welcome::decode(&f.body).map_err(|e| e.to_string());
        }
        match pmix_shm::fdpass::recv_with_fds(stream, &mut buf, 1) {
            Ok((0, _)) => return Err("the server closed the socket without a welcome".into()),
            Ok((n, _fds)) => reader.push(&buf[..n]),
            Err(e) => return Err(format!("no welcome: {e}")),
        }
    }
}

/// A client speaking the protocol on a raw socket.
pub struct RawClient {
    pub stream: UnixStream,
    reader: FrameReader,
    version: u16,
}

impl RawClient {
    pub fn connect(server: &Server, proc: &Proc) -> RawClient {
        let mut stream = UnixStream::connect(server.socket_path()).unwrap();
        stream
            .write_all(&hello_frame(proc, secret_of(server, proc)))
            .unwrap();
        let welcome = read_welcome(&stream, WAIT).unwrap();
        assert!(welcome.status.is_success(), "{}", welcome.message);
        stream.set_read_timeout(Some(WAIT)).unwrap();
        RawClient {
            stream,
            reader: FrameReader::new(),
            version: welcome.version,
        }
    }

    pub fn send(&mut self, req: &Request, tag: u32) {
        let f = frame::encode_frame(self.version, req.msg_type(), tag, &req.encode()).unwrap();
        self.stream.write_all(&f).unwrap();
    }

    pub fn next_frame(&mut self) -> Frame {
        pmix_shm::fdpass::read_frame(&mut self.stream, &mut self.reader, Status::ERR_TIMEOUT)
            .unwrap()
            .expect("a frame")
    }

    pub fn next_reply(&mut self) -> (u32, Reply) {
        let f = self.next_frame();
        (f.header.tag, Reply::decode(&f.body).unwrap())
    }
}

/// A line of `/proc/self/status` (`Threads`, `VmRSS`), as a number.
pub fn self_status(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}
