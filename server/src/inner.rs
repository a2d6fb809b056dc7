//! What the server handle, the reactor, the timer
//! and host completions share: [`Inner`], with the state behind its one
//! lock ([`State`]). Every operation module takes an `&Inner`; this module
//! only holds the pieces (each defined in its own module) together.
//!
//! Lock order: the state lock may be held while the job store's lock or
//! [`Commits`]' lock is taken, never the other way round, and never while
//! the host is called.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;
use pmix_core::{Nspace, Proc, Value};
use pmix_shm::barrier::BarrierTable;
use pmix_shm::segment::Segment;
use pmix_shm::store::{StoreReader, StoreWriter};
use pmix_shm::sync::{AtomicBool, AtomicUsize};

use crate::admission::Admission;
use crate::collective::Collectives;
use crate::config::ServerConfig;
use crate::data::commits::Commits;
use crate::host::Host;
use crate::inflight::InFlight;
use crate::link::ReplyTo;
use crate::ops::connect::groups::Groups;
use crate::ops::event::interest::Interests;
use crate::ops::event::pusher::Pusher;
use crate::ops::event::server_errors::HostEvents;
use crate::ops::event::store::EventStore;
use crate::psets::Psets;
use crate::registry::Registry;
use crate::timer::Timer;

/// Region ids in the segment (kinds from `pmix_shm::layout::RegionKind`).
pub(crate) const JOB_STORE_ID: u32 = 0;
pub(crate) const BARRIERS_ID: u32 = 0;

/// State shared by the server handle, the reactor, the timer and host
/// completions.
pub(crate) struct Inner {
    pub(crate) cfg: ServerConfig,
    pub(crate) me: Proc,
    pub(crate) host: Arc<dyn Host>,
    pub(crate) segment: Segment,
    pub(crate) barriers: BarrierTable,
    pub(crate) store: Mutex<StoreWriter>,
    /// Each client slot's inbound event ring (producer side), by slot,
    /// once the slot was first registered.
    pub(crate) rings: crate::slot_regions::SlotRegions,
    pub(crate) state: Mutex<State>,
    /// Values the host stored with `PMIx_Store_internal` (this process
    /// only), newest last.
    pub(crate) internal: Mutex<Vec<(Proc, String, Value)>>,
    /// Held `get`s and direct-modex requests, departed clients' cards.
    pub(crate) commits: Commits,
    pub(crate) stopping: AtomicBool,
    /// Connections closed because their outbound queue overflowed.
    pub(crate) overflowed: AtomicUsize,
    /// Each client's requests the host has not answered yet.
    pub(crate) inflight: InFlight,
    /// Pushes into connected clients' event rings that wait for room.
    pub(crate) pusher: Pusher,
    /// The connections in their handshake, and their limit.
    pub(crate) admission: Admission,
    /// The codes the host registered for (internal server errors).
    pub(crate) host_events: HostEvents,
    pub(crate) dir: PathBuf,
    pub(crate) socket_path: PathBuf,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("me", &self.me)
            .field("socket", &self.socket_path)
            .finish_non_exhaustive()
    }
}

impl Inner {
    /// Prints `msg` on stderr when the configuration asks for it.
    pub(crate) fn log(&self, msg: std::fmt::Arguments<'_>) {
        self.logger().log(msg);
    }

    /// A logger for a host completion, which may run on any thread and
    /// outlive the call.
    pub(crate) fn logger(&self) -> Logger {
        Logger {
            on: self.cfg.log,
            nspace: self.me.nspace.clone(),
        }
    }
}

/// Logs on behalf of a server (see [`Inner::logger`]).
#[derive(Clone, Debug)]
pub(crate) struct Logger {
    on: bool,
    nspace: Nspace,
}

impl Logger {
    pub(crate) fn log(&self, msg: std::fmt::Arguments<'_>) {
        if self.on {
            eprintln!("pmix-server[{}]: {msg}", self.nspace.as_str());
        }
    }
}

/// Everything behind the server's state lock.
#[derive(Debug)]
pub(crate) struct State {
    /// Namespaces and clients.
    pub(crate) registry: Registry,
    /// Server-side collectives (fences), answered on their requests.
    pub(crate) collectives: Collectives<ReplyTo>,
    /// The server's timer (collective timeouts).
    pub(crate) timer: Timer,
    /// The server's readers of the clients' modex stores, by slot.
    pub(crate) modex_readers: HashMap<u32, StoreReader>,
    /// The event cache and the held events.
    pub(crate) events: EventStore,
    /// The clients' event interest and the host's registrations.
    pub(crate) interest: Interests,
    /// Connected groups (`ops/connect`).
    pub(crate) connects: Groups,
    /// PMIx groups (`ops/group`).
    pub(crate) groups: crate::ops::group::tracker::GroupTracker,
    /// Process sets the host defined.
    pub(crate) psets: Psets,
    /// Attached tools (`tool.rs`), and whether their namespace was made
    /// for them (then it goes with them).
    pub(crate) tools: HashMap<Proc, bool>,
    /// IO forwarding pulls (`ops/iof.rs`).
    pub(crate) iof: crate::ops::iof::Pulls,
}

impl State {
    pub(crate) fn new(cfg: &ServerConfig) -> Self {
        State {
            registry: Registry::new(cfg.max_clients, cfg.max_nspaces),
            collectives: Collectives::with_limit(cfg.max_pending_per_client),
            timer: Timer::default(),
            modex_readers: HashMap::new(),
            events: EventStore::new(cfg.event_cache_size),
            interest: Interests::default(),
            connects: Groups::default(),
            groups: crate::ops::group::tracker::GroupTracker::default(),
            psets: Psets::default(),
            tools: HashMap::new(),
            iof: crate::ops::iof::Pulls::default(),
        }
    }
}
