//! # pmix-server
//!
//! The PMIx server library, embedded in a host resource manager (our
//! `pmixrun`, or a foreign RM through the C ABI).
//!
//! - [`Server::init`] creates the shared segment (job-data store, one modex
//!   store per client slot, the barrier table) and the listener: a Unix
//!   stream socket in a private directory (mode 0700), control plane only.
//! - The host registers jobs ([`Server::register_nspace`]) and their local
//!   clients ([`Server::register_client`], in either order), and gets each
//!   child's environment from [`Server::setup_fork`].
//! - A client's handshake ([`pmix_core::proto`]) negotiates the protocol
//!   version and capabilities; its uid/gid are taken from `SO_PEERCRED` and
//!   must match the registration; then the segment's descriptor is passed
//!   with `SCM_RIGHTS`.
//! - Requests that cannot be served from shared memory (finalize, abort,
//!   fences that need the server, direct modex) arrive on the socket; the
//!   server calls *up* into the [`Host`] for anything that leaves the node.
//! - Events: each client slot has an inbound event ring in the segment.
//!   The host's events ([`Server::notify`]) and the clients' events that
//!   their peers could not take directly are pushed there by the server,
//!   which also caches them for clients registered later, holds job events
//!   until every local target has them, and registers with the host for the
//!   codes its clients want ([`Host::register_events`]).
//! - Job directories ([`jobdir`]): [`JobDirs`] makes the fresh 0700
//!   `PMIX_TMPDIR` / `PMIX_NSDIR` a host hands its jobs and removes them
//!   again, only while they are still the directories it created.
//!
//! # Layout
//!
//! Each file may use only those below it in this table (no import circle):
//!
//! | file / folder | job | may depend on |
//! |---|---|---|
//! | `lib.rs` | [`Server`]: the host's API, segment and socket set-up | everything |
//! | `reactor.rs` | the control plane's one thread: accept, each handshake's steps, reading and serving requests, flushing queued replies | handshake, departure, dispatch, ops, inner, link, nudge |
//! | `handshake.rs` | a hello's checks, the host's answer, the welcome (one refusal path) | departure, inner, link, nudge, outbound |
//! | `departure.rs` | a lost client (what it means for its peers), the connections' end at stop | ops, inner, link |
//! | `dispatch.rs` | a request frame → the operation that answers it | data, ops, inner, link |
//! | `ops/` | one module per request family: `fence`, `event/`, `pubsub`, `log`, `lifecycle` | data, inner, the pure state, leaves |
//! | `data/` | registration, job data, modex cards, server-side `get` (direct modex) | inner, the pure state, leaves, `ops/event` (a new client's replay and host calls) |
//! | `inner.rs` | what every thread shares, the state behind the one lock | the pure state, leaves |
//! | `registry.rs`, `collective.rs`, `ops/event/{store,interest}.rs`, `data/{card,commits}.rs`, `timer.rs` | pure state: registry, collective tracker, event cache, interest, held requests, timer | link |
//! | `link.rs` | a client's connection: replies written at once or queued (bounded) | outbound, nudge |
//! | `outbound.rs`, `nudge.rs`, `admission.rs`, `config.rs`, `directives.rs`, `host.rs`, `jobdir.rs`, `jobinfo.rs` | leaves | nothing of the crate |

mod admission;
mod collective;
mod config;
mod data;
mod departure;
mod directives;
mod dispatch;
mod handshake;
pub mod host;
mod inflight;
mod inner;
pub mod jobdir;
pub mod jobinfo;
mod link;
mod nudge;
mod ops;
mod outbound;
mod psets;
mod reactor;
mod registry;
pub mod rendezvous;
mod secret;
mod slot_regions;
mod timer;
mod tool;

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::Mutex;
use pmix_core::proto;
use pmix_core::{DataRange, Error, Info, Nspace, Proc, Result, Status, Value};
use pmix_shm::barrier::{BarrierParams, BarrierTable};
use pmix_shm::layout::RegionKind;
use pmix_shm::region::Region;
use pmix_shm::ring::{Ring, RingParams};
use pmix_shm::segment::{Segment, SegmentLayout};
use pmix_shm::store::{StoreParams, StoreWriter};
use pmix_shm::sync::{AtomicBool, AtomicUsize, Ordering};

