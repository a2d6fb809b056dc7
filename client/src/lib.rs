//! # pmix-client
//!
//! The PMIx client API for processes launched by a pmix-rs server.
//!
//! - [`Client::init`] reads the environment the server's `setup_fork` made
//!   (`PMIX_NAMESPACE`, `PMIX_RANK`, the socket path), performs the
//!   handshake, and maps the shared segment passed over the socket. It is
//!   reference counted: every `init` needs one [`Client::finalize`], and
//!   only the last one disconnects.
//! - [`Client::get`] of job data and of local peers' committed data reads
//!   the shared stores: no syscall, no lock, no thread hop.
//! - [`Client::put`] + [`Client::commit`] write this process's card into its
//!   own shared modex store; [`Client::fence`] among the procs of a fully
//!   local namespace is a shared-memory barrier; other fences and remote
//!   data go through the server.

mod conn;
mod connect;
mod cpus;
mod data;
mod data_stamp;
pub mod debug;
mod event;
mod fence;
mod fence_failure;
mod get_all;
mod group;
mod group_decide;
mod group_ops;
pub mod iof;
mod iof_push;
mod log;
mod lost;
mod model;
mod node_get;
mod peers;
mod query;
mod resolve;
mod services;
mod spawn;
pub mod tool;

pub use connect::ConnectDone;
pub use data_stamp::DataStamp;
pub use event::{Event, EventCompletion, ProcessEvents};
pub use group_ops::GroupConstructed;
pub use log::log_to_stdio;
pub use lost::{LostServer, ON_LOST_SERVER_ENV};
pub use pmix_core::event::{HandlerId, Outcome, Termination};
pub use query::{query_without_server, QueryAnswer, STD_ABI_VERSIONS};

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use pmix_core::proto::{self, caps, Hello, Request};
use pmix_core::{attrs, DataRange, Error, Info, Nspace, Proc, Rank, Result, Status, Value};
use pmix_shm::barrier::BarrierTable;
use pmix_shm::layout::RegionKind;
use pmix_shm::ring::Ring;
use pmix_shm::segment::Segment;
use pmix_shm::store::{StoreReader, StoreWriter};
use pmix_shm::sync::{AtomicBool, AtomicU32, Ordering};

/// How a client connects (normally from the environment, see
/// [`ClientConfig::from_env`]).
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Who this process is.
    pub proc: Proc,
    /// The server's socket.
    pub socket: PathBuf,
    /// Oldest protocol version to speak.
    pub min_version: u16,
    /// Newest protocol version to speak.
    pub max_version: u16,
    /// Capabilities to announce.
    pub caps: u64,
    /// How long the handshake may take.
    pub connect_timeout: Duration,
    /// How long the progress thread spins for work before it sleeps
    /// (`PMIXRS_PROGRESS_SPIN_US`; default 2 µs).
    pub progress_spin: Duration,
    /// What this process does when its server is gone and no event handler
    /// took `PMIX_ERR_LOST_CONNECTION` (see [`LostServer`]): `Terminate`
    /// for a process launched by the server ([`ClientConfig::from_env`],
    /// `PMIXRS_ON_LOST_SERVER`), `Continue` otherwise.
    pub on_lost_server: LostServer,
    /// The secret `setup_fork` gave this process (`PMIXRS_CLIENT_SECRET`):
    /// the server refuses a hello for a registered rank without it.
    pub secret: Option<String>,
}

fn missing(name: &str) -> Error {
    Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        format!(
            "{name} is not set: this process was not started by a pmix-rs server \
             (singleton mode is not supported)"
        ),
    )
}

