//! What a connection may cost the server before its handshake succeeded:
//! how many connections may be in their handshake at once
//! ([`Admission`]), how long a handshake may take from the accept (an
//! absolute deadline, not restarted by each byte), and how big a `HELLO`
//! may be ([`MAX_HELLO_BODY`]; a bigger frame header is refused before
//! its body is read, [`HelloBuf`]). The reactor (`reactor.rs`) runs each
//! handshake within these.

use std::io::{ErrorKind, Read};
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use pmix_core::codec::frame::{Frame, FrameHeader, HEADER_LEN};
use pmix_core::{Error, Result, Status};
use pmix_shm::sync::{AtomicUsize, Ordering};

/// Largest `HELLO` body the server reads (bytes).
pub(crate) const MAX_HELLO_BODY: usize = 4 << 10;

/// Counts the connections in their handshake, up to a limit.
#[derive(Debug)]
pub(crate) struct Admission {
    handshaking: Arc<AtomicUsize>,
    limit: usize,
}

/// One admitted connection's place; given back when dropped (the
/// handshake ended, whichever way).
#[derive(Debug)]
pub(crate) struct Admitted {
    handshaking: Arc<AtomicUsize>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        // ORDERING: Relaxed — a counter; nothing else is published by it.
        self.handshaking.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Admission {
    /// At most `limit` connections in their handshake at once.
    pub(crate) fn new(limit: usize) -> Admission {
        Admission {
            handshaking: Arc::new(AtomicUsize::new(0)),
            limit,
        }
    }

    /// A place for one more connection, or `None` (with the count) when
    /// `limit` connections are in their handshake already.
    pub(crate) fn admit(&self) -> std::result::Result<Admitted, usize> {
        // ORDERING: Relaxed — only the reactor thread increments, so the
        // check and the increment cannot race another admission; a
        // decrement seen late only refuses one connection more.
        let now = self.handshaking.load(Ordering::Relaxed);
        if now >= self.limit {
            return Err(now);
        }
        // ORDERING: Relaxed — see above.
        self.handshaking.fetch_add(1, Ordering::Relaxed);
        Ok(Admitted {
            handshaking: Arc::clone(&self.handshaking),
        })
    }

    /// Connections in their handshake now.
    pub(crate) fn in_handshake(&self) -> usize {
        // ORDERING: Relaxed — a figure for tests and logs.
        self.handshaking.load(Ordering::Relaxed)
    }
}

/// A `HELLO` as it arrives on a non-blocking socket: never more than
/// the frame's own bytes are read (what follows belongs to the requests),
/// and a header announcing a body over [`MAX_HELLO_BODY`] is refused
/// before any of the body is read. The deadline is the reactor's.
#[derive(Debug, Default)]
pub(crate) struct HelloBuf {
    buf: Vec<u8>,
}

/// How far a [`HelloBuf`] got.
#[derive(Debug)]
pub(crate) enum HelloRead {
    /// More bytes are needed; the socket has none now.
    Pending,
    /// The peer closed the socket before sending anything.
    Closed,
    /// The whole first frame.
    Frame(Frame),
}

impl HelloBuf {
    /// Reads what the socket has of the first frame.
    ///
    /// # Errors
    /// The frame header's error for a bad header,
    /// `PMIX_ERR_HANDSHAKE_FAILED` for a hello over the limit, `PMIX_ERR_LOST_CONNECTION` for a socket error or a peer that
    /// closed the socket in the middle of its hello.
    pub(crate) fn read(&mut self, mut stream: &UnixStream) -> Result<HelloRead> {
        let mut chunk = [0u8; 512];
        loop {
            let want = if self.buf.len() < HEADER_LEN {
                HEADER_LEN
            } else {
                let header = FrameHeader::parse(&self.buf[..HEADER_LEN])?;
                let len = header.len as usize;
                if len > MAX_HELLO_BODY {
                    return Err(Error::with_context(
                        Status::ERR_HANDSHAKE_FAILED,
                        format!("a hello of {len} bytes announced; the limit is {MAX_HELLO_BODY}"),
                    ));
                }
                if self.buf.len() == HEADER_LEN + len {
                    let body = self.buf.split_off(HEADER_LEN);
                    return Ok(HelloRead::Frame(Frame { header, body }));
                }
                HEADER_LEN + len
            };
            let need = (want - self.buf.len()).min(chunk.len());
            match stream.read(&mut chunk[..need]) {
                Ok(0) if self.buf.is_empty() => return Ok(HelloRead::Closed),
                Ok(0) => {
                    return Err(Error::with_context(
                        Status::ERR_LOST_CONNECTION,
                        "the peer closed the socket in the middle of its hello",
                    ))
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(HelloRead::Pending),
                Err(e) => {
                    return Err(Error::with_context(
                        Status::ERR_LOST_CONNECTION,
                        format!("read: {e}"),
                    ))
                }
            }
        }
    }
}