pub use config::{hostname, ServerConfig};
pub use host::{Completion, ConnectOutcome, Host, NullHost};
pub use jobdir::{JobDirs, OwnedDir, Removal};
pub use jobinfo::{ScratchDirs, SingleNodeJob};
pub use ops::group::tracker::GroupView;
pub use ops::iof::IofSender;

use data::{dmodex, job, modex, registration};
use inner::{Inner, State, BARRIERS_ID, JOB_STORE_ID};

/// An embedded PMIx server.
#[derive(Debug)]
pub struct Server {
    inner: Arc<Inner>,
    /// The reactor thread (`reactor.rs`), joined at stop.
    reactor: Mutex<Option<JoinHandle<()>>>,
    /// The reactor's inbox: `stop` wakes it through this, whatever became
    /// of the socket file.
    nudges: Arc<nudge::Nudges>,
    /// The rendezvous files written for tools, removed at stop.
    rendezvous: Mutex<rendezvous::Written>,
}

impl Server {
    /// Creates the shared segment and starts listening.
    ///
    /// # Errors
    /// `PMIX_ERR_INIT` when the segment or the socket cannot be created,
    /// `PMIX_ERR_BAD_PARAM` for out-of-range limits (among them an
    /// `event_ring_cells` that is not a power of two of at least 4).
    pub fn init(cfg: ServerConfig, host: Arc<dyn Host>) -> Result<Server> {
        if cfg.max_clients == 0 || cfg.max_nspaces == 0 {
            return Err(Error::bad_param(
                "max_clients and max_nspaces must be at least 1",
            ));
        }
        let ring_params = RingParams::new(cfg.event_ring_cells)
            .map_err(|e| Error::bad_param(format!("event_ring_cells: {e}")))?;
        let job_params = StoreParams {
            buffer_count: 3,
            buffer_size: cfg.job_store_bytes,
            reader_slots: cfg.max_clients * 2 + 8,
        };
        let modex_params = StoreParams {
            buffer_count: 2,
            buffer_size: cfg.modex_store_bytes,
            reader_slots: cfg.max_clients * 2 + 8,
        };
        let barrier_params = BarrierParams {
            barriers: cfg.max_nspaces,
            peers: cfg.max_clients,
        };
        let mut layout = SegmentLayout::new()
            .region(
                RegionKind::JOB_STORE,
                JOB_STORE_ID,
                StoreWriter::memory_size(&job_params),
            )
            .region(
                RegionKind::BARRIERS,
                BARRIERS_ID,
                BarrierTable::memory_size(&barrier_params),
            );
        for slot in 0..cfg.max_clients {
            layout = layout
                .region(
                    RegionKind::MODEX,
                    slot,
                    StoreWriter::memory_size(&modex_params),
                )
                .region_for::<Ring>(RegionKind::CLIENT_RING, slot, &ring_params);
        }
        let init_err = |what: &str, e: &dyn std::fmt::Display| {
            Error::with_context(Status::ERR_INIT, format!("{what}: {e}"))
        };
        let segment = Segment::create(&layout).map_err(|e| init_err("segment", &e))?;
        let store = segment
            .init::<StoreWriter>(RegionKind::JOB_STORE, JOB_STORE_ID, &job_params)
            .map_err(|e| init_err("job store", &e))?;
        let barriers = segment
            .init::<BarrierTable>(RegionKind::BARRIERS, BARRIERS_ID, &barrier_params)
            .map_err(|e| init_err("barrier table", &e))?;
        // Each slot's store and ring: when the slot is first registered.
        let rings = slot_regions::SlotRegions::new(cfg.max_clients, modex_params, ring_params);
        segment.publish();

        let dir = make_private_dir(&cfg.tmpdir)?;
        let socket_path = dir.join("server.sock");
        let listener = UnixListener::bind(&socket_path).map_err(|e| init_err("socket", &e))?;
        std::fs::set_permissions(&socket_path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| init_err("socket mode", &e))?;

        let me = Proc::from_parts(cfg.nspace.clone(), cfg.rank);
        let written = if cfg.tool_support {
            let sys = cfg
                .system_tmpdir
                .as_deref()
                .unwrap_or(&cfg.tmpdir)
                .to_path_buf();
            let plan = rendezvous::Plan {
                tmpdir: &cfg.tmpdir,
                system_tmpdir: cfg.system_support.then_some(sys.as_path()),
                host: &cfg.hostname,
                nspace: cfg.nspace.as_str(),
                uri: proto::tool::format_uri(&me, &socket_path),
            };
            let log = cfg.log;
            rendezvous::write_all(&plan, &|m| {
                if log {
                    eprintln!("pmix-server: {m}");
                }
            })
        } else {
            rendezvous::Written::default()
        };
        let inner = Arc::new(Inner {
            state: Mutex::new(State::new(&cfg)),
            internal: Mutex::new(Vec::new()),
            commits: data::commits::Commits::default(),
            admission: admission::Admission::new(cfg.max_handshakes),
            pusher: ops::event::pusher::Pusher::default(),
            host_events: ops::event::server_errors::HostEvents::default(),
            inflight: inflight::InFlight::new(cfg.max_pending_per_client),
            cfg,
            me,
            host,
            segment,
            barriers,
            store: Mutex::new(store),
            rings,
            stopping: AtomicBool::new(false),
            overflowed: AtomicUsize::new(0),
            dir,
            socket_path,
        });
        let (reactor, nudges) = reactor::start(Arc::clone(&inner), listener)?;
        Ok(Server {
            inner,
            reactor: Mutex::new(Some(reactor)),
            nudges,
            rendezvous: Mutex::new(written),
        })
    }