impl ClientConfig {
    /// From the variables `setup_fork` sets. `PMIXRS_PROTOCOL_MAX` and
    /// `PMIXRS_CAPS` (hex or decimal) make the client announce an older
    /// protocol (for compatibility tests).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` when the variables are missing (no
    /// singleton mode), `PMIX_ERR_BAD_PARAM` for malformed values.
    pub fn from_env() -> Result<Self> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// As [`from_env`](Self::from_env), from the pairs `setup_fork`
    /// returned (a client in the host's own process, a test); the
    /// lost-server policy is then `Continue` unless the pairs set it.
    ///
    /// # Errors
    /// As [`from_env`](Self::from_env).
    pub fn from_setup_fork(vars: &[(String, String)]) -> Result<Self> {
        let mut cfg =
            Self::from_vars(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))?;
        if !vars.iter().any(|(k, _)| k == ON_LOST_SERVER_ENV) {
            cfg.on_lost_server = LostServer::Continue;
        }
        Ok(cfg)
    }

    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let bad = |what: &str| Error::bad_param(what.to_owned());
        let need = |name: &str| var(name).ok_or_else(|| missing(name));
        let nspace = need(proto::env::NAMESPACE)?;
        let rank: u32 = need(proto::env::RANK)?
            .parse()
            .map_err(|_| bad("PMIX_RANK is not a number"))?;
        let socket = PathBuf::from(need(proto::env::SERVER_SOCKET)?);
        let mut cfg = ClientConfig::new(Proc::new(nspace, Rank(rank))?, socket);
        if let Some(v) = var(proto::env::PROTOCOL_MAX) {
            cfg.max_version = v.parse().map_err(|_| bad("bad PMIXRS_PROTOCOL_MAX"))?;
            cfg.min_version = cfg.min_version.min(cfg.max_version);
        }
        if let Some(v) = var(proto::env::CAPS) {
            let parsed = match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => v.parse(),
            };
            cfg.caps = parsed.map_err(|_| bad("bad PMIXRS_CAPS"))?;
        }
        if let Some(v) = var(proto::env::PROGRESS_SPIN_US) {
            let us: u64 = v.parse().map_err(|_| bad("bad PMIXRS_PROGRESS_SPIN_US"))?;
            cfg.progress_spin = Duration::from_micros(us);
        }
        cfg.secret = var(proto::env::CLIENT_SECRET);
        cfg.on_lost_server = match var(ON_LOST_SERVER_ENV) {
            Some(v) => LostServer::parse(&v)?,
            None => LostServer::Terminate,
        };
        Ok(cfg)
    }

    /// Defaults for `proc` talking to the server at `socket`.
    pub fn new(proc: Proc, socket: PathBuf) -> Self {
        ClientConfig {
            proc,
            socket,
            min_version: proto::MIN_PROTOCOL_VERSION,
            max_version: proto::PROTOCOL_VERSION,
            caps: caps::ALL,
            connect_timeout: Duration::from_secs(10),
            progress_spin: Duration::from_micros(2),
            on_lost_server: LostServer::Continue,
            secret: None,
        }
    }
}

/// A put not yet committed, or committed.
#[derive(Clone, Debug)]
pub(crate) struct PutEntry {
    pub(crate) key: String,
    pub(crate) scope: pmix_core::Scope,
    pub(crate) value: Value,
}

pub(crate) struct Inner {
    pub(crate) me: Proc,
    pub(crate) server: Proc,
    pub(crate) caps: u64,
    pub(crate) conn: conn::Conn,
    pub(crate) segment: Segment,
    pub(crate) job: StoreReader,
    pub(crate) barriers: BarrierTable,
    /// This process's modex store (with `SHM_MODEX`).
    pub(crate) modex: Mutex<Option<StoreWriter>>,
    /// Readers of local peers' modex stores, by slot.
    pub(crate) peers: Vec<OnceLock<StoreReader>>,
    /// Every put so far (the card `commit` publishes).
    pub(crate) puts: Mutex<Vec<PutEntry>>,
    /// Values stored with `store_internal` (this process only).
    pub(crate) internal: Mutex<Vec<(Proc, String, Value)>>,
    /// Whether `internal` ever held anything.
    pub(crate) has_internal: AtomicBool,
    /// CPUs this process may run on (fences spin only when every
    /// participant can run at once); looked up once, it costs syscalls.
    pub(crate) cpus: usize,
    /// The barrier cell of a fence over this process's whole namespace,
    /// once found.
    pub(crate) own_barrier: OnceLock<u32>,
    /// This process's client slot (its peer cell), once looked up.
    pub(crate) own_slot: OnceLock<Option<u32>>,
    /// This client's number among the clients of this process (a client
    /// after a finalize gets a new one): keys per-thread caches.
    pub(crate) serial: u64,
    /// This process's next episode on its namespace's barrier cell: its
    /// shared-memory fences so far + 1 (the server resets the cell to
    /// episode 1 at `register_nspace`, before any client can fence on it).
    pub(crate) fence_episode: AtomicU32,
    pub(crate) finalized: Mutex<bool>,
    /// Event machinery (`None` when the server does not offer events).
    pub(crate) events: Option<Arc<event::Events>>,
    /// Producer handles of the local clients' inbound event rings, by slot.
    pub(crate) rings: Vec<OnceLock<Ring>>,
    /// This process's live connects (`connect.rs`).
    pub(crate) connects: Mutex<Vec<connect::Record>>,
    /// The group ids of the invitations this process leads and that are
    /// under way (`group_decide::leader_abort`).
    pub(crate) led_invites: Mutex<Vec<String>>,
    /// IO forwarding handlers (`iof.rs`).
    pub(crate) iof: Arc<iof::IofHandlers>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("proc", &self.me)
            .finish_non_exhaustive()
    }
}

