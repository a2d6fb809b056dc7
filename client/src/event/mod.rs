//! Event notification in the client (the Extend the Event Notification RFC
//! and the Event Notification design, `docs/SOURCES.md`).
//!
//! - **Registration** ([`Client::register_event_handler`]): the ordering
//!   rules live in [`pmix_core::event::Chain`]; the chain is an immutable
//!   snapshot in a [`SnapshotCell`]: register and deregister build a new
//!   chain and swap it in, dispatch loads the current one and never takes a
//!   lock. Each handler has a [`HandlerGate`]: it is armed only after the
//!   registration returned (so no event reaches it before), and retired by
//!   deregistration (so none reaches it after).
//! - **Dispatch** runs on the client's progress thread (`progress.rs`): it
//!   drains the in-process queue (`PMIX_RANGE_PROC_LOCAL` events) and this
//!   client's inbound ring in the shared segment, and walks each event's
//!   matching handlers in order, collecting results. A handler completes
//!   through its [`EventCompletion`], from any thread; a [`Handoff`] decides
//!   whether the chain goes on inline or is posted back to the thread.
//! - **Notify** ([`Client::notify_event`], `notify.rs`): PROC_LOCAL events
//!   never leave the process; other ranges are written straight into the
//!   inbound rings of the local targets, and a copy goes to the server only
//!   when the event must be cached for clients that are not connected yet,
//!   leave the node, or reach the host.
//! - **Cache**: the progress thread keeps the last 512 events it received;
//!   a new handler gets the matching ones replayed, in arrival order, after
//!   its registration returned. The server caches for clients that connect
//!   later and replays into their rings.
//! - **No allocation per event** (issue 18): notify fills a per-thread
//!   draft event and encoding buffer; the progress thread decodes each
//!   record in place into a pooled event and reuses handler lists, result
//!   arrays and handoffs (`pools.rs`); `tests/event_allocations.rs` and
//!   `benches/tests/event_allocations_peer.rs` count it.
//! - **Library consumers** (`library.rs`): the connect machinery sees
//!   every event before the user's chain runs, so no user handler can
//!   starve it.
//! - **Internal events**: `PMIX_ERR_LOST_CONNECTION` when the server goes
//!   away (default handlers see it too, as in OpenPMIx; `lost.rs` says what
//!   happens when no handler takes it), `PMIX_ERR_COMM_FAILURE` when a
//!   record cannot be decoded (`PMIX_EVENT_NON_DEFAULT`); both are raised
//!   inside the client only.
//!
//! [`Client::register_event_handler`]: crate::Client::register_event_handler
//! [`Client::notify_event`]: crate::Client::notify_event

mod library;
mod notify;
mod pools;
mod progress;
mod seen;
mod standalone;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;
use pmix_core::event::{Chain, EventId, EventMsg, HandlerId, Outcome, RegistrationSpec};
use pmix_core::{Error, Info, Key, Proc, Result, Status};
use pmix_shm::local::gate::HandlerGate;
use pmix_shm::local::handoff::Handoff;
use pmix_shm::local::snapshot::SnapshotCell;
use pmix_shm::ring::{Ring, RingParams};
use pmix_shm::sync::{AtomicBool, AtomicU64, Ordering};

pub(crate) use notify::notify;
pub(crate) use progress::raise_internal;
pub use standalone::ProcessEvents;

/// What a handler is given when an event reaches it.
#[derive(Debug)]
pub struct Event<'a> {
    /// The id this handler's registration returned.
    pub registration: HandlerId,
    /// The event code.
    pub status: Status,
    /// The process that generated the event; `None` for events from the
    /// resource manager (and the client's internal events).
    pub source: Option<&'a Proc>,
    /// The event's infos.
    pub info: &'a [Info],
    /// The results of the handlers called before this one: for each, an
    /// info keyed by its name (empty for an unnamed handler) holding its
    /// status, followed by the infos it returned.
    pub results: &'a [Info],
}

/// How a handler reports that it is done (call it from any thread, now or
/// later). Dropping it without calling one of its methods counts as
/// `PMIX_EVENT_NO_ACTION_TAKEN` with no results, so a chain never stalls on
/// a forgotten completion.
pub struct EventCompletion {
    slot: Arc<CompletionSlot>,
    run: u64,
    done: bool,
}