    /// The server's own proc.
    pub fn proc(&self) -> &Proc {
        &self.inner.me
    }

    /// Path of the listening socket.
    pub fn socket_path(&self) -> &Path {
        &self.inner.socket_path
    }

    /// The server's URI (`PMIX_SERVER_URI`, the first line of its
    /// rendezvous files): `<nspace>.<rank>;unix:<socket path>`.
    pub fn uri(&self) -> String {
        proto::tool::format_uri(&self.inner.me, &self.inner.socket_path)
    }

    /// The rendezvous files this server wrote for tools (removed at stop).
    pub fn rendezvous_files(&self) -> Vec<PathBuf> {
        self.rendezvous.lock().paths().to_vec()
    }

    /// Registers a namespace with `nlocal` processes on this node and its
    /// job information: job-level keys, `PMIX_PROC_DATA` arrays (per rank),
    /// `PMIX_APP_INFO_ARRAY` / `PMIX_NODE_INFO_ARRAY` (flattened to job
    /// level). The data is published into the shared store before this
    /// returns.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a malformed `PMIX_PROC_DATA` array or a
    /// second registration of the same namespace; `PMIX_ERR_OUT_OF_RESOURCE`
    /// when no barrier cell is left or the store is full.
    pub fn register_nspace(&self, nspace: &Nspace, nlocal: u32, info: &[Info]) -> Result<()> {
        registration::register_nspace(&self.inner, nspace, nlocal, info)?;
        // Sets defined before the namespace existed may name its ranks.
        ops::psets::names_for_new_nspace(&self.inner)
    }