/// A connected PMIx client. Cheap to clone; every clone is the same client.
#[derive(Clone, Debug)]
pub struct Client {
    inner: Arc<Inner>,
}

/// The process-wide client of [`Client::init`] and its reference count.
static GLOBAL: Mutex<Option<(Client, usize)>> = Mutex::new(None);

/// The value of `key` in `info` as a deadline from now, if given.
pub(crate) fn deadline_from(info: &[Info]) -> Result<Option<Instant>> {
    match pmix_core::info::find(info, attrs::TIMEOUT) {
        None => Ok(None),
        Some(i) => {
            let secs = i
                .value
                .to_i64()
                .map_err(|_| Error::bad_param("PMIX_TIMEOUT must be an integer"))?;
            Ok((secs > 0).then(|| Instant::now() + Duration::from_secs(secs.unsigned_abs())))
        }
    }
}

pub(crate) fn flag(info: &[Info], key: &str) -> bool {
    pmix_core::info::find(info, key).is_some_and(|i| i.value.is_true().unwrap_or(true))
}

impl Client {
    /// Initialises the process-wide client from the environment, or takes
    /// one more reference to it.
    ///
    /// # Errors
    /// See [`Client::connect`]; `PMIX_ERR_NOT_SUPPORTED` without a server
    /// environment.
    pub fn init(info: &[Info]) -> Result<Client> {
        let mut g = GLOBAL.lock();
        let (c, first) = if let Some((c, n)) = g.as_mut() {
            *n += 1;
            (c.clone(), false)
        } else {
            let c = Client::connect(&ClientConfig::from_env()?)?;
            *g = Some((c.clone(), 1));
            (c, true)
        };
        drop(g);
        if first {
            // A debugger may have asked the job to wait here.
            debug::stop_in_init(&c)?;
        }
        c.declare_model(info);
        Ok(c)
    }

    /// The process-wide client, if [`Client::init`]ialised.
    pub fn global() -> Option<Client> {
        GLOBAL.lock().as_ref().map(|(c, _)| c.clone())
    }

    /// How many `init` calls are not yet matched by `finalize`.
    pub fn init_count() -> usize {
        GLOBAL.lock().as_ref().map_or(0, |(_, n)| *n)
    }

    /// Connects a client outside the process-wide one (tests, tools).
    ///
    /// # Errors
    /// `PMIX_ERR_UNREACH` when the socket cannot be reached, the server's
    /// refusal status (e.g. `PMIX_ERR_INVALID_CRED`, `PMIX_ERR_NOT_FOUND`
    /// for an unregistered proc), `PMIX_ERR_NOT_SUPPORTED` for a segment of
    /// another layout version, `PMIX_ERR_TIMEOUT` for a silent server.
    pub fn connect(cfg: &ClientConfig) -> Result<Client> {
        let hello = Hello {
            min_version: cfg.min_version,
            max_version: cfg.max_version,
            caps: cfg.caps,
            proc: cfg.proc.clone(),
            pid: std::process::id(),
            secret: cfg.secret.clone(),
        };
        let hs = conn::connect(&cfg.socket, &hello, cfg.connect_timeout)?;
        Self::from_handshake(cfg, hs)
    }

