//! The request-dispatch fuzz harness: one real in-process server (a
//! temporary directory, a registered namespace of 4 ranks, two of which
//! connect), fed arbitrary frames by an authenticated client, checked
//! after each input. Shared by the libFuzzer target
//! (`fuzz/fuzz_targets/request_dispatch.rs`, included by path) and the
//! stable test (`server/tests/dispatch_fuzz.rs`), so it uses only the
//! crates both have: `pmix-core`, `pmix-server`, std.
//!
//! # Input
//!
//! A sequence of operations, each starting with one byte `k`:
//!
//! * `k < 0x80`: a well-formed request, variant `k % 11`, its fields drawn
//!   from the following bytes (ranks inside and beyond the job, this and
//!   other namespaces, a few keys, timeouts of 0–1 s), with tag `k / 11`
//!   (0: a one-way message);
//! * `k >= 0x80`: a raw frame: message type (one of [`REQUEST_TYPES`],
//!   every type a client may send in protocol version 5, or any number),
//!   then tag, a body length `n` < 256, then `n` body bytes.
//!
//! The frames go out as one write; the harness reads what the server
//! answers for a moment and then drops the connection (no finalize: the
//! server sees the client die) — or finalizes, when the input's last byte
//! is odd.
//!
//! # Checks after each input
//!
//! * a second client's well-formed `GET` of a job-level key is answered
//!   with the right value within [`ANSWER_LIMIT`];
//! * the server's bookkeeping stays bounded: `tracked_collectives()` and
//!   `held_requests()` at most [`PER_CLIENT`] (the server's per-client cap
//!   in this harness) and `connections_in_handshake()` back to 0;
//! * the process's thread count stays under [`MAX_THREADS`].
//!
//! A check that fails panics (libFuzzer reports a crash, the test fails).

#![allow(dead_code)] // each user calls its own subset

