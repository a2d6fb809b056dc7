//! A client's connection after a successful handshake, as the rest of the
//! server sees it: who is at the other end, what was agreed, and how to
//! answer it. Replies may be sent from any thread (the reactor, host
//! completions, the timer, the direct-modex poller) and never wait for
//! the client: each is written at once as far as the socket takes it, the
//! rest queued (bounded by `ServerConfig::max_outbound_bytes`) and written
//! by the reactor when the socket has room again. A client whose queue
//! would overflow is disconnected: it does not read its socket, and
//! nobody else waits for it.
//!
//! This module depends only on the leaves `outbound.rs` and `nudge.rs`:
//! every operation answers through it.

use std::os::fd::BorrowedFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use mio::Token;
use parking_lot::Mutex;
use pmix_core::codec::frame;
use pmix_core::proto::{msg, Reply};
use pmix_core::{Proc, Result, Status};

use crate::nudge::{Nudge, Nudges};
use crate::outbound::{send_now, Outbound};

/// One client's connection.
#[derive(Debug)]
pub(crate) struct Link {
    /// The client, as its handshake named it.
    pub(crate) proc: Proc,
    /// The protocol version agreed.
    pub(crate) version: u16,
    /// The capabilities agreed (`proto::caps`).
    pub(crate) caps: u64,
    stream: Arc<UnixStream>,
    token: Token,
    nudges: Arc<Nudges>,
    out: Mutex<Writer>,
}

/// The writing side, behind the connection's lock.
#[derive(Debug)]
struct Writer {
    queue: Outbound,
    /// Why the connection ended (no more writes); `Some("")` for a close
    /// by the server itself.
    ended: Option<String>,
}

impl Link {
    /// A connection on the non-blocking `stream`, known to the reactor as
    /// `token`; at most `max_outbound` bytes wait for the client.
    pub(crate) fn new(
        proc: Proc,
        (version, caps): (u16, u64),
        stream: Arc<UnixStream>,
        (token, nudges): (Token, Arc<Nudges>),
        max_outbound: usize,
    ) -> Link {
        Link {
            proc,
            version,
            caps,
            stream,
            token,
            nudges,
            out: Mutex::new(Writer {
                queue: Outbound::new(max_outbound),
                ended: None,
            }),
        }
    }

    /// Sends a reply to request `msg_type` with `tag`. Tag 0 marks a
    /// one-way message: it never gets a reply (whatever went wrong was
    /// logged).
    pub(crate) fn reply(&self, msg_type: u16, tag: u32, reply: &Reply) {
        if tag == 0 {
            return;
        }
        if let Ok(f) =
            frame::encode_frame(self.version, msg::REPLY | msg_type, tag, &reply.encode())
        {
            self.send_bytes(f);
        }
    }

    /// Sends the one-way (tag 0) message `msg_type` with `body` (an
    /// `IOF_DELIVER`), queued like a reply.
    pub(crate) fn push(&self, msg_type: u16, body: &[u8]) {
        if let Ok(f) = frame::encode_frame(self.version, msg_type, 0, body) {
            self.send_bytes(f);
        }
    }

