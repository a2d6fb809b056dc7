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
//! a client ([`server_else_client`]); it runs on every event a process
//! raises, so it takes no lock and no reference in a plain client (issue
//! 18): a thread keeps the client it last used with the [`EPOCH`] it
//! belongs to; an atomic epoch and an atomic "server up" flag say whether
//! that is still the one.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, PoisonError, RwLock, RwLockWriteGuard};

use pmix_client::{Client, ProcessEvents};
use pmix_core::{Error, Result, Status};
use pmix_server::Server;
use pmix_shm::sync::{AtomicBool, AtomicU64, Ordering};

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

/// The slot's epoch, readable without its lock (written under it).
static EPOCH: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The client this thread's last notification used and the epoch it
    /// was read under (`None` inside: no client then).
    static NOTIFIER: RefCell<Option<(u64, Option<Client>)>> = const { RefCell::new(None) };
}

/// The initialised server (shared so calls never hold the slot's lock
/// while they run).
static SERVER: RwLock<Option<Arc<Server>>> = RwLock::new(None);

/// Whether [`SERVER`] holds a server (written under its lock).
static SERVER_UP: AtomicBool = AtomicBool::new(false);

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
        .ok_or_else(not_init)
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
        // ORDERING: Release — written under the slot's lock; pairs with
        // the Acquire in `with_notifier` (a thread that saw this epoch
        // reads the slot again, under its lock).
        EPOCH.store(slot.epoch, Ordering::Release);
    }
}

/// Forgets the client (the last `PMIx_Finalize`).
pub(crate) fn clear_client() {
    let mut slot = CLIENT.write().unwrap_or_else(PoisonError::into_inner);
    slot.client = None;
    slot.epoch += 1;
    // ORDERING: Release — as in `set_client`.
    EPOCH.store(slot.epoch, Ordering::Release);
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
pub(crate) fn server_slot() -> ServerSlot {
    ServerSlot(SERVER.write().unwrap_or_else(PoisonError::into_inner))
}

/// The server's slot, written: on release, [`SERVER_UP`] says whether it
/// holds a server.
pub(crate) struct ServerSlot(RwLockWriteGuard<'static, Option<Arc<Server>>>);

impl Deref for ServerSlot {
    type Target = Option<Arc<Server>>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for ServerSlot {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Drop for ServerSlot {
    fn drop(&mut self) {
        // ORDERING: Release — written under the slot's lock, before it is
        // released; a notifier that reads `true` (Acquire) then takes the
        // slot's read lock, which orders the rest.
        SERVER_UP.store(self.0.is_some(), Ordering::Release);
    }
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

/// The rule for `PMIx_Notify_event`: `on_server` with the server when
/// this process is one, else `on_client` with the client, else the
/// client's `PMIX_ERR_INIT`.
///
/// A plain client's call takes no lock and no reference of the client
/// (issue 18: two producer threads would contend on them): the thread's
/// kept client is used while the slot's epoch is the one it was read
/// under. The same race as a clone taken under the lock remains: a
/// `PMIx_Finalize` running meanwhile finalizes the client being used, whose
/// call then fails with the client's error.
pub(crate) fn server_else_client<R>(
    on_server: impl FnOnce(&Server) -> Result<R>,
    on_client: impl FnOnce(&Client) -> Result<R>,
) -> Result<R> {
    // ORDERING: Acquire — pairs with the Release in `ServerSlot::drop`; the
    // slot itself is then read under its lock.
    if SERVER_UP.load(Ordering::Acquire) {
        // Not `server()`: its error (a message) would cost an allocation.
        let server = SERVER
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(s) = server {
            return on_server(&s);
        }
    }
    with_notifier(on_client)
}

/// `f` on this thread's kept client, read again from the slot when the
/// epoch moved (or `f` on a clone taken under the lock where the thread
/// cannot keep one: reentered, or being torn down).
fn with_notifier<R>(f: impl FnOnce(&Client) -> Result<R>) -> Result<R> {
    let mut f = Some(f);
    let kept = NOTIFIER.try_with(|cell| {
        let mut held = cell.try_borrow_mut().ok()?;
        // ORDERING: Acquire — pairs with the Release stores in
        // `set_client`/`clear_client`: a thread that synchronised with an
        // init or finalize sees its epoch, and reads the slot again.
        let epoch = EPOCH.load(Ordering::Acquire);
        if held.as_ref().map(|(e, _)| *e) != Some(epoch) {
            // the old client's reference goes first
            *held = None;
            let slot = CLIENT.read().unwrap_or_else(PoisonError::into_inner);
            *held = Some((slot.epoch, slot.client.clone()));
        }
        let f = f.take()?;
        Some(match held.as_ref().and_then(|(_, c)| c.as_ref()) {
            Some(c) => f(c),
            None => Err(not_init()),
        })
    });
    match (kept, f) {
        (Ok(Some(r)), _) => r,
        (_, Some(f)) => f(&client()?),
        // not reached: `f` is only taken on the way to `Some`
        (_, None) => Err(not_init()),
    }
}

fn not_init() -> Error {
    Error::with_context(Status::ERR_INIT, "PMIx_Init has not been called")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Issue 18: a notification of a thread that already notified takes
    /// no lock of the client's slot (two producer threads would contend
    /// on it); without a client it answers `PMIX_ERR_INIT`.
    #[test]
    fn a_notifier_does_not_take_the_client_slot_lock() {
        let (warm_tx, warm_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        let notify = || server_else_client(|_| Ok(()), |_| Ok(())).map_err(|e| e.status());
        std::thread::spawn(move || {
            warm_tx.send(notify()).unwrap();
            go_rx.recv().unwrap();
            done_tx.send(notify()).unwrap();
        });
        let first = warm_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(first, Err(Status::ERR_INIT));
        let held = CLIENT.write().unwrap_or_else(PoisonError::into_inner);
        go_tx.send(()).unwrap();
        let got = done_rx.recv_timeout(Duration::from_secs(10));
        drop(held);
        assert_eq!(
            got,
            Ok(Err(Status::ERR_INIT)),
            "the notifier waited for the slot's lock"
        );
    }
}