use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::codec::frame::{self, FrameReader};
use pmix_core::event::EventMsg;
use pmix_core::proto::{self, caps, msg, Hello, Reply, Request, Welcome};
use pmix_core::{attrs, DataRange, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::{NullHost, Server, ServerConfig};

/// The namespace of the harness's job.
pub const NS: &str = "fuzzjob";
/// Ranks of the job (0 is the fuzzed client, 1 the health probe; 2 and 3
/// never connect).
pub const RANKS: u32 = 4;
/// The server's `max_pending_per_client` here: every bookkeeping count
/// must stay at or under it (only rank 0 can open anything).
pub const PER_CLIENT: usize = 16;
/// The longest a well-formed request may wait for its answer.
pub const ANSWER_LIMIT: Duration = Duration::from_secs(5);
/// The most threads this process may have after an input.
pub const MAX_THREADS: u64 = 64;

const KEYS: [&str; 4] = ["fuzz-a", "fuzz-b", attrs::JOB_SIZE, "pmix.bogus"];

/// The server, its job, and the health probe's connection.
pub struct Harness {
    server: Server,
    probe: Option<Conn>,
    inputs: u64,
}

struct Conn {
    stream: UnixStream,
    reader: FrameReader,
    version: u16,
}

fn proc_of(r: u32) -> Proc {
    Proc::new(NS, Rank(r)).unwrap()
}

impl Conn {
    /// Connects as `proc`, presenting the secret `setup_fork` gave it.
    fn open(server: &Server, proc: &Proc) -> Result<Conn, String> {
        let secret = server
            .setup_fork(proc)
            .map_err(|e| e.to_string())?
            .into_iter()
            .find(|(k, _)| k == proto::env::CLIENT_SECRET)
            .map(|(_, v)| v);
        let hello = Hello {
            min_version: proto::PROTOCOL_VERSION,
            max_version: proto::PROTOCOL_VERSION,
            caps: caps::ALL,
            proc: proc.clone(),
            pid: std::process::id(),
            secret,
        };
        let mut stream = UnixStream::connect(server.socket_path()).map_err(|e| e.to_string())?;
        let f = frame::encode_frame(hello.max_version, msg::HELLO, 0, &hello.encode())
            .map_err(|e| e.to_string())?;
        stream.write_all(&f).map_err(|e| e.to_string())?;
        let mut c = Conn {
            stream,
            reader: FrameReader::new(),
            version: proto::PROTOCOL_VERSION,
        };
        let w = c.next(ANSWER_LIMIT)?;
        let w = Welcome::decode(&w.1).map_err(|e| e.to_string())?;
        if !w.status.is_success() {
            return Err(format!("refused: {}", w.message));
        }
        c.version = w.version;
        Ok(c)
    }

    /// The next frame (its tag and body) within `limit`.
    fn next(&mut self, limit: Duration) -> Result<(u32, Vec<u8>), String> {
        let t0 = Instant::now();
        let mut buf = [0u8; 4096];
        loop {
            if let Some(f) = self.reader.next_frame().map_err(|e| e.to_string())? {
                return Ok((f.header.tag, f.body));
            }
            let left = limit.saturating_sub(t0.elapsed());
            if left.is_zero() {
                return Err(format!("no frame within {limit:?}"));
            }
            self.stream
                .set_read_timeout(Some(left))
                .map_err(|e| e.to_string())?;
            match self.stream.read(&mut buf) {
                Ok(0) => return Err("the server closed the connection".into()),
                Ok(n) => self.reader.push(&buf[..n]),
                Err(e) => return Err(format!("no frame within {limit:?}: {e}")),
            }
        }
    }

    /// Reads whatever comes until the connection is quiet for `quiet` (or
    /// closed).
    fn drain(&mut self, quiet: Duration) {
        let mut buf = [0u8; 4096];
        let _ = self.stream.set_read_timeout(Some(quiet));
        while let Ok(n) = self.stream.read(&mut buf) {
            if n == 0 {
                break;
            }
        }
    }
}

/// Takes bytes from the front of an input; zeros once it is used up.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    fn take(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a
    }

    fn proc(&mut self) -> Proc {
        let b = self.byte();
        let ns = match b % 4 {
            0 | 1 => NS,
            2 => "fuzz-elsewhere",
            _ => "srv-fuzz",
        };
        let rank = match b / 4 % 8 {
            6 => Rank::WILDCARD,
            7 => Rank(u32::from(self.byte()) << 16),
            r => Rank(u32::from(r)),
        };
        Proc::new(ns, rank).unwrap()
    }

    fn procs(&mut self) -> Vec<Proc> {
        let n = self.byte() % 5;
        (0..n).map(|_| self.proc()).collect()
    }

    fn key(&mut self) -> String {
        KEYS[usize::from(self.byte()) % KEYS.len()].to_owned()
    }

    fn value(&mut self) -> Value {
        match self.byte() % 3 {
            0 => Value::Uint32(u32::from(self.byte())),
            1 => Value::String("x".repeat(usize::from(self.byte()))),
            _ => Value::Bool(self.byte() % 2 == 0),
        }
    }

    /// Directives: maybe a `PMIX_TIMEOUT` of 0 or 1 s, maybe flags.
    fn info(&mut self) -> Vec<Info> {
        let b = self.byte();
        let mut v = Vec::new();
        if b & 1 != 0 {
            v.push(Info::new(attrs::TIMEOUT, Value::Int32(i32::from(b >> 1 & 1))).unwrap());
        }
        if b & 4 != 0 {
            v.push(Info::new(attrs::IMMEDIATE, Value::Bool(true)).unwrap());
        }
        if b & 8 != 0 {
            v.push(Info::new(attrs::COLLECT_DATA, Value::Bool(true)).unwrap());
        }
        if b & 16 != 0 {
            let k = self.key();
            let val = self.value();
            if let Ok(i) = Info::new(&k, val) {
                v.push(i);
            }
        }
        v
    }

    fn request(&mut self, variant: u8) -> Request {
        match variant {
            0 => Request::Finalize,
            1 => Request::Abort {
                status: Status(-i32::from(self.byte())),
                message: "fuzz".into(),
                procs: self.procs(),
            },
            2 => Request::Fence {
                procs: self.procs(),
                info: self.info(),
            },
            3 => Request::Get {
                proc: self.proc(),
                key: self.key(),
                info: self.info(),
            },
            4 => {
                let n = self.byte() % 4;
                Request::Commit {
                    entries: (0..n)
                        .map(|_| (self.key(), self.byte() % 4, self.value()))
                        .collect(),
                }
            }
            5 => {
                let mut event = EventMsg::new(
                    Status(-i32::from(self.byte()) - 100),
                    DataRange(self.byte() % 12),
                );
                event.custom_range = self.procs();
                event.info = self.info();
                Request::Notify {
                    event,
                    delivered: (0..self.byte() % 3)
                        .map(|_| u32::from(self.byte()))
                        .collect(),
                }
            }
            6 => Request::EventInterest {
                codes: (0..self.byte() % 4)
                    .map(|_| Status(-i32::from(self.byte())))
                    .collect(),
                default: self.byte() % 2 == 0,
            },
            7 => Request::Log {
                data: self.info(),
                directives: self.info(),
            },
            8 => Request::Publish { info: self.info() },
            9 => Request::Lookup {
                keys: (0..self.byte() % 3).map(|_| self.key()).collect(),
                info: self.info(),
            },
            _ => Request::Unpublish {
                keys: (0..self.byte() % 3).map(|_| self.key()).collect(),
                info: self.info(),
            },
        }
    }
}

