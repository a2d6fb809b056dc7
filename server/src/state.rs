//! The registry: namespaces, clients, free slots, fence trackers.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use pmix_core::Nspace;
use pmix_core::{Proc, Rank};
use pmix_shm::store::StoreReader;

use crate::conn::Conn;
use crate::event::{EventState, Registry};
use crate::fence::Tracker;

/// What the server knows of a namespace.
#[derive(Debug)]
pub(crate) struct NsInfo {
    /// `register_nspace` has been called (else only clients were registered).
    pub(crate) registered: bool,
    /// Processes of the namespace on this node.
    pub(crate) nlocal: u32,
    /// Processes of the namespace in the whole job.
    pub(crate) job_size: u32,
    /// Its barrier cell.
    pub(crate) barrier: Option<u32>,
}

/// A registered local client.
#[derive(Debug)]
pub(crate) struct ClientRec {
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    pub(crate) slot: u32,
    /// The live connection, once the handshake succeeded.
    pub(crate) conn: Option<Arc<Conn>>,
    pub(crate) finalized: bool,
    pub(crate) dead: bool,
}

/// Everything behind the server's state lock.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) nspaces: HashMap<Nspace, NsInfo>,
    pub(crate) clients: HashMap<Proc, ClientRec>,
    free_slots: Vec<u32>,
    free_barriers: Vec<u32>,
    /// Server-side fence trackers, keyed by the canonical participant list.
    pub(crate) trackers: BTreeMap<Vec<Proc>, Tracker>,
    /// The server's readers of the clients' modex stores, by slot.
    pub(crate) modex_readers: HashMap<u32, StoreReader>,
    /// The event cache, held events and the clients' event interest.
    pub(crate) events: EventState,
}

/// The registry as the event bookkeeping sees it (borrowed beside
/// `State::events`).
#[derive(Debug)]
pub(crate) struct RegView<'a> {
    nspaces: &'a HashMap<Nspace, NsInfo>,
    clients: &'a HashMap<Proc, ClientRec>,
}

impl Registry for RegView<'_> {
    fn sizes(&self, ns: &Nspace) -> Option<(u32, u32)> {
        self.nspaces
            .get(ns)
            .filter(|n| n.registered)
            .map(|n| (n.nlocal, n.job_size))
    }

    fn registered_ranks(&self, ns: &Nspace) -> BTreeSet<Rank> {
        self.clients
            .keys()
            .filter(|p| &p.nspace == ns)
            .map(|p| p.rank)
            .collect()
    }

    fn is_registered(&self, p: &Proc) -> bool {
        self.clients.contains_key(p)
    }

    fn nspaces(&self) -> Vec<Nspace> {
        self.nspaces
            .iter()
            .filter(|(_, n)| n.registered)
            .map(|(ns, _)| ns.clone())
            .collect()
    }
}

impl State {
    pub(crate) fn new(max_clients: u32, max_nspaces: u32, event_cache_size: usize) -> Self {
        State {
            nspaces: HashMap::new(),
            clients: HashMap::new(),
            free_slots: (0..max_clients).rev().collect(),
            free_barriers: (0..max_nspaces).rev().collect(),
            trackers: BTreeMap::new(),
            modex_readers: HashMap::new(),
            events: EventState::new(event_cache_size),
        }
    }

    /// The event state, mutable, beside a read-only view of the registry.
    pub(crate) fn events_and_registry(&mut self) -> (&mut EventState, RegView<'_>) {
        (
            &mut self.events,
            RegView {
                nspaces: &self.nspaces,
                clients: &self.clients,
            },
        )
    }

    pub(crate) fn take_slot(&mut self) -> Option<u32> {
        self.free_slots.pop()
    }

    pub(crate) fn free_slot(&mut self, slot: u32) {
        self.free_slots.push(slot);
    }

    pub(crate) fn take_barrier(&mut self) -> Option<u32> {
        self.free_barriers.pop()
    }

    pub(crate) fn free_barrier(&mut self, b: u32) {
        self.free_barriers.push(b);
    }

    /// Local ranks of `nspace` (registered clients), sorted.
    pub(crate) fn local_ranks(&self, nspace: &Nspace) -> Vec<Rank> {
        let mut v: Vec<Rank> = self
            .clients
            .keys()
            .filter(|p| &p.nspace == nspace)
            .map(|p| p.rank)
            .collect();
        v.sort_unstable();
        v
    }
}
