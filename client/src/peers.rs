//! The peer directory: what this client finds out about another proc from
//! shared memory alone — its job-level and proc-level values, its client
//! slot when it is local, whether it is connected, its modex store and its
//! inbound event ring. `get` (`data.rs`), the fence (`fence.rs`) and the
//! notify router (`event/notify.rs`) look peers up here and nowhere else.
//!
//! Store readers and ring handles are opened on first use and kept, one
//! per slot, for the life of the client.

use std::sync::Arc;

use pmix_core::proto::{keys, peer_state};
use pmix_core::{attrs, codec, Error, Nspace, Proc, Rank, Result, Status, Value};
use pmix_shm::layout::RegionKind;
use pmix_shm::ring::Ring;
use pmix_shm::store::StoreReader;
use pmix_shm::sync::{AtomicU64, Ordering};

use crate::Inner;

mod slot_cache;
pub(crate) use slot_cache::LocalRanks;

/// A value of the job store (`rank` may be `WILDCARD` for the job level).
pub(crate) fn job_value(inner: &Inner, ns: &str, rank: u32, key: &str) -> Option<Value> {
    inner
        .job
        .with(ns, rank, key, |b| codec::decode_value(b).ok())
        .flatten()
}

/// A job-level unsigned value of `ns` that fits 32 bits, whatever integer
/// type the host registered it with.
pub(crate) fn job_u32(inner: &Inner, ns: &str, key: &str) -> Option<u32> {
    match job_value(inner, ns, Rank::WILDCARD.0, key)? {
        Value::Uint32(x) => Some(x),
        v => v.to_u64().ok().and_then(|x| u32::try_from(x).ok()),
    }
}

/// The client slot of a local proc (`None`: not local, or not registered).
pub(crate) fn slot_of(inner: &Inner, proc: &Proc) -> Option<u32> {
    slot_cache::slot(inner, proc, || slot_in_store(inner, proc))
}

/// [`slot_of`] read from the job store (no per-thread answer kept).
fn slot_in_store(inner: &Inner, proc: &Proc) -> Option<u32> {
    match job_value(inner, proc.nspace.as_str(), proc.rank.0, keys::SLOT)? {
        Value::Uint32(s) => Some(s),
        _ => None,
    }
}

/// The local ranks of `ns` and their slots (`None`: the job store has no
/// local peers for it).
pub(crate) fn local_ranks(inner: &Inner, ns: &Nspace) -> Option<Arc<LocalRanks>> {
    slot_cache::local_ranks(inner, ns, || {
        let name = ns.as_str();
        let peers = match job_value(inner, name, Rank::WILDCARD.0, attrs::LOCAL_PEERS) {
            Some(Value::String(s)) => s,
            _ => return None,
        };
        let size = job_u32(inner, name, attrs::JOB_SIZE);
        let local = job_u32(inner, name, attrs::LOCAL_SIZE);
        let slots = peers
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|r| {
                let rank = r.trim().parse::<u32>().ok()?;
                // not through the per-proc answers: a large namespace
                // would push out the procs notified one by one
                slot_in_store(inner, &Proc::from_parts(ns.clone(), Rank(rank)))
            })
            .collect();
        Some(Arc::new(LocalRanks {
            slots,
            elsewhere: size.is_none() || size != local,
        }))
    })
}

/// A number for a new client of this process ([`Inner::serial`]).
pub(crate) fn next_client_serial() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    // ORDERING: Relaxed — only uniqueness matters.
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The state the server published for `slot` (`DEAD` for a slot the
/// table does not have).
pub(crate) fn state(inner: &Inner, slot: u32) -> u32 {
    inner
        .barriers
        .peer(slot)
        .map_or(peer_state::DEAD, |c| c.state())
}

/// Whether the client in `slot` is connected now.
pub(crate) fn connected(inner: &Inner, slot: u32) -> bool {
    state(inner, slot) == peer_state::CONNECTED
}

/// The reader of the modex store of the client in `slot`.
pub(crate) fn store(inner: &Inner, slot: u32) -> Option<&StoreReader> {
    let cell = inner.peers.get(slot as usize)?;
    if let Some(r) = cell.get() {
        return Some(r);
    }
    let r = inner
        .segment
        .attach::<StoreReader>(RegionKind::MODEX, slot)
        .ok()?;
    Some(cell.get_or_init(|| r))
}

/// The producer handle of the inbound event ring of the client in `slot`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a slot the segment does not have,
/// `PMIX_ERR_INIT` when the ring cannot be attached.
pub(crate) fn ring(inner: &Inner, slot: u32) -> Result<&Ring> {
    let cell = inner
        .rings
        .get(slot as usize)
        .ok_or_else(|| Error::bad_param(format!("no client slot {slot}")))?;
    if let Some(r) = cell.get() {
        return Ok(r);
    }
    let r = inner
        .segment
        .attach::<Ring>(RegionKind::CLIENT_RING, slot)
        .map_err(|e| Error::with_context(Status::ERR_INIT, format!("event ring {slot}: {e}")))?;
    Ok(cell.get_or_init(|| r))
}
