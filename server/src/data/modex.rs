//! The modex as the server sees it: each local client's card, read from
//! its modex store in the segment (or kept after it departed), the blob of
//! a node's cards for the host, and a card committed over the socket.

use pmix_core::codec::blob;
use pmix_core::proto;
use pmix_core::{Error, Info, Proc, Result, Scope, Status};
use pmix_shm::layout::RegionKind;
use pmix_shm::store::{StoreReader, StoreWriter};

use crate::data::card::Card;
use crate::inner::Inner;

/// Empties a slot's modex store (a previous occupant's card must not leak);
/// the store's generation afterwards (the new occupant's commits raise it).
pub(crate) fn clear_modex(inner: &Inner, slot: u32) -> u64 {
    match inner.segment.attach::<StoreWriter>(RegionKind::MODEX, slot) {
        Ok(mut w) => {
            if w.generation() > 0 {
                let _ = w.publish(pmix_shm::TableBuilder::new());
            }
            w.generation()
        }
        Err(_) => 0,
    }
}

/// The card of a registered local client, read from its modex store.
pub(crate) fn live_card(inner: &Inner, proc: &Proc) -> Option<Card> {
    let mut guard = inner.state.lock();
    let st = &mut *guard;
    let (slot, ended) = st
        .registry
        .clients
        .get(proc)
        .map(|c| (c.slot, !c.is_live()))?;
    let reader = match st.modex_readers.entry(slot) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            match inner.segment.attach::<StoreReader>(RegionKind::MODEX, slot) {
                Ok(r) => e.insert(r),
                Err(_) => {
                    return Some(Card {
                        entries: Vec::new(),
                        committed: false,
                        ended,
                    })
                }
            }
        }
    };
    let mut entries = Vec::new();
    let mut generation = 0;
    if let Ok(table) = reader.pin() {
        generation = table.generation();
        for (k, bytes) in table.keys_for(proc.nspace.as_str(), proc.rank.0) {
            if let Ok((scope, value)) = proto::decode_modex_value(bytes) {
                entries.push((k.to_owned(), scope, value));
            }
        }
    }
    drop(guard);
    Some(Card {
        entries,
        committed: generation > inner.commits.baseline(slot),
        ended,
    })
}

/// The card of a local proc, registered or departed; `None` when `proc`
/// is not (and was not) a client of this server.
pub(crate) fn card(inner: &Inner, proc: &Proc) -> Option<Card> {
    live_card(inner, proc).or_else(|| {
        inner.commits.departed(proc).map(|entries| Card {
            entries,
            committed: true,
            ended: true,
        })
    })
}

/// The committed entries of the local client `proc` (registered or
/// departed) visible to readers on other nodes (`remote == true`: scopes
/// REMOTE and GLOBAL) or on this node.
pub(crate) fn committed(inner: &Inner, proc: &Proc, remote: bool) -> Result<Vec<Info>> {
    let card = card(inner, proc).ok_or_else(|| {
        Error::with_context(Status::ERR_NOT_FOUND, format!("{proc:?} is not local"))
    })?;
    card.visible(remote)
        .map(|(k, _, v)| Info::new(k, v.clone()))
        .collect()
}

/// One modex blob holding the remote-visible data of `procs` (local ones).
pub(crate) fn node_blob(inner: &Inner, procs: &[Proc]) -> Result<Vec<u8>> {
    let mut entries = Vec::with_capacity(procs.len());
    for p in procs {
        entries.push((p.clone(), committed(inner, p, true)?));
    }
    blob::encode_modex(&entries)
}

/// Writes a socket-committed card into the client's modex store.
pub(crate) fn socket_commit(
    inner: &Inner,
    proc: &Proc,
    entries: &[(String, u8, pmix_core::Value)],
) -> Result<()> {
    let slot = inner
        .state
        .lock()
        .registry
        .slot_of(proc)
        .ok_or_else(|| Error::with_context(Status::ERR_NOT_FOUND, "not registered"))?;
    let mut w = inner
        .segment
        .attach::<StoreWriter>(RegionKind::MODEX, slot)
        .map_err(Error::from)?;
    // Keep what earlier commits wrote: start from the current table.
    let mut table = pmix_shm::TableBuilder::new();
    if let Ok(r) = inner.segment.attach::<StoreReader>(RegionKind::MODEX, slot) {
        if let Ok(pinned) = r.pin() {
            for (k, v) in pinned.keys_for(proc.nspace.as_str(), proc.rank.0) {
                table.insert(proc.nspace.as_str(), proc.rank.0, k, v.to_vec());
            }
        }
    }
    for (k, scope, v) in entries {
        if k.starts_with("pmix.") {
            return Err(Error::bad_param(format!("reserved key {k} cannot be put")));
        }
        table.insert(
            proc.nspace.as_str(),
            proc.rank.0,
            k,
            proto::encode_modex_value(Scope(*scope), v),
        );
    }
    w.publish(table).map_err(Error::from)?;
    Ok(())
}
