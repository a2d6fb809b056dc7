//! A client that speaks the protocol on its own socket, as a client of
//! another implementation would (`newerpeer`, `rawgets`): the hello, and
//! framed requests and replies, each wait bounded. It reports a failure
//! as a `FAIL: …` line and exit status 1.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use pmix_core::codec::frame::{self, Frame, FrameReader};
use pmix_core::proto::{self, caps, msg, Hello, Reply, Welcome};
use pmix_core::Proc;

/// Prints `FAIL: msg` and exits 1.
pub fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

/// The environment variable `k`, or a failure.
pub fn env(k: &str) -> String {
    std::env::var(k).unwrap_or_else(|_| fail(format!("no {k}")))
}

/// A connection past its hello.
pub struct Raw {
    pub stream: UnixStream,
    reader: FrameReader,
    /// The protocol version the server chose.
    pub version: u16,
}

impl Raw {
    /// The next frame, within `limit`.
    pub fn next(&mut self, limit: Duration) -> Frame {
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

    /// Sends `body` as a frame of `msg_type` with `tag`.
    pub fn send(&mut self, msg_type: u16, tag: u32, body: &[u8]) {
        let f = frame::encode_frame(self.version, msg_type, tag, body).unwrap();
        self.stream
            .write_all(&f)
            .unwrap_or_else(|e| fail(format!("send: {e}")));
    }

    /// Sends `body` as a request of `msg_type` and returns its reply.
    pub fn ask(&mut self, msg_type: u16, tag: u32, body: &[u8]) -> Reply {
        self.send(msg_type, tag, body);
        let f = self.next(Duration::from_secs(30));
        if f.header.tag != tag {
            fail(format!("reply tag {}, not {tag}", f.header.tag));
        }
        Reply::decode(&f.body).unwrap_or_else(|e| fail(format!("reply: {e}")))
    }
}

/// Connects to the server `setup_fork` named as `me`, with every
/// capability but `SHM_MODEX` (an implementation that asks the server for
/// peers' data), and says hello.
pub fn connect(me: Proc) -> Raw {
    let hello = Hello {
        min_version: proto::PROTOCOL_VERSION,
        max_version: proto::PROTOCOL_VERSION,
        caps: caps::ALL & !caps::SHM_MODEX,
        proc: me,
        pid: std::process::id(),
        secret: std::env::var(proto::env::CLIENT_SECRET).ok(),
    };
    let mut raw = Raw {
        stream: UnixStream::connect(env(proto::env::SERVER_SOCKET))
            .unwrap_or_else(|e| fail(format!("connect: {e}"))),
        reader: FrameReader::new(),
        version: hello.max_version,
    };
    raw.send(msg::HELLO, 0, &hello.encode());
    let w = raw.next(Duration::from_secs(10));
    let welcome = Welcome::decode(&w.body).unwrap_or_else(|e| fail(format!("welcome: {e}")));
    if !welcome.status.is_success() {
        fail(format!("refused: {}", welcome.message));
    }
    raw.version = welcome.version;
    raw
}
