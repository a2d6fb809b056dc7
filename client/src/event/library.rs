//! The library's own event consumers (connect, group and debugger
//! machinery): a step of dispatch that runs before the user's handler
//! chain, for every event, whatever the chain does.
//!
//! A user handler registered `PMIX_EVENT_HDLR_FIRST` that answers
//! `PMIX_EVENT_ACTION_COMPLETE` ends the user chain; it must never keep an
//! event from the library, or a connect waiting for a peer's departure
//! would wait for ever. So the progress thread hands each event to every
//! library consumer first, then starts the chain. A consumer runs on the
//! progress thread: it must return quickly and never block on the server.
//! Consumers are an immutable snapshot, like the chain: adding or removing
//! one never blocks dispatch.

use std::sync::Arc;

use pmix_core::event::{EventMsg, Outcome};
use pmix_core::Status;

use super::Events;

/// A library consumer: sees every event this client receives (ring,
/// PROC_LOCAL queue, internal events), before the user's handlers.
pub(crate) type LibraryFn = dyn Fn(&EventMsg) + Send + Sync;

/// The consumers and the id of each.
pub(crate) type Consumers = Vec<(u64, Arc<LibraryFn>)>;

/// The library's decision step: sees the outcome of the user's chain
/// (its results) for the events whose handlers decide what the library
/// does next (`client/src/group_decide.rs`).
pub(crate) type DecideFn = dyn Fn(&EventMsg, &Outcome) + Send + Sync;

/// The events whose chain outcome goes to the decision step.
pub(crate) fn decided(status: Status) -> bool {
    status == Status::GROUP_LEADER_FAILED
        || status == Status::GROUP_INVITE_FAILED
        || status == Status::GROUP_INVITE_ACCEPTED
        || status == Status::GROUP_INVITE_DECLINED
}

// Registered by the library's own machinery; the connect path needs no
// client-side consumer yet (the server settles departures), the group and
// debugger machinery of later issues will.
#[allow(dead_code)]
impl Events {
    /// Adds a library consumer; the id removes it.
    pub(crate) fn add_library_consumer(&self, f: Arc<LibraryFn>) -> u64 {
        let _g = self.registry.lock();
        let id = self.next_id().seq;
        let _ = self.library.update(|c| {
            let mut next = c.clone();
            next.push((id, Arc::clone(&f)));
            Ok::<_, ()>(next)
        });
        id
    }

    /// Removes the library consumer `id` (unknown ids are ignored).
    pub(crate) fn remove_library_consumer(&self, id: u64) {
        let _g = self.registry.lock();
        let _ = self
            .library
            .update(|c| Ok::<_, ()>(c.iter().filter(|(i, _)| *i != id).cloned().collect()));
    }

    /// Sets the decision step (once, at init).
    pub(crate) fn set_decider(&self, f: Arc<DecideFn>) {
        let _ = self.decider.set(f);
    }

    /// Who receives the chain outcome of the fresh event `msg`, when the
    /// library decides something from it.
    pub(crate) fn decision_outcome(&self, msg: &Arc<EventMsg>) -> Option<super::OutcomeFn> {
        if !decided(msg.status) {
            return None;
        }
        let f = Arc::clone(self.decider.get()?);
        let msg = Arc::clone(msg);
        Some(Box::new(move |o: Outcome| {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&msg, &o)));
        }))
    }

    /// Hands `msg` to every library consumer of the snapshot `consumers`
    /// (progress thread only; it keeps the snapshot, refreshed per event).
    pub(crate) fn to_library(consumers: &Consumers, msg: &EventMsg) {
        for (_, f) in consumers {
            // A panicking consumer must not take the progress thread down.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(msg)));
        }
    }
}
