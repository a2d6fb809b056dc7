//! The roles this process plays and which endpoint a call uses.
//!
//! A process is a client after `PMIx_Init`, a server after
//! `PMIx_server_init` (a host such as Open MPI's `mpirun`), or both. The
//! handles of each role live here, so the client and server API modules
//! depend on this one and never on each other:
//! - the client: set by the first `PMIx_Init`, cleared by the last
//!   `PMIx_Finalize` ([`client`]);
//! - the server and the server process's own event chain (its
//!   `PMIx_Register_event_handler` handlers): set by `PMIx_server_init`,
//!   taken by `PMIx_server_finalize` ([`server`], [`server_events`]).
//!
//! The fallback rule. Calls of the client API that a server process makes
//! too go to the client when this process called `PMIx_Init`, else to the
//! server side when it called `PMIx_server_init`, else fail with the
//! client's `PMIX_ERR_INIT` ([`client_else_server`],
//! [`client_else_server_events`]): `PMIx_Get`, `PMIx_Get_nb`,
//! `PMIx_Store_internal`, event registration. `PMIx_Notify_event` is the
//! exception: a server process notifies as the server even when it is also
//! a client ([`server_else_client`]).

use std::sync::{Arc, PoisonError, RwLock, RwLockWriteGuard};

use pmix_client::{Client, ProcessEvents};
use pmix_core::{Error, Result, Status};
use pmix_server::Server;

/// The client the C API uses while initialised (a clone of the
/// process-wide [`Client::init`] one), and how many times it was set or
/// cleared: what a thread's get cache ([`crate::client::get_cache`]) kept
/// under another epoch is not this client's.
static CLIENT: RwLock<ClientSlot> = RwLock::new(ClientSlot {
    client: None,
    epoch: 0,
});

struct ClientSlot {
    client: Option<Client>,
    epoch: u64,
}

/// The initialised server (shared so calls never hold the slot's lock
/// while they run).
static SERVER: RwLock<Option<Arc<Server>>> = RwLock::new(None);

/// The server process's own event handlers, while the server runs.
static SERVER_EVENTS: RwLock<Option<ProcessEvents>> = RwLock::new(None);

/// Where a call of the client API goes.
#[derive(Clone)]
pub(crate) enum Endpoint<S> {
    /// This process's client connection.
    Client(Client),
    /// The server side of this process: the server or its event chain.
    Server(S),
}

/// The client, or `PMIX_ERR_INIT`.
#[inline]
pub(crate) fn client() -> Result<Client> {
    CLIENT
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .client
        .clone()
        .ok_or_else(|| Error::with_context(Status::ERR_INIT, "PMIx_Init has not been called"))
}

/// `f` on the client, without taking a reference of it (the slot's read
/// lock is held meanwhile: `f` must not block), with the [`client_epoch`]
/// it belongs to; `None` before `PMIx_Init`.
#[inline]
pub(crate) fn with_client<R>(f: impl FnOnce(&Client, u64) -> R) -> Option<R> {
    let slot = CLIENT.read().unwrap_or_else(PoisonError::into_inner);
    slot.client.as_ref().map(|c| f(c, slot.epoch))
}

/// The current client epoch; read *before* [`client`], it is never newer
/// than the client that returns (so what is kept under it is never
/// mistaken for a later client's).
pub(crate) fn client_epoch() -> u64 {
    CLIENT.read().unwrap_or_else(PoisonError::into_inner).epoch
}

/// Whether this process is an initialised client.
pub(crate) fn is_client() -> bool {
    CLIENT
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .client
        .is_some()
}

/// Makes `c` the client unless there is one already (`PMIx_Init` holds one
/// more reference then).
pub(crate) fn set_client(c: Client) {
    let mut slot = CLIENT.write().unwrap_or_else(PoisonError::into_inner);
    if slot.client.is_none() {
        slot.client = Some(c);
        slot.epoch += 1;
    }
}

/// Forgets the client (the last `PMIx_Finalize`).
pub(crate) fn clear_client() {
    let mut slot = CLIENT.write().unwrap_or_else(PoisonError::into_inner);
    slot.client = None;
    slot.epoch += 1;
}

/// The server, or `PMIX_ERR_INIT`.
#[inline]
pub(crate) fn server() -> Result<Arc<Server>> {
    SERVER
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
        .ok_or_else(|| {
            Error::with_context(Status::ERR_INIT, "PMIx_server_init has not been called")
        })
}

/// The server's slot, held by `PMIx_server_init` while it starts the
/// server (a second init finds it taken) and by `PMIx_server_finalize`
/// to take it.
pub(crate) fn server_slot() -> RwLockWriteGuard<'static, Option<Arc<Server>>> {
    SERVER.write().unwrap_or_else(PoisonError::into_inner)
}

/// The server process's handler chain, while the server runs.
pub(crate) fn server_events() -> Option<ProcessEvents> {
    SERVER_EVENTS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// Sets (`PMIx_server_init`) or takes (`PMIx_server_finalize`) the server
/// process's handler chain; returns the previous one.
pub(crate) fn replace_server_events(events: Option<ProcessEvents>) -> Option<ProcessEvents> {
    std::mem::replace(
        &mut *SERVER_EVENTS
            .write()
            .unwrap_or_else(PoisonError::into_inner),
        events,
    )
}

/// The fallback rule for data calls: the client, else the server, else the
/// client's `PMIX_ERR_INIT`.
#[inline]
pub(crate) fn client_else_server() -> Result<Endpoint<Arc<Server>>> {
    match client() {
        Ok(c) => Ok(Endpoint::Client(c)),
        Err(e) => server().map(Endpoint::Server).map_err(|_| e),
    }
}

/// The fallback rule for event registration: the client, else the server
/// process's own handler chain, else the client's `PMIX_ERR_INIT`.
pub(crate) fn client_else_server_events() -> Result<Endpoint<ProcessEvents>> {
    match client() {
        Ok(c) => Ok(Endpoint::Client(c)),
        Err(e) => server_events().map(Endpoint::Server).ok_or(e),
    }
}

/// The rule for `PMIx_Notify_event`: the server when this process is one,
/// else the client, else the client's `PMIX_ERR_INIT`.
pub(crate) fn server_else_client() -> Result<Endpoint<Arc<Server>>> {
    // Not `server()`: its error (a message) would cost an allocation on
    // every notification of a plain client.
    let server = SERVER
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    match server {
        Some(s) => Ok(Endpoint::Server(s)),
        None => client().map(Endpoint::Client),
    }
}