    /// Changes `nspace`'s registered job data while it runs (a dynamic
    /// job: its size, the universe size, any job-level, per-rank or
    /// per-node key, given as [`register_nspace`](Self::register_nspace)
    /// takes them). A client's `get` after this returns the new values.
    /// `PMIX_JOB_SIZE` also changes the count collectives wait for.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for a namespace not registered;
    /// `PMIX_ERR_BAD_PARAM` for `PMIX_LOCAL_SIZE` or `PMIX_NSPACE` (what the
    /// host registered on this node stays), a private key, or a malformed
    /// array; `PMIX_ERR_OUT_OF_RESOURCE` when the store is full.
    pub fn update_job_info(&self, nspace: &Nspace, info: &[Info]) -> Result<()> {
        data::update::update_job_info(&self.inner, nspace, info)
    }

    /// Removes a namespace and its data; its clients must be deregistered.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for an unknown namespace.
    pub fn deregister_nspace(&self, nspace: &Nspace) -> Result<()> {
        registration::deregister_nspace(&self.inner, nspace)
    }

    /// Registers a local client with the uid/gid it will run as. May come
    /// before its namespace is registered.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a special rank or a proc registered twice;
    /// `PMIX_ERR_OUT_OF_RESOURCE` when every client slot is taken.
    pub fn register_client(&self, proc: &Proc, uid: u32, gid: u32) -> Result<()> {
        registration::register_client(&self.inner, proc, uid, gid)
    }

