//! Requests of each client that the host has not answered yet (publish,
//! lookup, unpublish, log, a remote `get`'s direct modex), counted so
//! that one client cannot pile up the host's pending work without bound:
//! beyond `ServerConfig::max_pending_per_client` such requests of one
//! client a new one is answered `PMIX_ERR_OUT_OF_RESOURCE`. A [`Ticket`]
//! counts one request until it is dropped (with the host's completion,
//! answered or not).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use pmix_core::{Error, Proc, Result, Status};

/// The host requests in flight, by client.
#[derive(Debug)]
pub(crate) struct InFlight {
    counts: Arc<Mutex<HashMap<Proc, usize>>>,
    limit: usize,
}

/// One request in flight; counted until dropped.
#[derive(Debug)]
pub(crate) struct Ticket {
    counts: Arc<Mutex<HashMap<Proc, usize>>>,
    proc: Proc,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut c = self.counts.lock();
        if let Some(n) = c.get_mut(&self.proc) {
            *n -= 1;
            if *n == 0 {
                c.remove(&self.proc);
            }
        }
    }
}

impl InFlight {
    /// At most `limit` requests in flight per client.
    pub(crate) fn new(limit: usize) -> InFlight {
        InFlight {
            counts: Arc::default(),
            limit,
        }
    }

    /// A ticket for one more request of `proc` (`what` names it in the
    /// error).
    ///
    /// # Errors
    /// `PMIX_ERR_OUT_OF_RESOURCE` when `proc` has `limit` in flight.
    pub(crate) fn take(&self, proc: &Proc, what: &str) -> Result<Ticket> {
        let mut c = self.counts.lock();
        let n = c.entry(proc.clone()).or_insert(0);
        if *n >= self.limit {
            return Err(Error::with_context(
                Status::ERR_OUT_OF_RESOURCE,
                format!(
                    "{what}: {proc:?} already has {} requests the host has not answered, the \
                     server's limit per client (ServerConfig::max_pending_per_client)",
                    *n
                ),
            ));
        }
        *n += 1;
        Ok(Ticket {
            counts: Arc::clone(&self.counts),
            proc: proc.clone(),
        })
    }

    /// Requests in flight now, every client together.
    pub(crate) fn total(&self) -> usize {
        self.counts.lock().values().sum()
    }
}
