//! A connection that ended: a clean end after finalize, otherwise the
//! client is lost — what that means for its peers ([`lost`]); and the
//! server's own end, which closes every connection ([`close_all`]).

use std::sync::Arc;

use pmix_core::proto::peer_state;
use pmix_core::Status;
use pmix_shm::sync::Ordering;

use crate::inner::Inner;
use crate::link::Link;
use crate::ops::event::host_calls::drive_host_calls;
use crate::ops::fence;

/// Closes every live connection (server shutdown).
pub(crate) fn close_all(inner: &Inner) {
    let links: Vec<Arc<Link>> = inner
        .state
        .lock()
        .registry
        .clients
        .values()
        .filter_map(|c| c.link.clone())
        .collect();
    for l in links {
        l.end("");
    }
}

/// Forgets `link` as its client's connection; `None` when it was not
/// (any more), else the client's slot, whether it had finalized, and its
/// namespace's barrier.
fn detach(inner: &Inner, link: &Arc<Link>) -> Option<(u32, bool, Option<u32>)> {
    let mut guard = inner.state.lock();
    let st = &mut *guard;
    let c = st.registry.clients.get_mut(&link.proc)?;
    if !c.link.as_ref().is_some_and(|x| Arc::ptr_eq(x, link)) {
        return None;
    }
    c.link = None;
    if !c.finalized {
        c.dead = true;
    }
    let (slot, fin) = (c.slot, c.finalized);
    let barrier = st
        .registry
        .nspaces
        .get(&link.proc.nspace)
        .and_then(|n| n.barrier);
    st.interest.forget(&link.proc);
    Some((slot, fin, barrier))
}

/// The server stops: `link`'s client is no longer connected. Its peers are
/// told nothing (their server is going) and the host is not called (the
/// thread stopping the server may hold what the host needs).
pub(crate) fn forget_at_stop(inner: &Inner, link: &Arc<Link>) {
    link.end("");
    let _ = detach(inner, link);
}

/// The connection ended: a clean end after finalize, otherwise the client
/// is dead — its namespace's barrier and every fence it was part of fail.
pub(crate) fn lost(inner: &Arc<Inner>, link: &Arc<Link>) {
    let Some((slot, finalized, barrier)) = detach(inner, link) else {
        return;
    };
    drive_host_calls(inner);
    // ORDERING: Relaxed — set before `stop` closes the connections; a
    // stale read only makes a stopping server mark a client dead.
    if finalized || inner.stopping.load(Ordering::Relaxed) {
        // A stopping server closed this connection itself: the client is
        // not dead, its server is. It sees the end of the socket and ends
        // its waits with PMIX_ERR_LOST_CONNECTION; marking it dead here
        // would race that with a dead-participant failure at its peers.
        return;
    }
    inner.log(format_args!(
        "{:?} disconnected without finalize",
        link.proc
    ));
    if let Some(cell) = inner.barriers.peer(slot) {
        cell.set_state(peer_state::DEAD);
    }
    if let Some(b) = barrier.and_then(|b| inner.barriers.barrier(b)) {
        b.poison(Status::ERR_LOST_CONNECTION.0);
    }
    fence::proc_lost(inner, &link.proc);
}