    /// Sends the successful `WELCOME` frame `f` with the descriptor `fd`
    /// (`SCM_RIGHTS`, with its first bytes); the bytes the socket does not
    /// take at once follow through the queue.
    ///
    /// # Errors
    /// The socket's error (`WouldBlock` when nothing could be sent); the
    /// connection is then ended.
    pub(crate) fn send_welcome(&self, f: &[u8], fd: BorrowedFd<'_>) -> std::io::Result<()> {
        let mut out = self.out.lock();
        let sent = pmix_shm::fdpass::try_send_with_fds(&self.stream, f, &[fd]).and_then(|n| {
            // The descriptor went with the first bytes; the rest waits for
            // room like any reply (nothing else was sent before it).
            out.queue
                .push(f[n..].to_vec())
                .map(|()| n)
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))
        });
        match sent {
            Ok(n) if n < f.len() => {
                drop(out);
                self.nudges.send(Nudge::Flush(self.token));
                Ok(())
            }
            Ok(_) => Ok(()),
            Err(e) => {
                out.ended = Some(format!("welcome: {e}"));
                Err(e)
            }
        }
    }

    /// Writes `f` at once as far as the socket takes it, and queues the
    /// rest; a queue that would overflow ends the connection.
    fn send_bytes(&self, mut f: Vec<u8>) {
        let mut out = self.out.lock();
        if out.ended.is_some() {
            return;
        }
        if out.queue.is_empty() {
            // The fast path: nothing waits, so these bytes may go at once.
            match send_now(&self.stream, &f) {
                Ok(n) if n == f.len() => return,
                Ok(n) => {
                    f.drain(..n);
                }
                Err(e) => {
                    out.ended = Some(format!("write failed: {e}"));
                    drop(out);
                    return self.nudges.send(Nudge::Close(self.token));
                }
            }
        }
        let was_empty = out.queue.is_empty();
        match out.queue.push(f) {
            Ok(()) => {
                drop(out);
                if was_empty {
                    self.nudges.send(Nudge::Flush(self.token));
                }
            }
            Err(o) => {
                out.ended = Some(format!(
                    "it does not read its socket: {} reply bytes wait for it and {} more would \
                     exceed the server's limit of {} (ServerConfig::max_outbound_bytes)",
                    o.queued, o.adding, o.cap
                ));
                out.queue.clear();
                drop(out);
                let _ = self.stream.shutdown(std::net::Shutdown::Both);
                self.nudges.send(Nudge::Close(self.token));
            }
        }
    }

    /// Writes what waits, as far as the socket takes it (the reactor, when
    /// the socket is writable): `Some(true)` when nothing waits any more,
    /// `Some(false)` when bytes still wait for room, `None` when the
    /// connection is over.
    pub(crate) fn flush(&self) -> Option<bool> {
        let mut out = self.out.lock();
        if out.ended.is_some() {
            return None;
        }
        match out.queue.flush(&self.stream) {
            Ok(done) => Some(done),
            Err(e) => {
                out.ended = Some(format!("write failed: {e}"));
                out.queue.clear();
                None
            }
        }
    }

    /// Why the connection ended, if it did: empty for a close by the
    /// server itself.
    pub(crate) fn ended(&self) -> Option<String> {
        self.out.lock().ended.clone()
    }

    /// Ends the connection: nothing more is written, the socket is shut
    /// down, and the reactor forgets it (the client is then lost unless
    /// it finalized).
    pub(crate) fn close(&self) {
        self.end("");
        self.nudges.send(Nudge::Close(self.token));
    }

    /// Ends the connection without telling the reactor (the reactor
    /// itself, dropping it).
    pub(crate) fn end(&self, why: &str) {
        {
            let mut out = self.out.lock();
            if out.ended.is_none() {
                out.ended = Some(why.to_owned());
            }
            out.queue.clear();
        }
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// Where the answer to one request goes: the connection, the request's
/// type and its tag.
#[derive(Clone, Debug)]
pub(crate) struct ReplyTo {
    link: Arc<Link>,
    msg_type: u16,
    tag: u32,
}

impl ReplyTo {
    /// The answer to request `msg_type` with `tag` on `link`.
    pub(crate) fn new(link: &Arc<Link>, msg_type: u16, tag: u32) -> ReplyTo {
        ReplyTo {
            link: Arc::clone(link),
            msg_type,
            tag,
        }
    }

    /// The client that asked.
    pub(crate) fn proc(&self) -> &Proc {
        &self.link.proc
    }

    /// Whether the asking client's connection has ended.
    pub(crate) fn requester_gone(&self) -> bool {
        self.link.ended().is_some()
    }

    /// Sends `reply`.
    pub(crate) fn send(&self, reply: &Reply) {
        self.link.reply(self.msg_type, self.tag, reply);
    }

    /// Sends `PMIX_SUCCESS`, or the error.
    pub(crate) fn send_status(&self, r: Result<()>) {
        self.send(&match r {
            Ok(()) => Reply::status(Status::SUCCESS),
            Err(e) => Reply::error(&e),
        });
    }

    /// A host completion (`host::Completion<T>`) that answers with
    /// `to_reply` of the host's value, or with its error.
    pub(crate) fn completion<T: 'static>(
        self,
        to_reply: impl FnOnce(T) -> Reply + Send + 'static,
    ) -> Box<dyn FnOnce(Result<T>) + Send + 'static> {
        Box::new(move |r: Result<T>| {
            self.send(&match r {
                Ok(v) => to_reply(v),
                Err(e) => Reply::error(&e),
            });
        })
    }
}