    /// The client a successful handshake made (a tool's proc is the one
    /// its `TOOL_WELCOME` gave).
    pub(crate) fn from_handshake(cfg: &ClientConfig, hs: conn::Handshake) -> Result<Client> {
        let me = hs.tool.clone().unwrap_or_else(|| cfg.proc.clone());
        let w = hs.welcome;
        let fail = |e: Error| {
            hs.conn.close();
            e
        };
        let segment = match Segment::open(hs.segment_fd) {
            Ok(s) => s,
            Err(e) => {
                let e = Error::from(e);
                return Err(fail(Error::with_context(
                    e.status(),
                    format!("cannot use the server's shared segment: {e}"),
                )));
            }
        };
        let opened = (|| -> Result<_> {
            let job = segment
                .attach::<StoreReader>(RegionKind::JOB_STORE, 0)
                .map_err(Error::from)?;
            let barriers = segment
                .attach::<BarrierTable>(RegionKind::BARRIERS, 0)
                .map_err(Error::from)?;
            let modex = if w.caps & caps::SHM_MODEX != 0 {
                Some(
                    segment
                        .attach::<StoreWriter>(RegionKind::MODEX, w.client_slot)
                        .map_err(Error::from)?,
                )
            } else {
                None
            };
            let events = if w.caps & caps::EVENTS != 0 {
                let inbound = segment
                    .attach::<Ring>(RegionKind::CLIENT_RING, w.client_slot)
                    .map_err(|e| {
                        Error::with_context(Status::ERR_INIT, format!("inbound event ring: {e}"))
                    })?;
                Some(event::Events::start(
                    me.clone(),
                    inbound,
                    cfg.progress_spin,
                    pmix_shm::wake_group::WakeGroup::bit_for(w.client_slot),
                )?)
            } else {
                None
            };
            Ok((job, barriers, modex, events))
        })();
        let (job, barriers, modex, events) = match opened {
            Ok(x) => x,
            Err(e) => return Err(fail(e)),
        };
        let peers = (0..barriers.peer_count())
            .map(|_| OnceLock::new())
            .collect();
        let rings = (0..barriers.peer_count())
            .map(|_| OnceLock::new())
            .collect();
        let client = Client {
            inner: Arc::new(Inner {
                me: me.clone(),
                server: w.server,
                caps: w.caps,
                conn: hs.conn,
                segment,
                job,
                barriers,
                modex: Mutex::new(modex),
                peers,
                puts: Mutex::new(Vec::new()),
                internal: Mutex::new(Vec::new()),
                has_internal: AtomicBool::new(false),
                cpus: cpus::online_cpus(),
                own_barrier: OnceLock::new(),
                own_slot: OnceLock::new(),
                serial: peers::next_client_serial(),
                fence_episode: AtomicU32::new(1),
                finalized: Mutex::new(false),
                events,
                rings,
                connects: Mutex::new(Vec::new()),
                led_invites: Mutex::new(Vec::new()),
                iof: Arc::default(),
            }),
        };
        let iof = Arc::downgrade(&client.inner.iof);
        client.inner.conn.set_on_iof(Arc::new(move |chunk| {
            if let Some(h) = iof.upgrade() {
                h.deliver(&chunk);
            }
        }));
        group_decide::install(&client.inner);
        if let Some(ev) = &client.inner.events {
            let weak = Arc::downgrade(&client.inner);
            *ev.interest.lock() = Some(Box::new(move |codes, default| {
                if let Some(inner) = weak.upgrade() {
                    let _ = inner.conn.post(&Request::EventInterest { codes, default });
                }
            }));
            let failed = Arc::downgrade(ev);
            client
                .inner
                .conn
                .set_on_comm_failure(Box::new(move |why: String| {
                    if let Some(ev) = failed.upgrade() {
                        event::raise_internal(&ev, Status::ERR_COMM_FAILURE, Some(why), true, None);
                    }
                }));
        }
        let events = client.inner.events.as_ref().map(Arc::downgrade);
        let policy = cfg.on_lost_server;
        let server_pid = client.inner.conn.server_pid();
        client.inner.conn.set_on_lost(Box::new(move || {
            let ev = events.and_then(|w| w.upgrade());
            lost::server_lost(&me, ev.as_ref(), policy, server_pid);
        }));
        Ok(client)
    }

