//! A client process that speaks the protocol on its own socket (as a
//! client of another implementation would): it asks the server for
//! `get`s of a local peer's key, which the server holds until the peer
//! commits. Driven by `launcher/tests/client_caps.rs`:
//! `rawgets <count> <refused>`, with the environment `setup_fork` gave it.
//!
//! It sends `<count>` `GET`s of rank 1's `late-key` (after the go file
//! `$CAPCLIENT_GO1` exists when `<refused>` is 0); the last `<refused>`
//! must be answered at once `PMIX_ERR_OUT_OF_RESOURCE` naming the limit,
//! the others (held) with the value 7 once rank 1 commits it. Prints `ok …`
//! lines, or `FAIL: …` and exits 1.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use pmix_core::codec::frame::{self, Frame, FrameReader};
use pmix_core::proto::{self, caps, msg, Hello, Reply, Request, Welcome};
use pmix_core::{attrs, Info, Proc, Rank, Status, Value};

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn env(k: &str) -> String {
    std::env::var(k).unwrap_or_else(|_| fail(format!("no {k}")))
}

struct Raw {
    stream: UnixStream,
    reader: FrameReader,
}

impl Raw {
    fn next(&mut self, limit: Duration) -> Frame {
        self.stream.set_read_timeout(Some(limit)).unwrap();
        let mut buf = [0u8; 4096];
        loop {
            match self.reader.next_frame() {
                Ok(Some(f)) => return f,
                Ok(None) => {}
                Err(e) => fail(format!("bad frame: {e}")),
            }
            match self.stream.read(&mut buf) {
                Ok(0) => fail("the server closed the socket".into()),
                Ok(n) => self.reader.push(&buf[..n]),
                Err(e) => fail(format!("no frame within {limit:?}: {e}")),
            }
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let count: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let refused: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let ns = env(proto::env::NAMESPACE);
    let rank: u32 = env(proto::env::RANK).parse().unwrap();
    let me = Proc::new(&ns, Rank(rank)).unwrap();
    let peer = Proc::new(&ns, Rank(1)).unwrap();
    let hello = Hello {
        min_version: proto::PROTOCOL_VERSION,
        max_version: proto::PROTOCOL_VERSION,
        // No SHM_MODEX: an implementation that asks the server for peers'
        // data.
        caps: caps::ALL & !caps::SHM_MODEX,
        proc: me,
        pid: std::process::id(),
        secret: std::env::var(proto::env::CLIENT_SECRET).ok(),
    };
    let mut raw = Raw {
        stream: UnixStream::connect(env(proto::env::SERVER_SOCKET))
            .unwrap_or_else(|e| fail(format!("connect: {e}"))),
        reader: FrameReader::new(),
    };
    let f = frame::encode_frame(hello.max_version, msg::HELLO, 0, &hello.encode()).unwrap();
    raw.stream.write_all(&f).unwrap();
    let w = raw.next(Duration::from_secs(10));
    let welcome = Welcome::decode(&w.body).unwrap_or_else(|e| fail(format!("welcome: {e}")));
    if !welcome.status.is_success() {
        fail(format!("refused: {}", welcome.message));
    }
    if refused == 0 {
        let path = env("CAPCLIENT_GO1");
        let t0 = Instant::now();
        while !std::path::Path::new(&path).exists() {
            if t0.elapsed() > Duration::from_secs(30) {
                fail("no go 1 within 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let info = vec![Info::new(attrs::TIMEOUT, Value::Int32(30)).unwrap()];
    let req = Request::Get {
        proc: peer,
        key: "late-key".into(),
        info,
    };
    let t0 = Instant::now();
    for tag in 1..=count {
        let f = frame::encode_frame(welcome.version, req.msg_type(), tag, &req.encode()).unwrap();
        raw.stream.write_all(&f).unwrap();
    }
    let mut answered = 0;
    let mut refusals = 0;
    while answered + refusals < count {
        let f = raw.next(Duration::from_secs(30));
        let r = Reply::decode(&f.body).unwrap_or_else(|e| fail(format!("reply: {e}")));
        if r.status == Status::ERR_OUT_OF_RESOURCE {
            if !r.message.contains("max_pending_per_client") {
                fail(format!(
                    "the refusal does not name the limit: {}",
                    r.message
                ));
            }
            if answered > 0 {
                fail(format!("refused after an answer: {}", r.message));
            }
            refusals += 1;
            if refusals == refused {
                println!(
                    "ok refused {refused} gets in {} ms: {}",
                    t0.elapsed().as_millis(),
                    r.message
                );
            }
        } else if r.status.is_success() && r.value == Some(Value::Uint32(7)) {
            answered += 1;
        } else {
            fail(format!("tag {}: {} {}", f.header.tag, r.status, r.message));
        }
    }
    if refusals != refused {
        fail(format!("{refusals} refusals, not {refused}"));
    }
    println!("ok {answered} held gets answered");
}
