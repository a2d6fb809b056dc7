//! A client's connection after a successful handshake, as the rest of the
//! server sees it: who is at the other end, what was agreed, and the
//! socket's writing half. Replies may be sent from any thread (host
//! completions, the timer, the direct-modex poller); the connection's own
//! thread reads (`listener.rs`).
//!
//! This module depends on nothing else of the crate: every operation
//! answers through it.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use parking_lot::Mutex;
use pmix_core::codec::frame;
use pmix_core::proto::{msg, Reply};
use pmix_core::{Proc, Result, Status};

/// One client's connection.
#[derive(Debug)]
pub(crate) struct Link {
    /// The client, as its handshake named it.
    pub(crate) proc: Proc,
    /// The protocol version agreed.
    pub(crate) version: u16,
    /// The capabilities agreed (`proto::caps`).
    pub(crate) caps: u64,
    writer: Mutex<UnixStream>,
}

impl Link {
    /// A connection that writes to `writer`.
    pub(crate) fn new(proc: Proc, version: u16, caps: u64, writer: UnixStream) -> Link {
        Link {
            proc,
            version,
            caps,
            writer: Mutex::new(writer),
        }
    }

    /// Sends a reply to request `msg_type` with `tag`. A failed write means
    /// the client is gone; its reader thread notices. Tag 0 marks a one-way
    /// message: it never gets a reply (whatever went wrong was logged).
    pub(crate) fn reply(&self, msg_type: u16, tag: u32, reply: &Reply) {
        if tag == 0 {
            return;
        }
        if let Ok(f) =
            frame::encode_frame(self.version, msg::REPLY | msg_type, tag, &reply.encode())
        {
            let _ = self.writer.lock().write_all(&f);
        }
    }

    /// Shuts the socket down (the reader thread then ends).
    pub(crate) fn close(&self) {
        let _ = self.writer.lock().shutdown(std::net::Shutdown::Both);
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
