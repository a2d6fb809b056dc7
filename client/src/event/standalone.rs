//! [`ProcessEvents`]: the event handlers of a process that is not a PMIx
//! client — a server (the resource manager's daemon) or a tool before it
//! connects. Same chain, same progress thread, same handler contract as the
//! client's; the only events are those this process raises for itself
//! (`PMIX_RANGE_PROC_LOCAL`).

use std::sync::Arc;
use std::time::Duration;

use pmix_core::event::{HandlerId, Outcome};
use pmix_core::{DataRange, Error, Info, Proc, Result, Status};
use pmix_shm::ring::{Ring, RingParams};

use super::{Event, EventCompletion, Events, LOCAL_QUEUE_CELLS};

/// How long the progress thread spins before it sleeps: nothing here is
/// latency-critical, so it sleeps at once.
const SPIN: Duration = Duration::ZERO;

/// This process's event handler chain when it is not connected to a server
/// as a client (`PMIx_Register_event_handler` in a server process).
/// Handlers run on a progress thread owned by this object; dropping the
/// last clone stops it.
#[derive(Clone, Debug)]
pub struct ProcessEvents {
    inner: Arc<Owner>,
}

/// Stops the progress thread when the last clone goes.
#[derive(Debug)]
struct Owner(Arc<Events>);

impl Drop for Owner {
    fn drop(&mut self) {
        self.0.shutdown();
    }
}

impl ProcessEvents {
    /// Starts the chain and its progress thread for the process `me`.
    ///
    /// # Errors
    /// `PMIX_ERR_INIT` when the thread or its queues cannot be made.
    pub fn start(me: Proc) -> Result<ProcessEvents> {
        // Nothing writes this ring: it gives the progress thread its
        // doorbell (commands and local events wake it through it).
        let inbound = Ring::new_heap(
            RingParams::new(LOCAL_QUEUE_CELLS)
                .map_err(|e| Error::with_context(Status::ERR_INIT, format!("event queue: {e}")))?,
        );
        Ok(ProcessEvents {
            inner: Arc::new(Owner(Events::start(me, inbound, SPIN, 0)?)),
        })
    }

    fn ev(&self) -> &Arc<Events> {
        &self.inner.0
    }

    /// As [`Client::register_event_handler`](crate::Client::register_event_handler).
    ///
    /// # Errors
    /// As there.
    pub fn register_event_handler(
        &self,
        codes: &[Status],
        info: &[Info],
        handler: impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static,
    ) -> Result<HandlerId> {
        self.ev().register(codes, info, Box::new(handler), |_| {})
    }

    /// As [`Client::register_event_handler_nb`](crate::Client::register_event_handler_nb).
    pub fn register_event_handler_nb(
        &self,
        codes: &[Status],
        info: &[Info],
        handler: impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static,
        done: impl FnOnce(Result<HandlerId>) + Send + 'static,
    ) {
        super::register_nb(self.ev(), codes, info, Box::new(handler), done);
    }

    /// As [`Client::deregister_event_handler`](crate::Client::deregister_event_handler).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an unknown id.
    pub fn deregister_event_handler(&self, id: HandlerId) -> Result<()> {
        self.ev().deregister(id)
    }

    /// Raises `status` to this process's handlers (`PMIX_RANGE_PROC_LOCAL`;
    /// the source is this process). `outcome`, when given, receives the
    /// chain's outcome once it ran.
    ///
    /// # Errors
    /// Those of [`EventMsg::for_notify`](pmix_core::event::EventMsg::for_notify); `PMIX_ERR_OUT_OF_RESOURCE` when
    /// the queue stayed full.
    pub fn notify(
        &self,
        status: Status,
        info: &[Info],
        outcome: Option<Box<dyn FnOnce(Outcome) + Send>>,
    ) -> Result<()> {
        let ev = self.ev();
        super::notify::with_draft(
            status,
            Some(ev.me.clone()),
            DataRange::PROC_LOCAL,
            info,
            |msg| ev.notify_local_draft(msg, outcome),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Rank;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn handlers_of_a_process_without_a_server_run_in_order() {
        let me = Proc::new("srv", Rank(0)).unwrap();
        let ev = ProcessEvents::start(me.clone()).unwrap();
        let (tx, rx) = mpsc::channel();
        let tx2 = tx.clone();
        let first = ev
            .register_event_handler(&[Status(-3001)], &[], move |e, done| {
                tx.send(("specific", e.status, e.source.cloned())).unwrap();
                done.done(Status::EVENT_NO_ACTION_TAKEN, vec![]);
            })
            .unwrap();
        let (rtx, rrx) = mpsc::channel();
        ev.register_event_handler_nb(
            &[],
            &[],
            move |e, done| {
                tx2.send(("default", e.status, e.source.cloned())).unwrap();
                done.done(Status::EVENT_ACTION_COMPLETE, vec![]);
            },
            move |r| rtx.send(r.is_ok()).unwrap(),
        );
        assert!(rrx.recv_timeout(Duration::from_secs(10)).unwrap());
        ev.notify(Status(-3001), &[], None).unwrap();
        let t = Duration::from_secs(10);
        assert_eq!(
            rx.recv_timeout(t).unwrap(),
            ("specific", Status(-3001), Some(me.clone()))
        );
        assert_eq!(
            rx.recv_timeout(t).unwrap(),
            ("default", Status(-3001), Some(me))
        );
        ev.deregister_event_handler(first).unwrap();
        assert_eq!(
            ev.deregister_event_handler(first).unwrap_err().status(),
            Status::ERR_BAD_PARAM
        );
    }
}
