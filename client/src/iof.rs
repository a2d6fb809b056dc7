//! IO forwarding (`PMIx_IOF_pull`, `PMIx_IOF_deregister`): the handlers
//! this process registered for other processes' output, and the chunks
//! the server sends (`IOF_DELIVER`, on the connection's reader thread).
//!
//! A chunk names the handlers that pulled it; each runs with the source,
//! the channel and the bytes. A chunk naming none was forwarded because
//! this process spawned its source with `PMIX_FWD_STDOUT` /
//! `PMIX_FWD_STDERR` and pulled nothing of it: it goes to this process's
//! own stdout or stderr, as OpenPMIx's tool library writes it.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use parking_lot::Mutex;
use pmix_core::proto::iof::{IofChunk, STDERR_CHANNEL, STDOUT_CHANNEL};
use pmix_core::proto::{caps, Request};
use pmix_core::{Error, Proc, Result, Status};

use crate::Client;

/// A handler of forwarded output: its id, the source, the channel bit,
/// the bytes.
pub type IofHandler = Arc<dyn Fn(u32, &Proc, u16, &[u8]) + Send + Sync>;

/// This process's IOF handlers, by id.
#[derive(Default)]
pub(crate) struct IofHandlers {
    next: Mutex<u32>,
    handlers: Mutex<HashMap<u32, IofHandler>>,
}

impl IofHandlers {
    /// Delivers `chunk` (on the reader thread): to its handlers, or to
    /// this process's own stream when it names none that is still here.
    pub(crate) fn deliver(&self, chunk: &IofChunk) {
        let hs: Vec<(u32, IofHandler)> = {
            let h = self.handlers.lock();
            chunk
                .ids
                .iter()
                .filter_map(|id| h.get(id).map(|f| (*id, Arc::clone(f))))
                .collect()
        };
        if hs.is_empty() {
            if !chunk.ids.is_empty() {
                return; // pulled by handlers deregistered since
            }
            let r = if chunk.channel & STDERR_CHANNEL != 0 {
                let mut e = std::io::stderr().lock();
                e.write_all(&chunk.data).and_then(|()| e.flush())
            } else {
                let mut o = std::io::stdout().lock();
                o.write_all(&chunk.data).and_then(|()| o.flush())
            };
            let _ = r;
            return;
        }
        for (id, h) in hs {
            h(id, &chunk.source, chunk.channel, &chunk.data);
        }
    }
}

impl Client {
    /// `PMIx_IOF_pull`: runs `handler` (on the connection's reader thread;
    /// keep it short, and make no blocking PMIx call in it) with its id,
    /// the source, the channel and the bytes of every chunk of output that `procs` (a wildcard
    /// rank: the whole namespace) write on the `channels` bits
    /// (`pmix_core::proto::iof::STDOUT_CHANNEL`, `STDERR_CHANNEL`) from now
    /// on, as the server's host forwards it. Returns the handler's id for
    /// [`Client::iof_deregister`].
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` when the server speaks no tools (protocol
    /// version < 5); `PMIX_ERR_BAD_PARAM` for no procs or no channel.
    #[doc(alias = "PMIx_IOF_pull")]
    pub fn iof_pull(
        &self,
        procs: &[Proc],
        channels: u16,
        handler: impl Fn(u32, &Proc, u16, &[u8]) + Send + Sync + 'static,
    ) -> Result<u32> {
        if self.inner.caps & caps::TOOL == 0 {
            return Err(Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                "IOF pull: the server does not forward output (protocol version < 5)",
            ));
        }
        if procs.is_empty() || channels & (STDOUT_CHANNEL | STDERR_CHANNEL) == 0 {
            return Err(Error::with_context(
                Status::ERR_BAD_PARAM,
                "IOF pull: name at least one proc and the stdout or stderr channel",
            ));
        }
        let iof = &self.inner.iof;
        let id = {
            let mut n = iof.next.lock();
            *n += 1;
            *n
        };
        iof.handlers.lock().insert(id, Arc::new(handler));
        let req = Request::IofPull {
            id,
            procs: procs.to_vec(),
            channels,
        };
        let r = self
            .inner
            .conn
            .request(&req, None)
            .and_then(|r| r.into_result());
        match r {
            Ok(_) => Ok(id),
            Err(e) => {
                iof.handlers.lock().remove(&id);
                Err(e)
            }
        }
    }

    /// `PMIx_IOF_deregister`: handler `id` gets no more output.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for an id this process does not hold.
    #[doc(alias = "PMIx_IOF_deregister")]
    pub fn iof_deregister(&self, id: u32) -> Result<()> {
        if self.inner.iof.handlers.lock().remove(&id).is_none() {
            return Err(Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("IOF deregister: no handler {id} in this process"),
            ));
        }
        self.inner
            .conn
            .request(&Request::IofDeregister { id }, None)
            .and_then(|r| r.into_result())
            .map(|_| ())
    }
}