/// What a handler call's completion goes through: the handoff deciding
/// inline or posted, and the way back to the progress thread. Pooled
/// (`pools.rs`): the weak reference is made once per slot, not per event.
pub(crate) struct CompletionSlot {
    handoff: Handoff<Done>,
    events: std::sync::Weak<Events>,
}

impl std::fmt::Debug for EventCompletion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventCompletion")
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}

/// A handler's answer.
#[derive(Debug)]
pub(crate) struct Done {
    status: Status,
    updated_prior: Option<Vec<Info>>,
    results: Vec<Info>,
}

impl EventCompletion {
    /// The handler is done with `status`, returning `results` (appended to
    /// the chain's results after its own status entry).
    /// `PMIX_EVENT_ACTION_COMPLETE` ends the chain.
    pub fn done(self, status: Status, results: Vec<Info>) {
        self.finish(Done {
            status,
            updated_prior: None,
            results,
        });
    }

    /// As [`done`](Self::done), and replaces the results of the earlier
    /// handlers with `prior` (a handler may alter a value or remove an
    /// entry; the event RFC).
    pub fn done_updating(self, status: Status, prior: Vec<Info>, results: Vec<Info>) {
        self.finish(Done {
            status,
            updated_prior: Some(prior),
            results,
        });
    }

    fn finish(mut self, d: Done) {
        self.done = true;
        self.post(d);
    }

    fn post(&self, d: Done) {
        if let Some(d) = self.slot.handoff.complete(d) {
            // The dispatcher went on without us: post the continuation.
            if let Some(ev) = self.slot.events.upgrade() {
                ev.command(Command::Continue(self.run, d));
            }
        }
    }
}

impl Drop for EventCompletion {
    fn drop(&mut self) {
        if !self.done {
            self.done = true;
            self.post(Done {
                status: Status::EVENT_NO_ACTION_TAKEN,
                updated_prior: None,
                results: Vec::new(),
            });
        }
    }
}

/// A registered handler's callable.
pub(crate) type HandlerFn = dyn Fn(&Event<'_>, EventCompletion) + Send + Sync;

/// One registered handler.
pub(crate) struct Handler {
    pub(crate) gate: HandlerGate,
    pub(crate) f: Box<HandlerFn>,
    /// The key of this handler's status entry in the chain's results (its
    /// name, or the empty key), built once at registration.
    pub(crate) result_key: Key,
}

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handler").finish_non_exhaustive()
    }
}

/// Who wants the outcome of a chain run (a PROC_LOCAL notifier).
pub(crate) type OutcomeFn = Box<dyn FnOnce(Outcome) + Send>;

/// Work for the progress thread that is not an event record.
pub(crate) enum Command {
    /// Arm a new handler and replay the cached events that match it.
    Arm(HandlerId),
    /// A handler completed after its call returned.
    Continue(u64, Done),
    /// A PROC_LOCAL event whose notifier wants the outcome, or an internal
    /// event.
    Local(Box<EventMsg>, Option<OutcomeFn>),
}

