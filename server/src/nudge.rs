//! How any thread tells the reactor (`reactor.rs`) that a connection needs
//! it: a queue of [`Nudge`]s and a `mio::Waker` that wakes the reactor's
//! `poll`. Replies sent from host completions, the timer or the
//! direct-modex poller, the host's answer to `client_connected`, a
//! connection closed by the host or overflowing its queue, and
//! `Server::stop` all come this way.

use std::sync::Arc;

use mio::{Token, Waker};
use parking_lot::Mutex;
use pmix_core::Result;

/// What a connection (by its reactor token) needs from the reactor.
#[derive(Debug)]
pub(crate) enum Nudge {
    /// Bytes wait in its outbound queue: write them when it is writable.
    Flush(Token),
    /// End it (closed by the server, or its queue overflowed).
    Close(Token),
    /// The host answered `client_connected` for its handshake.
    HostAnswered(Token, Result<()>),
    /// The host gave a tool its identity (`tool_connected`).
    ToolIdentity(Token, Result<pmix_core::Proc>),
}

/// The reactor's inbox.
#[derive(Debug)]
pub(crate) struct Nudges {
    waker: Waker,
    pending: Mutex<Vec<Nudge>>,
}

impl Nudges {
    /// An inbox whose [`send`](Self::send) wakes `waker`'s poll.
    pub(crate) fn new(waker: Waker) -> Arc<Nudges> {
        Arc::new(Nudges {
            waker,
            pending: Mutex::new(Vec::new()),
        })
    }

    /// Queues `n` and wakes the reactor.
    pub(crate) fn send(&self, n: Nudge) {
        self.pending.lock().push(n);
        self.wake();
    }

    /// Wakes the reactor (to see a stop, or queued nudges).
    pub(crate) fn wake(&self) {
        // A failed wake leaves the nudge queued: the reactor sees it at its
        // next wake-up, at the latest at its next deadline.
        let _ = self.waker.wake();
    }

    /// Everything queued so far, oldest first.
    pub(crate) fn take(&self) -> Vec<Nudge> {
        std::mem::take(&mut *self.pending.lock())
    }
}