    /// Tells the server the pid of the process launched as `proc` (a host
    /// that forks its clients knows it; `pmixrun` does). A connection for
    /// `proc` from a process that is neither that one nor one it started
    /// (the program a wrapper script runs) is then refused, even with the
    /// right secret. A host that does not know the pid need not call it.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for a proc that is not registered.
    pub fn set_client_pid(&self, proc: &Proc, pid: u32) -> Result<()> {
        match self.inner.state.lock().registry.clients.get_mut(proc) {
            Some(c) => {
                c.pid = Some(pid);
                Ok(())
            }
            None => Err(Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("set_client_pid: {proc:?} is not registered"),
            )),
        }
    }

    /// Forgets a client (after it exited); its slot becomes free.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for an unknown proc.
    pub fn deregister_client(&self, proc: &Proc) -> Result<()> {
        registration::deregister_client(&self.inner, proc)
    }

    /// The environment a registered client needs (to add to the child's).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for a proc that is not registered.
    pub fn setup_fork(&self, proc: &Proc) -> Result<Vec<(String, String)>> {
        let secret = match self.inner.state.lock().registry.clients.get(proc) {
            Some(c) => c.secret.clone(),
            None => {
                return Err(Error::with_context(
                    Status::ERR_NOT_FOUND,
                    format!("setup_fork: {proc:?} is not registered"),
                ))
            }
        };
        let me = &self.inner.me;
        Ok(vec![
            (proto::env::CLIENT_SECRET.into(), secret),
            (proto::env::NAMESPACE.into(), proc.nspace.as_str().into()),
            (proto::env::RANK.into(), proc.rank.0.to_string()),
            (
                proto::env::SERVER_SOCKET.into(),
                self.inner.socket_path.to_string_lossy().into_owned(),
            ),
            (
                proto::env::SERVER_ID.into(),
                format!("{}.{}", me.nspace.as_str(), me.rank.0),
            ),
            (
                proto::env::SERVER_TMPDIR.into(),
                self.inner.dir.to_string_lossy().into_owned(),
            ),
            (proto::env::HOSTNAME.into(), self.inner.cfg.hostname.clone()),
            (proto::env::VERSION.into(), env!("CARGO_PKG_VERSION").into()),
        ])
    }

    /// This node's modex blob for `proc` (what a remote server's
    /// [`Host::direct_modex`] wants): its committed data of scope REMOTE or
    /// GLOBAL, as it is now (never waits; see
    /// [`dmodex_request_nb`](Self::dmodex_request_nb)). A client that
    /// already finalized or was deregistered still has its card served.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when `proc` is not (and was not) a local client.
    pub fn dmodex_request(&self, proc: &Proc) -> Result<Vec<u8>> {
        modex::node_blob(&self.inner, std::slice::from_ref(proc))
    }

    /// [`dmodex_request`](Self::dmodex_request) that waits, as the PMIx
    /// Standard's retrieval rules ask of the node holding the proc: `done`
    /// gets the blob once `proc` has committed the `PMIX_REQUIRED_KEY` of
    /// `info` (without one: once it has committed anything), or can commit
    /// no more (finalized, dead, deregistered: the blob has what it
    /// committed), or — with `PMIX_TIMEOUT` in `info` — `PMIX_ERR_TIMEOUT`
    /// when that passes first. `PMIX_IMMEDIATE` or
    /// `PMIX_GET_REFRESH_CACHE` answer at once. `done` runs on this thread
    /// or on the server's poller thread.
    ///
    /// Errors (through `done`): `PMIX_ERR_NOT_FOUND` when `proc` is not a
    /// local client; `PMIX_ERR_UNREACH` when the server stops first.
    pub fn dmodex_request_nb(&self, proc: &Proc, info: &[Info], done: Completion<Vec<u8>>) {
        dmodex::request(&self.inner, proc, info, done);
    }

    /// The host's `PMIx_Notify_event`: delivers an event to every registered
    /// local client in `range` (through its event ring), caches it for
    /// clients registered later (unless `PMIX_EVENT_DO_NOT_CACHE`), and
    /// holds a NAMESPACE or CUSTOM event for local targets not registered
    /// yet. `source` is `None` for an event of the RM itself (the clients
    /// see origin `Host`); a proc of another node for an event the host
    /// relays from there. The event is never handed back to
    /// [`Host::notify_event`]. Records a full ring cannot take are logged.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an unknown range, `PMIX_RANGE_PROC_LOCAL`
    /// (no handlers live in the server) or a custom range that does not
    /// match the range; the attribute checks' errors for mistyped infos.
    ///
    /// # Examples
    /// ```no_run
    /// # fn f(server: &pmix_server::Server) -> pmix_core::Result<()> {
    /// use pmix_core::{DataRange, Status};
    /// server.notify(Status(-3001), None, DataRange::LOCAL, &[])?;
    /// # Ok(()) }
    /// ```
    #[doc(alias = "PMIx_Notify_event")]
    pub fn notify(
        &self,
        status: Status,
        source: Option<&Proc>,
        range: DataRange,
        info: &[Info],
    ) -> Result<()> {
        ops::group::host_event(&self.inner, status, source, info);
        ops::event::route::host_notify(&self.inner, status, source, range, info)
    }

    /// The host registers for the server's internal errors (the event
    /// design's RM-host registrations): from now on the protocol
    /// violations the server meets whose status is in `codes` (an empty
    /// slice: every status) reach [`Host::notify_event`] with this
    /// server's proc as the source, range `PMIX_RANGE_RM`, and
    /// `PMIX_EVENT_AFFECTED_PROC` (the offending client, when known) and
    /// `PMIX_EVENT_TEXT_MESSAGE` — a request that cannot be decoded (the
    /// decoder's unpack status), a one-way message refused (its status),
    /// a refused handshake (the status the client was refused with). The
    /// up-call comes from a server thread and must not block; its answer
    /// is ignored. Replaces an earlier registration. Without one the host
    /// is told nothing (the log still says it).
    ///
    /// # Examples
    /// ```no_run
    /// # fn f(server: &pmix_server::Server) {
    /// server.register_host_events(&[]); // every internal error
    /// # }
    /// ```
    #[doc(alias = "PMIx_Register_event_handler")]
    pub fn register_host_events(&self, codes: &[Status]) {
        self.inner.host_events.register(codes);
    }

    /// Undoes [`register_host_events`](Self::register_host_events).
    pub fn deregister_host_events(&self) {
        self.inner.host_events.deregister();
    }

    /// Forwards output `data` that `source` wrote on `channel`
    /// (`pmix_core::proto::iof::STDOUT_CHANNEL` or `STDERR_CHANNEL`) to
    /// the connections that pulled it (`PMIx_IOF_pull`) and to
    /// `requestor`, the client or tool that spawned `source`'s job with
    /// `PMIX_FWD_STDOUT` / `PMIX_FWD_STDERR` (`PMIx_server_IOF_deliver`).
    /// Returns `true` when `requestor` is connected and was sent the bytes;
    /// otherwise the host shows them itself.
    #[doc(alias = "PMIx_server_IOF_deliver")]
    pub fn iof_deliver(
        &self,
        source: &Proc,
        channel: u16,
        data: &[u8],
        requestor: Option<&Proc>,
    ) -> bool {
        ops::iof::deliver(&self.inner, source, channel, data, requestor)
    }

    /// A handle that calls [`Server::iof_deliver`] from another thread.
    pub fn iof_sender(&self) -> IofSender {
        IofSender {
            inner: Arc::downgrade(&self.inner),
        }
    }

    /// Defines process set `name` with `members`
    /// (`PMIx_server_define_process_set`): queries answer it, each
    /// member's `get` of `PMIX_PSET_NAMES` names it, and the local clients
    /// get `PMIX_PROCESS_SET_DEFINE` with `PMIX_PSET_NAME` and
    /// `PMIX_PSET_MEMBERS` (once each, late handlers included). Defining
    /// an existing name replaces its members.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an empty name or no members.
    #[doc(alias = "PMIx_server_define_process_set")]
    pub fn define_process_set(&self, name: &str, members: &[Proc]) -> Result<()> {
        ops::psets::define(&self.inner, name, members)
    }

    /// Deletes process set `name` (`PMIx_server_delete_process_set`);
    /// the local clients get `PMIX_PROCESS_SET_DELETE`.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when no set has that name.
    #[doc(alias = "PMIx_server_delete_process_set")]
    pub fn delete_process_set(&self, name: &str) -> Result<()> {
        ops::psets::delete(&self.inner, name)
    }

    /// Keeps a value about `proc` in this process only
    /// (`PMIx_Store_internal` called by the host); [`get`](Self::get) finds
    /// it first. Clients never see it.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an empty or too long key.
    pub fn store_internal(&self, proc: &Proc, key: &str, value: Value) -> Result<()> {
        pmix_core::Key::new_data_key(key)?;
        let mut c = self.inner.internal.lock();
        c.retain(|(p, k, _)| !(p == proc && k == key));
        c.push((proc.clone(), key.to_owned(), value));
        Ok(())
    }

    /// The host's `PMIx_Get`: a value stored with
    /// [`store_internal`](Self::store_internal), else the registered job
    /// data of `proc` (its rank's entry, then the job-level one), else what
    /// a local client of that rank committed (any scope). Never waits.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when none has the key.
    pub fn get(&self, proc: &Proc, key: &str) -> Result<Value> {
        if let Some((_, _, v)) = self
            .inner
            .internal
            .lock()
            .iter()
            .rev()
            .find(|(p, k, _)| p == proc && k == key)
        {
            return Ok(v.clone());
        }
        job::server_get(&self.inner, proc, key)
    }

    /// The host's `PMIx_Get` with a NULL key: every value known of `proc`
    /// in this process — the values stored with
    /// [`store_internal`](Self::store_internal), the registered job data of
    /// its rank (`WILDCARD`: of the job), and what a local client of that
    /// rank committed (any scope). A key appears once, in that order of
    /// precedence. Never waits.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for rank `UNDEF` (which rank's values?),
    /// `PMIX_ERR_NOT_FOUND` when nothing is known of `proc`.
    pub fn get_all(&self, proc: &Proc) -> Result<Vec<Info>> {
        if proc.rank == pmix_core::Rank::UNDEF {
            return Err(Error::bad_param(
                "get with a NULL key: rank UNDEF names no single proc",
            ));
        }
        let mut out: Vec<Info> = Vec::new();
        for (p, k, v) in self.inner.internal.lock().iter().rev() {
            if p == proc && !out.iter().any(|o| o.is(k)) {
                out.push(Info::new(k, v.clone())?);
            }
        }
        job::server_get_all(&self.inner, proc, &mut out);
        if out.is_empty() {
            return Err(Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("no value is known for {proc:?}"),
            ));
        }
        Ok(out)
    }

    /// The shared segment (tests read the clients' event rings through it).
    #[doc(hidden)]
    pub fn segment(&self) -> &Segment {
        &self.inner.segment
    }

    /// The client slot of a registered proc.
    #[doc(hidden)]
    pub fn slot_of(&self, proc: &Proc) -> Option<u32> {
        self.inner.state.lock().registry.slot_of(proc)
    }

    /// Every live PMIx group of this server (id, members in group-rank
    /// order, context id): what the group queries answer from.
    pub fn groups(&self) -> Vec<GroupView> {
        ops::group::groups_snapshot(&self.inner)
    }

    /// What the server tracks of fences now: open episodes, episodes the
    /// host completes, participant sets out of step (probes of the
    /// server's bounds).
    #[doc(hidden)]
    pub fn tracked_collectives(&self) -> usize {
        self.inner.state.lock().collectives.tracked()
    }

    /// Requests held in the server: `get`s waiting for a commit, and
    /// requests the host has not answered yet.
    #[doc(hidden)]
    pub fn held_requests(&self) -> usize {
        self.inner.commits.held() + self.inner.inflight.total()
    }

    /// Connections the server closed because their client did not read
    /// its replies (its outbound queue would have exceeded
    /// [`ServerConfig::max_outbound_bytes`]).
    #[doc(hidden)]
    pub fn overflowed_connections(&self) -> usize {
        // ORDERING: Relaxed — a counter for tests.
        self.inner.overflowed.load(Ordering::Relaxed)
    }

    /// Connections in their handshake now.
    #[doc(hidden)]
    pub fn connections_in_handshake(&self) -> usize {
        self.inner.admission.in_handshake()
    }

    /// Whether `proc` has connected and not yet finalized or dropped.
    pub fn is_connected(&self, proc: &Proc) -> bool {
        self.inner
            .state
            .lock()
            .registry
            .clients
            .get(proc)
            .is_some_and(|c| c.link.is_some() && !c.finalized)
    }

    /// Stops listening, closes every connection and removes the socket
    /// directory. Also done on drop.
    pub fn finalize(self) {
        self.stop();
    }

    /// [`finalize`](Self::finalize) through a shared reference, for a
    /// server other threads still hold: afterwards it accepts no client
    /// and every connection is closed. Idempotent.
    pub fn stop(&self) {
        // ORDERING: Relaxed — the reactor checks the flag after each
        // wake-up, and the wake below comes after the store.
        if self.inner.stopping.swap(true, Ordering::Relaxed) {
            return;
        }
        self.nudges.wake();
        let reactor = self.reactor.lock().take();
        if let Some(h) = reactor {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        departure::close_all(&self.inner);
        self.inner.pusher.stop();
        self.rendezvous.lock().remove();
        let _ = std::fs::remove_file(&self.inner.socket_path);
        let _ = std::fs::remove_dir(&self.inner.dir);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Makes `<tmpdir>/pmixrs.<pid>.<n>` with mode 0700.
fn make_private_dir(tmpdir: &Path) -> Result<PathBuf> {
    let pid = std::process::id();
    for n in 0..1000u32 {
        let dir = tmpdir.join(format!("pmixrs.{pid}.{n}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(Error::with_context(
                    Status::ERR_INIT,
                    format!("cannot create {}: {e}", dir.display()),
                ))
            }
        }
    }
    Err(Error::with_context(
        Status::ERR_INIT,
        "no free server directory name",
    ))
}