thread_local! {
    /// On a progress thread: the address of the `Events` it serves (0
    /// elsewhere), so `on_progress_thread` costs no `thread::current()`.
    pub(crate) static PROGRESS_OF: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Events kept for replay to handlers registered later.
pub(crate) const LOCAL_CACHE: usize = 512;
/// Event ids remembered to drop a second copy.
const SEEN_IDS: usize = 4096;
/// Cells of the in-process PROC_LOCAL queue (64 B each).
const LOCAL_QUEUE_CELLS: usize = 4096;
/// Longest wait for room in a full ring.
pub(crate) const PUSH_TIMEOUT: Duration = Duration::from_secs(1);

/// The client's event machinery, shared by the API and the progress thread.
pub(crate) struct Events {
    pub(crate) me: Proc,
    /// The handler chain (immutable snapshots).
    pub(crate) chain: SnapshotCell<Chain<Arc<Handler>>>,
    /// Serialises register/deregister (the snapshot's writers) with the
    /// interest update that follows each.
    pub(crate) registry: Mutex<()>,
    /// PROC_LOCAL events, encoded (a heap ring: never in shared memory).
    pub(crate) local: Ring,
    /// This client's inbound ring in the segment (producers: peers and the
    /// server; consumer: the progress thread). `wake_consumer` on it wakes
    /// the progress thread for every source of work.
    pub(crate) inbound: Ring,
    /// The progress thread's bits in the segment's wake group (0: it
    /// sleeps on the inbound ring's own doorbell), see
    /// `Ring::consumer_wait_until`.
    pub(crate) wake_bits: u32,
    /// Other work for the progress thread.
    pub(crate) commands: Mutex<VecDeque<Command>>,
    /// `commands` is not empty (checked without the lock).
    pub(crate) pending: AtomicBool,
    pub(crate) stop: AtomicBool,
    /// Next event sequence number of this process.
    pub(crate) seq: AtomicU64,
    pub(crate) origin: u64,
    pub(crate) thread: Mutex<Option<JoinHandle<()>>>,
    /// How long the progress thread spins before it sleeps.
    pub(crate) spin: Duration,
    /// Sends the interest set to the server (set by the client).
    pub(crate) interest: Mutex<Option<InterestFn>>,
    /// The library's own consumers, called before the user's chain
    /// (`library.rs`).
    pub(crate) library: SnapshotCell<library::Consumers>,
    /// The library's decision step on chain outcomes (`library.rs`).
    pub(crate) decider: OnceLock<Arc<library::DecideFn>>,
}

/// Sends `(codes, default)` to the server.
pub(crate) type InterestFn = Box<dyn Fn(Vec<Status>, bool) + Send>;

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}

/// The progress thread's own state (not shared).
pub(crate) struct Local {
    pub(crate) cache: VecDeque<Arc<EventMsg>>,
    /// Ids received lately (a second copy is dropped).
    pub(crate) seen: seen::SeenIds,
    pub(crate) runs: HashMap<u64, progress::Run>,
    pub(crate) next_run: u64,
    /// The handler chain and the library consumers as last seen, kept
    /// across events while work flows (`SnapshotCell::refresh`: one load
    /// per event when nothing changed) and let go before the thread
    /// sleeps, so a deregistered handler is not kept alive by them.
    pub(crate) snapshots: Option<progress::Snapshots>,
    /// What the steady-state path reuses instead of allocating (issue 18).
    pub(crate) pools: progress::Pools,
}

impl Events {
    /// Builds the machinery and starts the progress thread on `inbound`;
    /// it sleeps in the ring's wake group on `wake_bits` (0: on the ring's
    /// own doorbell).
    pub(crate) fn start(
        me: Proc,
        inbound: Ring,
        spin: Duration,
        wake_bits: u32,
    ) -> Result<Arc<Events>> {
        let consumer = inbound.consumer().map_err(|e| {
            Error::with_context(
                Status::ERR_INIT,
                format!("the inbound event ring is taken: {e}"),
            )
        })?;
        let local = Ring::new_heap(RingParams::new(LOCAL_QUEUE_CELLS).map_err(|e| {
            Error::with_context(Status::ERR_INIT, format!("local event queue: {e}"))
        })?);
        let local_consumer = local.consumer().map_err(|e| {
            Error::with_context(Status::ERR_INIT, format!("local event queue: {e}"))
        })?;
        let ev = Arc::new(Events {
            origin: EventId::client_origin(std::process::id()),
            me,
            chain: SnapshotCell::new(Arc::new(Chain::new())),
            registry: Mutex::new(()),
            local,
            inbound,
            wake_bits,
            commands: Mutex::new(VecDeque::new()),
            pending: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            seq: AtomicU64::new(1),
            thread: Mutex::new(None),
            spin,
            interest: Mutex::new(None),
            library: SnapshotCell::new(Arc::new(Vec::new())),
            decider: OnceLock::new(),
        });
        let theirs = Arc::clone(&ev);
        let h = std::thread::Builder::new()
            .name("pmix-progress".into())
            .spawn(move || progress::run(theirs, consumer, local_consumer))
            .map_err(|e| Error::with_context(Status::ERR_INIT, format!("progress thread: {e}")))?;
        *ev.thread.lock() = Some(h);
        Ok(ev)
    }