    /// This process's proc.
    pub fn proc(&self) -> &Proc {
        &self.inner.me
    }

    /// The server's proc.
    pub fn server(&self) -> &Proc {
        &self.inner.server
    }

    /// The protocol version agreed with the server.
    pub fn protocol_version(&self) -> u16 {
        self.inner.conn.version()
    }

    /// The capabilities agreed with the server.
    pub fn capabilities(&self) -> u64 {
        self.inner.caps
    }

    /// Drops one reference to the process-wide client; the last one
    /// finalizes it (see [`Client::disconnect`]). For a client made with
    /// [`Client::connect`], disconnects directly.
    ///
    /// # Errors
    /// As [`Client::disconnect`].
    pub fn finalize(&self) -> Result<()> {
        {
            let mut g = GLOBAL.lock();
            if let Some((c, n)) = g.as_mut() {
                if Arc::ptr_eq(&c.inner, &self.inner) {
                    *n -= 1;
                    if *n > 0 {
                        return Ok(());
                    }
                    *g = None;
                }
            }
        }
        self.disconnect()
    }

    /// Tells the server this process is done, waits until the server (and
    /// its host) acknowledged, and closes the connection.
    ///
    /// # Errors
    /// `PMIX_ERR_LOST_CONNECTION` if the server is gone (the
    /// connection is closed anyway); a second call succeeds without effect.
    pub fn disconnect(&self) -> Result<()> {
        let mut fin = self.inner.finalized.lock();
        if *fin {
            return Ok(());
        }
        *fin = true;
        let r = self.inner.conn.request(&Request::Finalize, None);
        self.inner.conn.close();
        if let Some(ev) = &self.inner.events {
            ev.shutdown();
        }
        r?.into_result().map(|_| ())
    }

    /// Asks the host to abort `procs` (empty: this process's namespace)
    /// with `status`; returns when the host has acted (usually this process
    /// is killed before).
    ///
    /// # Errors
    /// The host's answer, e.g. `PMIX_ERR_NOT_SUPPORTED`.
    pub fn abort(&self, status: Status, message: &str, procs: &[Proc]) -> Result<()> {
        let req = Request::Abort {
            status,
            message: message.to_owned(),
            procs: procs.to_vec(),
        };
        self.inner
            .conn
            .request(&req, None)?
            .into_result()
            .map(|_| ())
    }

    /// Stores `value` under `key` with `scope` for `commit`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an empty, too long or reserved (`pmix.`)
    /// key or an undefined scope.
    pub fn put(&self, scope: pmix_core::Scope, key: &str, value: Value) -> Result<()> {
        data::put(&self.inner, scope, key, value)
    }

    /// Publishes every put so far to local peers (and, at the next fence
    /// that collects data, to remote ones).
    ///
    /// # Errors
    /// `PMIX_ERR_OUT_OF_RESOURCE` when the card exceeds the modex store.
    pub fn commit(&self) -> Result<()> {
        data::commit(&self.inner)
    }

