//! What the progress thread reuses instead of allocating, so that the
//! steady-state event path makes no heap allocation (issue 18): the
//! decoded events (an `Arc<EventMsg>` comes back once its run ended and
//! the replay cache let it go, and the next record is decoded into it in
//! place), the matching-handler lists and results arrays of chain runs,
//! the handoffs of handler completions, and the namespaces and keys seen
//! (so decoding a name is a reference count).
//!
//! Only the progress thread touches a pool; an object is put back only
//! when this thread holds its only reference (`Arc::get_mut`), so nothing
//! another thread still reaches is ever reused. Each pool is bounded.

use std::sync::Arc;

use pmix_core::event::{ChainRun, EventMsg, HandlerId, NameCache};
use pmix_core::{DataRange, Status};
use pmix_shm::local::handoff::Handoff;

use super::{CompletionSlot, Events, Handler};

/// Objects of one kind kept for reuse, at most.
const POOL_MAX: usize = 1024;

/// Infos a pre-made event has room for (most events carry a few).
const INFOS_KEPT: usize = 4;

/// The handlers an event reaches, in dispatch order.
pub(crate) type Entries = Vec<(HandlerId, Arc<Handler>)>;

/// The progress thread's pools.
#[derive(Default)]
pub(crate) struct Pools {
    msgs: Vec<Arc<EventMsg>>,
    entries: Vec<Entries>,
    chains: Vec<ChainRun>,
    handoffs: Vec<Arc<CompletionSlot>>,
    /// Namespaces and keys of recently decoded events.
    pub(crate) names: NameCache,
}

impl Pools {
    /// Pools holding `msgs` events ready to decode into, each with room
    /// for [`INFOS_KEPT`] infos. The progress thread asks for the replay
    /// cache's size plus one full drain batch: the most events it holds at
    /// once, so a burst deeper than any seen before costs no allocation
    /// either (about 320 KiB per process).
    pub(crate) fn new(msgs: usize) -> Pools {
        let fresh = || {
            let mut m = EventMsg::new(Status::SUCCESS, DataRange::PROC_LOCAL);
            m.info.reserve(INFOS_KEPT);
            Arc::new(m)
        };
        Pools {
            names: NameCache::new(),
            msgs: (0..msgs.min(POOL_MAX)).map(|_| fresh()).collect(),
            ..Pools::default()
        }
    }

    /// An event to decode into, held by the caller alone.
    pub(crate) fn msg(&mut self) -> Arc<EventMsg> {
        self.msgs
            .pop()
            .unwrap_or_else(|| Arc::new(EventMsg::new(Status::SUCCESS, DataRange::PROC_LOCAL)))
    }

    /// Takes `m` back if nothing else holds it.
    pub(crate) fn give_msg(&mut self, mut m: Arc<EventMsg>) {
        if self.msgs.len() < POOL_MAX && Arc::get_mut(&mut m).is_some() {
            self.msgs.push(m);
        }
    }

    /// An empty list of matching handlers.
    pub(crate) fn entries(&mut self) -> Entries {
        self.entries.pop().unwrap_or_default()
    }

    pub(crate) fn give_entries(&mut self, mut e: Entries) {
        if self.entries.len() < POOL_MAX {
            e.clear();
            self.entries.push(e);
        }
    }

    /// A chain run before any handler.
    pub(crate) fn chain(&mut self) -> ChainRun {
        self.chains.pop().unwrap_or_default()
    }

    pub(crate) fn give_chain(&mut self, mut c: ChainRun) {
        if self.chains.len() < POOL_MAX {
            c.reset();
            self.chains.push(c);
        }
    }

    /// A completion slot with a fresh handoff, leading back to `events`.
    pub(crate) fn handoff(&mut self, events: &Arc<Events>) -> Arc<CompletionSlot> {
        self.handoffs.pop().unwrap_or_else(|| {
            Arc::new(CompletionSlot {
                handoff: Handoff::new(),
                events: Arc::downgrade(events),
            })
        })
    }

    /// Takes `h` back if its completion is gone (no other holder).
    pub(crate) fn give_handoff(&mut self, mut h: Arc<CompletionSlot>) {
        if self.handoffs.len() < POOL_MAX {
            if let Some(fresh) = Arc::get_mut(&mut h) {
                fresh.handoff.reset();
                self.handoffs.push(h);
            }
        }
    }
}
