//! What a connection may cost the server before its handshake succeeded:
//! how many connections may be in their handshake at once
//! ([`Admission`]), how long a handshake may take from the accept (an
//! absolute deadline, not restarted by each byte), and how big a `HELLO`
//! may be ([`MAX_HELLO_BODY`]; a bigger frame header is refused before
//! its body is read). `listener.rs` runs the handshake within these.

use std::io::{ErrorKind, Read};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

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
        // ORDERING: Relaxed — only the accept thread increments, so the
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

/// Reads exactly `buf.len()` bytes before `deadline`. `Ok(false)`: the
/// peer closed the socket before sending anything.
fn read_exact_by(
    stream: &mut UnixStream,
    buf: &mut [u8],
    deadline: Instant,
    span: Duration,
) -> Result<bool> {
    let timeout = || {
        Error::with_context(
            Status::ERR_TIMEOUT,
            format!("no complete hello within {span:?} of connecting"),
        )
    };
    let mut got = 0;
    while got < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timeout());
        }
        // The socket's timeout is re-armed with what is left of the
        // deadline before each read: a byte does not buy more time.
        stream.set_read_timeout(Some(left)).map_err(|e| {
            Error::with_context(Status::ERR_LOST_CONNECTION, format!("socket: {e}"))
        })?;
        match stream.read(&mut buf[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => {
                return Err(Error::with_context(
                    Status::ERR_LOST_CONNECTION,
                    "the peer closed the socket in the middle of its hello",
                ))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Err(timeout());
            }
            Err(e) => {
                return Err(Error::with_context(
                    Status::ERR_LOST_CONNECTION,
                    format!("read: {e}"),
                ))
            }
        }
    }
    Ok(true)
}

/// The first frame of a connection, read within `span` of its accept
/// (`accepted`) without
/// reading past it (the bytes after it belong to the requests): `None`
/// when the peer closed the socket at once. A header announcing a body
/// over [`MAX_HELLO_BODY`] is refused before any of the body is read.
pub(crate) fn read_first_frame(
    stream: &mut UnixStream,
    accepted: Instant,
    span: Duration,
) -> Result<Option<Frame>> {
    let deadline = accepted + span;
    let mut head = [0u8; HEADER_LEN];
    if !read_exact_by(stream, &mut head, deadline, span)? {
        return Ok(None);
    }
    let header = FrameHeader::parse(&head)?;
    let len = header.len as usize;
    if len > MAX_HELLO_BODY {
        return Err(Error::with_context(
            Status::ERR_HANDSHAKE_FAILED,
            format!("a hello of {len} bytes announced; the limit is {MAX_HELLO_BODY}"),
        ));
    }
    let mut body = vec![0u8; len];
    if !read_exact_by(stream, &mut body, deadline, span)? && len > 0 {
        return Err(Error::with_context(
            Status::ERR_LOST_CONNECTION,
            "the peer closed the socket after its hello's header",
        ));
    }
    Ok(Some(Frame { header, body }))
}