/// Every message type a client may send (and the handshake's, which are
/// out of place after it): a raw frame takes one of these, or any number.
const REQUEST_TYPES: &[u16] = &[
    msg::HELLO,
    msg::FINALIZE,
    msg::ABORT,
    msg::FENCE,
    msg::GET,
    msg::COMMIT,
    msg::NOTIFY,
    msg::EVENT_INTEREST,
    msg::LOG,
    msg::PUBLISH,
    msg::LOOKUP,
    msg::UNPUBLISH,
    msg::CONNECT,
    msg::DISCONNECT,
    msg::SPAWN,
    msg::GROUP_CONSTRUCT,
    msg::GROUP_DESTRUCT,
    msg::GROUP_LEAVE,
    msg::GROUP_INVITE,
    msg::GROUP_JOIN,
    msg::GROUP_DECIDE,
    msg::GROUP_REPLACE,
    msg::QUERY,
    msg::TOOL_HELLO,
    msg::IOF_PULL,
    msg::IOF_DEREGISTER,
    msg::IOF_PUSH,
];

/// The frames an input stands for, encoded for protocol `version`.
pub fn frames(data: &[u8], version: u16) -> Vec<u8> {
    let mut b = Bytes(data);
    let mut out = Vec::new();
    while !b.0.is_empty() {
        let k = b.byte();
        let f = if k < 0x80 {
            let req = b.request(k % 11);
            frame::encode_frame(version, req.msg_type(), u32::from(k / 11), &req.encode())
        } else {
            let t = b.byte();
            let msg_type = if t < 0xF0 {
                REQUEST_TYPES[usize::from(t) % REQUEST_TYPES.len()]
            } else {
                u16::from(t) << 8 | u16::from(b.byte())
            };
            let tag = u32::from(b.byte());
            let n = usize::from(b.byte());
            let body = b.take(n).to_vec();
            frame::encode_frame(version, msg_type, tag, &body)
        };
        out.extend(f.unwrap());
    }
    out
}