    /// Whether the caller runs on the progress thread.
    pub(crate) fn on_progress_thread(&self) -> bool {
        let me = self as *const Events as usize;
        PROGRESS_OF.with(|p| p.get() == me)
    }

    /// A fresh event id of this process.
    pub(crate) fn next_id(&self) -> EventId {
        EventId {
            origin: self.origin,
            // ORDERING: Relaxed — a unique counter, nothing published with it.
            seq: self.seq.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Queues a command and wakes the progress thread.
    pub(crate) fn command(&self, c: Command) {
        self.commands.lock().push_back(c);
        // ORDERING: Release — pairs with the progress thread's Acquire
        // load: a thread that sees the flag finds the command (the lock
        // orders the queue itself).
        self.pending.store(true, Ordering::Release);
        self.inbound.wake_consumer();
    }

    /// Registers a handler; see [`crate::Client::register_event_handler`].
    /// `before_arm` runs after the chain holds the handler and before it
    /// may receive events (the registration callback of the C API).
    pub(crate) fn register(
        &self,
        codes: &[Status],
        info: &[Info],
        f: Box<HandlerFn>,
        before_arm: impl FnOnce(HandlerId),
    ) -> Result<HandlerId> {
        let spec = RegistrationSpec::parse(codes, info)?;
        let result_key = Key::new(spec.name.as_deref().unwrap_or(""))?;
        let handler = Arc::new(Handler {
            gate: HandlerGate::new(),
            f,
            result_key,
        });
        let id = {
            let _g = self.registry.lock();
            let mut id = None;
            self.chain.update(|c| {
                let mut next = c.clone();
                id = Some(next.register(spec, Arc::clone(&handler))?);
                Ok::<_, Error>(next)
            })?;
            self.send_interest();
            id.ok_or_else(|| Error::new(Status::ERR_EVENT_REGISTRATION))?
        };
        before_arm(id);
        self.command(Command::Arm(id));
        Ok(id)
    }

    /// Deregisters; see [`crate::Client::deregister_event_handler`].
    pub(crate) fn deregister(&self, id: HandlerId) -> Result<()> {
        let entry = {
            let _g = self.registry.lock();
            let mut removed = None;
            self.chain.update(|c| {
                let mut next = c.clone();
                removed = Some(next.deregister(id)?);
                Ok::<_, Error>(next)
            })?;
            self.send_interest();
            removed.ok_or_else(|| Error::new(Status::ERR_BAD_PARAM))?
        };
        // A handler deregistering itself from its own call runs on the
        // progress thread: waiting for that call to end would deadlock.
        entry.handler.gate.retire(!self.on_progress_thread());
        Ok(())
    }

    /// Tells the server which codes the handlers want (caller holds
    /// `registry`).
    fn send_interest(&self) {
        let chain = self.chain.load();
        let mut codes: Vec<Status> = Vec::new();
        let mut default = false;
        for e in chain.iter() {
            if e.spec.codes.is_empty() {
                default = true;
            }
            codes.extend(e.spec.codes.iter().copied());
        }
        codes.sort_by_key(|s| s.0);
        codes.dedup();
        if let Some(f) = self.interest.lock().as_ref() {
            f(codes, default);
        }
    }

    /// Stops the progress thread (joins it unless called from it).
    pub(crate) fn shutdown(&self) {
        // ORDERING: Release — pairs with the Acquire load in the loop.
        self.stop.store(true, Ordering::Release);
        self.inbound.wake_consumer();
        if self.on_progress_thread() {
            return;
        }
        if let Some(h) = self.thread.lock().take() {
            let _ = h.join();
        }
    }
}

/// [`Events::register`] reporting through `done` — always, before the
/// handler can receive any event.
pub(crate) fn register_nb(
    ev: &Events,
    codes: &[Status],
    info: &[Info],
    handler: Box<HandlerFn>,
    done: impl FnOnce(Result<HandlerId>) + Send + 'static,
) {
    let mut done = Some(done);
    let r = ev.register(codes, info, handler, |id| {
        if let Some(d) = done.take() {
            d(Ok(id));
        }
    });
    if let (Err(e), Some(d)) = (r, done.take()) {
        d(Err(e));
    }
}