    /// Stores a value about `proc` in this process's own cache
    /// (`PMIx_Store_internal`); `get` finds it first.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an empty or too long key.
    pub fn store_internal(&self, proc: &Proc, key: &str, value: Value) -> Result<()> {
        pmix_core::Key::new_data_key(key)?;
        let mut c = self.inner.internal.lock();
        c.retain(|(p, k, _)| !(p == proc && k == key));
        c.push((proc.clone(), key.to_owned(), value));
        // ORDERING: Relaxed — see `data::get`; the lock orders the contents.
        self.inner.has_internal.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// The value of `key` for `proc`, honouring `PMIX_OPTIONAL`,
    /// `PMIX_IMMEDIATE`, `PMIX_TIMEOUT` and `PMIX_GET_REFRESH_CACHE`.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when the key does not exist (at once with
    /// `PMIX_OPTIONAL`, once the owner committed without it, or when the
    /// timeout expires), `PMIX_ERR_BAD_PARAM` for a bad key or proc.
    pub fn get(&self, proc: &Proc, key: &str, info: &[Info]) -> Result<Value> {
        if key == pmix_core::attrs::PSET_MEMBERS {
            return self.pset_members(info);
        }
        data::get(&self.inner, proc, key, info)
    }

    /// `get` with no key (`PMIx_Get` with a NULL key): every value of
    /// `proc` this process sees now, without waiting — its own puts,
    /// `store_internal` values, a local peer's committed card, the job
    /// data of the rank (`WILDCARD`: of the job) and remote cards a fence
    /// brought. A key appears once.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for rank `UNDEF`, `PMIX_ERR_NOT_FOUND` when
    /// nothing is known of `proc`.
    pub fn get_all(&self, proc: &Proc) -> Result<Vec<Info>> {
        get_all::get_all(&self.inner, proc)
    }

    /// [`get`](Self::get) completing through `done` on another thread.
    pub fn get_nb(
        &self,
        proc: &Proc,
        key: &str,
        info: &[Info],
        done: impl FnOnce(Result<Value>) + Send + 'static,
    ) {
        let c = self.clone();
        let (proc, key, info) = (proc.clone(), key.to_owned(), info.to_vec());
        spawn_op(move || done(c.get(&proc, &key, &info)));
    }

    /// Waits until every proc in `procs` (empty: this process's namespace)
    /// has entered the same fence. `PMIX_COLLECT_DATA` makes every
    /// participant's committed data available locally when it returns;
    /// `PMIX_TIMEOUT` bounds the wait.
    ///
    /// # Errors
    /// `PMIX_ERR_TIMEOUT` (naming the ranks that had not arrived, where
    /// known), `PMIX_ERR_LOST_CONNECTION` when a participant died (naming
    /// it) or the server is gone,
    /// `PMIX_ERR_NOT_SUPPORTED` when the server does not offer what the
    /// fence needs, `PMIX_ERR_BAD_PARAM` for bad procs.
    pub fn fence(&self, procs: &[Proc], info: &[Info]) -> Result<()> {
        fence::fence(&self.inner, procs, info)
    }

    /// [`fence`](Self::fence) completing through `done` on another thread.
    pub fn fence_nb(
        &self,
        procs: &[Proc],
        info: &[Info],
        done: impl FnOnce(Result<()>) + Send + 'static,
    ) {
        let c = self.clone();
        let (procs, info) = (procs.to_vec(), info.to_vec());
        spawn_op(move || done(c.fence(&procs, &info)));
    }

    /// The namespace of this process.
    pub fn nspace(&self) -> &Nspace {
        &self.inner.me.nspace
    }

    /// A programming model given to `init` (`PMIX_PROGRAMMING_MODEL`,
    /// `PMIX_MODEL_LIBRARY_NAME`, `PMIX_MODEL_LIBRARY_VERSION`,
    /// `PMIX_THREADING_MODEL`, `PMIX_MODEL_AFFINITY_POLICY`) is recorded in
    /// this process's card (`model.rs`: readable with `get` by the other
    /// libraries of this process and by local peers) and announced to this
    /// process's handlers as `PMIX_MODEL_DECLARED`, PROC_LOCAL and
    /// `PMIX_EVENT_NON_DEFAULT` (a default handler of an MPI library must
    /// not take it for a fault).
    fn declare_model(&self, info: &[Info]) {
        let model = model::declaration(info);
        if model.is_empty() {
            return;
        }
        if let Err(e) = model::record(&self.inner, &model) {
            eprintln!("pmix-client: the programming model declaration was not committed: {e}");
        }
        if self.inner.events.is_none() {
            return;
        }
        let mut all = model;
        if let Ok(i) = Info::new(attrs::EVENT_NON_DEFAULT, true) {
            all.push(i);
        }
        let _ = self.notify_event(Status::MODEL_DECLARED, DataRange::PROC_LOCAL, &all);
    }

    fn events(&self) -> Result<&Arc<event::Events>> {
        self.inner.events.as_ref().ok_or_else(|| {
            Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                "the server does not support events (protocol version < 3)",
            )
        })
    }