/// A line of `/proc/self/status` (`Threads`), as a number.
fn self_status(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

impl Harness {
    /// A server under `dir` (a directory the caller made and removes).
    pub fn new(dir: &Path) -> Harness {
        let mut cfg = ServerConfig::new(Nspace::new("srv-fuzz").unwrap());
        cfg.tmpdir = dir.to_path_buf();
        cfg.max_clients = 8;
        cfg.max_nspaces = 4;
        cfg.job_store_bytes = 64 << 10;
        cfg.modex_store_bytes = 16 << 10;
        cfg.event_ring_cells = 64;
        cfg.max_pending_per_client = PER_CLIENT;
        cfg.log = false;
        let server = Server::init(cfg, Arc::new(NullHost)).unwrap();
        let ns = Nspace::new(NS).unwrap();
        let info = [Info::new(attrs::JOB_SIZE, Value::Uint32(RANKS)).unwrap()];
        server.register_nspace(&ns, RANKS, &info).unwrap();
        let m = std::fs::metadata("/proc/self").unwrap();
        for r in 0..RANKS {
            server
                .register_client(&proc_of(r), m.uid(), m.gid())
                .unwrap();
        }
        Harness {
            server,
            probe: None,
            inputs: 0,
        }
    }

    /// Feeds one input to the server as rank 0, then checks the server.
    pub fn run(&mut self, data: &[u8]) {
        self.inputs += 1;
        let mut fuzzed = Conn::open(&self.server, &proc_of(0))
            .unwrap_or_else(|e| panic!("input {}: rank 0 cannot connect: {e}", self.inputs));
        let bytes = frames(data, fuzzed.version);
        // The server may close the connection at a bad frame: fine.
        if fuzzed.stream.write_all(&bytes).is_ok() {
            if data.last().is_some_and(|b| b % 2 == 1) {
                let fin = Request::Finalize;
                if let Ok(f) = frame::encode_frame(fuzzed.version, fin.msg_type(), 1, &fin.encode())
                {
                    let _ = fuzzed.stream.write_all(&f);
                }
            }
            fuzzed.drain(Duration::from_millis(5));
        }
        drop(fuzzed);
        self.renew_rank0();
        self.check();
    }

    /// Once the server saw rank 0's connection end, deregisters it and
    /// registers it again: a proc connects once, each input is a new one.
    fn renew_rank0(&mut self) {
        let n = self.inputs;
        let p0 = proc_of(0);
        let t0 = Instant::now();
        while self.server.is_connected(&p0) {
            assert!(
                t0.elapsed() < ANSWER_LIMIT,
                "input {n}: the server did not see rank 0's connection end"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        self.server
            .deregister_client(&p0)
            .unwrap_or_else(|e| panic!("input {n}: deregister rank 0: {e}"));
        let m = std::fs::metadata("/proc/self").unwrap();
        self.server
            .register_client(&p0, m.uid(), m.gid())
            .unwrap_or_else(|e| panic!("input {n}: register rank 0 again: {e}"));
    }

    /// The server still answers a well-formed request and its bookkeeping
    /// is bounded.
    pub fn check(&mut self) {
        let n = self.inputs;
        let probe = match self.probe.take() {
            Some(p) => p,
            None => Conn::open(&self.server, &proc_of(1))
                .unwrap_or_else(|e| panic!("input {n}: the probe cannot connect: {e}")),
        };
        let mut probe = probe;
        let req = Request::Get {
            proc: Proc::new(NS, Rank::WILDCARD).unwrap(),
            key: attrs::JOB_SIZE.into(),
            info: Vec::new(),
        };
        let f = frame::encode_frame(probe.version, req.msg_type(), 7, &req.encode()).unwrap();
        probe
            .stream
            .write_all(&f)
            .unwrap_or_else(|e| panic!("input {n}: probe write: {e}"));
        // Skip what else the probe receives (one-way event notices).
        let t0 = Instant::now();
        loop {
            let (tag, body) = probe
                .next(ANSWER_LIMIT.saturating_sub(t0.elapsed()))
                .unwrap_or_else(|e| panic!("input {n}: the server did not answer the probe: {e}"));
            if tag != 7 {
                continue;
            }
            let r = Reply::decode(&body)
                .unwrap_or_else(|e| panic!("input {n}: bad reply to the probe: {e}"));
            assert!(
                r.status.is_success() && r.value == Some(Value::Uint32(RANKS)),
                "input {n}: the probe got {} {:?} {}",
                r.status,
                r.value,
                r.message
            );
            break;
        }
        self.probe = Some(probe);
        // The previous client's departure is handled by the reactor in its
        // own time: what it held may still be counted for a moment. A leak
        // never goes.
        let t0 = Instant::now();
        loop {
            let tracked = self.server.tracked_collectives();
            let held = self.server.held_requests();
            if tracked <= PER_CLIENT && held <= PER_CLIENT {
                break;
            }
            assert!(
                t0.elapsed() < ANSWER_LIMIT,
                "input {n}: {tracked} collectives tracked, {held} requests held"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        let t0 = Instant::now();
        while self.server.connections_in_handshake() != 0 {
            assert!(
                t0.elapsed() < ANSWER_LIMIT,
                "input {n}: a connection stays in its handshake"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        let threads = self_status("Threads");
        assert!(threads <= MAX_THREADS, "input {n}: {threads} threads");
    }

    /// Inputs run so far.
    pub fn inputs(&self) -> u64 {
        self.inputs
    }

    /// Stops the server.
    pub fn finish(self) {
        drop(self.probe);
        self.server.finalize();
    }
}

/// Well-formed seeds: one input per request variant and a few raw frames,
/// for the stable test to mutate (and for a libFuzzer corpus).
pub fn seeds() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = (0u8..11)
        .map(|k| {
            let mut s = vec![k + 11];
            s.extend((0..24u8).map(|i| i.wrapping_mul(37).wrapping_add(k)));
            s
        })
        .collect();
    v.push(vec![0x80, 2, 1, 3, 0xff, 0, 0]);
    v.push(vec![0x80, 0xf5, 0x12, 9, 0]);
    v
}
