//! The registry: namespaces, clients, free slots, fence trackers and the
//! bookkeeping of fence episodes that timed out.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use pmix_core::Nspace;
use pmix_core::{Proc, Rank};
use pmix_shm::store::StoreReader;

use crate::conn::Conn;
use crate::event::{EventState, Registry};
use crate::fence::Tracker;
use crate::timer::Timer;

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

/// The fence episodes of one participant set since one of them timed out:
/// how many ended, and how many each local participant entered, so that a
/// participant arriving for an episode that already ended is told so at
/// once and is not counted in the next one. Dropped once every participant
/// is in step again (entered = ended), when counting from 0 says the same.
#[derive(Debug, Default)]
pub(crate) struct FenceEpisodes {
    /// The local participants.
    pub(crate) expected: BTreeSet<Proc>,
    /// Episodes ended since the first timeout.
    pub(crate) ended: u64,
    /// Episodes each participant entered since then (absent: none).
    pub(crate) entered: BTreeMap<Proc, u64>,
}

/// What an arrival is, by the participant's own count of its fences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// Its episode already ended (without it: it timed out).
    Late,
    /// It enters the open episode.
    Open,
    /// It is already in the open episode.
    Again,
}

impl FenceEpisodes {
    /// Counts an arrival of `p` (unless it is `Again`).
    pub(crate) fn enter(&mut self, p: &Proc) -> Entry {
        let entered = self.entered.entry(p.clone()).or_insert(0);
        if *entered > self.ended {
            return Entry::Again;
        }
        *entered += 1;
        if *entered <= self.ended {
            Entry::Late
        } else {
            Entry::Open
        }
    }

    /// Whether every participant has entered exactly the ended episodes.
    pub(crate) fn in_step(&self) -> bool {
        self.expected
            .iter()
            .all(|p| self.entered.get(p).copied().unwrap_or(0) == self.ended)
    }
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
    /// Participant sets (tracker keys) out of step since a fence episode
    /// of theirs timed out.
    pub(crate) fence_episodes: BTreeMap<Vec<Proc>, FenceEpisodes>,
    /// The id of the next tracker (timer jobs name the tracker they end).
    pub(crate) next_tracker_id: u64,
    /// The server's timer (fence timeouts).
    pub(crate) timer: Timer,
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
            fence_episodes: BTreeMap::new(),
            next_tracker_id: 0,
            timer: Timer::default(),
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