    /// `PMIx_Register_event_handler`: registers `handler` for `codes` (one
    /// code, several, or none for a default handler) with the directives in
    /// `info` (`PMIX_EVENT_HDLR_NAME`, the placement attributes,
    /// `PMIX_EVENT_JOB_LEVEL` / `ENVIRO_LEVEL`, `PMIX_RANGE`,
    /// `PMIX_EVENT_CUSTOM_RANGE`, `PMIX_EVENT_AFFECTED_PROC(S)`).
    ///
    /// Returns the registration id. The handler receives no event before
    /// the registration is complete; then the cached events it accepts are
    /// replayed to it in arrival order. Handlers run on the progress thread
    /// and complete through their [`EventCompletion`], from any thread.
    ///
    /// # Errors
    /// `PMIX_ERR_EVENT_REGISTRATION` for a duplicate name or a placement
    /// that cannot be honoured (a second FIRST/LAST, BEFORE/AFTER a missing
    /// handler or one of another category); `PMIX_ERR_BAD_PARAM` /
    /// `PMIX_ERR_TYPE_MISMATCH` for malformed directives;
    /// `PMIX_ERR_NOT_SUPPORTED` when the server does not offer events.
    /// Nothing changes on error.
    pub fn register_event_handler(
        &self,
        codes: &[Status],
        info: &[Info],
        handler: impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static,
    ) -> Result<HandlerId> {
        self.events()?
            .register(codes, info, Box::new(handler), |_| {})
    }

    /// As [`register_event_handler`](Self::register_event_handler), with
    /// the result handed to `done` — always before the handler can receive
    /// any event (the C API's registration callback).
    pub fn register_event_handler_nb(
        &self,
        codes: &[Status],
        info: &[Info],
        handler: impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static,
        done: impl FnOnce(Result<HandlerId>) + Send + 'static,
    ) {
        match self.events() {
            Ok(ev) => event::register_nb(ev, codes, info, Box::new(handler), done),
            Err(e) => done(Err(e)),
        }
    }

    /// `PMIx_Deregister_event_handler`. When it returns, the handler is
    /// not running (unless it is the caller) and is never called again.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an unknown id.
    pub fn deregister_event_handler(&self, id: HandlerId) -> Result<()> {
        self.events()?.deregister(id)
    }

    /// `PMIx_Notify_event` from this process (the source is always this
    /// process). Ranges: `PMIX_RANGE_PROC_LOCAL` (this process's handlers
    /// only, no system call), `LOCAL`, `NAMESPACE`, `SESSION`, `GLOBAL`,
    /// `CUSTOM` (with `PMIX_EVENT_CUSTOM_RANGE`), `RM` (the host; returns
    /// its answer).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a bad range or a custom proc list with a
    /// range other than CUSTOM; `PMIX_ERR_OUT_OF_RESOURCE` when a target's
    /// ring stayed full; the host's status for `RM`.
    pub fn notify_event(&self, status: Status, range: DataRange, info: &[Info]) -> Result<()> {
        if group_decide::leader_abort(&self.inner, status, info) {
            return Ok(());
        }
        event::notify(&self.inner, status, range, info, None)
    }

    /// A `PMIX_RANGE_PROC_LOCAL` notify whose chain outcome (results,
    /// whether a handler completed the event, the consolidated termination
    /// request) is handed to `outcome` once the chain has run.
    ///
    /// # Errors
    /// As [`notify_event`](Self::notify_event).
    pub fn notify_local_with_outcome(
        &self,
        status: Status,
        info: &[Info],
        outcome: impl FnOnce(Outcome) + Send + 'static,
    ) -> Result<()> {
        event::notify(
            &self.inner,
            status,
            DataRange::PROC_LOCAL,
            info,
            Some(Box::new(outcome)),
        )
    }
}

/// Runs a non-blocking operation on its own thread, so two pending
/// operations (e.g. fences over different sets) never wait on each other.
/// If no thread can be started, the operation runs here: its callback is
/// called either way.
fn spawn_op(f: impl FnOnce() + Send + 'static) {
    let slot = Arc::new(Mutex::new(Some(f)));
    let theirs = Arc::clone(&slot);
    let spawned = std::thread::Builder::new()
        .name("pmix-client-nb".into())
        .spawn(move || {
            if let Some(f) = theirs.lock().take() {
                f();
            }
        });
    if spawned.is_err() {
        if let Some(f) = slot.lock().take() {
            f();
        }
    }
}
